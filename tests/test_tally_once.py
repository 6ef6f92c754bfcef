"""A count's ballots are made once for the same four fields (issue 37: `core.tally._MADE`),
and the key holds every field that changes a ballot."""

from tianshen.core import tally
from tianshen.core.tally import DELEGATED, GM, POST, TallyBallot, ballot, ballots_of


def test_the_same_ballot_is_made_once():
    first = ballots_of([("甲", "乙"), ("丙", "乙")], {"丙": DELEGATED})
    again = ballots_of([("甲", "乙"), ("丙", "乙")], {"丙": DELEGATED})
    assert first == again
    assert all(a is b for a, b in zip(first, again, strict=True))


def test_every_field_is_in_the_key():
    base = ballots_of([("甲", "乙")])[0]
    assert base == TallyBallot("甲", "乙", 1, POST)
    # each field changed alone gives its own ballot, never the one made before
    assert ballots_of([("丁", "乙")])[0] == TallyBallot("丁", "乙", 1, POST)
    assert ballots_of([("甲", "丙")])[0] == TallyBallot("甲", "丙", 1, POST)
    assert ballots_of([("甲", "乙")], weights={"甲": 3})[0] == TallyBallot("甲", "乙", 3, POST)
    assert ballots_of([("甲", "乙")], {"甲": GM})[0] == TallyBallot("甲", "乙", 1, GM)
    assert ballots_of([("甲", "")])[0] == TallyBallot("甲", "", 1, POST)
    assert ballot("甲", "乙", 2, DELEGATED) == TallyBallot("甲", "乙", 2, DELEGATED)


def test_the_table_stays_bounded():
    for i in range(tally.MADE_MAX + 10):
        ballot(f"v{i}", "乙")
    assert len(tally._MADE) <= tally.MADE_MAX
    assert ballot("甲", "乙") == TallyBallot("甲", "乙")


def test_a_row_is_made_once_and_every_field_is_in_its_key():
    from tianshen.core.tally import TallyRow, row
    assert row("乙", 2, 3, "诅咒") is row("乙", 2, 3, "诅咒")
    assert row("乙", 2, 3, "诅咒") == TallyRow("乙", 2, 3, "诅咒")
    for args in (("丙", 2, 3, "诅咒"), ("乙", 1, 3, "诅咒"), ("乙", 2, 2, "诅咒"), ("乙", 2, 3, "")):
        assert row(*args) == TallyRow(*args)

