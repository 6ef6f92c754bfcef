"""n_lives: the DECISIONS settings kept as data (rulesets/n_lives.toml `[options]`) take effect
with their alternative values, and the shared mechanics a GM relies on work for this ruleset:
/done (DECISIONS §0.5), 签到 (§5.2), a substitute taking a seat (§9.3)."""

from __future__ import annotations

from n_lives_helpers import Game, decl, main_posts, pms_to
from tianshen.core.model import GmIn, PmIn
from tianshen.rules.n_lives import day as days


def with_options(**options: object) -> Game:
    g = Game()
    g.ruleset.spec.options.update(options)
    return g


def lost_at_dawn(g: Game, name: str) -> int:
    before = len(g.hand(name))
    g.dawn()
    return before - len(g.hand(name))


def test_one_hit_covers_only_its_own_attack_by_default():
    """A7 `ohk_scope = attack`: 一击必杀 is unblockable, the killer's ordinary attack that night is not."""
    g = Game()
    g.state.player("甲").extra["ap"] = 10
    g.pm("甲", f"一击必杀 丙\n{decl('【一】')}\n攻击 丁\n{decl('【二】')}")
    g.pm("丁", "防弹衣")
    assert lost_at_dawn(g, "丁") == 0
    assert len(g.hand("丙")) == 3


def test_one_hit_covering_all_attacks_of_the_night():
    """A7 `ohk_scope = all_attacks_of_user_that_night`: 任何特权都无法阻止杀手杀人 that night."""
    g = with_options(ohk_scope="all_attacks_of_user_that_night")
    g.state.player("甲").extra["ap"] = 10
    g.pm("甲", f"一击必杀 丙\n{decl('【一】')}\n攻击 丁\n{decl('【二】')}")
    g.pm("丁", "防弹衣")
    assert lost_at_dawn(g, "丁") == 1


def test_anti_sniper_global_by_default_and_self_as_option():
    """A5: 反狙击 voids every ordinary snipe that night (global); with `self` only those on its user."""
    for scope, lost in (("global", 0), ("self", 1)):
        g = with_options(anti_sniper_scope=scope)
        g.pm("戊", "反狙击")
        g.pm("己", f"狙击 丁\n{decl()}")
        assert lost_at_dawn(g, "丁") == lost, scope


def test_dense_ranking_executes_every_player_of_the_two_highest_counts():
    """A11: competition ranking by default (A9 B9 C5 → A, B); `dense` takes the two highest values."""
    g = Game()
    rows = [days.Row("甲", 9, 9, []), days.Row("乙", 9, 9, []), days.Row("丙", 5, 5, [])]
    assert days.executed(rows, 6, {"top2_ranking": "competition"}, g.state) == ["甲", "乙"]
    assert days.executed(rows, 6, {"top2_ranking": "dense"}, g.state) == ["甲", "乙", "丙"]


def test_two_alive_and_tied():
    """A12 `two_alive_tie`: none (default), both, or one by lot."""
    g = Game()
    rows = [days.Row("甲", 4, 4, []), days.Row("乙", 4, 4, [])]
    assert days.executed(rows, 2, {}, g.state) == []
    assert days.executed(rows, 2, {"two_alive_tie": "both"}, g.state) == ["甲", "乙"]
    drawn = days.executed(rows, 2, {"two_alive_tie": "lottery"}, g.state)
    assert len(drawn) == 1 and drawn[0] in ("甲", "乙")
    assert days.executed([days.Row("甲", 5, 5, []), rows[1]], 2, {}, g.state) == ["甲"]


def test_everyone_done_ends_the_night_early():
    """DECISIONS §0.5 `early_end = require_all_done`: the phase ends when every living player sent /done."""
    g = Game()
    names = [p.name for p in g.state.players]
    for i, name in enumerate(names[:-1]):
        g.pm(name, "/done", hours=2 + i / 10)
    assert "early_at" not in g.state.data
    g.pm(names[-1], "/done", hours=3)
    due = g.ruleset.next_deadline(g.state)
    assert due is not None and due.kind == "dawn" and due.at == g.at(3)


def test_a_player_who_does_not_check_in_leaves_with_his_cards():
    """§5.2, §9.1.4: 24小时之内未跟贴签到者，视为自动退出游戏 (no substitute: the seat is wasted,
    DECISIONS §0.5); his identity is not announced (§5.8)."""
    g = Game()
    for p in g.state.players:
        if p.name != "戊":
            g.post(p.name, "签到", 0.5, thread="main")
    out = g.advance("checkin_end")
    assert not g.alive("戊") and g.hand("戊") == []
    text = main_posts(out)
    assert "戊" in text and "平民" not in text


def test_a_substitute_gets_the_seat_with_its_hand_and_points():
    """§9.3: the first substitute to answer takes the seat: faction, cards in order and AP."""
    g = Game()
    g.state.data["substitutes"] = ["替补甲"]
    out = g._apply(GmIn(id="gm1", at=g.at(2), command="substitute", args={"players": "丙"}, reason="请假"))
    assert any(m.to == "替补甲" for m in out.pms)
    out = g._apply(PmIn(id="pm-sub", sender="替补甲", at=g.at(3), text="能"))
    body = pms_to(out, "替补甲")  # his own account: the role PM of the seat
    assert "平民阵营" in body and "庶民、防弹衣/狼毒、诅咒/庇佑、狙击手/圣人" in body and "3点行动点数" in body
    assert g.state.player("丙").forum_name == "替补甲"


def test_card_and_ability_tables_are_built_once_per_spec_and_go_with_it() -> None:
    import gc
    import weakref

    from tianshen.rules.n_lives.abilities import abilities
    from tianshen.rules.n_lives.cards import card_types
    from tianshen.specs import load_spec

    spec = load_spec("n_lives")
    assert card_types(spec) is card_types(spec) and abilities(spec) is abilities(spec)
    other = load_spec("n_lives")
    assert card_types(other) is not card_types(spec) and card_types(other) == card_types(spec)
    gone = weakref.ref(next(iter(card_types(other).values())))  # a CardType (a dict takes no weak reference)
    del other
    gc.collect()
    assert gone() is None  # no module-wide cache keeps a dropped spec's tables (web pages load one per request)
