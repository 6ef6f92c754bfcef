"""Vote posts as players write them in butterfly_elder (issue 17; 004 补充说明 一 6: changes by
new posts, abstention; 一 技能一 and DECISIONS 5.1.5: a muted player's vote with more than the
name counts and is flagged)."""

from __future__ import annotations

import pytest

from butterfly_helpers import ELDER, ROLES, T0, Game, pms_to
from tianshen.core.ruleset import GameSetup, Seat

RENAME = {"癸": "壬癸"}  # 壬 and 壬癸 are prefixes of one another


class Named(Game):
    """The table of butterfly_helpers with one seat renamed."""

    def __init__(self) -> None:
        super().__init__()
        roles = {RENAME.get(n, n): r for n, r in ROLES.items()}
        seats = [Seat(name=n, forum_name=f"真身{n}") for n in roles]
        self.setup_out = self.ruleset.setup(GameSetup(seats=seats, seed=7, start=T0, fixed_roles=roles))
        self.state = self.setup_out.state


def voted(g: Game) -> dict[str, str]:
    return {v: b["target"] for v, b in g.state.data["ballots"].items()}


@pytest.mark.parametrize("text", ["投票 乙，因为他昨晚攻击了我", "投票 乙 因为他很可疑", "投乙\n理由：发言矛盾"])
def test_a_vote_with_a_same_line_reason_is_counted(text: str) -> None:
    g = Game()
    g.powers()
    out = g.post("壬", text)
    assert not out.refusals and voted(g)["壬"] == "乙"


@pytest.mark.parametrize("text", ["改票：投票 丙", "改投 丙", "改票 丙，他昨天撒谎"])
def test_a_change_in_a_new_reply_is_the_change(text: str) -> None:
    """补充 一 6: 允许改票，但必须重新发帖."""
    g = Game()
    g.powers()
    g.post("壬", "投票 乙")
    out = g.post("壬", text, hours=2)
    assert not out.refusals and voted(g)["壬"] == "丙"


def test_prefix_names_resolve_right() -> None:
    g = Named()
    g.powers()
    g.post("子", "投票 壬癸，因为他昨天攻击了我")
    g.post("丑", "投票 壬 因为癸字写得像")
    g.post("寅", "投票 壬、壬癸")
    assert voted(g) == {"子": "壬癸", "丑": "壬"}


def test_an_unreadable_vote_is_answered_and_costs_nothing() -> None:
    """The last readable vote stands; the reply quotes the accepted form."""
    g = Game()
    g.powers()
    g.post("壬", "投票 乙")
    out = g.post("壬", "投票 某某某，他很可疑", hours=2)
    assert out.refusals and "格式" in pms_to(out, "壬")[0] and voted(g) == {"壬": "乙"}
    out = g.post("癸", "改票 谁谁谁")
    assert out.refusals and "癸" not in voted(g)


def test_a_muted_players_vote_with_a_reason_counts_and_is_flagged() -> None:
    """DECISIONS 5.1.5: Muted players vote with the name only. Any extra text is flagged; the
    vote still counts."""
    g = Game()
    g.powers({ELDER: "禁言 壬"})
    out = g.post("壬", "投票 乙，因为他昨晚攻击了我")
    assert not out.refusals and voted(g)["壬"] == "乙"
    assert out.notes and "壬" in out.notes[0]
    assert not g.post("壬", "投票 丙", hours=2).notes  # the name only: nothing to flag
