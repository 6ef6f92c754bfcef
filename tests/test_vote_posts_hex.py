"""Vote posts as players write them in hex_survival (issue 17; 003 §9.3 one change by a new
reply, §9.5 a missing vote counts for oneself, §9.6 投票不要求固定格式…说明自己的投票理由,
§9.9 委托投票)."""

from __future__ import annotations

import pytest

from hex_helpers import CAMPS12, CELLS12, Hex, pms_to

RENAME = {"丁": "丙丁"}  # 丙 and 丙丁 are prefixes of one another
CAMPS = {RENAME.get(n, n): c for n, c in CAMPS12.items()}
CELLS = {RENAME.get(n, n): c for n, c in CELLS12.items()}


def day_game() -> Hex:
    g = Hex(camps=CAMPS, cells=CELLS)
    g.dawn()
    return g


def ballot(g: Hex, voter: str) -> dict | None:
    return g.state.data["day"]["ballots"].get(voter)


@pytest.mark.parametrize("text", ["投票 乙，因为他昨晚攻击了我", "投票 乙 因为他很可疑", "投乙\n理由：发言矛盾"])
def test_a_vote_with_a_same_line_reason_is_counted(text: str) -> None:
    g = day_game()
    out = g.post("甲", text)
    assert not out.refusals and ballot(g, "甲")["target"] == "乙"


@pytest.mark.parametrize("text", ["改票：投票 丙", "改投 丙", "改票 丙，他昨天撒谎"])
def test_a_change_in_a_new_reply_is_the_change(text: str) -> None:
    """003 §9.3: 游戏者修改投票必须以跟帖说明的方式修改; 改票权利只有一次."""
    g = day_game()
    g.post("甲", "投票 乙，理由")
    out = g.post("甲", text, hours=2)
    b = ballot(g, "甲")
    assert not out.refusals and b["target"] == "丙" and b["changes"] == 1
    assert g.post("甲", "改投 戊", hours=3).refusals and ballot(g, "甲")["target"] == "丙"


def test_prefix_names_resolve_right() -> None:
    g = day_game()
    g.post("甲", "投票 丙丁，因为他昨天攻击了我")
    g.post("乙", "投票 丙 因为丁字写得像")
    assert ballot(g, "甲")["target"] == "丙丁" and ballot(g, "乙")["target"] == "丙"


def test_two_players_in_the_vote_line_are_ambiguous() -> None:
    """003 §9.6: 原投票有歧义…要求游戏者再次投票，但取消改票权利 — both names are given."""
    g = day_game()
    out = g.post("甲", "投票 丙、丙丁")
    assert out.refusals and "丙丁" in pms_to(out, "甲")[0] and ballot(g, "甲") is None


@pytest.mark.parametrize("text", ["我不同意楼上。投票 丙丁，理由：他昨天撒谎", "楼上说得不对！我投丙丁，因为他撒谎"])
def test_one_vote_inside_a_sentence_counts(text: str) -> None:
    """003 §9.6 投票不要求固定格式，只要…清晰、明确的指定一个投票对象 (issue 34 item 8):
    one unambiguous vote inside free text counts; it was refused and counted for himself."""
    g = day_game()
    out = g.post("甲", text)
    assert not out.refusals and ballot(g, "甲")["target"] == "丙丁"


def test_two_votes_inside_sentences_are_ambiguous() -> None:
    g = day_game()
    out = g.post("甲", "我不同意楼上。投票 丙丁，理由：撒谎。投票 乙，因为可疑")
    assert out.refusals and ballot(g, "甲") is None
    assert "丙丁" in pms_to(out, "甲")[0] and "乙" in pms_to(out, "甲")[0]


def test_an_unreadable_first_vote_costs_nothing() -> None:
    """Issue 17: refused, answered with the accepted form, no change used, nothing frozen;
    the GM is told, since a player who never votes again is counted for himself (§9.5)."""
    g = day_game()
    before = g.state.data["day"]["frozen"][:]
    out = g.post("甲", "投票 某某某，他很可疑")
    assert out.refusals and "格式" in pms_to(out, "甲")[0] and ballot(g, "甲") is None
    assert g.state.data["day"]["frozen"] == before and out.notes and "甲" in out.notes[0]
    g.post("甲", "投票 乙", hours=2)
    assert not g.post("甲", "改票 丙", hours=3).refusals and ballot(g, "甲")["target"] == "丙"


def test_an_unreadable_change_keeps_the_vote_and_the_change() -> None:
    g = day_game()
    g.post("甲", "投票 乙")
    out = g.post("甲", "改票 谁谁谁", hours=2)
    b = ballot(g, "甲")
    assert out.refusals and b["target"] == "乙" and b["changes"] == 0 and not b["frozen"]
    assert not g.post("甲", "改票 丙", hours=3).refusals and ballot(g, "甲")["target"] == "丙"


def test_a_delegation_with_a_reason_names_the_player() -> None:
    g = day_game()
    out = g.pm("甲", "委托投票 乙，因为他可疑")
    assert not out.refusals and ballot(g, "甲")["target"] == "乙"


def test_an_edit_whose_first_version_cannot_be_read_tells_the_gm() -> None:
    """003 §9.3: 如果无效改票导致天神不能判断改票者的原来一票投给了谁，这一票将被计为投给了改票者自己 —
    never without the GM being told (issue 17)."""
    g = day_game()
    out = g.post("甲", "投票 乙", edited=True, original=None)
    assert ballot(g, "甲")["target"] == "甲" and out.notes and "甲" in out.notes[0]


def test_a_pm_change_is_a_delegated_change() -> None:
    """003 §9.9: 委托天神代为投票或代为改票 — `改票 丙` by PM uses the change."""
    g = day_game()
    g.post("甲", "投票 乙")
    out = g.pm("甲", "改票 丙，理由见分析", hours=2)
    assert not out.refusals and ballot(g, "甲")["target"] == "丙" and ballot(g, "甲")["changes"] == 1


def test_an_abstention_word_in_the_reason_is_no_abstention() -> None:
    """§9.5 弃权 counts for oneself — but only as the vote, not as a word of the reason."""
    g = day_game()
    g.post("甲", "投票 乙，我本想弃权")
    g.post("丙", "投票：弃权")
    assert ballot(g, "甲")["target"] == "乙" and ballot(g, "丙")["target"] == "丙"
