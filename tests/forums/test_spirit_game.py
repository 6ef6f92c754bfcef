"""End to end: a whole classic_10 game on a live Spirit forum.  The simulated players log in
as themselves and send real private messages and vote posts; the bot acts only through the
forum, and the deadlines fall by the forum's clock (timings shortened to seconds)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from tianshen.core.ruleset import GameSetup, Seat
from tianshen.service.driver import GameDriver
from tianshen.sim.live import play_live
from tianshen.store import Store

RULESETS = Path(__file__).resolve().parents[2] / "rulesets"
FAST = """
include = ["{base}"]
title = "经典杀人游戏（10人，测试用快速时间）"

[timing]            # seconds instead of hours, in the proportions of 002
night_hours = {night}
day_hours = {day}
vote_opens_hour = {vote}
ld_extension_hours = {ext}
ld_hours = {ld}
summon_round_hours = {summon}
"""


@pytest.fixture
def fast_classic_10(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    s = 1 / 3600
    (tmp_path / "classic_10_fast.toml").write_text(
        FAST.format(base=(RULESETS / "classic_10.toml").as_posix(), night=30 * s, day=35 * s, vote=8 * s,
                    ext=24 * s, ld=12 * s, summon=6 * s),
        encoding="utf-8",
    )
    monkeypatch.setenv("TIANSHEN_RULESETS", str(tmp_path))
    return "classic_10_fast"


def test_a_whole_classic_10_game_on_spirit(spirit_server_factory, fast_classic_10: str, tmp_path: Path) -> None:
    from tianshen.forum.spirit import SpiritForum, SpiritPlayers

    spirit_server = spirit_server_factory()  # a forum of its own: no other test's PMs in it
    forum = SpiritForum(spirit_server.base_url, spirit_server.gm_username, spirit_server.gm_password,
                        min_write_interval_s=0)
    forum.login()
    players = SpiritPlayers(spirit_server.base_url, spirit_server.players, forum.account)
    names = list(spirit_server.players)[:10]
    store = Store(f"sqlite:///{tmp_path / 'game.db'}")
    store.upgrade()
    setup = GameSetup(seats=[Seat(name=n) for n in names], seed=11, start=forum.now())
    driver = GameDriver.create(store, forum, "spirit-e2e", fast_classic_10, setup)

    final = play_live(driver, players, forum.now, poll_seconds=0.5, max_seconds=900)

    assert final.winner in ("civilians", "killers")
    assert final.winner == driver.ruleset.check_victory(final)
    assert not store.pending_outbox(driver.game_id)  # everything the bot wrote reached the forum
    # every PM got its answer (001 §2.12 / 0.3: the bot answers every PM with a receipt)
    received = Counter(i.sender for i in store.inbound(driver.game_id) if i.source == "pm")
    answered = Counter(o.target for o in store.outbox(driver.game_id) if o.kind == "pm" and o.subject == "天神回复")
    assert received and received == answered
    for name in names:  # and the player really has them in his private topics
        from_gm = [pm for pm in players.inbox(name) if pm.sender == forum.account]
        assert len(from_gm) >= answered[name] + 1  # + the role PM
    # the votes were read from the forum's vote threads
    assert any(i.source == "post" for i in store.inbound(driver.game_id))
    store.close()
