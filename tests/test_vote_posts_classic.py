"""Vote posts as players write them in the 001/002 family (issue 17): classic (002, its day
from 001 §5 by DECISIONS C2) and game_ten (001 §5).  001 §5.1 投票一旦投出，就禁止修改."""

from __future__ import annotations

import copy

import pytest

from classic_helpers import ROLES_10, Game, pms_to
from tianshen.core.ruleset import Seat

# 丙 and 丙丁 are prefixes of one another (丁 of ROLES_10 renamed)
NAMED = {("丙丁" if n == "丁" else n): r for n, r in ROLES_10.items()}


def day_game(variant: str = "classic_10") -> Game:
    g = Game(10, roles=NAMED, seats=[Seat(name=n) for n in NAMED], variant=variant)
    g.dawn()
    g.advance("vote_open")
    return g


def ballot(g: Game, voter: str) -> str | None:
    b = g.state.data["day"]["ballots"]["main"].get(voter)
    return b["target"] if b else None


@pytest.mark.parametrize("text", ["投票 庚，因为他昨晚攻击了我", "投票 庚 因为他很可疑", "投庚\n理由：发言矛盾"])
def test_a_vote_with_a_same_line_reason_is_counted(text: str) -> None:
    g = day_game()
    out = g.post("甲", text)
    assert not out.refusals and ballot(g, "甲") == "庚"


@pytest.mark.parametrize("text", ["改票：投票 庚", "改投 庚", "改票 庚，理由见上"])
def test_a_change_in_a_new_reply_is_read_and_meets_no_change(text: str) -> None:
    """001 §5.1: the first vote stands; 改票/改投 is read (not ignored) and answered."""
    g = day_game()
    g.post("甲", "投票 辛")
    out = g.post("甲", text, hours=2)
    assert out.refusals and "禁止修改" in pms_to(out, "甲")[0] and ballot(g, "甲") == "辛"
    first = g.post("乙", text)  # 改票 as one's first post is the vote
    assert not first.refusals and ballot(g, "乙") == "庚"


def test_prefix_names_resolve_right() -> None:
    g = day_game()
    g.post("甲", "投票 丙丁，因为他昨天保了庚")
    g.post("乙", "投票 丙 因为丁字写得像")
    g.post("庚", "投票 丙、丙丁")
    assert (ballot(g, "甲"), ballot(g, "乙"), ballot(g, "庚")) == ("丙丁", "丙", None)


def test_an_unreadable_vote_is_answered_and_costs_nothing() -> None:
    g = day_game()
    before = g.json()
    out = g.post("甲", "投票 某某某，他很可疑")
    assert g.json() == before and out.refusals
    reply = pms_to(out, "甲")[0]
    assert "格式" in reply and "投票 名字" in reply
    assert out.notes and "甲" in out.notes[0]  # the GM is told: a non-voter is out (001 §5.3)
    assert not g.post("甲", "投票 庚", hours=2).refusals and ballot(g, "甲") == "庚"


def test_a_delegation_with_a_reason_names_the_player() -> None:
    """001 §5.3 委托投票必须寄给天神一个确定的游戏者的名字."""
    g = day_game()
    out = g.pm("甲", "委托投票 庚，因为他可疑")
    assert not out.refusals and g.state.data["day"]["delegations"]["main"]["甲"] == "庚"


def test_game_ten_reads_the_same_grammar() -> None:
    roles = {"甲": "killer", "乙": "killer", "丙": "binder", "丙丁": "curser", "戊": "blesser", "己": "butterfly",
             "庚": "summoner", "子": "commoner", "丑": "commoner", "寅": "commoner", "卯": "commoner",
             "辰": "commoner", "巳": "commoner", "午": "commoner"}
    g = Game(14, roles=roles, seats=[Seat(name=n) for n in roles], variant="game_ten",
             setup={"killer_queue": ["子", "丑", "寅", "午"], "profession_queue": ["卯", "辰", "巳", "午"]})
    for p in g.state.players:
        g.post(p.name, "签到", thread="main", hours=0.5)
    g.advance("checkin_end")
    g.dawn()
    g.advance("vote_open")
    assert not g.post("子", "投票 丙丁，因为他很可疑").refusals and ballot(g, "子") == "丙丁"
    assert not g.post("丑", "改投 丙 理由").refusals and ballot(g, "丑") == "丙"
    assert g.post("丑", "改票：投票 丙丁", hours=2).refusals and ballot(g, "丑") == "丙"
    before = copy.deepcopy(g.state.data["day"])  # the post itself is counted as activity (001 §6.1.6), not as a vote
    out = g.post("寅", "投票 谁呢")
    assert out.refusals and g.state.data["day"] == before and "格式" in pms_to(out, "寅")[0]


def test_the_refusal_echoes_the_whole_name_written() -> None:
    """Issue 27 item 5: 「我投给 寒梅冬至夜」 (no such player) is answered with the whole name as
    written, not with 给 taken into it nor a prefix cut mid-word; nothing is recorded."""
    g = day_game()
    before = copy.deepcopy(g.state.data["day"])
    out = g.post("甲", "我投给 寒梅冬至夜的守望者，他可疑")
    assert out.refusals and g.state.data["day"] == before
    reply = pms_to(out, "甲")[0]
    assert "“寒梅冬至夜的守望者”" in reply and "给 寒梅" not in reply.split("无效：", 1)[1]
    assert not g.post("甲", "我投给庚", hours=2).refusals and ballot(g, "甲") == "庚"
