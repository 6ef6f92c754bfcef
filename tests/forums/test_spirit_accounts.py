"""Issue 23 items 3 and 4 on a live Spirit 0.14.3 forum: the user look-up through the
private-topic form, the category check, and a PM to no user refused for good."""

from __future__ import annotations

import uuid

import pytest

from tianshen.forum.base import ForumError, Undeliverable
from tianshen.forum.spirit import SpiritForum

from .spirit_server import SpiritServer


def test_spirit_knows_its_users_and_categories_and_refuses_a_pm_to_no_user(spirit_server: SpiritServer) -> None:
    gm = SpiritForum(spirit_server.base_url, spirit_server.gm_username, spirit_server.gm_password,
                     category=spirit_server.category, min_write_interval_s=0)
    gm.login()
    player = next(iter(spirit_server.players))
    assert gm.user_exists(player) is True
    assert gm.user_exists(player.upper()) is True  # Spirit's usernames are case-insensitive
    assert gm.user_exists(f"nobody-{uuid.uuid4().hex[:8]}") is False
    assert gm.check_board() == f"{spirit_server.category} (category {spirit_server.category_id})"
    typo = SpiritForum(spirit_server.base_url, spirit_server.gm_username, spirit_server.gm_password,
                       category=spirit_server.category + "x", min_write_interval_s=0)
    typo.login()
    with pytest.raises(ForumError, match="is not on the forum"):
        typo.check_board()
    with pytest.raises(Undeliverable, match="no such user"):
        gm.send_pm(f"nobody-{uuid.uuid4().hex[:8]}", "测试", "正文", f"k:{uuid.uuid4().hex}")
    assert gm.user_exists(player) is True  # the refused form left the session as it was
    gm.close()
    typo.close()
