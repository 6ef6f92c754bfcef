"""Issue 27 items 2 and 3: several games on one board.

Two games of one variant have the same thread titles (「第1天投票帖」, the player list) and
often the same texts; every thread names its game, and each game finds again only its own
threads and posts, on a board that forgets write keys on a restart (like Discuz and
Spirit).  A player in two games is told in every PM which game it is from, and what to
write first when he answers it."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from daemon_config import rehearsal_daemon, tick_to_the_end
from tianshen.config import load_config
from tianshen.service.daemon import Daemon
from tianshen.sim import DaemonPlayers
from tianshen.sim.rehearsal import VESTS
from tianshen.store import Store

GAMES = (("测试局A", "2026-01-01T20:00:00Z", 0), ("测试局B", "2026-01-01T20:02:00Z", 8))  # two minutes apart


def _config(tmp_path: Path, db: str, games: tuple[tuple[str, str, int], ...] = GAMES, shared: str = "",
            simulate: bool = True, scale: int = 36000, poll: float = 0.05) -> Path:
    tables = []
    for name, start, first in games:
        players = [f'{{ name = "{v}" }}' for v in VESTS[first:first + 8]]
        if shared:
            players[-1] = f'{{ name = "{shared}" }}'
        tables.append(f'[[game]]\nname = "{name}"\nruleset = "classic_8"\nseed = 4\nstart = {start}\n'
                      f'players = [{", ".join(players)}]\n')
    path = tmp_path / "board.toml"
    path.write_text(f'[database]\nurl = "{db}"\n[forum]\nkind = "memory"\nremembers_keys = false\n'
                    f"[run]\nsimulate = {str(simulate).lower()}\ntime_scale = {scale}\npoll_seconds = {poll}\n\n"
                    + "\n".join(tables), encoding="utf-8")
    return path


def test_two_games_of_one_variant_each_keep_their_own_threads_votes_and_end(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'board.db'}"
    daemon = rehearsal_daemon(load_config(_config(tmp_path, db)), DaemonPlayers())  # signed up at the start
    tick_to_the_end(daemon)  # by the game's clock, not the machine's
    board = daemon.board
    assert board is not None and daemon.forum.remembers_keys is False
    store = Store(db)
    titles = dict(board.threads())
    seen: set[str] = set()
    for game in store.list_games():
        assert game.status == "over" and game.winner, game.name
        threads = {key: tid for tid, key in store.threads(game.id).items()}
        assert {"main", "vote:1"} <= set(threads), game.name
        assert not seen & set(threads.values()), game.name  # no thread of the other game's
        seen |= set(threads.values())
        for key, tid in threads.items():
            assert titles[tid].startswith(f"【{game.name}】"), (game.name, key, titles[tid])
        own = {p["name"] for p in game.config["setup"]["seats"]}
        votes = [i for i in store.inbound(game.id) if i.source == "post"]
        assert votes and {v.sender for v in votes} <= own, game.name  # its own players' votes only
        end = board.thread_posts(threads["main"])[-1]
        assert end.author == daemon.forum.account and "获胜" in end.text, game.name  # its end, in its thread
        assert not store.pending_outbox(game.id)
    store.close()
    daemon.store.close()


def test_a_player_in_two_games_is_told_which_game_every_pm_is_from(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'board.db'}"
    both = "双栖客"
    daemon = Daemon(load_config(_config(tmp_path, db, shared=both, simulate=False, scale=60, poll=30)), players=DaemonPlayers())
    board = daemon.board
    assert board is not None
    gm = daemon.forum.account
    ids = {g.name: g.id for g in daemon.store.list_games()}
    daemon.clock.game_start = daemon.clock.now().replace(minute=5)  # 20:05: both games are due
    daemon.tick()  # deals both games
    roles = [m for m in board.inbox(both) if m.sender == gm]
    assert len(roles) == 2
    for name, pm in zip(("测试局A", "测试局B"), roles, strict=True):
        first = pm.text.splitlines()[0]
        assert first.startswith(f"【{name}】") and f"“{name}”" in first and f"“{ids[name]}号”" in first, pm.text
    alone = [m for m in board.inbox(VESTS[0]) if m.sender == gm]
    assert alone and not alone[0].text.startswith("【"), alone[0].text  # in one game: no header
    board.pm(both, gm, f"{ids['测试局B']}号 你好")
    daemon.tick()
    receipts = [m for m in board.inbox(both) if m.sender == gm][2:]
    assert len(receipts) == 1 and receipts[0].text.startswith("【测试局B】"), [m.text for m in receipts]
    board.pm(both, gm, "你好")  # not said which: the board's refusal, with the same words for the prefix
    daemon.tick()
    refusal, = [m for m in board.inbox(both) if m.sender == gm][3:]
    assert "测试局A（1号）" in refusal.text and "第一行先写" in refusal.text
    daemon.store.close()


def test_a_game_restarted_between_trying_a_thread_and_writing_it_does_not_take_the_other_games(
        tmp_path: Path, monkeypatch) -> None:
    """Two games of one variant dealt in the same minute with the same seats, seed and salt:
    their player lists are the same text.  The second dies after its try is on record and
    before the write; after the restart it asks the board whether the write arrived — and
    must not take the first game's thread for it (22eaf70: the same title and text)."""
    from datetime import UTC, datetime

    from tianshen.core.ruleset import GameSetup
    from tianshen.forum.memory import MemoryBoard
    from tianshen.service import crash
    from tianshen.service.driver import GameDriver
    from tianshen.sim.rehearsal import VirtualClock, default_seats

    class Crash(BaseException):
        pass

    start = datetime(2026, 1, 1, 20, tzinfo=UTC)
    clock = VirtualClock(start)
    board = MemoryBoard(clock.now, remembers_keys=False)
    store = Store(f"sqlite:///{tmp_path / 'g.db'}")
    store.upgrade()
    setup = GameSetup(seats=default_seats(8), seed=3, start=start, salt="ab" * 16)
    ids = [GameDriver.register(store, name, "classic_8", setup, board="b") for name, *_ in GAMES]

    def driver(game_id: int) -> GameDriver:
        forum = board.gm()
        forum.login()
        return GameDriver(store, forum, game_id)

    driver(ids[0]).start()
    clock.set(start + timedelta(seconds=20))

    def point(name: str) -> None:
        if name == "before-write":
            raise Crash(name)

    monkeypatch.setattr(crash, "point", point)
    try:
        driver(ids[1]).start()
    except Crash:
        pass
    monkeypatch.setattr(crash, "point", lambda name: None)
    driver(ids[1]).flush()  # the restarted process
    a, b = (store.thread_id(g, "main") for g in ids)
    assert a and b and a != b
    assert board.thread_title(b).startswith("【测试局B】") and len(board.thread_posts(a)) == 1


def test_a_title_names_its_game_once_even_when_the_name_is_part_of_it() -> None:
    from tianshen.service.identity import titled

    assert titled("《游戏者名单》经典杀人游戏（8人）", "经典") == "【经典】《游戏者名单》经典杀人游戏（8人）"
    assert titled("【经典】第1天投票帖", "经典") == "【经典】第1天投票帖"
    assert titled(None, "经典") is None


def test_a_game_signed_up_but_not_dealt_takes_no_part_in_pm_routing(tmp_path: Path) -> None:
    """Issue 32 item 4: a player in a running game and in one signed up but not dealt yet
    was refused with 「你同时在几局游戏中…」 and lost his action.  Only dealt games route."""
    db = f"sqlite:///{tmp_path / 'board.db'}"
    both = "双栖客"
    games = (("测试局A", "2026-01-01T20:00:00Z", 0), ("测试局B", "2026-01-01T23:00:00Z", 8))  # B: three hours on
    config = load_config(_config(tmp_path, db, games, shared=both, simulate=False, scale=60, poll=30))
    daemon = Daemon(config, players=DaemonPlayers())
    board = daemon.board
    assert board is not None
    gm = daemon.forum.account
    ids = {g.name: g.id for g in daemon.store.list_games()}
    daemon.clock.game_start = daemon.clock.now().replace(minute=5)  # 20:05: A is due, B is not
    daemon.tick()  # deals A only
    assert {g.name: g.status for g in daemon.store.list_games()}["测试局B"] == "new"
    pm_id = board.pm(both, gm, "你好")
    daemon.tick()
    answers = [m.text for m in board.inbox(both) if m.sender == gm][1:]  # after A's role PM
    assert not [t for t in answers if "没有被接受" in t], answers  # not refused as undecided
    assert daemon.store.has_inbound(ids["测试局A"], "pm", str(pm_id))  # A took it
    assert len(answers) == 1, answers
    daemon.store.close()


def _set_clock(daemon: Daemon, at) -> None:
    """The rehearsal clock at `at` now (it runs on at `time_scale`)."""
    daemon.clock.real_start = daemon.clock.real_now()
    daemon.clock.game_start = at


def test_a_pm_sent_before_its_game_was_signed_up_is_not_its_input(tmp_path: Path) -> None:
    """Issue 31 item 6: PMs sent a minute or two before a game's sign-up became its inputs
    at the deal (answered 「没有看懂」).  Older than the game's sign-up, a PM is not the game's:
    the board answers it as any stranger's."""
    from datetime import UTC, datetime

    db = f"sqlite:///{tmp_path / 'board.db'}"
    a = (("测试局A", "2026-01-01T20:00:00Z", 0),)
    both = (*a, ("测试局B", "2026-01-01T20:07:00Z", 8))
    daemon = Daemon(load_config(_config(tmp_path, db, a, simulate=False, scale=1, poll=30)), players=DaemonPlayers())
    board = daemon.board
    assert board is not None
    gm, early = daemon.forum.account, VESTS[8]  # one of B's players
    _set_clock(daemon, datetime(2026, 1, 1, 20, 5, tzinfo=UTC))
    daemon.tick()  # deals A
    _set_clock(daemon, datetime(2026, 1, 1, 20, 5, 30, tzinfo=UTC))
    pm_id = board.pm(early, gm, "杀 白狐")  # B does not exist yet
    _set_clock(daemon, datetime(2026, 1, 1, 20, 6, tzinfo=UTC))
    (tmp_path / "b").mkdir()
    daemon._sign_up(load_config(_config(tmp_path / "b", db, both, simulate=False)).games()[1])
    _set_clock(daemon, datetime(2026, 1, 1, 20, 8, tzinfo=UTC))
    daemon.tick()  # deals B and reads the PM
    daemon.tick()
    b = daemon.store.game_id("测试局B")
    assert b is not None and not daemon.store.has_inbound(b, "pm", str(pm_id))
    answers = [m.text for m in board.inbox(early) if m.sender == gm and m.subject.startswith("天神回复")]
    assert len(answers) == 1 and "不在本版正在进行的任何一局游戏中" in answers[0], answers
    daemon.store.close()


def test_a_rows_item_that_needs_no_mark_is_kept_as_it_is() -> None:
    """Issue 37: a reply (no title) and a PM to someone in no other game are not copied; a
    title without the game's name and a PM to a player of another game are marked."""
    from tianshen.service.identity import mark_game
    from tianshen.store import OutboxItem

    reply = OutboxItem(kind="post", target="main", body="公告")
    titled = OutboxItem(kind="post", target="main", body="公告", title="【甲局】名单")
    pm = OutboxItem(kind="pm", target="乙", body="你的身份")
    new_thread = OutboxItem(kind="post", target="main", body="公告", title="名单")
    other = OutboxItem(kind="pm", target="丙", body="你的身份")
    out = mark_game([reply, titled, pm, new_thread, other], "甲局", 3, ({"丙"}, set()))
    assert out[:3] == [reply, titled, pm] and all(a is b for a, b in zip(out, [reply, titled, pm], strict=False))
    assert out[3].title == "【甲局】名单" and out[4].body.startswith("【甲局】这条短消息来自甲局（3号）。")
