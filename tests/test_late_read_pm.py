"""Issue 27 item 1 / DECISIONS §0.1: the forum's time decides.  A PM written in the night that
the board showed only after dawn (a lagging conversation page) is not refused as sent by day
(「现在是白天」): the player is told it came too late to be counted, and the GM gets a note."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from tianshen.core.clock import show
from tianshen.core.model import DeadlineIn, PmIn, PostIn
from tianshen.core.ruleset import GameSetup
from tianshen.rules import load_ruleset
from tianshen.sim.rehearsal import default_seats

START = datetime(2026, 3, 1, 12, tzinfo=UTC)
VARIANTS = ["classic_8", "classic_10", "game_ten", "n_lives", "hex_survival_12", "butterfly_elder"]
# a command each family takes by day, whenever it was written
DAY_WORD = {"classic_8": "完成", "classic_10": "完成", "game_ten": "完成", "n_lives": "帮助", "hex_survival_12": "状态",
            "butterfly_elder": "确认"}


def _first_day(variant: str):
    ruleset = load_ruleset(variant)
    seats = default_seats(ruleset.spec.players)
    state = ruleset.setup(GameSetup(seats=seats, seed=3, start=START)).state
    for i, seat in enumerate(seats):  # everyone signs in where the ruleset asks for it
        post = PostIn(id=f"in{i}", thread="main", author=seat.name, at=START + timedelta(minutes=1), text="签到")
        state = ruleset.apply(state, post).state
    for _ in range(20):
        if state.phase.kind == "day":
            return ruleset, state
        dl = ruleset.next_deadline(state)
        assert dl is not None, f"{variant}: no deadline before the first day"
        state = ruleset.apply(state, DeadlineIn(id=f"{dl.kind}@{dl.at}", at=dl.at, kind=dl.kind)).state
    raise AssertionError(f"{variant}: no day after 20 deadlines")


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_night_pm_read_after_dawn_is_told_late_not_day(variant: str) -> None:
    ruleset, state = _first_day(variant)
    player = next(p for p in state.players if p.alive)
    target = next(p for p in state.players if p.alive and p.name != player.name)
    sent = state.phase.started_at - timedelta(minutes=3)  # in the night, by the board's clock
    before = state.model_dump_json()
    night = next(a for a in ruleset.abilities.by_id.values() if a.window in ("night", "power"))
    out = ruleset.apply(state, PmIn(id="late1", sender=player.name, at=sent, text=f"{night.words[0]} {target.name}"))
    replies = [m.body for m in out.pms if m.to == player.name]
    assert replies == [ruleset.spec.text("pm_read_late")], replies
    assert "白天" not in replies[0]
    assert any("天亮后才被读到" in n and "enter-action" in n for n in out.notes), out.notes
    # the GM is told the time in the board's zone, not raw UTC (issue 32 item 9)
    assert any(show(sent, state.zone) in n and "+00:00" not in n for n in out.notes), out.notes
    assert out.state.model_dump_json() == before  # refused: nothing changed


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_late_night_command_beside_a_day_one_is_one_line_of_the_receipt(variant: str) -> None:
    """The late read is the one window check's answer for that command (core.abilities), not a
    rewrite of the whole reply: a query in the same PM (票数, 状态…) is still answered."""
    ruleset, state = _first_day(variant)
    player = next(p for p in state.players if p.alive)
    target = next(p for p in state.players if p.alive and p.name != player.name)
    night = next(a for a in ruleset.abilities.by_id.values() if a.window in ("night", "power"))
    sent = state.phase.started_at - timedelta(minutes=3)
    out = ruleset.apply(state, PmIn(id="late2", sender=player.name, at=sent,
                                    text=f"{DAY_WORD[variant]}\n{night.words[0]} {target.name}"))
    [reply] = [m.body for m in out.pms if m.to == player.name]
    assert ruleset.spec.text("pm_read_late") in reply and reply != ruleset.spec.text("pm_read_late"), reply
    assert [r.reason for r in out.refusals if r.sender == player.name][0] == ruleset.spec.text("pm_read_late")
    assert any("天亮后才被读到" in n for n in out.notes), out.notes


def test_a_pm_sent_by_day_is_judged_as_before() -> None:
    """Only PMs written before the day began are answered as late; one written by day keeps its
    own refusal."""
    ruleset, state = _first_day("classic_10")
    player = next(p for p in state.players if p.alive)
    out = ruleset.apply(state, PmIn(id="d1", sender=player.name, at=state.phase.started_at + timedelta(minutes=5),
                                    text="束魂 某某某"))
    replies = [m.body for m in out.pms if m.to == player.name]
    assert replies and replies[0] != ruleset.spec.text("pm_read_late")
