"""003 §12.4 (issue 5): while the board cannot be read no deadline fires — nobody could post —
and an outage longer than the configured time extends the phase by its length, as a
logged GM override."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from board_game import board_game

START = datetime(2026, 1, 1, 20, tzinfo=UTC)


ROLES = {"甲": "killer", "乙": "killer", "丙": "diviner", "丁": "binder", "戊": "curser",
         "己": "blesser", "庚": "commoner", "辛": "commoner", "壬": "commoner", "癸": "commoner"}


def setup(tmp_path):
    g = board_game(tmp_path, name="o", seed=2, start=START, roles=ROLES)
    return g.clock, g.board, g.driver


def test_a_long_outage_holds_the_deadline_and_extends_the_phase(tmp_path) -> None:
    clock, board, driver = setup(tmp_path)
    night_end = START + timedelta(hours=24)
    clock.set(START + timedelta(hours=22))
    board.fail_next(1000, "fetch_pms")
    driver.advance(clock.now())  # the board goes down at hour 22
    clock.set(START + timedelta(hours=26))
    driver.advance(clock.now())  # past the night's end: still down
    assert driver.state().phase.label == "night 1"  # held
    board.heal()  # back at hour 27
    clock.set(START + timedelta(hours=27))
    driver.advance(clock.now())
    state = driver.state()
    assert state.phase.label == "night 1"
    assert driver.ruleset.next_deadline(state).at == night_end + timedelta(hours=5)
    assert state.data["gm_log"][0]["command"] == "extend" and "时段顺延" in state.data["gm_log"][0]["reason"]
    main = driver.store.thread_id(driver.game_id, "main")
    # 003 §12.4; the post names the phase in Chinese and cites no clause (issue 23 item 11)
    assert any("第1夜延长5小时" in p.text and "§" not in p.text for p in board.thread_posts(main))


def test_a_short_outage_only_delays(tmp_path) -> None:
    clock, board, driver = setup(tmp_path)
    clock.set(START + timedelta(hours=23, minutes=50))
    board.fail_next(1000, "fetch_pms")
    driver.advance(clock.now())
    board.heal()
    clock.set(START + timedelta(hours=24, minutes=5))
    driver.advance(clock.now())  # 15 minutes down: no extension, the night ends late
    state = driver.state()
    assert state.phase.label == "day 1" and "gm_log" not in state.data


def test_a_pm_filed_late_with_a_lower_id_is_not_lost(tmp_path) -> None:
    """A forum that files PMs per conversation (Discuz pmids, Spirit comment pks) can show a
    lower id after a higher one was read; the PM high-water mark trails the newest PMs, so
    the late one is still read, and what is read twice is folded once."""
    clock, board, driver = setup(tmp_path)
    hidden: set[int] = set()
    real_fetch = driver.forum.fetch_pms

    def racy_fetch(after_id):
        return [pm for pm in real_fetch(after_id) if pm.id not in hidden]

    driver.forum.fetch_pms = racy_fetch
    clock.set(START + timedelta(hours=1))
    late = board.pm("丙", "神的使者", "占卜 甲")  # filed, but not yet visible in its conversation
    hidden.add(late)
    board.pm("丁", "神的使者", "束魂 乙")
    driver.advance(clock.now())
    hidden.clear()  # now the forum shows it
    clock.set(START + timedelta(hours=1, minutes=1))
    driver.advance(clock.now())
    state = driver.state()
    assert state.data["subs"]["divine"] == {"丙": "甲"} and state.data["subs"]["soulbind"] == {"丁": "乙"}
    receipts = [pm for pm in board.inbox("丁") if pm.subject == "天神回复"]
    assert len(receipts) == 1  # 丁's PM was read twice but answered once
