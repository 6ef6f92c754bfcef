"""A power PM's target looked up among the names as written first (`core.names.names_as_written`,
issue 37: no `match_name` for most PMs): the table holds only names `match_name` would take
as they are, so a name with quotes at its ends is read as `match_name` reads it."""

from __future__ import annotations

import pytest

from classic_helpers import ROLES_10, Game
from folded_games import check_every_fold
from tianshen.core.model import GameState
from tianshen.core.names import match_name, names_as_written, seat_names
from tianshen.core.ruleset import Seat
from tianshen.rules import load_ruleset

# 庚 is 「壬」 here: `match_name` strips the quotes of what is written, so `「壬」` names 壬
QUOTED = {("「壬」" if n == "庚" else n): r for n, r in ROLES_10.items()}


def test_a_quoted_name_is_not_taken_as_written() -> None:
    g = Game(10, roles=QUOTED, seats=[Seat(name=n) for n in QUOTED])
    assert names_as_written(g.state) == {n: n for n in QUOTED if n != "「壬」"}
    assert match_name("「壬」", seat_names(g.state)) == "壬"
    g.pm("丁", "束魂 「壬」")  # the binder binds whom match_name names: 壬, not 「壬」
    assert g.state.data["subs"]["soulbind"] == {"丁": "壬"}
    g.pm("丁", "束魂 戊")  # a plain name, as written
    assert g.state.data["subs"]["soulbind"] == {"丁": "戊"}


@pytest.mark.parametrize("by_apply", [False, True])
def test_the_table_is_every_plain_seat_name_after_every_fold(by_apply: bool) -> None:
    ruleset = load_ruleset("classic_10")

    def check(state: GameState) -> None:
        table = names_as_written(state)
        assert table == {p.name: p.name for p in state.players}
        for name in table:
            assert match_name(name, seat_names(state)) == name

    assert check_every_fold(ruleset, by_apply, check, range(2)) > 50
