"""猫有n条命 (seed 000): the day — the weighted vote (§8.2), curse and bless (§3.1.9, A14),
the top two executed (§8.3, A11–A13), escrow and its announcement (A15, A29), 特赦
(§3.1.8b, A15–A19), 圣人 (§3.1.3c, A16, A28), delegated votes (§8.4), no vote ⇒ out (§8.5),
day 必杀 (§3.1.8a, A40).  DECISIONS 1.1.8 gives the order of the day end."""

from __future__ import annotations

from n_lives_helpers import HANDS_6, Game, decl, main_posts, pms_to


def strip(g: Game, name: str, keep: int) -> None:
    """Leave the player only the last `keep` cards of his order (a later position of a game)."""
    p = g.state.player(name)
    p.extra["hand"] = p.extra["hand"][-keep:]


def row(post: str, name: str) -> str:
    """The tally row of `name` in a dusk post."""
    return next((ln for ln in post.splitlines() if ln.startswith(f"| {name} |")), "")


# everyone votes; 乙 16 (4 voters), 甲 8 (2 voters): the top two are 乙 and 甲
SAFE = {"甲": "乙", "乙": "甲", "丙": "乙", "丁": "乙", "戊": "乙", "己": "甲"}


def day1(g: Game | None = None) -> Game:
    g = g or Game()
    g.dawn()
    return g


# ---- the weighted vote (§8.1–8.3, A43) ------------------------------------------------------


def test_vote_weight_is_cards_held_at_vote_end():
    """§8.2: 甲投票给乙，而甲在当天投票结束时手中还有3张牌，则乙得票计为3票."""
    g = Game()
    g.pm("甲", f"攻击 丙\n{decl()}")
    g.dawn()
    out = g.dusk(SAFE)
    post = main_posts(out)
    assert row(post, "乙") == "| 乙 | 15 | 甲（4）、丙（3）、丁（4）、戊（4） |"
    assert row(post, "甲") == "| 甲 | 8 | 乙（4）、己（4） |"


def test_vote_cannot_be_changed():
    """§8.3 投票一旦投出，就禁止修改; A43: the first valid vote counts."""
    g = day1()
    g.post("丙", "投票 甲")
    out = g.post("丙", "投票 乙")
    assert out.refusals and "禁止修改" in out.refusals[0].reason
    out = g.dusk({k: v for k, v in SAFE.items() if k != "丙"})
    assert "丙（4）" in row(main_posts(out), "甲")


def test_self_vote_allowed():
    """A43: a vote for oneself is allowed (nothing forbids it)."""
    g = day1()
    votes = dict(SAFE, 丙="丙")
    out = g.dusk(votes)
    assert "丙（4）" in row(main_posts(out), "丙")


def test_vote_for_unknown_refused():
    """§8.1 投票给一名游戏者: a name that is no player is refused."""
    g = day1()
    out = g.post("丙", "投票 路人甲乙")
    assert out.refusals


def test_competition_ranking_tie_for_first():
    """A11: A9 B9 C5 → only A and B (competition ranking, rank ≤ 2)."""
    g = day1()
    out = g.dusk({"甲": "丙", "乙": "丙", "丙": "丁", "丁": "丙", "戊": "丁", "己": "戊"})
    post = main_posts(out)
    # 丙 12, 丁 8, 戊 4
    assert "丙被处决" in post and "丁被处决" in post and "戊被处决" not in post
    g = day1()
    out = g.dusk({"甲": "丙", "乙": "丙", "丙": "丁", "丁": "丁", "戊": "甲", "己": "甲"})
    post = main_posts(out)  # 丙 8, 丁 8, 甲 8: all three
    assert all(f"{n}被处决" in post for n in ("丙", "丁", "甲"))


def test_competition_ranking_tie_for_second():
    """§8.3 得票数居前两位的游戏者不止两人时，有几人处决几人: A9 B5 C5 → A, B and C."""
    g = Game()
    strip(g, "己", 1)
    g.dawn()
    out = g.dusk({"甲": "丙", "乙": "丙", "丁": "丙", "丙": "丁", "戊": "甲", "己": "乙"})
    post = main_posts(out)  # 丙 12; 丁 4, 甲 4; 乙 1
    assert all(f"{n}被处决" in post for n in ("丙", "丁", "甲"))
    assert "乙被处决" not in post


def test_zero_votes_never_executed():
    """§8.3 无论何种情况下，得票为0的游戏者不被处决; A13: after the modifiers."""
    g = Game()
    g.state.player("丙").extra["ap"] = 5
    strip(g, "己", 1)
    g.dawn()
    g.pm("丙", "庇佑 丁", hours=2)
    out = g.dusk({"甲": "乙", "乙": "戊", "丙": "乙", "丁": "乙", "戊": "乙", "己": "丁"})
    post = main_posts(out)
    # 乙 16, 戊 4, 丁 1 → 0
    assert "| 丁 | 1→0 |" in post
    assert "丁被处决" not in post
    assert "乙被处决" in post and "戊被处决" in post


def test_nobody_voted_for_nobody_executed():
    """§8.3: with only zero counts nobody is executed."""
    g = Game()
    for n in ("甲", "乙", "丁", "戊", "己"):
        strip(g, n, 1)
    strip(g, "丙", 2)  # 诅咒/庇佑, 狙击手/圣人
    g.dawn()
    g.pm("丙", "庇佑 丁", hours=2)
    out = g.dusk({"甲": "丁", "乙": "乙", "丙": "乙", "丁": "乙", "戊": "乙", "己": "乙"})
    post = main_posts(out)
    assert "丁被处决" not in post and "乙被处决" in post


def test_two_alive_execute_one_and_tie_nobody():
    """§8.3 活着的游戏者只剩两人时，每天只处决一人; A12: a tie executes nobody."""
    g = Game()
    for n in ("丁", "戊", "己", "丙"):
        g.ruleset._remove(g.state, g.state.player(n), "modkill")
    g.dawn()
    out = g.dusk({"甲": "乙", "乙": "甲"})
    post = main_posts(out)
    assert "今天没有人被处决。" in post
    assert len(g.hand("甲")) == 4 and len(g.hand("乙")) == 4
    g = Game()
    for n in ("丁", "戊", "己", "丙"):
        g.ruleset._remove(g.state, g.state.player(n), "modkill")
    strip(g, "乙", 3)
    g.dawn()
    out = g.dusk({"甲": "乙", "乙": "乙"})
    post = main_posts(out)
    assert "乙被处决" in post and "甲被处决" not in post


# ---- curse and bless (§3.1.9, A14) -----------------------------------------------------------


def _modified(mods: list[tuple[str, str]], raw_cards: int = 3) -> str:
    """丁's row when 己 (with `raw_cards` cards) alone votes 丁 and the given PMs are sent by
    day (sender, text)."""
    g = Game()
    for n in ("丙", "己"):
        g.state.player(n).extra["ap"] = 20
    strip(g, "己", raw_cards)
    g.dawn()
    for who, text in mods:
        out = g.pm(who, text, hours=2)
        assert "✔" in pms_to(out, who), pms_to(out, who)
    out = g.dusk({"甲": "乙", "乙": "甲", "丙": "乙", "丁": "乙", "戊": "乙", "己": "丁"})
    return row(main_posts(out), "丁")


def test_curse_adds_one_bless_subtracts_one():
    """§3.1.9a/c: 多计一票 / 少计一票."""
    assert _modified([("丙", "诅咒 丁")]).startswith("| 丁 | 3→4 |")
    assert _modified([("丙", "庇佑 丁")]).startswith("| 丁 | 3→2 |")


def test_hex_doubles_devout_halves_odd_minus_one_first():
    """§3.1.9b 翻倍; §3.1.9d 减半（得票为奇数时先减1再减半）."""
    assert _modified([("丙", "恶毒诅咒 丁")]).startswith("| 丁 | 3→6 |")
    assert _modified([("丙", "虔诚庇佑 丁")]).startswith("| 丁 | 3→1 |")
    assert _modified([("丙", "虔诚庇佑 丁")], raw_cards=2).startswith("| 丁 | 2→1 |")


def test_additive_before_multiplicative():
    """A14: raw 3, +1 +1, ÷2 → (3+2)/2 = 2 (not ⌊3/2⌋+2 = 3)."""
    assert _modified([("丙", "诅咒 丁"), ("己", "诅咒 丁"), ("丙", "虔诚庇佑 丁")]).startswith("| 丁 | 3→2 |")


def test_additive_net_then_clamp():
    """A14: additive terms as a net sum, then clamp at 0: 0 −1 +1 = 0, nobody executed for it."""
    g = Game()
    g.state.player("丙").extra["ap"] = 20
    g.dawn()
    g.pm("丙", "庇佑 丁", hours=2)
    g.pm("丙", "诅咒 丁", hours=3)
    out = g.dusk(SAFE)
    post = main_posts(out)
    assert "丁被处决" not in post
    assert "→1" not in row(post, "丁")


def test_hex_and_devout_cancel_in_pairs():
    """A14: ×2 and ÷2 cancel in pairs: raw 3, ×2, ÷2 → 3 (not 2); ×2 ×2 → 12."""
    assert _modified([("丙", "恶毒诅咒 丁"), ("己", "虔诚庇佑 丁")]).startswith("| 丁 | 3 |")
    assert _modified([("丙", "恶毒诅咒 丁"), ("己", "恶毒诅咒 丁")]).startswith("| 丁 | 3→12 |")


def test_curse_on_unvoted_player_can_execute():
    """A13: the zero rule applies after modifiers: 0 + 1 curse = 1 vote."""
    g = Game()
    g.state.player("丙").extra["ap"] = 20
    g.dawn()
    g.pm("丙", "诅咒 戊", hours=2)
    out = g.dusk({"甲": "乙", "乙": "乙", "丙": "乙", "丁": "乙", "戊": "乙", "己": "乙"})
    post = main_posts(out)
    assert "| 戊 | 0→1 |" in post
    assert "戊被处决" in post


def test_night_curse_counts_for_the_next_days_vote():
    """1.1.6: a curse sent at night N_k counts at the D_k vote; it is charged at once."""
    g = Game()
    g.pm("丙", "恶毒诅咒 甲")
    assert g.ap("丙") == 1
    g.dawn()
    out = g.dusk(SAFE)
    assert row(main_posts(out), "甲").startswith("| 甲 | 8→16 |")


def test_modifiers_last_one_day():
    """§3.1.9 当天投票结束的时候: a curse does not carry into the next day."""
    g = Game()
    g.pm("丙", "恶毒诅咒 甲")
    g.dawn()
    g.dusk(SAFE)
    g.dawn()
    out = g.dusk({"甲": "丁", "乙": "丁", "丙": "丁", "丁": "甲", "戊": "丁", "己": "丁"})
    assert "→" not in row(main_posts(out), "甲")


def test_day_modifier_is_final_and_its_source_is_secret():
    """1.1.4: day actions are charged at once and cannot be revoked; 1.1.9: modifiers are
    shown per target as raw → final without their source."""
    g = Game()
    g.state.player("丙").extra["ap"] = 5
    g.dawn()
    g.pm("丙", "诅咒 甲", hours=2)
    out = g.pm("丙", "取消 诅咒", hours=3)
    assert "✘" in pms_to(out, "丙")
    assert g.ap("丙") == 4
    out = g.dusk(SAFE)
    post = main_posts(out)
    assert "| 甲 | 8→9 |" in post
    assert "诅咒" not in post and "庇佑" not in post


def test_devout_blessing_saves_from_execution():
    """The worked example, D2: the narrator's 虔诚庇佑 on himself halves his votes and he
    escapes the top two."""
    g = Game()
    g.state.player("己").extra["ap"] = 2
    g.dawn()
    g.pm("己", "虔诚庇佑 己", hours=2)
    out = g.dusk({"甲": "己", "乙": "己", "丙": "乙", "丁": "甲", "戊": "乙", "己": "甲"})
    post = main_posts(out)
    assert "| 己 | 8→4 |" in post
    assert "己被处决" not in post and "乙被处决" in post and "甲被处决" in post


# ---- escrow and its announcement (§8.3, A15, A29) -------------------------------------------------


def test_executed_named_at_dusk_type_at_dawn():
    """§8.3 and A29: names and tallies at day end; the card type at the next dawn."""
    g = day1()
    out = g.dusk(SAFE)
    post = main_posts(out)
    assert "乙被处决，丢了一张牌；因为今夜还可能被特赦" in post
    assert "丢了一张特权牌" not in post and "丢了一张庶民牌" not in post
    assert g.hand("乙") == HANDS_6["乙"][1:]
    out = g.dawn()
    post = main_posts(out)
    assert "乙昨天被处决丢掉的是一张庶民牌。" in post
    assert "甲昨天被处决丢掉的是一张庶民牌。" in post


def test_escrowed_card_cannot_be_used_and_pays_nothing():
    """A15: the card in escrow can't be used (an executed player can't pardon himself with
    the very card he lost) and gives no AP (A44)."""
    hands = dict(HANDS_6, 丁=["必杀/特赦", "庶民", "占卜/束魂", "防弹衣/狼毒"])
    g = Game(hands=hands)
    g.dawn()
    g.dusk({"甲": "丁", "乙": "丁", "丙": "丁", "丁": "乙", "戊": "乙", "己": "丁"})
    assert g.ap("丁") == 3 + 3  # 2 + 1 庶民 still held
    out = g.pm("丁", "特赦 丁")
    assert "暂时不在手中" in pms_to(out, "丁")
    out = g.dawn()
    assert "丁昨天被处决丢掉的是一张特权牌。" in main_posts(out)
    assert g.hand("丁") == ["庶民", "占卜/束魂", "防弹衣/狼毒"]


def test_escrowed_commoner_pays_no_ap():
    """A44: an escrowed 庶民 pays nothing at nightfall."""
    g = day1()
    g.dusk(SAFE)
    assert g.ap("乙") == 3 + 2


def test_investigation_does_not_see_the_escrow():
    """A15: the escrowed card is not seen by investigations."""
    hands = dict(HANDS_6, 甲=["杀手", "庶民", "占卜/束魂", "必杀/特赦"])
    g = Game(hands=hands)
    g.dawn()
    g.dusk({"甲": "乙", "乙": "甲", "丙": "甲", "丁": "甲", "戊": "甲", "己": "乙"})
    g.pm("丁", "占卜 甲")
    out = g.dawn()
    assert "占卜 甲：甲手中没有杀手牌。" in pms_to(out, "丁")


def test_player_whose_last_card_is_in_escrow_is_alive_until_dawn():
    """1.1.8 step 6, A15: only card in escrow ⇒ alive (pending) until dawn; pardoned ⇒ lives."""
    g = Game()
    strip(g, "丙", 1)
    g.dawn()
    out = g.dusk({"甲": "丙", "乙": "丙", "丙": "乙", "丁": "丙", "戊": "乙", "己": "乙"})
    assert g.alive("丙") and g.hand("丙") == []
    assert "出局" not in main_posts(out)
    g.pm("丁", "特赦 丙")
    out = g.dawn()
    assert g.alive("丙") and g.hand("丙") == ["狙击手/圣人"]
    assert "丙昨夜被特赦" in main_posts(out)
    # 乙 (not pardoned) lost his 庶民 for good
    assert "乙昨天被处决丢掉的是一张庶民牌。" in main_posts(out)


def test_unpardoned_last_card_dies_at_dawn():
    """§5.8: the escrow becomes final at dawn; no card left ⇒ out, no identity."""
    g = Game()
    strip(g, "丙", 1)
    g.dawn()
    g.dusk({"甲": "丙", "乙": "丙", "丙": "乙", "丁": "丙", "戊": "乙", "己": "乙"})
    out = g.dawn()
    post = main_posts(out)
    assert not g.alive("丙")
    assert "丙昨天被处决丢掉的是一张特权牌。" in post
    assert "丙的牌已经全部丢光，出局。" in post
    assert "平民" not in post


# ---- 特赦 (§3.1.8b, A15–A19, A36) -------------------------------------------------------------


def test_pardon_returns_the_card_to_the_front():
    """§3.1.8b: 被处决的人将不会损失自己的牌; A15: restored to the front; cost 2."""
    g = day1()
    g.dusk(SAFE)
    ap = g.ap("丁")
    g.pm("丁", "特赦 乙")
    assert g.ap("丁") == ap - 2
    out = g.dawn()
    assert g.hand("乙") == HANDS_6["乙"]
    post = main_posts(out)
    assert "乙昨夜被特赦，拿回了因被处决而丢掉的那张牌。" in post
    assert "乙昨天被处决丢掉的是" not in post


def test_pardon_of_someone_not_executed_refused_free():
    """A18: not executed yesterday ⇒ refused at intake, no AP."""
    g = day1()
    g.dusk(SAFE)
    ap = g.ap("丁")
    out = g.pm("丁", "特赦 丙")
    assert "✘" in pms_to(out, "丁") and g.ap("丁") == ap
    g2 = Game()
    out = g2.pm("丁", "特赦 丙")  # night 1: nobody was executed
    assert "✘" in pms_to(out, "丁")


def test_pardon_only_at_night():
    """§3.1.8b 在夜晚…特赦: sent by day it waits for the night (1.1.5); by then the player
    executed *that* day is the one it may pardon."""
    g = day1()
    out = g.pm("丁", "特赦 乙", hours=2)
    assert "✘" in pms_to(out, "丁")


def test_self_pardon_allowed():
    """§3.1.8b 特赦可以对自己使用 (with a card that is not the escrowed one)."""
    g = day1()
    g.dusk({"甲": "丁", "乙": "丁", "丙": "丁", "丁": "乙", "戊": "乙", "己": "丁"})
    out = g.pm("丁", "特赦 丁")
    assert "✔" in pms_to(out, "丁")
    g.dawn()
    assert g.hand("丁") == HANDS_6["丁"]


def test_pardoned_once_never_again_and_type_announced_at_once():
    """A17: a player can be pardoned once a game; §8.3: if he can't be pardoned the type of
    his executed card is announced right after the vote."""
    g = day1()
    g.dusk(SAFE)
    g.pm("丁", "特赦 乙")
    g.dawn()
    out = g.dusk(SAFE)
    post = main_posts(out)
    assert "乙被处决，丢了一张庶民牌。" in post
    assert "甲被处决，丢了一张牌；因为今夜还可能被特赦" in post  # 甲 was never pardoned
    out = g.pm("甲", "特赦 乙")
    assert "已经被特赦过一次" in pms_to(out, "甲")


def test_two_pardons_one_effect_both_charged():
    """A19: two pardons on one player in one night: one effect, both charged."""
    g = day1()
    g.dusk({"甲": "丙", "乙": "丙", "丙": "乙", "丁": "丙", "戊": "乙", "己": "乙"})
    a, d = g.ap("甲"), g.ap("丁")
    g.pm("甲", "特赦 丙")
    g.pm("丁", "特赦 丙")
    g.dawn()
    assert g.hand("丙") == HANDS_6["丙"]
    assert g.ap("甲") == a - 2 and g.ap("丁") == d - 2


def test_imprisoned_pardon_is_void():
    """§3.1.7a: 特赦 is a 2-AP privilege: void when its user is imprisoned."""
    g = day1()
    g.dusk(SAFE)
    g.pm("戊", "禁锢 丁")
    g.pm("丁", "特赦 乙")
    out = g.dawn()
    assert g.hand("乙") == HANDS_6["乙"][1:]
    assert "乙昨天被处决丢掉的是一张庶民牌。" in main_posts(out)


def test_pardoned_card_can_be_lost_to_an_attack_the_same_dawn():
    """A36/A21: the pardon restores first; an ordinary attack then takes the front card."""
    g = day1()
    g.dusk(SAFE)
    g.pm("丁", "特赦 甲")
    g.pm("乙", f"攻击 甲\n{decl()}")
    out = g.dawn()
    post = main_posts(out)
    assert g.hand("甲") == HANDS_6["甲"][1:]
    assert "甲昨夜被特赦" in post and "甲昨夜丢了1张庶民牌。" in post


# ---- 圣人 (§3.1.3c, A16, A28) -------------------------------------------------------------------


def test_saint_executed_voters_lose_a_card_each():
    """§3.1.3c: executed, he loses a card, and every player who voted for him loses one; the
    types are announced at once; he can't be pardoned (§8.3)."""
    g = Game()
    g.pm("丙", "圣人")
    assert g.ap("丙") == 0
    g.dawn()
    out = g.dusk({"甲": "丙", "丁": "丙", "戊": "丙", "乙": "己", "丙": "己", "己": "甲"})
    post = main_posts(out)  # 丙 12, 己 8, 甲 4
    assert "丙被处决，丢了一张庶民牌。" in post
    assert "丙使用了圣人特权" in post
    for n in ("甲", "丁", "戊"):
        assert g.hand(n) == HANDS_6[n][1:], n
    assert g.hand("乙") == HANDS_6["乙"]
    assert "甲丢了一张庶民牌" in post
    assert g.hand("丙") == HANDS_6["丙"][1:]
    out = g.pm("丁", "特赦 丙")
    assert "✘" in pms_to(out, "丁")


def test_saint_who_voted_for_himself_loses_two():
    """A28: literal — the saint is one of 所有投票处决他的游戏者."""
    g = Game()
    g.pm("丙", "圣人")
    g.dawn()
    g.dusk({"甲": "丙", "乙": "丙", "丙": "丙", "丁": "乙", "戊": "乙", "己": "乙"})
    assert g.hand("丙") == HANDS_6["丙"][2:]
    assert g.hand("丁") == HANDS_6["丁"]


def test_saint_not_executed_ap_lost_and_usable_again():
    """§3.1.3c: not executed ⇒ no effect, AP not returned; the next night it can be used again
    (3 AP again)."""
    g = Game()
    g.pm("丙", "圣人")
    g.dawn()
    out = g.dusk(SAFE)
    assert "圣人" not in main_posts(out)
    assert g.ap("丙") == 3
    out = g.pm("丙", "圣人")
    assert "✔" in pms_to(out, "丙") and g.ap("丙") == 0
    g.dawn()
    out = g.dusk({"甲": "丙", "乙": "丙", "丙": "乙", "丁": "丙", "戊": "乙", "己": "乙"})
    assert "丙使用了圣人特权" in main_posts(out)


def test_saint_takes_effect_once_per_game():
    """§3.1.3c 圣人特权在整局游戏中只能生效一次."""
    g = Game()
    g.pm("丙", "圣人")
    g.dawn()
    g.dusk({"甲": "丙", "乙": "丙", "丙": "乙", "丁": "丙", "戊": "乙", "己": "乙"})
    g.state.player("丙").extra["ap"] = 10
    out = g.pm("丙", "圣人")
    assert "只能生效一次" in pms_to(out, "丙")
    assert g.ap("丙") == 10


def test_saint_revenge_hits_delegated_voters():
    """1.1.8 step 5: every player who voted for him, delegated votes included."""
    g = Game()
    g.pm("丙", "圣人")
    g.dawn()
    g.pm("丁", "委托投票 丙", hours=2)
    g.dusk({"甲": "丙", "乙": "丙", "丙": "乙", "戊": "乙", "己": "乙"})
    assert g.hand("丁") == HANDS_6["丁"][1:]


def test_executed_saint_voter_escrow_first():
    """A16: executed and a voter of an executed saint: escrow = the first card, the saint's
    loss the next one (the worked example's 苹果 on D2)."""
    g = Game()
    g.pm("丙", "圣人")
    g.dawn()
    out = g.dusk({"甲": "丙", "乙": "甲", "丙": "甲", "丁": "丙", "戊": "乙", "己": "丁"})
    # 丙 8 (甲, 丁), 甲 8 (乙, 丙): both executed; 甲 voted for the saint
    post = main_posts(out)
    assert "甲被处决，丢了一张牌；因为今夜还可能被特赦" in post
    assert "甲丢了一张特权牌" in post  # 占卜/束魂, the second card
    assert g.hand("甲") == ["必杀/特赦", "杀手"]
    assert g.state.player("甲").extra["escrow"]


def test_saint_sent_by_day_waits_for_the_night():
    """§3.1.3c 在夜里用短消息通知天神使用圣人特权 (A28); sent by day it is queued (1.1.5)."""
    g = day1()
    out = g.pm("丙", "圣人", hours=2)
    assert "等到第2夜" in pms_to(out, "丙")
    out = g.dusk({"甲": "丙", "乙": "丙", "丙": "乙", "丁": "丙", "戊": "乙", "己": "乙"})
    assert "圣人" not in main_posts(out)
    assert g.hand("甲") == HANDS_6["甲"]


# ---- delegated votes (§8.4) -------------------------------------------------------------------


def test_delegated_vote_counted_and_marked():
    """§8.4: the GM casts it after the others; marked as delegated in the tally (1.1.9)."""
    g = day1()
    out = g.pm("丁", "委托投票 甲", hours=2)
    assert "✔" in pms_to(out, "丁")
    out = g.dusk({k: v for k, v in SAFE.items() if k != "丁"})
    post = main_posts(out)
    assert "丁（4）（委托）" in row(post, "甲")
    assert "丁没有投票" not in post


def test_delegation_can_change_until_published():
    """§8.4 委托投票在天神未公布之前，还可以修改."""
    g = day1()
    g.pm("丁", "委托投票 甲", hours=2)
    g.pm("丁", "委托投票 戊", hours=3)
    out = g.dusk({k: v for k, v in SAFE.items() if k != "丁"})
    post = main_posts(out)
    assert "丁" not in row(post, "甲")
    assert "丁（4）（委托）" in row(post, "戊")


def test_own_vote_voids_the_delegation():
    """§8.4 如果游戏者能够在投票结束前自己投票，则委托给天神的一票自动失效."""
    g = day1()
    g.pm("丁", "委托投票 甲", hours=2)
    out = g.dusk(SAFE)
    post = main_posts(out)
    assert "丁（4）" in row(post, "乙") and "委托" not in post


def test_delegation_needs_a_definite_name():
    """§8.4: 不确定具体人名或附有条件的委托投票无效."""
    g = day1()
    out = g.pm("丁", "委托投票 如果甲得票最多就投乙", hours=2)
    assert "✘" in pms_to(out, "丁")
    out = g.pm("丁", "委托投票 某人", hours=2)
    assert "✘" in pms_to(out, "丁")


def test_delegation_after_own_vote_refused():
    """§8.3: a vote once cast can't be changed, so a later delegation is refused."""
    g = day1()
    g.post("丁", "投票 乙")
    out = g.pm("丁", "委托投票 甲", hours=2)
    assert "✘" in pms_to(out, "丁")


# ---- no vote ⇒ out (§8.5, §9.1.5) ---------------------------------------------------------------


def test_no_vote_no_delegation_is_out():
    """§8.5: 没有投票也没有委托投票的，视为自动退出游戏; §5.8: no identity."""
    g = day1()
    out = g.dusk({k: v for k, v in SAFE.items() if k != "戊"})
    post = main_posts(out)
    assert "戊没有投票也没有委托投票，视为自动退出游戏。" in post
    assert not g.alive("戊")
    assert "平民" not in post
    out = g.pm("戊", "必杀 甲")
    assert "出局" in pms_to(out, "戊")


# ---- day 必杀 and the count (§3.1.8a, A40) -----------------------------------------------------


def test_day_bisha_kill_drops_votes_for_the_dead():
    """A40: votes for a player who loses his last card to a day 必杀 are discarded; his own
    vote weighs 0; nobody is penalised."""
    g = Game()
    strip(g, "戊", 1)
    g.dawn()
    g.pm("丁", "必杀 戊", hours=2)
    out = g.dusk({"甲": "戊", "乙": "戊", "丙": "戊", "丁": "乙", "戊": "乙", "己": "甲"})
    post = main_posts(out)
    assert "戊被必杀攻击，丢了一张特权牌。" in post
    assert "戊的牌已经全部丢光，出局。" in post
    assert row(post, "戊") == ""
    assert row(post, "乙").startswith("| 乙 | 4 |")
    assert all(g.alive(n) for n in ("甲", "乙", "丙"))


def test_escrow_and_factions_never_in_dusk_post():
    """§5.8/1.1.9: the dusk post shows no card name and no faction."""
    g = day1()
    out = g.dusk(SAFE)
    post = main_posts(out)
    for word in ("杀手", "狼人", "平民", "阵营", "自选"):
        assert word not in post, word


def test_delegation_sent_the_night_before_counts():
    """§8.4: a player who can't be online during the vote sends his delegation by PM; "委托投票
    只要在投票结束前寄出，无论天神何时看到，都视为有效" — sent during the night it counts at the
    next day's vote."""
    g = Game()
    out = g.pm("丁", "委托投票 甲")
    assert "✔" in pms_to(out, "丁")
    g.dawn()
    out = g.dusk({k: v for k, v in SAFE.items() if k != "丁"})
    assert "丁（4）（委托）" in row(main_posts(out), "甲")
    assert g.alive("丁")


def test_player_emptied_by_day_bisha_is_dead_not_a_non_voter():
    """1.1.8 steps 1–2: day 必杀 deaths are announced first; only a *living* player without a
    vote is removed under §8.5 — one who just lost his last card is simply out (§5.8)."""
    g = Game()
    strip(g, "戊", 1)
    g.dawn()
    g.pm("丁", "必杀 戊", hours=2)
    out = g.dusk({k: v for k, v in SAFE.items() if k != "戊"})
    post = main_posts(out)
    assert "戊的牌已经全部丢光，出局。" in post
    assert "戊没有投票" not in post
    assert g.state.player("戊").death_cause == "cards"


def test_pardoned_and_attacked_at_the_same_dawn_can_die():
    """A36: an executed player whose only card is in escrow is pardoned and loses the returned
    card to an attack at the same dawn — out."""
    g = Game()
    strip(g, "丙", 1)
    g.dawn()
    g.dusk({"甲": "丙", "乙": "丙", "丙": "乙", "丁": "丙", "戊": "乙", "己": "乙"})
    g.pm("丁", "特赦 丙")
    g.pm("甲", f"攻击 丙\n{decl()}")
    out = g.dawn()
    post = main_posts(out)
    assert "丙昨夜被特赦" in post and "丙昨夜丢了1张特权牌。" in post
    assert not g.alive("丙")


def test_removed_non_voters_cards_not_counted_as_discarded():
    """A33/A32: the cards of a player removed under §8.5 do not count toward the reorder
    thresholds."""
    g = day1()
    g.dusk({k: v for k, v in SAFE.items() if k != "戊"})
    assert g.state.data["discarded"] == 0
    assert not g.alive("戊")


def test_commoner_restored_by_pardon_pays_from_the_next_night():
    """A44: an escrowed 庶民 pays nothing; restored by a pardon at dawn it pays from the next
    night on."""
    g = day1()
    g.dusk(SAFE)
    assert g.ap("乙") == 3 + 2
    g.pm("丁", "特赦 乙")
    g.dawn()
    g.dusk({"甲": "丁", "乙": "丁", "丙": "丁", "丁": "甲", "戊": "甲", "己": "丁"})
    assert g.ap("乙") == 5 + 3
