"""The shared vote-post grammar (core.vote_post, issue 17; 003 §9.6 投票格式)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tianshen.core.vote_post import ACCEPTED_FORM, read_target, read_vote_post

NAMES = ["甲", "乙", "丙", "丙丁", "丑", "Ａ甲", "A甲", "romanchen"]


@pytest.mark.parametrize("text, name", [
    ("投票 丑，因为他昨晚攻击了我", "丑"),
    ("投票 丑 因为他很可疑", "丑"),
    ("投丑因为他很可疑", "丑"),
    ("投票：丑\n理由：昨晚的发言前后矛盾", "丑"),
    ("票投丑。", "丑"),
    ("vote 丑", "丑"),
    ("投给丑，他可疑", "丑"),
    ("投票\n丑", "丑"),
    ("丑", "丑"),
])
def test_reason_after_the_name_is_not_part_of_it(text: str, name: str) -> None:
    vote = read_vote_post(text, NAMES)
    assert vote is not None and vote.name == name and not vote.error


@pytest.mark.parametrize("text", ["改票：投票 丙", "改投 丙", "改票 丙，他昨天撒谎", "改投：丙"])
def test_a_change_in_a_new_reply_is_read_as_a_change(text: str) -> None:
    """003 §9.3: 游戏者修改投票必须以跟帖说明的方式修改."""
    vote = read_vote_post(text, NAMES)
    assert vote is not None and vote.name == "丙" and vote.change


def test_a_plain_vote_is_no_change() -> None:
    vote = read_vote_post("投票 丙", NAMES)
    assert vote is not None and not vote.change


@pytest.mark.parametrize("text, name", [
    ("投票 丙", "丙"), ("投票 丙丁", "丙丁"), ("投丙丁，理由", "丙丁"), ("投丙，丁很好", "丙"),
    ("投票 丙 因为丁说的", "丙"), ("投票 A甲", "A甲"), ("投票 Ａ甲", "Ａ甲"), ("投票 ROMANCHEN", "romanchen"),
])
def test_prefix_names_and_width_twins_resolve_exactly(text: str, name: str) -> None:
    vote = read_vote_post(text, NAMES)
    assert vote is not None and vote.name == name


@pytest.mark.parametrize("text, both", [
    ("投票 丙、丑", ("丙", "丑")),
    ("投票 丙 或 丑，理由", ("丙", "丑")),
    ("投票 丙\n投票 丑", ("丙", "丑")),
    ("投票 ａ甲", ("Ａ甲", "A甲")),  # neither twin written exactly
])
def test_two_players_in_the_vote_line_are_refused_naming_both(text: str, both: tuple[str, str]) -> None:
    vote = read_vote_post(text, NAMES)
    assert vote is not None and vote.name is None and vote.ambiguous
    assert set(vote.target.candidates) == set(both)
    assert all(n in vote.error for n in both)


def test_a_name_in_the_reason_is_no_second_vote() -> None:
    vote = read_vote_post("投票 丑，因为他和丙一起攻击了我", NAMES)
    assert vote is not None and vote.name == "丑"


def test_unknown_and_blank_votes_are_refused_with_a_reason() -> None:
    unknown = read_vote_post("投票 己", NAMES)
    assert unknown is not None and unknown.name is None and not unknown.ambiguous and "己" in unknown.error
    blank = read_vote_post("投票", NAMES)
    assert blank is not None and blank.blank and blank.error


def test_quotes_are_not_read_and_chat_is_no_vote() -> None:
    assert read_vote_post("> 投票 丙\n我还没想好", NAMES) is None
    assert read_vote_post("[quote]投票 丙[/quote]同意楼上", NAMES) is None
    assert read_vote_post("丙，你昨天为什么不说话？", NAMES) is None


def test_ruleset_verbs_abstention_and_aliases() -> None:
    delegate = read_vote_post("委托投票 丙，理由见分析帖", NAMES, verbs={"delegate": ("委托投票",)})
    assert delegate is not None and (delegate.verb, delegate.name) == ("delegate", "丙")
    assert read_vote_post("弃票", NAMES, abstain=("弃权", "弃票")).verb == "abstain"  # type: ignore[union-attr]
    assert read_vote_post("投票 弃权", NAMES, abstain=("弃权",)).verb == "abstain"  # type: ignore[union-attr]
    assert read_target("老三，他可疑", NAMES, {"老三": "丙"}).name == "丙"


def test_the_accepted_form_shows_a_reason() -> None:
    assert "投票" in ACCEPTED_FORM and "因为" in ACCEPTED_FORM


# ---- the property: the intended player, or ambiguous, never another ------------------------

CJK = "甲乙丙丁戊己庚辛壬癸子丑寅卯辰巳午未申酉戌亥猫狗龙凤花月"
VERBISH = "投票给改我"  # names may share characters with the verbs (票甲 after 投, 给力 after 投给)
SEPARATORS = [" ", "　", "，", ",", "。", ".", "：", ":", "、", "！", "!", "？", "；", "因为", "理由", "理由：",
              "，因为", " 因为", "\n", "\n理由：", "（", "(", "——", "…", ""]
VERBS = ["投票", "投", "改票", "改投", "票投", "投票：", "投票 ", "改票：投票 ", "vote ", "投给", "我投", "我要改投 "]
TWINS = {"A": "Ａ", "B": "Ｂ", "a": "ａ"}

names_st = st.text(alphabet=CJK + VERBISH + "ABaＡＢａ", min_size=1, max_size=4)


@st.composite
def games(draw: st.DrawFn) -> tuple[list[str], str]:
    base = draw(st.lists(names_st, min_size=2, max_size=8, unique=True))
    extra = []
    for name in base[:3]:  # prefix pairs and width twins of drawn names
        extra.append(name + draw(st.text(alphabet=CJK, min_size=1, max_size=2)))
        extra.append("".join(TWINS.get(ch, ch) for ch in name))
    names = list(dict.fromkeys(base + extra))
    return names, draw(st.sampled_from(names))


reasons = st.one_of(st.text(alphabet=CJK + VERBISH + "他她是的很可疑昨天发言 ，。,.!ＡAa、\n", max_size=20),
                    st.text(max_size=20))  # any text at all


@settings(max_examples=400, deadline=None)
@given(games(), st.sampled_from(VERBS), st.sampled_from(SEPARATORS), reasons)
def test_a_vote_resolves_to_the_intended_player_or_is_ambiguous(game: tuple[list[str], str], verb: str,
                                                               sep: str, reason: str) -> None:
    names, intended = game
    if not sep and reason:
        reason = ""  # no separator means nothing follows the name
    vote = read_vote_post(f"{verb}{intended}{sep}{reason}", names)
    assert vote is not None
    if vote.name is not None:
        assert vote.name == intended
    else:
        assert vote.ambiguous and intended in vote.target.candidates


def test_a_chat_line_starting_with_a_verb_is_no_second_vote() -> None:
    vote = read_vote_post("投票 丑，理由如下\n投丙的人昨天都很可疑", NAMES)
    assert vote is not None and vote.name == "丑"


@pytest.mark.parametrize("text, name, change", [("我投丑，他可疑", "丑", False), ("我要改投丙", "丙", True),
                                                ("本人投票给丑", "丑", False)])
def test_the_voter_may_name_himself_before_the_verb(text: str, name: str, change: bool) -> None:
    vote = read_vote_post(text, NAMES)
    assert vote is not None and vote.name == name and vote.change == change


def test_a_player_called_wo_is_still_voted_for() -> None:
    """n_lives' example game has a player 我 (tests/scripts/n_lives_example.toml)."""
    names = ["我", "mecyl", "苹果"]
    assert read_vote_post("投票 我", names).name == "我"  # type: ignore[union-attr]
    assert read_vote_post("我", names).name == "我"  # type: ignore[union-attr]
    assert read_vote_post("我投苹果", names).name == "苹果"  # type: ignore[union-attr]


# ---- issue 27 item 5: the refusal echoes the whole token; 投给 is one verb --------------------

LATIN = ["test_player1", "test_player2", "寒梅", "丙"]


@pytest.mark.parametrize("text, token", [
    ("我投给 test_player9", "test_player9"),  # the live case: it echoed “给 test_playe”
    ("投给test_player9，因为他可疑", "test_player9"),
    ("投票给 test_player99", "test_player99"),
    ("投票 test_player99", "test_player99"),
    ("投给己", "己"),
    ("我投给己，他可疑", "己"),
    ("投票 己是杀手吧我觉得他很可疑昨天", "己是杀手吧我觉得他很可疑昨天"),
])
def test_an_unknown_name_is_echoed_whole_without_the_verb(text: str, token: str) -> None:
    vote = read_vote_post(text, LATIN)
    assert vote is not None and vote.name is None and not vote.ambiguous
    assert f"“{token}”" in vote.error, vote.error


@pytest.mark.parametrize("text", ["我投给寒梅", "投 寒梅", "投寒梅", "我投寒梅", "投给寒梅", "投票给寒梅",
                                  "我投票给寒梅，理由", "我要投给寒梅", "本人投给 寒梅"])
def test_the_forms_players_write_still_vote(text: str) -> None:
    vote = read_vote_post(text, LATIN)
    assert vote is not None and vote.name == "寒梅" and not vote.error


@pytest.mark.parametrize("text, word", [("我投给寒梅", "投给"), ("投票给寒梅", "投票给"), ("投寒梅", "投"),
                                        ("投给\n寒梅", "投给")])
def test_the_verb_is_the_whole_word_at_the_start(text: str, word: str) -> None:
    """「我投给寒梅」: the verb is 投给 (after the leading 我), not 投 with 给 read into the name."""
    vote = read_vote_post(text, LATIN)
    assert vote is not None and vote.word == word and vote.name == "寒梅"


def test_a_bare_verb_with_the_name_below_leaves_no_other_line() -> None:
    """`投给` alone on its line, the name on the next: like `投票\\n丑`, nothing else is left
    (a muted 004 voter may write only the name, and this is only the name)."""
    for text in ("投票\n寒梅", "投给\n寒梅"):
        vote = read_vote_post(text, LATIN)
        assert vote is not None and vote.name == "寒梅" and vote.others == ""
