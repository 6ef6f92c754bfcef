"""Vote posts as players write them in n_lives (issue 17; 000 §8.1 one vote, 投票一旦投出，就禁止修改;
§8.4 委托投票; §8.5 no vote and no delegation ⇒ out)."""

from __future__ import annotations

import copy

import pytest

from n_lives_helpers import FACTIONS_6, HANDS_6, Game, pms_to

# 丙 and 丙丁 are prefixes of one another (丁 renamed)
FACTIONS = {("丙丁" if n == "丁" else n): f for n, f in FACTIONS_6.items()}
HANDS = {("丙丁" if n == "丁" else n): h for n, h in HANDS_6.items()}


def day_game() -> Game:
    g = Game(factions=FACTIONS, hands=HANDS)
    g.dawn()
    return g


def ballot(g: Game, voter: str) -> str | None:
    b = g.state.data["day"]["votes"].get(voter)
    return b["target"] if b else None


@pytest.mark.parametrize("text", ["投票 戊，因为他昨晚攻击了我", "投票 戊 因为他很可疑", "票投戊。理由：发言矛盾"])
def test_a_vote_with_a_same_line_reason_is_counted(text: str) -> None:
    g = day_game()
    out = g.post("甲", text)
    assert not out.refusals and ballot(g, "甲") == "戊"


@pytest.mark.parametrize("text", ["改票：投票 戊", "改投 戊", "改票 戊，理由见上"])
def test_a_change_in_a_new_reply_is_read_and_meets_no_change(text: str) -> None:
    g = day_game()
    g.post("甲", "投票 己")
    out = g.post("甲", text, hours=2)
    assert out.refusals and "禁止修改" in pms_to(out, "甲") and ballot(g, "甲") == "己"
    assert not g.post("乙", text).refusals and ballot(g, "乙") == "戊"  # a first 改票 is the vote


def test_prefix_names_resolve_right() -> None:
    g = day_game()
    g.post("甲", "投票 丙丁，因为他昨天保了戊")
    g.post("乙", "投票 丙 因为丁字写得像")
    g.post("戊", "投票 丙 丙丁")
    assert (ballot(g, "甲"), ballot(g, "乙"), ballot(g, "戊")) == ("丙丁", "丙", None)


def test_an_unreadable_vote_is_answered_and_costs_nothing() -> None:
    g = day_game()
    before = copy.deepcopy(g.state.data["day"])  # the post still counts as activity, not as a vote
    out = g.post("甲", "投票 某某某，他很可疑")
    assert g.state.data["day"] == before and out.refusals
    assert "格式" in pms_to(out, "甲") and out.notes and "甲" in out.notes[0]
    assert not g.post("甲", "投票 戊", hours=2).refusals and ballot(g, "甲") == "戊"


def test_a_delegation_with_a_reason_names_the_player() -> None:
    g = day_game()
    out = g.pm("甲", "委托投票 戊，因为他可疑")
    assert not out.refusals and g.state.data["day"]["delegations"]["甲"] == "戊"
