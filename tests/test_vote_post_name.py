"""A vote post's `name` is its target's player, set with the reading (issue 37: a plain
attribute, not a property worked out at every read), and follows a replaced target."""

from dataclasses import replace

from tianshen.core.vote_post import Target, VotePost, read_vote_post

NAMES = ("甲", "乙", "丙丁", "丙")


def test_the_name_is_a_plain_attribute_of_the_reading():
    vote = read_vote_post("投票 丙丁，因为他很可疑", NAMES)
    assert vote is not None and vote.name == "丙丁" == vote.target.name
    assert "name" in vars(type(vote))["__dataclass_fields__"]  # not a property any more
    assert not isinstance(vars(type(vote)).get("name"), property)


def test_the_name_follows_the_target():
    vote = read_vote_post("投票 甲", NAMES)
    assert vote is not None and vote.name == "甲"
    assert replace(vote, target=Target("乙")).name == "乙"
    assert replace(vote, target=Target(None, error="x")).name is None
    assert VotePost("vote", "投", "投 丙", Target("丙")).name == "丙"
    ambiguous = read_vote_post("投票 丙、甲", NAMES)
    assert ambiguous is not None and ambiguous.name is None and ambiguous.ambiguous


def test_the_name_is_no_part_of_equality_or_repr():
    a = VotePost("vote", "投", "投 丙", Target("丙"))
    assert a == VotePost("vote", "投", "投 丙", Target("丙"))
    assert "name=" not in repr(a).replace("Target(name=", "")
