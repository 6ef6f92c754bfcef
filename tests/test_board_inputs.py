"""A Monte Carlo board makes its inputs without the class call (issue 37): each is what the
class call makes, its strings cleaned and checked as every input's are."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from tianshen.core.model import PmIn, PostIn
from tianshen.sim.montecarlo import CoreBoard

AT = datetime(2026, 1, 1, 20, 0, tzinfo=UTC)
TEXTS = ["投票 甲", "杀 乙\n夜色", "a\x00b\r\nc\x85", "\ud800x\udc00", "\ud83d\ude00", "投票　甲\t"]


@pytest.mark.parametrize("text", TEXTS)
def test_the_boards_inputs_are_the_class_calls(text: str) -> None:
    board = CoreBoard([AT])
    board.pm("甲" + text, "神的使者", text)
    board.post("乙" + text, "vote:1", text)
    pm, post = board.take()
    assert type(pm) is PmIn and type(post) is PostIn
    assert pm == PmIn(id="1", sender="甲" + text, at=AT, text=text)
    assert post == PostIn(id="2", thread="vote:1", author="乙" + text, at=AT, text=text)
    assert pm.model_dump_json() == PmIn(id="1", sender="甲" + text, at=AT, text=text).model_dump_json()
    assert post.model_dump_json() == PostIn(id="2", thread="vote:1", author="乙" + text, at=AT,
                                            text=text).model_dump_json()
    assert "\x00" not in pm.text + post.author and post.edited is False and post.original_text is None


def test_the_board_refuses_what_the_class_refuses() -> None:
    board = CoreBoard([AT])
    with pytest.raises(TypeError):
        board.pm("甲", "神的使者", b"bytes")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        board.post(None, "vote:1", "投票 甲")  # type: ignore[arg-type]
    board = CoreBoard(["not a time"])  # type: ignore[list-item]
    with pytest.raises(TypeError):
        board.pm("甲", "神的使者", "x")
