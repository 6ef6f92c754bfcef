"""core.vote_post keeps the plain readings of a vote post by text for the last tuple of names
(issue 37): the reading must be the one for the names given, never another tuple's."""

from __future__ import annotations

import tianshen.core.vote_post as vote_post
from tianshen.core.vote_post import _vote_post, read_vote_post

TEXTS = ("投票 甲", "投票 丙", "甲", "投 乙，理由：很可疑", "今天天气不错", "投票 丁\n投票 甲", "弃权")


def _fresh(text: str, names: tuple[str, ...]) -> object:
    return _vote_post.__wrapped__(text, names, None, None, (), False)


def test_each_tuple_of_names_gets_its_own_reading() -> None:
    first, second = ("甲", "乙"), ("丙", "丁")
    for names in (first, second, first, second):  # back and forth: no reading of the other tuple kept
        for text in TEXTS:
            assert read_vote_post(text, names) == _fresh(text, names), (text, names)


def test_an_equal_tuple_and_a_list_read_the_same() -> None:
    names = ("甲", "乙", "丙")
    for text in TEXTS:
        expected = _fresh(text, names)
        assert read_vote_post(text, tuple(list(names))) == expected
        assert read_vote_post(text, list(names)) == expected


def test_other_arguments_are_not_read_from_the_plain_table() -> None:
    names = ("甲", "乙")
    assert read_vote_post("弃权", names) is None or read_vote_post("弃权", names).verb != "abstain"
    assert read_vote_post("弃权", names, abstain=("弃权",)).verb == "abstain"
    assert read_vote_post("寒 甲", names, aliases={"寒": "乙"}) == _vote_post.__wrapped__(
        "寒 甲", names, (("寒", "乙"),), None, (), False)


def test_the_table_is_bounded() -> None:
    names = ("甲", "乙")
    for i in range(4100):
        read_vote_post(f"投票 甲 {i}", names)
    assert vote_post._PLAIN[0] is names
    assert len(vote_post._PLAIN[1]) <= 4096
