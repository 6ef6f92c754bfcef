"""Issue 13 item 4, DECISIONS §0.3 "the bot answers every PM": during a 交替期 (001 §6.3,
002 更换替补, 003 §10, DECISIONS §0.5) strangers, substitutes who already answered, late
answers and players writing from their real account used to get no reply at all."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from tianshen.core.clock import show
from tianshen.core.model import GameState, GmIn, Outcome, PmIn
from tianshen.core.ruleset import GameSetup, Ruleset, Seat
from tianshen.rules import load_ruleset
from tianshen.rules.classic.ruleset import Classic
from tianshen.sim.rehearsal import VESTS

T0 = datetime(2026, 1, 1, 20, tzinfo=UTC)
VARIANTS = ["classic_10", "game_ten", "n_lives", "hex_survival_12", "butterfly_elder"]
SUBS = ["替补甲", "替补乙"]


class Game:
    def __init__(self, variant: str, ruleset: Ruleset | None = None) -> None:
        self.r = ruleset or load_ruleset(variant)
        seats = [Seat(name=v, forum_name=f"{v}本人") for v in VESTS[: self.r.spec.players]]
        self.state = self.r.setup(GameSetup(seats=seats, seed=3, start=T0, substitutes=SUBS)).state
        self.n = 0

    def pm(self, sender: str, text: str, hours: float = 2) -> Outcome:
        self.n += 1
        out = self.r.apply(self.state, PmIn(id=f"pm{self.n}", sender=sender, at=T0 + timedelta(hours=hours), text=text))
        self.state = out.state
        return out

    def gm(self, command: str, **args: object) -> Outcome:
        self.n += 1
        out = self.r.apply(self.state, GmIn(id=f"gm{self.n}", at=T0 + timedelta(hours=1), command=command,
                                            args=args, reason="测试"))
        assert not out.refusals, out.refusals
        self.state = out.state
        return out

    def substitution(self) -> Game:
        self.gm("substitute", players=VESTS[0])
        return self

    def text(self, key: str, **values: str) -> str:
        return self.r.spec.text(key, **values)


def replies(out: Outcome, to: str) -> list[str]:
    return [m.body for m in out.pms if m.to == to]


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_stranger_is_answered_during_a_substitution(variant: str) -> None:
    g = Game(variant).substitution()
    out = g.pm("路人甲", "你好，我能玩吗？")
    assert replies(out, "路人甲") == [g.text("not_a_player")]
    assert "substitution" in g.state.data and g.state.data["substitution"]["asked"] == SUBS  # nothing changed


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_player_writing_from_his_real_account_is_told_his_vest(variant: str) -> None:
    g = Game(variant).substitution()
    out = g.pm(f"{VESTS[2]}本人", "状态")
    assert replies(out, f"{VESTS[2]}本人") == [g.text("use_vest", name=VESTS[2])]


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_substitute_who_answered_already_is_told_so(variant: str) -> None:
    g = Game(variant).substitution()
    assert replies(g.pm("替补甲", "不能，这周没空"), "替补甲") == [g.text("substitution_noted")]
    again = g.pm("替补甲", "现在又可以了", hours=3)
    [reply] = replies(again, "替补甲")
    assert "已经回复过" in reply and again.refusals
    assert g.state.player(VESTS[0]).forum_name == f"{VESTS[0]}本人"  # the seat is not his


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_late_answer_is_told_it_came_too_late(variant: str) -> None:
    g = Game(variant).substitution()
    ends = g.state.data["substitution"]["ends_at"]
    late = datetime.fromisoformat(ends) + timedelta(minutes=5)
    out = g.pm("替补乙", "可以", hours=(late - T0).total_seconds() / 3600)
    [reply] = replies(out, "替补乙")
    assert "晚了" in reply and show(datetime.fromisoformat(ends), g.state.zone) in reply  # issue 23 item 1
    assert g.state.player(VESTS[0]).forum_name == f"{VESTS[0]}本人"


@pytest.mark.parametrize("variant", VARIANTS)
def test_the_substitute_who_takes_the_seat_gets_its_role(variant: str) -> None:
    g = Game(variant).substitution()
    out = g.pm("替补乙", "可以，马上来")
    assert g.state.player(VESTS[0]).forum_name == "替补乙"
    [role_pm] = replies(out, "替补乙")
    assert VESTS[0] in role_pm


@pytest.mark.parametrize("variant", VARIANTS)
def test_every_pm_after_the_game_ended_gets_a_short_reply(variant: str) -> None:
    g = Game(variant)
    g.gm("end-game")
    assert g.state.phase.kind == "over"
    for sender, text in ((VESTS[1], "杀 " + VESTS[2]), ("路人甲", "你好"), ("替补甲", "可以")):
        [reply] = replies(g.pm(sender, text), sender)
        assert len(reply) < 60


class Forgetful(Classic):
    """A ruleset path that forgets to answer."""

    def on_pm(self, state: GameState, pm: PmIn) -> Outcome:
        return Outcome(state=state)


def test_a_pm_no_ruleset_path_answered_still_gets_a_reply_and_the_gm_a_note() -> None:
    g = Game("classic_10", Forgetful(load_ruleset("classic_10").spec))
    out = g.pm(VESTS[1], "嗯")
    assert replies(out, VESTS[1]) == [g.text("pm_unanswered")]
    assert out.refusals and any(VESTS[1] in n for n in out.notes)
