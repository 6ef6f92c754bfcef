"""The end of a game when nobody is left alive, in every family (issue 27, item 4), and the
001-family curse that executes a player nobody voted for.

classic (002) has no rule for it and borrows from 001 §7 only 7.1 and 7.2.x (DECISIONS §6),
so a game with nobody alive is a draw (docs/classic.md); game_ten (001) follows B36
`simultaneous_win`; n_lives §10.5, hex_survival D19 and butterfly_elder E9 say draw.
"""

from __future__ import annotations

import pytest

import butterfly_helpers
import classic_helpers
import hex_helpers
import n_lives_helpers
from classic_helpers import Game, main_posts
from test_game_ten_rules import ten
from tianshen.rules.common.roles import CIVILIANS
from tianshen.rules.n_lives import victory

DRAW_LINE = "平局"


def _everyone_dead(state) -> None:
    for p in state.players:
        p.alive = False


@pytest.mark.parametrize("players", [8, 10, 13])
def test_classic_nobody_alive_is_a_draw(players: int) -> None:
    """002 is silent and DECISIONS §6 borrows 7.1/7.2.x but not B36: nobody alive → draw."""
    g = Game(players)
    _everyone_dead(g.state)
    assert g.ruleset.check_victory(g.state) == "draw"


def test_classic_last_killer_and_last_commoner_with_civilians_left_still_civilians() -> None:
    """002 "杀手全灭，判杀手负" with civilians still alive: unchanged, the civilians win."""
    g = Game(10)
    for n in ("甲", "乙", "庚", "辛", "壬", "癸"):
        g.state.player(n).alive = False
    assert g.ruleset.check_victory(g.state) == CIVILIANS


def _silent_day_after_a_curse(g: Game, curser: str, cursed: str) -> str:
    """Night 1 without a kill, a curse on `cursed`; on day 1 nobody votes."""
    g.pm(curser, f"诅咒 {cursed}")
    g.dawn()
    g.advance("vote_open")
    return main_posts(g.advance("vote_end"))


def test_classic_curse_alone_executes_then_nobody_left_is_a_draw() -> None:
    """002 诅咒 "被诅咒的人，第二天投票时会被多计一票" (001 §2.5): with no vote cast the curse
    alone makes 庚 the unique top and he is executed; the 7 others are removed for not voting
    (001 §5.3).  Nobody is left: the draw post, not 「平民方获胜」 (the live-test defect)."""
    g = Game(8)
    body = _silent_day_after_a_curse(g, "戊", "庚")
    assert g.state.player("庚").death_cause == "executed"
    assert not g.living()
    assert g.state.winner == "draw" and g.state.phase.kind == "over"
    assert DRAW_LINE in body and "获胜" not in body


def test_game_ten_nobody_alive_follows_b36() -> None:
    """001 §7: with nobody alive 7.1 and 7.2.2/7.2.3 all hold; B36 `simultaneous_win` decides
    (civilians by default, a draw when the GM sets it)."""
    for setting, winner in (("civilians", CIVILIANS), ("draw", "draw")):
        g = ten()
        g.state.data["options"]["simultaneous_win"] = setting
        _everyone_dead(g.state)
        assert g.ruleset.check_victory(g.state) == winner


def test_game_ten_curse_alone_executes() -> None:
    """001 §2.5 诅咒: the curse's one vote is a vote; with nobody else voting the cursed player
    is the unique top and is executed; then everyone is out and B36 decides."""
    g = ten()
    g.pm("丁", "诅咒 子")  # 丁 is the curser in test_game_ten_rules.ROLES
    g.dawn()
    g.advance("vote_open")
    g.advance("vote_end")
    assert g.state.player("子").death_cause == "executed"
    assert not g.living()
    assert g.state.winner == CIVILIANS


def test_n_lives_nobody_alive_is_a_draw() -> None:
    """000 §10.5 所有游戏者都死亡 → draw (DECISIONS 1.1.10)."""
    g = n_lives_helpers.Game()
    _everyone_dead(g.state)
    assert victory.winner(g.state, g.ruleset.spec.options) == "draw"


@pytest.mark.parametrize("variant", ["hex_survival_12", "hex_survival_14"])
def test_hex_nobody_alive_is_a_draw(variant: str) -> None:
    """003 §11 with D19: both camps wiped out at once → draw."""
    g = hex_helpers.Hex() if variant == "hex_survival_12" else hex_helpers.Hex(
        camps={n: ("red" if i < 7 else "blue") for i, n in enumerate("甲乙丙丁戊己庚辛壬癸子丑寅卯")},
        cells={}, variant=variant)
    _everyone_dead(g.state)
    assert g.ruleset.check_victory(g.state) == "draw"


def test_butterfly_nobody_alive_is_a_draw() -> None:
    """004 三 with E9: good and killers at once, no independent alive → draw."""
    g = butterfly_helpers.Game()
    _everyone_dead(g.state)
    assert g.ruleset.check_victory(g.state) == "draw"


def test_helpers_agree_on_the_draw_text() -> None:
    """Every family's draw post says 平局."""
    for spec in (classic_helpers.Game(8).ruleset.spec, butterfly_helpers.Game().ruleset.spec,
                 hex_helpers.Hex().ruleset.spec, n_lives_helpers.Game().ruleset.spec):
        assert DRAW_LINE in spec.texts["victory_draw"]
