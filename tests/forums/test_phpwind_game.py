"""Issue 39: a whole rehearsed game through the PHPWind adapter, over a board made of the
recorded PHPWind pages (`phpwind_live.py`).

The driver is the one `run` uses and acts only through `PhpwindForum`: the three-step login,
the PMs read from the dialog list and dialog pages (minute times), the vote threads read by
pid and floor, the threads, replies and PMs written with the csrf token.  The simulated
players act on the board's state; a virtual clock jumps from deadline to deadline and is the
board's clock too (its `Date` header).
"""

from __future__ import annotations

from collections import Counter
from datetime import timedelta
from pathlib import Path

import pytest

from forums.phpwind_fixtures import needs_recordings
from tianshen.core.rng import derived_salt
from tianshen.core.ruleset import GameSetup
from tianshen.service.driver import GameDriver
from tianshen.sim import sims_for
from tianshen.sim.rehearsal import DEFAULT_START, MAX_STEPS, VirtualClock, default_seats, rehearse
from tianshen.specs import load_spec
from tianshen.store import Store

pytestmark = needs_recordings


@pytest.mark.parametrize(("variant", "seed"), [("classic_8", 5), ("classic_8", 7)])
def test_a_whole_game_through_the_phpwind_adapter(tmp_path: Path, variant: str, seed: int) -> None:
    from forums.phpwind_live import BASE, GM_NAME, LivePhpwind, PhpwindPlayers
    from tianshen.forum.phpwind import PhpwindForum

    clock = VirtualClock(DEFAULT_START)
    board = LivePhpwind(clock.now)
    ticks = [0.0]
    forum = PhpwindForum(BASE, GM_NAME, "gm123456", board.fid, transport=board.transport(), clock=clock.now,
                         flood_interval_s=0, sleep=lambda s: ticks.__setitem__(0, ticks[0] + s),
                         monotonic=lambda: ticks[0])
    forum.login()
    spec = load_spec(variant)
    seats = default_seats(spec.players)
    for seat in seats:
        board.uid(seat.name), board.uid(seat.forum_name)  # registered accounts
    store = Store(f"sqlite:///{tmp_path / 'g.db'}", durable=False)
    store.upgrade()
    setup = GameSetup(seats=seats, seed=seed, salt=derived_salt(seed), start=DEFAULT_START)
    driver = GameDriver.create(store, forum, "phpwind-rehearsal", variant, setup)
    players = PhpwindPlayers(board)
    sims = sims_for(spec.ruleset, players, forum.account, seed)
    for _ in range(MAX_STEPS):
        state = driver.state()
        deadline = driver.ruleset.next_deadline(state)
        if deadline is None:
            break
        clock.set(min(clock.now() + timedelta(hours=1), deadline.at - timedelta(minutes=1)))
        sims.act(state, clock.now(), lambda key: driver.sender.thread_id(driver.game_id, key))
        clock.set(deadline.at)
        driver.advance(clock.now())
    else:
        pytest.fail(f"the game did not end within {MAX_STEPS} steps")
    state = driver.state()
    assert state.winner, state.phase
    game_id = driver.game_id
    assert not store.pending_outbox(game_id)  # every message went out through the adapter
    received = Counter(i.sender for i in store.inbound(game_id) if i.source == "pm")
    assert received, "no PM of a player reached the game"
    answered = Counter(o.target for o in store.outbox(game_id) if o.kind == "pm" and o.subject == "天神回复")
    assert received == answered  # every PM read once and answered once
    votes = [i for i in store.inbound(game_id) if i.source == "post"]
    assert votes and all(i.text for i in votes)  # the votes, read from the vote threads
    for seat in seats:  # the role PM in the player's own account, receipts in the 马甲's dialog
        assert any(pm.sender == GM_NAME for pm in players.inbox(seat.forum_name)), seat
    titles = [t.title for t in board.threads.values()]
    assert any("投票" in t for t in titles), titles
    # the same game as on the built-in board: the same winner from the same PMs and votes
    same = rehearse(variant, seed, f"sqlite:///{tmp_path / 'memory.db'}")
    assert same.winner == state.winner
    memory = Store(f"sqlite:///{tmp_path / 'memory.db'}")
    assert sorted((i.source, i.sender, i.text) for i in memory.inbound(same.game_id)) == \
        sorted((i.source, i.sender, i.text) for i in store.inbound(game_id))
    memory.close()
    store.close()
