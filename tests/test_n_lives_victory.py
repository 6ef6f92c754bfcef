"""Who wins 猫有n条命 (§10, DECISIONS 1.1.10, A30–A31), on positions set up by hand."""

from __future__ import annotations

from n_lives_helpers import Game
from tianshen.rules.n_lives import victory


def last_two(g: Game, a: str, b: str, hands: dict[str, list[str]]) -> None:
    """Everyone but `a` and `b` is out; the two hold the cards of `hands` (card ids by type)."""
    cards = g.state.data["cards"]
    for p in g.state.players:
        if p.name not in (a, b):
            p.alive, p.extra["hand"] = False, []
            continue
        p.extra["hand"] = [next(c for c, info in cards.items() if info["type"] == t) for t in hands[p.name]]


def test_two_players_without_an_attack_card_is_a_draw() -> None:
    """§10.5 剩下两名无法让对方出局的游戏者 (A30): no 杀手/狼人/狙击 card, no unused 必杀."""
    g = Game()
    last_two(g, "乙", "丙", {"乙": ["vest"], "丙": ["curse"]})
    assert victory.winner(g.state, g.ruleset.spec.options) == "draw"


def test_an_attack_card_keeps_the_game_going() -> None:
    g = Game()
    last_two(g, "乙", "丙", {"乙": ["werewolf"], "丙": ["curse"]})
    assert victory.winner(g.state, g.ruleset.spec.options) is None


def test_no_draw_while_an_executed_card_waits_for_the_dawn() -> None:
    """A15: an executed player's card is in escrow until dawn; if it is not pardoned he is out
    at dawn and the other side wins (§8.3, §10.1) — no draw at dusk."""
    g = Game()
    last_two(g, "乙", "丙", {"乙": [], "丙": ["curse", "jail"]})
    werewolf = g.state.player("乙")
    werewolf.extra["escrow"] = next(c for c, i in g.state.data["cards"].items() if i["type"] == "werewolf")
    assert victory.winner(g.state, g.ruleset.spec.options) is None
    werewolf.extra["escrow"], werewolf.alive = None, False  # the dawn: not pardoned
    assert victory.winner(g.state, g.ruleset.spec.options) == "civilians"


def test_votes_only_setting_never_declares_the_author_draw() -> None:
    """A30 `two_player_draw = votes_only`: the two play on with one execution a day."""
    g = Game()
    last_two(g, "乙", "丙", {"乙": ["vest"], "丙": ["curse"]})
    assert victory.winner(g.state, {**g.ruleset.spec.options, "two_player_draw": "votes_only"}) is None


def test_a_solo_self_chooser_must_be_the_last_one_alive() -> None:
    """§10.4 一山不容二虎: 除自己之外所有玩家都死亡; with the werewolf alive the game goes on."""
    g = Game()
    g.pm("己", "立场 狼人 一山不容二虎")
    last_two(g, "己", "乙", {"己": ["sniper"], "乙": ["werewolf"]})
    assert victory.winner(g.state, g.ruleset.spec.options) is None
    g.state.player("乙").alive = False
    assert victory.winner(g.state, g.ruleset.spec.options) == "solo"
    assert victory.members(g.state, "solo") == ["己"]


def test_a_co_win_self_chooser_wins_with_his_side_dead_or_alive() -> None:
    """§10.4 共赢: 除自己阵营之外的其他所有玩家都死亡，判本阵营获胜，所有同伙无论生死，分享奖金."""
    g = Game()
    g.pm("己", "立场 杀手 共赢")
    last_two(g, "己", "乙", {"己": ["sniper"], "乙": ["werewolf"]})
    g.state.player("乙").alive = False
    assert victory.winner(g.state, g.ruleset.spec.options) == "killers"
    assert set(victory.members(g.state, "killers")) == {"甲", "己"}
