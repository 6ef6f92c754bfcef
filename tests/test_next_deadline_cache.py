"""`Ruleset.next_deadline` is worked out once for a state as it is (`GameState.due`) and
forgotten by every fold (issue 37): through each kind of input and GM override that moves
the deadline, the answer kept is the one worked out afresh."""

from __future__ import annotations

from datetime import timedelta

import pytest

from classic_helpers import ROLES_10, T0, Game
from tianshen.core.model import DUE_UNKNOWN, GameState, GmIn, PostIn
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
    g.pm("丙", "查 甲")  # a fold forgets it
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
