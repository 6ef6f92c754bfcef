"""The schedule in one call (issue 37: `next_deadline` is asked after every input):
`flow.due` answers as the step table's plain reading — the first step that applies
(`current`), its end (`end_of`), its reminder first (`reminder_at`) — after every fold of
whole games of every family, with and without a reminder due."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from tianshen.core import flow
from tianshen.core.flow import REMINDER
from tianshen.core.model import GameState
from tianshen.rules import load_ruleset
from tianshen.sim.montecarlo import Game


def plain(steps: tuple[flow.Step, ...], state: GameState) -> tuple[datetime, str] | None:
    step = flow.current(steps, state)
    at = flow.end_of(step, state) if step else None
    if step is None or at is None:
        return None
    reminder = flow.reminder_at(step, state, at) if step.reminder_from else None
    return (reminder, REMINDER) if reminder else (at, step.kind)


def check(steps: tuple[flow.Step, ...], state: GameState) -> int:
    """`due` against the plain reading: as the state is (and ended early by /done), with a reminder of 3 (then 500) hours
    asked, and with that reminder already sent; how many reminders were due."""
    due = flow.due(steps, state)
    assert due == plain(steps, state)
    if due is not None and "early_at" not in state.data:  # everyone /done an hour before the end
        state.data["early_at"] = (due[0] - timedelta(hours=1)).isoformat()
        assert flow.due(steps, state) == plain(steps, state)
        del state.data["early_at"]
    options = state.data.setdefault("options", {})
    kept, reminded = options.get("reminder_hours"), state.data.get("reminded")
    reminders = 0
    try:
        for hours in (3, 500, "2", 0):
            options["reminder_hours"] = hours
            state.data.pop("reminded", None)
            due = flow.due(steps, state)
            assert due == plain(steps, state)
            reminders += due is not None and due[1] == REMINDER
            state.data["reminded"] = flow.reminded_mark(state)
            assert flow.due(steps, state) == plain(steps, state)
    finally:
        options.pop("reminder_hours") if kept is None else options.__setitem__("reminder_hours", kept)
        state.data.pop("reminded") if reminded is None else state.data.__setitem__("reminded", reminded)
    return reminders


@pytest.mark.parametrize(("variant", "players"), [("classic_8", None), ("classic_10", None), ("classic_13", None),
                                                  ("game_ten", None), ("butterfly_elder", None),
                                                  ("hex_survival_12", None), ("n_lives", 7)])
def test_due_answers_as_the_step_table_read_step_by_step(variant: str, players: int | None) -> None:
    ruleset = load_ruleset(variant)
    folds = reminders = 0

    class Checked(Game):
        def fold(self, event):  # type: ignore[no-untyped-def]
            nonlocal folds, reminders
            super().fold(event)
            reminders += check(ruleset.STEPS, self.state)
            folds += 1

    for seed in range(3):
        Checked(ruleset, seed, players or ruleset.spec.players).play()
    assert folds > 30 and (reminders > 0 or not any(s.reminder_from for s in ruleset.STEPS))

