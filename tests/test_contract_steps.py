"""Phases as step tables (issue 35 item 2, core.flow): the contract over every variant.

- random play only ever meets phases its family's step table declares;
- `extend` moves every deadline the current step names (the phase's end and each `shift`
  time in `data`) by the same amount, and the next deadline with them;
- `observation(public)` names each dead player as the board's posts did.
(No family class defines a `_` method core defines: tests/test_family_record.py.)
"""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from test_contract_families import CASES, IDS, _step
from tianshen.core import flow
from tianshen.core.model import DeadlineIn, GameState, GmIn, PmIn
from tianshen.core.observation import observation
from tianshen.rules import families, load_ruleset
from tianshen.sim.montecarlo import Game


def _times(step: flow.Step, state: GameState) -> dict[str, datetime | None]:
    return {path: flow.time_at(state, path) for path in (flow.PHASE_END, *step.shift)}


@pytest.mark.parametrize(("variant", "players"), CASES, ids=IDS)
def test_extend_moves_every_deadline_the_step_table_names(variant: str, players: int) -> None:
    ruleset = load_ruleset(variant)
    game = Game(ruleset, 3, players)
    seen = set()
    for _ in range(300):
        state = game.state
        if state.phase.kind == "over":
            break
        step = flow.current(ruleset.STEPS, state)
        assert step is not None, (state.phase.kind, state.phase.step)
        before = _times(step, state)
        due = ruleset.next_deadline(state)
        outcome = ruleset.apply(state, GmIn(command="extend", args={"hours": 2}, reason="测试",
                                            at=game.now, id="gm-extend"))
        after = _times(step, outcome.state)
        moved = {path: after[path] - at for path, at in before.items() if at is not None}  # type: ignore[operator]
        assert moved and len(set(moved.values())) == 1, (state.phase.label, step.kind, moved)
        shift = next(iter(moved.values()))
        assert timedelta(hours=2) <= shift < timedelta(hours=2, minutes=1)
        later = ruleset.next_deadline(outcome.state)
        assert due is not None and later is not None and later.at - due.at == shift, (due, later)
        seen.add(step)
        _step(game)
    assert len(seen) > 1


def test_every_step_s_own_deadline_moves_with_an_extension() -> None:
    """A step whose end is a `data` time must name it among what an extension shifts."""
    for record in families().values():
        for step in record.ruleset_class().STEPS:
            assert step.deadline in (flow.PHASE_END, *step.shift), (record.id, step)


@pytest.mark.parametrize(("variant", "players"), CASES, ids=IDS)
def test_the_public_observation_names_each_dead_player_as_the_board_did(variant: str, players: int) -> None:
    ruleset = load_ruleset(variant)
    game = Game(ruleset, 2, players)
    game.play()
    said = [line for o in game.outcomes for post in o.posts for line in post.body.split("\n")]
    dead = [row for row in observation(ruleset, game.state, None)["players"] if not row["alive"]]
    assert dead
    for row in dead:
        word = row.get("identity", "")
        if word:  # 000 §5.8 reveals nothing: the row says nothing either
            assert any(row["name"] in line and word in line for line in said), (row["name"], word)



@pytest.mark.parametrize(("variant", "players"), CASES, ids=IDS)
def test_everyone_s_done_ends_early_exactly_the_steps_that_say_so(variant: str, players: int) -> None:
    """DECISIONS §0.5: /done from every living player ends a step early when its table says
    `early_done` (and, while a vote is counted, nobody's ballot is missing); any other step
    keeps its end."""
    ruleset = load_ruleset(variant)
    game = Game(ruleset, 4, players)
    ended, kept = 0, 0
    for _ in range(300):
        state = game.state
        if state.phase.kind == "over":
            break
        step = flow.current(ruleset.STEPS, state)
        due = ruleset.next_deadline(state)
        assert step is not None and due is not None
        now = game.now + timedelta(seconds=1)
        trial = state
        for i, p in enumerate(q for q in state.players if q.alive):
            trial = ruleset.apply(trial, PmIn(id=f"done-{i}", sender=p.name, at=now, text="/done")).state
        count = ruleset.ballots.count(trial, closing=False) if ruleset.ballots else None
        later = ruleset.next_deadline(trial)
        assert later is not None
        if step.early_done and (count is None or not count.missing):
            assert later.at == now, (state.phase.label, state.phase.step)
            ended += 1
        else:
            assert later.at == due.at, (state.phase.label, state.phase.step)
            kept += 1
        _step(game)
    assert kept and (ended or not any(s.early_done for s in ruleset.STEPS))


@pytest.mark.parametrize(("variant", "players"), CASES, ids=IDS)
@pytest.mark.parametrize("seed", [1, 5])
def test_a_step_s_end_leads_only_where_its_table_says(variant: str, players: int, seed: int) -> None:
    """Over random play, the end of a step (its deadline, not a reminder) leaves the game in
    the same step, a step its table's `next` names, or over."""
    ruleset = load_ruleset(variant)
    game = Game(ruleset, seed, players)
    moves = set()
    fold = game.fold

    def watched(event) -> None:  # type: ignore[no-untyped-def]
        before = game.state
        step, was = flow.current(ruleset.STEPS, before), flow.where(before)
        fold(event)
        now = flow.where(game.state)
        if isinstance(event, DeadlineIn) and step is not None and event.kind == step.kind and now != was:
            assert now in (*step.next, "over"), (before.phase.label, was, now, step.next)
            moves.add((was, now))

    game.fold = watched  # type: ignore[method-assign]
    game.play()
    assert len(moves) > 2
