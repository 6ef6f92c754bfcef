"""The PM grammar remembers a tuple verb table's key (issue 37: every PM of a game is read
with its ruleset's table); a table changed in place is still read by its new words."""

from __future__ import annotations

from tianshen.core import grammar
from tianshen.core.grammar import VERBS, parse_pm


def test_a_tuple_table_is_keyed_once_and_read_again_when_changed() -> None:
    verbs = dict(VERBS) | {"hug": ("抱",)}
    first = grammar._verbs_key(verbs)
    assert grammar._verbs_key(verbs) is first  # remembered
    assert parse_pm("抱 丙", verbs).commands[0].verb == "hug"
    verbs["hug"] = ("拥抱",)  # the same table object, changed
    assert grammar._verbs_key(verbs) is not first
    assert parse_pm("拥抱 丙", verbs).commands[0].verb == "hug"
    assert not parse_pm("抱 丙", verbs).commands or parse_pm("抱 丙", verbs).commands[0].verb != "hug"
