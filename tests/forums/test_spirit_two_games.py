"""Issue 27 item 2 on a live Spirit forum: two classic_8 games (timings shortened to
seconds) on one category and one GM account, served by one daemon, starting apart.  Both
have the same thread titles in the rules (「第1天投票帖」, the player list); each gets its own
threads, named after it, its own votes and its own end.

The games move by what the players do (issue 33): the simulated players PM /done once they
acted, so nights and votes end early, and the deadlines are long enough (EVENT_TIMINGS_S)
that a loaded machine never makes a player miss one."""

from __future__ import annotations

import os
import time
from datetime import timedelta
from pathlib import Path

import pytest

from forums.test_spirit_game import FAST, RULESETS
from tianshen.config import load_config
from tianshen.service.daemon import Daemon, ForumClock
from tianshen.sim import sims_for
from tianshen.store import Store

pytestmark = pytest.mark.live

GAP_S = float(os.environ.get("TIANSHEN_TWO_GAMES_GAP_S", "10"))  # the second game starts this much later
# seconds; nights and votes end early once everyone is done, so their length is only the
# margin a slow machine has.  The vote thread opens `vote` into the day; a tie's LD step
# and summon rounds have no early end.
EVENT_TIMINGS_S = dict(night=600, day=600, vote=3, ext=120, ld=60, summon=30)
POLL_S = float(os.environ.get("TIANSHEN_TWO_GAMES_POLL_S", "0.5"))  # the daemon's poll, from tick start to tick start
MAX_PHASES = 16  # classic_8 is over within four nights and days, each with LD and summon rounds
SEED = 8  # both games' deal: classic_8 over after night 2 on the memory board (seed 5: after night 3)


@pytest.fixture
def fast_classic_8(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    hours = {k: v / 3600 for k, v in EVENT_TIMINGS_S.items()}
    (tmp_path / "classic_8_fast.toml").write_text(
        FAST.format(base=(RULESETS / "classic_8.toml").as_posix(), **hours).replace("10人", "8人"),
        encoding="utf-8",
    )
    monkeypatch.setenv("TIANSHEN_RULESETS", str(tmp_path))
    return "classic_8_fast"


def test_two_games_of_one_variant_on_spirit(spirit_server_factory, fast_classic_8: str, tmp_path: Path) -> None:
    from tianshen.forum.spirit import SpiritForum, SpiritPlayers

    server = spirit_server_factory()  # a forum of its own: no other test's threads in it
    forum = SpiritForum(server.base_url, server.gm_username, server.gm_password, min_write_interval_s=0)
    forum.login()
    players = SpiritPlayers(server.base_url, server.players, forum.account)
    names = list(server.players)[:16]
    start = forum.now() + timedelta(seconds=3)
    games = {"春季局": (names[:8], start), "夏季局": (names[8:], start + timedelta(seconds=GAP_S))}
    tables = "".join(
        f'[[game]]\nname = "{name}"\nruleset = "{fast_classic_8}"\nseed = {SEED}\nstart = {at.isoformat()}\n'
        f'players = [{", ".join(f"{{ name = {n!r} }}".replace(chr(39), chr(34)) for n in seats)}]\n'
        for name, (seats, at) in games.items())
    db = f"sqlite:///{tmp_path / 'board.db'}"
    path = tmp_path / "board.toml"
    path.write_text(f'[database]\nurl = "{db}"\n[forum]\nkind = "spirit"\nbase_url = "{server.base_url}"\n'
                    f'username = "{server.gm_username}"\npassword = "{server.gm_password}"\n[run]\npoll_seconds = 5\n\n{tables}',
                    encoding="utf-8")
    daemon = Daemon(load_config(path), forum=forum, clock=ForumClock(forum))
    give_up = time.monotonic() + GAP_S + MAX_PHASES * max(EVENT_TIMINGS_S.values())
    while not daemon.all_over():
        assert time.monotonic() < give_up, [g.phase_label for g in daemon.store.list_games()]
        tick_at = time.monotonic()
        daemon.tick()
        for served in daemon.served.values():  # the players act through their own accounts
            if served.sims is None:
                seed = served.driver.state().seed if served.driver.is_started() else SEED
                served.sims = sims_for("classic", players, forum.account, seed, done=True)
        # the daemon's poll interval, from the start of one tick to the next (as its scheduler
        # does): a tick that took longer is followed at once
        time.sleep(max(0.0, POLL_S - (time.monotonic() - tick_at)))

    store = Store(db)
    seen: set[str] = set()
    for game in store.list_games():
        assert game.status == "over" and game.winner, game.name
        threads = {key: tid for tid, key in store.threads(game.id).items()}
        assert {"main", "vote:1"} <= set(threads), game.name
        assert not seen & set(threads.values()), game.name  # no thread of the other game's
        seen |= set(threads.values())
        for key, tid in threads.items():
            title = forum._http.topic_page(int(tid), 1, private=False).select_one("h1")
            assert title is not None and f"【{game.name}】" in title.get_text(), (game.name, key)
        own = {p["name"] for p in game.config["setup"]["seats"]}
        votes = [i for i in store.inbound(game.id) if i.source == "post"]
        assert votes and {v.sender for v in votes} <= own, game.name  # its own players' votes only
        end = forum.read_thread(threads["main"], None)[-1]
        assert end.author == forum.account and "获胜" in end.text, game.name  # its end, in its own thread
        assert not store.pending_outbox(game.id)
    assert store.inbound(store.board_game(daemon.board_key)) == []  # no PM was taken for a stranger's
    store.close()
    daemon.store.close()
