"""Issue 13 item 6: text a database or forum cannot store is cleaned at intake (core.text),
by the validators of PmIn, PostIn and GmIn, so the forum, replay and admin paths are all
covered.  A NUL byte used to stop the game on PostgreSQL (psycopg DataError in commit_step)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from tianshen.core.model import GmIn, InputEnvelope, PmIn, PostIn
from tianshen.core.ruleset import GameSetup, Seat
from tianshen.core.text import clean, clean_value
from tianshen.forum.memory import MemoryBoard
from tianshen.service.driver import GameDriver
from tianshen.sim.rehearsal import VirtualClock
from tianshen.store import Store

START = datetime(2026, 1, 1, 20, tzinfo=UTC)
ROLES = {"甲": "killer", "乙": "killer", "丙": "diviner", "丁": "binder", "戊": "curser",
         "己": "blesser", "庚": "commoner", "辛": "commoner", "壬": "commoner", "癸": "commoner"}
DIRTY = "束魂\x00 丙\r\n\ud800\x1b[31m\x85"


def test_clean_drops_controls_and_replaces_lone_surrogates() -> None:
    assert clean("a\x00b") == "ab"
    assert clean("杀\x01\x08\x0b\x0c\x0e\x1f\x7f\x80\x9f 庚") == "杀 庚"
    assert clean("一\r\n二\r三\t四\n") == "一\n二\r三\t四\n"  # \t \n \r stay; \r\n becomes \n
    assert clean("x\ud800y") == "x\ufffdy"
    assert clean("\udfff") == "\ufffd"
    assert clean("\ud83d\ude00") == "\U0001f600"  # a pair left as two halves is joined
    assert clean("猫有n条命 😀") == "猫有n条命 😀"
    clean("x\ud800").encode("utf-8")  # storable


def test_clean_refuses_what_is_not_text() -> None:
    with pytest.raises(TypeError):
        clean(None)  # type: ignore[arg-type]


def test_clean_value_reaches_inside_lists_and_dicts() -> None:
    assert clean_value({"a\x00": ["b\x00", 3, ("c\x01",)], "n": None}) == {"a": ["b", 3, ("c",)], "n": None}


def test_inputs_are_cleaned_by_their_validators() -> None:
    pm = PmIn(id="1", sender="丁\x00", at=START, text=DIRTY)
    assert (pm.sender, pm.text) == ("丁", "束魂 丙\n\ufffd[31m")
    post = PostIn(id="2", thread="vote:1", author="甲\x00", at=START, text="投票\x00 丙", edited=True,
                  original_text="投票\x00 乙")
    assert (post.author, post.text, post.original_text) == ("甲", "投票 丙", "投票 乙")
    assert PostIn(id="3", thread="main", author="甲", at=START, text="x").original_text is None
    gm = GmIn(id="3", at=START, command="enter-action\x00", reason="补录\x00",
              args={"player": "丁\x00", "text": DIRTY, "hours": 2})
    assert (gm.command, gm.reason, gm.args) == ("enter-action", "补录", {"player": "丁", "text": "束魂 丙\n\ufffd[31m",
                                                                          "hours": 2})
    stored = InputEnvelope.model_validate_json(InputEnvelope(input=pm).model_dump_json()).input
    assert stored == pm  # the stored form reads back the same
    with pytest.raises(TypeError):
        PmIn(id="4", sender="丁", at=START, text=None)  # type: ignore[arg-type]


def test_a_pm_with_nul_and_a_lone_surrogate_is_folded_and_committed(store: Store) -> None:
    """On SQLite and, with TIANSHEN_TEST_DATABASE_URL, on PostgreSQL (which refuses \\x00)."""
    clock = VirtualClock(START)
    board = MemoryBoard(clock.now)
    forum = board.gm()
    forum.login()
    setup = GameSetup(seats=[Seat(name=n) for n in ROLES], seed=5, start=START, fixed_roles=ROLES)
    driver = GameDriver.create(store, forum, "nul", "classic_10", setup)
    board.pm("丁", forum.account, DIRTY)
    clock.set(START + timedelta(hours=2))
    driver.advance(clock.now())
    [inbound] = [i for i in store.inbound(driver.game_id) if i.sender == "丁"]
    assert inbound.text == "束魂 丙\n\ufffd[31m"
    assert driver.state().data["subs"]["soulbind"] == {"丁": "丙"}  # understood, and the state committed
    replies = [x for x in board.activity() if getattr(x, "recipient", None) == "丁"]
    assert len(replies) == 2 and "丙" in replies[-1].text  # the role PM, then the receipt
    assert not store.pending_outbox(driver.game_id)
    clock.set(START + timedelta(hours=3))
    driver.advance(clock.now())  # the next tick runs too
    assert driver.state().phase.label == "night 1"
