"""Issue 38 item 2: with several games on one board, a post read from the whole board
(`watch_board`) belongs to the game whose thread it is in, or whose player wrote it — never to
every game that watches the board."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from board_game import START
from classic_helpers import ROLES_10
from tianshen.core.ruleset import GameSetup, Seat
from tianshen.forum.memory import MemoryBoard
from tianshen.service.driver import GameDriver
from tianshen.sim.rehearsal import VirtualClock
from tianshen.store import Store

BOARD = "memory:shared"
THEIRS = {f"{n}二": r for n, r in ROLES_10.items()}  # the other game's players: 甲二, 乙二 …


@pytest.fixture
def watching(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    base = Path(__file__).resolve().parents[1] / "rulesets" / "classic_10.toml"
    (tmp_path / "classic_10_watch.toml").write_text(
        f'include = ["{base.as_posix()}"]\n[options]\nwatch_board = true\n', encoding="utf-8")
    monkeypatch.setenv("TIANSHEN_RULESETS", str(tmp_path))
    return tmp_path


def _game(store: Store, board: MemoryBoard, name: str, roles: dict[str, str]) -> GameDriver:
    forum = board.gm()
    forum.login()
    setup = GameSetup(seats=[Seat(name=n, forum_name=n) for n in roles], seed=5, start=START, fixed_roles=roles)
    driver = GameDriver(store, forum, GameDriver.register(store, name, "classic_10_watch", setup, board=BOARD))
    driver.start()
    return driver


def test_each_game_takes_only_its_own_board_posts(watching: Path) -> None:
    clock = VirtualClock(START)
    board = MemoryBoard(clock.now)
    store = Store(f"sqlite:///{watching / 'board.db'}")
    store.upgrade()
    ours, theirs = _game(store, board, "甲局", ROLES_10), _game(store, board, "乙局", THEIRS)
    at = START + timedelta(hours=1)
    clock.set(at)
    their_main = store.thread_id(theirs.game_id, "main")
    assert their_main is not None
    board.post("丙二", their_main, "乙局主帖里的话")  # their thread: theirs only
    chat = board.new_thread("丙", "闲聊", "甲局玩家在公共帖")  # our player, no game's thread: ours
    board.post("丁二", chat, "乙局玩家在公共帖")  # their player, no game's thread: theirs
    board.post("路人", chat, "谁也不是")  # nobody's player, no game's thread: both may read it
    ours.advance(at)
    theirs.advance(at)

    def texts(driver: GameDriver) -> set[str]:
        return {i.text for i in store.inbound(driver.game_id) if i.source == "post"}

    assert texts(ours) == {"甲局玩家在公共帖", "谁也不是"}
    assert texts(theirs) == {"乙局主帖里的话", "乙局玩家在公共帖", "谁也不是"}
    store.close()


def test_each_gm_page_lists_only_its_own_games_inputs(watching: Path) -> None:
    """The same board seen on the GM pages (issue 38 item 2): each game's 「本时段的输入」 holds
    its own posts, never the other game's."""
    import re
    import warnings

    from tianshen.web.app import WebSettings, create_app

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from starlette.testclient import TestClient

    clock = VirtualClock(START)
    board = MemoryBoard(clock.now)
    store = Store(f"sqlite:///{watching / 'board.db'}")
    store.upgrade()
    ours, theirs = _game(store, board, "甲局", ROLES_10), _game(store, board, "乙局", THEIRS)
    clock.set(START + timedelta(hours=1))
    board.post("丙二", store.thread_id(theirs.game_id, "main"), "乙局主帖里的话")
    chat = board.new_thread("丙", "闲聊", "甲局玩家在公共帖")
    board.post("丁二", chat, "乙局玩家在公共帖")
    ours.advance(clock.now())
    theirs.advance(clock.now())
    token = "gm-token-for-board-routing"
    c = TestClient(create_app(store, WebSettings(token=token)))

    def inputs(driver: GameDriver) -> str:
        html = c.get(f"/game/{driver.game_id}/gm", headers={"Authorization": f"Bearer {token}"}).text
        return re.search(r'<section class="card" id="inputs">(.*?)</section>', html, re.S).group(1)

    mine, other = inputs(ours), inputs(theirs)
    assert "甲局玩家在公共帖" in mine and "乙局" not in mine
    assert "乙局主帖里的话" in other and "乙局玩家在公共帖" in other and "甲局玩家" not in other
    store.close()
