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


def test_a_rulesets_table_is_read_only_and_keyed_with_it() -> None:
    import copy
    import pickle

    import pytest

    from tianshen.rules import load_ruleset

    ruleset = load_ruleset("classic_10")
    table = ruleset.pm_verbs
    assert isinstance(table, grammar.VerbTable)
    grammar._KEYS.clear()
    assert grammar._verbs_key(table) is table.key and not grammar._KEYS  # its own key, no copy compared
    assert table.key == tuple((v, tuple(al)) for v, al in table.items())
    for change in (lambda: table.__setitem__("hug", ("抱",)), lambda: table.update(hug=("抱",)),
                   lambda: table.pop("vote"), lambda: table.setdefault("hug", ("抱",)), table.clear):
        with pytest.raises(TypeError):
            change()
    assert "hug" not in table and "vote" in table
    for made in (pickle.loads(pickle.dumps(table)), copy.deepcopy(table), copy.copy(table)):
        assert type(made) is grammar.VerbTable and made == table and made.key == table.key
    wider = grammar.VerbTable(table | {"hug": ("抱",)})
    assert parse_pm("抱 丙", wider).commands[0].verb == "hug"


def test_the_intake_hands_each_command_as_its_own() -> None:
    """core.intake runs the parser's shared rows as new `Command`s: one the family changes is
    not what the next PM of the same text reads."""
    from datetime import UTC, datetime

    from tianshen.core.intake import answer_pm
    from tianshen.core.model import PmIn
    from tianshen.rules import load_ruleset
    from tianshen.sim.montecarlo import Game

    ruleset = load_ruleset("classic_10")
    state = Game(ruleset, 1, 10).state
    seen: list[tuple[str, str]] = []

    def run(state, p, cmd, at, out):  # type: ignore[no-untyped-def]
        seen.append((cmd.verb, cmd.arg))
        cmd.arg, cmd.verb = "changed", "changed"
        return "ok"

    sender = state.players[0].name
    for _ in range(2):
        pm = PmIn(id="x", sender=sender, text="/done\n票数", at=datetime(2026, 1, 1, tzinfo=UTC))
        answer_pm(ruleset.spec, state, pm, run, lambda state, p: "help", ruleset.pm_verbs, ruleset.pm_declaring)
    assert seen == [("done", ""), ("count", "")] * 2
    assert grammar.parsed_rows("/done\n票数", ruleset.pm_verbs, ruleset.pm_declaring)[0][0][:2] == ("done", "")


def test_a_rulesets_table_keeps_its_readings() -> None:
    """A `VerbTable` keeps each PM text's reading (it cannot change, so neither can they): the
    same rows as a plain copy of the table gives, the second time the very same; a copy of
    the table starts with none."""
    import pickle

    from tianshen.rules import load_ruleset

    ruleset = load_ruleset("classic_10")
    table, declaring = ruleset.pm_verbs, ruleset.pm_declaring
    text = "杀 甲\n宣言：今夜月色正好"
    first = grammar.parsed_rows(text, table, declaring)
    assert first == grammar.parsed_rows(text, dict(table), declaring)
    assert (text, declaring) in table.rows and grammar.parsed_rows(text, table, declaring) is first
    assert pickle.loads(pickle.dumps(table)).rows == {}
