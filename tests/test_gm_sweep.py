"""Every GM override of every variant, at points through a whole simulated game: each is
carried out or refused with its reason, never an exception; what it says renders as text and
its outcome writes to JSON; the state it was given is left as it was (issue 37's lazy texts:
a GM-only path that joined a family's lines as strings raised TypeError — the check-in death
of hex_survival — and only a GM command could reach it)."""

from __future__ import annotations

from datetime import timedelta

import pytest

from tianshen.core import overrides
from tianshen.core.model import GameState, GmIn, Outcome
from tianshen.rules import load_ruleset
from tianshen.sim.montecarlo import Game
from tianshen.specs import available_variants, load_spec

CASES = [(v, n) for v in available_variants() for n in (load_spec(v).player_counts or [None])]
IDS = [f"{v}/{n}p" if n else v for v, n in CASES]
EVERY = 9  # a state kept every this many steps (and the first and the last before the end)


class Watched(Game):
    """A game folded by `apply`, keeping a state every few steps."""

    def fold(self, event) -> None:  # type: ignore[no-untyped-def]
        self.state = self._took(self.ruleset.apply(self.state, event))

    def _took(self, outcome: Outcome) -> GameState:
        kept = self.__dict__.setdefault("kept", [])
        if outcome.state.phase.kind != "over" and (len(self.outcomes) % EVERY == 0 or len(kept) < 1):
            kept.append(outcome.state)
        self.__dict__["last_live"] = outcome.state if outcome.state.phase.kind != "over" else self.__dict__.get(
            "last_live")
        self.outcomes.append(outcome)
        if outcome.posts:
            self.threads.update(post.thread for post in outcome.posts)
        return outcome.state


def _named(state: GameState) -> list[str]:
    """Whom an override names: a living player of each side, and a dead one."""
    sides: dict[str, str] = {}
    for p in state.players:
        sides.setdefault(p.faction if p.alive else "(dead)", p.name)
    return list(sides.values())


def _args(o: overrides.Override, state: GameState, who: str) -> dict[str, object]:
    living = [p.name for p in state.players if p.alive]
    other = next((n for n in living if n != who), who)
    values = {"player": who, "target": other, "text": f"杀 {other}", "hours": 2.0, "players": who,
              "winner": "", "ability": "", "sent_at": ""}
    return {a.name: values.get(a.name, "") for a in o.args if a.required or a.name in ("ability",)}


def _rendered(outcome: Outcome) -> None:
    for m in outcome.posts:
        assert isinstance(m.body, str) and isinstance(m.title, str | None)
    for m in outcome.pms:
        assert isinstance(m.body, str) and isinstance(m.subject, str)
    for r in outcome.refusals:
        assert isinstance(r.reason, str) and r.reason
    assert all(isinstance(line, str) for line in outcome.log + outcome.notes)
    assert outcome.model_dump_json()


@pytest.mark.parametrize(("variant", "players"), CASES, ids=IDS)
def test_every_override_at_every_stage_is_carried_out_or_refused(variant: str, players: int | None) -> None:
    ruleset = load_ruleset(variant)
    game = Watched(ruleset, seed=5, players=players or ruleset.spec.players)
    game.play()
    states = [*game.kept, game.last_live]
    table = {o.name: o for o in overrides.table([type(ruleset)])}
    commands = [table[name] for name in ruleset.gm_commands()]
    assert len(states) >= 3 and commands
    tried, carried = 0, set()
    for i, state in enumerate(states):
        before = state.model_dump_json()
        for o in commands:
            for who in _named(state):
                at = state.phase.started_at + timedelta(minutes=30)
                gm = GmIn(id=f"gm{i}-{o.name}-{who}", at=at, command=o.name, args=_args(o, state, who), reason="测试")
                folded = state
                if o.name == "resume":  # from a clock the GM stopped
                    folded = ruleset.apply(state, GmIn(id=f"gm{i}-pause", at=at, command="pause", reason="测试")).state
                outcome = ruleset.apply(folded, gm)
                _rendered(outcome)
                tried += 1
                if not outcome.refusals:
                    carried.add(o.name)
        assert state.model_dump_json() == before
    assert tried == sum(len(_named(s)) for s in states) * len(commands)
    # the sweep reaches the overrides' own paths, not only their refusals (a substitution needs
    # substitutes, which the simulated games have none of; the others, a night action, vote or
    # declaration of the moment)
    assert {"advance", "extend", "pause", "resume", "modkill", "leave", "end-game", "enter-vote"} <= carried
    assert len(carried) >= 0.6 * len(commands), sorted(carried)


@pytest.mark.parametrize(("variant", "players"), CASES, ids=IDS)
def test_players_removed_one_by_one_until_the_game_ends(variant: str, players: int | None) -> None:
    """`modkill` seat after seat (of the largest side, so the game lasts), by night and by day:
    every death post (hex_survival's 默哀期 of four alive, the victory with the roles) renders,
    until the game is over."""
    ruleset = load_ruleset(variant)
    game = Watched(ruleset, seed=5, players=players or ruleset.spec.players)
    game.play()
    for start in (game.kept[0], game.kept[min(2, len(game.kept) - 1)]):
        state, removed = start, 0
        while state.phase.kind != "over":
            living = [p for p in state.players if p.alive]
            largest = max(sorted({p.faction for p in living}), key=lambda f: sum(p.faction == f for p in living))
            who = next(p.name for p in living if p.faction == largest)  # the sides kept even: the game goes on
            at = state.phase.started_at + timedelta(minutes=30 + removed)
            outcome = ruleset.apply(state, GmIn(id=f"mk{removed}", at=at, command="modkill", args={"player": who},
                                                reason="测试"))
            _rendered(outcome)
            assert not outcome.refusals, outcome.refusals[0].reason
            assert who in [d.name for d in outcome.deaths]  # (the win check may end others' too)
            state, removed = outcome.state, removed + 1
        assert removed >= 2 and outcome.posts
