"""`Ruleset.next_deadline` is worked out once for a state as it is (`GameState.due`) and
forgotten by every fold that can have moved it (issue 37: a PM's or a post's fold keeps it
unless the phase changed or a write said so, `GameState.changed`): through each kind of
input and GM override that moves the deadline, the answer kept is the one worked out afresh."""

from __future__ import annotations

from datetime import timedelta

import pytest

from classic_helpers import ROLES_10, T0, Game
from tianshen.core import flow
from tianshen.core.model import DUE_MOVED, DUE_UNKNOWN, GameState, GmIn, Phase, PmIn, PostIn
from tianshen.core.ruleset import Deadline, GameSetup, Ruleset, Seat
from tianshen.rules import load_ruleset
from tianshen.sim.montecarlo import Game as MonteCarloGame


class Checked(Game):
    """A classic game whose every input is folded after the next deadline was asked (so it
    is kept on the state), by `apply` or in place; each fold's deadline before and after."""

    in_place = False

    def _apply(self, event):  # type: ignore[no-untyped-def]
        before = self.ruleset.next_deadline(self.state)
        assert self.state.due is not DUE_UNKNOWN
        fold = self.ruleset.apply_in_place if self.in_place else self.ruleset.apply
        out = fold(self.state, event)
        self.state = out.state
        self.history.append(out)
        after = self.ruleset.next_deadline(out.state)
        fresh = self.ruleset.next_deadline(_unknown(out.state))
        assert after == fresh, (event, after, fresh)
        self.moves.append(after != before)
        return out

    @property
    def moves(self) -> list[bool]:
        return self.__dict__.setdefault("_moves", [])


def _unknown(state: GameState) -> GameState:
    state.changed()
    return state


@pytest.fixture(params=["apply", "in place"])
def game(request: pytest.FixtureRequest) -> Checked:
    g = Checked(10)
    g.in_place = request.param == "in place"
    return g


def gm(g: Game, command: str, after: float = 2.0, **args: object):  # type: ignore[no-untyped-def]
    return g._apply(GmIn(id=g._id("gm"), at=g.at(after), command=command, args=args, reason="测试"))


def test_the_next_deadline_is_worked_out_once_for_a_state(monkeypatch: pytest.MonkeyPatch) -> None:
    g = Game(10)
    calls = []
    schedule = Ruleset.schedule

    def counted(self: Ruleset, state: GameState) -> Deadline | None:
        calls.append(1)
        return schedule(self, state)

    monkeypatch.setattr(Ruleset, "schedule", counted)
    first = g.ruleset.next_deadline(g.state)
    assert g.ruleset.next_deadline(g.state) is first and len(calls) == 1
    g.pm("丙", "查 甲")  # a power PM cannot move it: kept
    assert g.ruleset.next_deadline(g.state) == first and len(calls) == 1
    g.advance("night_end")  # a deadline's fold forgets it
    g.ruleset.next_deadline(g.state)
    assert len(calls) == 2


def test_a_pm_that_ends_the_night_early(game: Checked) -> None:
    for i, name in enumerate(ROLES_10):
        game.pm(name, "/done", hours=1 + i * 0.1)
    assert game.moves[-1] and not any(game.moves[:-1])
    assert game.ruleset.next_deadline(game.state).at == game.at(1.9)


def test_a_vote_post_that_ends_the_vote_early(game: Checked) -> None:
    game.advance("night_end")
    game.advance("vote_open")
    for i, name in enumerate(ROLES_10):
        game.pm(name, "完成", hours=0.5 + i * 0.01)
    for i, name in enumerate(ROLES_10):
        game.post(name, "投票 甲", hours=1 + i * 0.01)
    assert game.moves[-1] and game.ruleset.next_deadline(game.state) == Deadline(game.at(1.09), "vote_end")


def test_deadlines(game: Checked) -> None:
    game.advance("night_end")
    game.advance("vote_open")
    game.advance("vote_end")
    assert game.moves == [True, True, True]


@pytest.mark.parametrize("command, args", [
    ("extend", {"hours": 6}), ("pause", {}), ("advance", {}), ("leave", {"player": "庚", "hours": 3}),
    ("modkill", {"player": "甲"}), ("end_game", {}),
])
def test_gm_overrides(game: Checked, command: str, args: dict) -> None:
    out = gm(game, command, **args)
    assert not out.refusals
    if command == "modkill":  # the night goes on; the second killer's removal ends the game
        out = gm(game, command, player="乙")
        assert game.ruleset.next_deadline(game.state) is None
    assert game.moves[-1]


def test_resume(game: Checked) -> None:
    gm(game, "pause", after=1)
    gm(game, "resume", after=4)
    assert game.moves == [True, True]
    assert game.ruleset.next_deadline(game.state).at == game.state.phase.ends_at


def test_substitution_and_the_check_in(game: Checked) -> None:
    ruleset = load_ruleset("classic_10")
    ruleset.spec.options["checkin_hours"] = 24
    game.ruleset = ruleset
    game.state = ruleset.setup(GameSetup(seats=[Seat(name=n) for n in ROLES_10], seed=7, start=T0,
                                         fixed_roles=ROLES_10, substitutes=["替补甲", "替补乙"])).state
    for i, name in enumerate(n for n in ROLES_10 if n != "庚"):
        game._apply(PostIn(id=game._id("p"), thread="main", author=name, at=game.at(1 + i * 0.1), text="签到"))
    assert game.ruleset.next_deadline(game.state).kind == "checkin_end"
    game.advance("checkin_end")  # 庚 missed it: a 交替期, night 1 extended
    assert game.moves[-1] and game.state.data.get("substitution")
    gm(game, "cancel_substitution", after=25, player="庚")
    assert game.moves[-1]
    gm(game, "substitute", after=26, players="辛")
    assert game.moves[-1] and game.ruleset.next_deadline(game.state).at > T0 + timedelta(hours=36)


@pytest.mark.parametrize("variant", ["classic_10", "game_ten", "butterfly_elder", "n_lives", "hex_survival_12"])
def test_whole_games_keep_the_answer_afresh(variant: str) -> None:
    ruleset = load_ruleset(variant)

    class Fresh(MonteCarloGame):
        def fold(self, event):  # type: ignore[no-untyped-def]
            super().fold(event)
            kept = ruleset.next_deadline(self.state)
            assert kept == ruleset.next_deadline(_unknown(self.state)), event

    for seed in range(3):
        Fresh(ruleset, seed, ruleset.spec.players).play()


VARIANTS = [("classic_8", None), ("classic_10", None), ("classic_13", None), ("game_ten", None),
            ("butterfly_elder", None), ("hex_survival_12", None), ("n_lives", 5), ("n_lives", 7)]


@pytest.mark.parametrize("how", ["in place", "apply"])
@pytest.mark.parametrize(("variant", "players"), VARIANTS)
def test_every_fold_of_every_variant_keeps_only_what_is_afresh(variant: str, players: int | None, how: str) -> None:
    """After every fold of whole games (the loop asks the deadline after each), the deadline
    kept is the schedule read afresh; PMs and posts keep it (hex_survival's `after_input`
    may open a 交替期 after any input: never kept there)."""
    ruleset = load_ruleset(variant)
    kept = folds = 0

    class Fresh(MonteCarloGame):
        def fold(self, event):  # type: ignore[no-untyped-def]
            nonlocal kept, folds
            if how == "apply":
                self.state = self._took(ruleset.apply(self.state, event))
            else:
                super().fold(event)
            folds += 1
            if self.state.due is not DUE_UNKNOWN:
                assert isinstance(event, PmIn | PostIn), event
                kept += 1
            assert ruleset.next_deadline(self.state) == ruleset._next_deadline(self.state), event

    for seed in range(3):
        Fresh(ruleset, seed, players or ruleset.spec.players).play()
    assert folds > 30
    assert (kept == 0) if ruleset._after_input else kept > folds / 4, (kept, folds)


def test_a_substitute_taking_the_seat_by_pm(game: Checked) -> None:
    """The 交替期 ends when a substitute answers: his PM's fold does not keep its deadline."""
    ruleset = load_ruleset("classic_10")
    game.ruleset = ruleset
    game.state = ruleset.setup(GameSetup(seats=[Seat(name=n, forum_name=f"{n}本人") for n in ROLES_10], seed=7,
                                         start=T0, fixed_roles=ROLES_10, substitutes=["替补甲", "替补乙"])).state
    gm(game, "substitute", players="庚", last_seen={})
    assert game.ruleset.next_deadline(game.state).kind == "substitution_end"
    game.pm("替补乙", "可以", hours=3)
    assert game.moves[-1] and game.ruleset.next_deadline(game.state).kind == "night_end"


@pytest.mark.parametrize("by", ["pm", "post"])
def test_the_replaced_player_back_by_pm_or_post(game: Checked, by: str) -> None:
    ruleset = load_ruleset("classic_10")
    game.ruleset = ruleset
    game.state = ruleset.setup(GameSetup(seats=[Seat(name=n) for n in ROLES_10], seed=7, start=T0,
                                         fixed_roles=ROLES_10, substitutes=["替补甲"])).state
    gm(game, "substitute", players="庚", last_seen={})
    if by == "pm":
        game.pm("庚", "祈祷 丙", hours=3)
    else:
        game.post("庚", "我回来了", hours=3, thread="main")
    assert game.moves[-1] and game.ruleset.next_deadline(game.state).kind == "night_end"


def test_an_extension_says_the_schedule_moved() -> None:
    g = Game(10)
    g.ruleset.next_deadline(g.state)
    flow.shift(flow.current(g.ruleset.STEPS, g.state), g.state, 1)
    assert g.state.due is DUE_MOVED


@pytest.mark.parametrize("write", ["ends_at", "new phase"])
def test_a_pm_that_moves_the_phase_without_saying_so(game: Checked, write: str) -> None:
    """A family's PM that writes the phase (no `changed`): the phase compared before and after."""
    base = type(game.ruleset)

    class Moving(base):  # type: ignore[misc, valid-type]
        def pm_command(self, state, p, cmd, at, out):  # type: ignore[no-untyped-def]
            if cmd.verb == "done":
                if write == "new phase":
                    state.phase = Phase(kind="night", number=1, started_at=state.phase.started_at,
                                        ends_at=state.phase.ends_at - timedelta(hours=1))
                else:
                    state.phase.ends_at -= timedelta(hours=1)
            return super().pm_command(state, p, cmd, at, out)

    game.ruleset = Moving(game.ruleset.spec)
    game.pm("甲", "/done")
    assert game.moves[-1]


@pytest.mark.parametrize("kind", ["setup", "night", "day", "over"])
def test_a_phase_label_is_written_once_as_it_reads(kind: str) -> None:
    """`Phase.label` kept by kind, number and the number's class (1, 1.0 and True are one key
    without the class, and three texts)."""
    for number in (1, True, 1.0, 2, 0, 1, True):
        phase = Phase(kind=kind, number=number)  # type: ignore[arg-type]
        assert phase.label == (f"{kind} {number}" if kind in ("night", "day") else kind)
        assert phase.label is phase.label
