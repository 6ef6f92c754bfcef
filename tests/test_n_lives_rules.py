"""猫有n条命 (seed 000): the privileges of §3.1 and how they interact (DECISIONS 1.1.6–1.1.7).

Every test names the clause it checks.  The table is HANDS_6 of tests/n_lives_helpers.py
(甲 killer, 乙 werewolf, 丙 丁 戊 civilians, 己 self-chooser; each hand in discard order, the
last card the 底牌)."""

from __future__ import annotations

from n_lives_helpers import HANDS_6, Game, decl, main_posts, pms_to
from tianshen.rules.n_lives import night


def attack(verb: str, target: str, tag: str = "【宣言】") -> str:
    """An attack PM with its declaration on the next lines (§3.4.2)."""
    return f"{verb} {target}\n{decl(tag)}"


def strip(g: Game, name: str, keep: int) -> None:
    """Leave the player only the last `keep` cards of his order (a later position of a game)."""
    p = g.state.player(name)
    p.extra["hand"] = p.extra["hand"][-keep:]


# ---- ordinary attacks and the declaration (§3.1.1a, §3.1.2a, §3.4.2, A25, §0.4) -----------


def test_killer_attack_takes_the_front_card_and_costs_one():
    """§3.1.1a: the target loses a card — the first of his order (§1, §6); cost 1 AP."""
    g = Game()
    g.pm("甲", attack("攻击", "丙"))
    assert g.ap("甲") == 2
    out = g.dawn()
    assert g.hand("丙") == ["防弹衣/狼毒", "诅咒/庇佑", "狙击手/圣人"]
    assert "丙昨夜丢了1张庶民牌。" in main_posts(out)
    assert "【宣言】" in main_posts(out)  # §0.4: the declaration of an attack that removed a card


def test_attack_without_declaration_is_void_and_not_charged():
    """A25 (borrowed from 001/002): no declaration by the lock ⇒ no attack, no AP charged,
    and the attacker is told."""
    g = Game()
    g.pm("甲", "攻击 丙")
    out = g.dawn()
    assert g.hand("丙") == HANDS_6["丙"]
    assert g.ap("甲") == 3
    assert "没有合格的杀人宣言" in pms_to(out, "甲")
    assert "丙昨夜丢了" not in main_posts(out)


def test_short_declaration_refused_story_of_any_length_accepted():
    """§3.4.2: not fewer than 100 characters, unless the attacker writes the night's story."""
    g = Game()
    out = g.pm("甲", "攻击 丙\n" + decl(n=50))
    assert "至少要100字" in pms_to(out, "甲")
    g.pm("甲", "剧情 丙倒在了血泊中。")
    g.dawn()
    assert g.hand("丙") == HANDS_6["丙"][1:]


def test_declaration_in_a_separate_pm():
    """§3.4.2 / §0.4: a PM starting with 宣言 goes with the attack waiting for one."""
    g = Game()
    g.pm("甲", "攻击 丙")
    g.pm("甲", "宣言 " + decl("【另寄】"))
    out = g.dawn()
    assert "【另寄】" in main_posts(out)
    assert len(g.hand("丙")) == 3


def test_one_declaration_per_attack():
    """§3.1.1a "攻击几次就要写几篇杀人宣言": two attacks, one declaration ⇒ only one is made."""
    g = Game()
    g.pm("甲", "攻击 丙\n攻击 丁\n" + decl())
    out = g.dawn()
    assert len(g.hand("丙")) + len(g.hand("丁")) == 7
    assert g.ap("甲") == 2  # the undeclared one is not charged (A25)
    assert "没有合格的杀人宣言" in pms_to(out, "甲")


def test_blocked_attack_declaration_not_published():
    """§0.4: a declaration is published only when its attack removed a card."""
    g = Game()
    g.pm("丙", "防弹衣")
    g.pm("甲", attack("攻击", "丙", "【挡住】"))
    out = g.dawn()
    assert "【挡住】" not in main_posts(out)
    assert g.hand("丙") == HANDS_6["丙"]
    assert g.ap("甲") == 2  # §3.3.3: a failed privilege is not refunded


def test_several_attacks_each_take_a_card():
    """§3.3.5 and the appendix: 4 ordinary attacks on one player take 4 cards (a killer with
    enough AP can empty a hand in one night); the player is out at dawn."""
    g = Game()
    g.pm("己", attack("狙击", "丁", "【一】") + "\n" + attack("狙击", "丁", "【二】") + "\n"
         + attack("狙击", "丁", "【三】") + "\n" + attack("狙击", "丁", "【四】"))
    out = g.dawn()
    assert g.hand("丁") == [] and not g.alive("丁")
    post = main_posts(out)
    assert "丁昨夜丢了3张特权牌和1张庶民牌。" in post
    assert "丁的牌已经全部丢光，出局。" in post


# ---- what blocks what (§3.1.3–3.1.7, appendix "六种特权", DECISIONS 1.1.7 step 6) -------


def test_vest_blocks_killer_not_werewolf():
    """§3.1.6a: 防弹衣 resists the killer's and the sniper's ordinary attacks, not the werewolf's."""
    g = Game()
    g.pm("丙", "防弹衣")
    g.pm("甲", attack("攻击", "丙"))
    g.pm("乙", attack("攻击", "丙"))
    g.dawn()
    assert g.hand("丙") == HANDS_6["丙"][1:]


def test_one_vest_blocks_all_the_killers_attacks():
    """Appendix: "对方只要防御了一次，就能挡住全部普通攻击"."""
    g = Game()
    g.pm("丙", "防弹衣")
    g.pm("甲", attack("攻击", "丙", "【一】") + "\n" + attack("攻击", "丙", "【二】"))
    g.dawn()
    assert g.hand("丙") == HANDS_6["丙"]
    assert g.ap("甲") == 1


def test_bane_blocks_werewolf_not_killer():
    """§3.1.6b: 狼毒 resists the werewolf's and the sniper's ordinary attacks, not the killer's."""
    g = Game()
    g.pm("丁", "狼毒")
    g.pm("乙", attack("攻击", "丁"))
    g.pm("甲", attack("攻击", "丁"))
    g.dawn()
    assert g.hand("丁") == HANDS_6["丁"][1:]


def test_bind_blocks_killer_not_werewolf():
    """§3.1.4b: 束魂 stops the killer's or sniper's ordinary attack, not the werewolf's."""
    g = Game()
    g.pm("丁", "束魂 丙")
    g.pm("甲", attack("攻击", "丙"))
    g.dawn()
    assert g.hand("丙") == HANDS_6["丙"]
    g2 = Game()
    g2.pm("丁", "束魂 丙")
    g2.pm("乙", attack("攻击", "丙"))
    g2.dawn()
    assert g2.hand("丙") == HANDS_6["丙"][1:]


def test_heal_blocks_werewolf_not_killer():
    """§3.1.5b: 巫医 stops the werewolf's or sniper's ordinary attack, not the killer's."""
    g = Game()
    g.pm("戊", "巫医 丙")
    g.pm("乙", attack("攻击", "丙"))
    g.dawn()
    assert g.hand("丙") == HANDS_6["丙"]
    g2 = Game()
    g2.pm("戊", "巫医 丙")
    g2.pm("甲", attack("攻击", "丙"))
    g2.dawn()
    assert g2.hand("丙") == HANDS_6["丙"][1:]


def test_ordinary_snipe_blocked_by_each_of_six():
    """Appendix: "狙击手的普通攻击同时可以被束魂、巫医、防弹衣、狼毒、禁锢、反狙击六种特权制止"."""
    guards = {
        "束魂": ("丁", "束魂 戊"),
        "巫医": ("戊", "巫医 戊"),
        "反狙击": ("戊", "反狙击"),
        "禁锢": ("戊", "禁锢 己"),
    }
    for label, (who, text) in guards.items():
        g = Game()
        g.pm(who, text)
        g.pm("己", attack("狙击", "戊"))
        g.dawn()
        assert g.hand("戊") == HANDS_6["戊"], label
    for label in ("防弹衣", "狼毒"):  # the target's own
        g = Game()
        g.pm("丁", label)
        g.pm("己", attack("狙击", "丁"))
        g.dawn()
        assert g.hand("丁") == HANDS_6["丁"], label
    g = Game()  # and unguarded it hits
    g.pm("己", attack("狙击", "戊"))
    g.dawn()
    assert g.hand("戊") == HANDS_6["戊"][1:]


def test_vest_is_self_only():
    """§3.1.6a 防弹衣只能对自己使用: 丁's vest does not cover 丙."""
    g = Game()
    g.pm("丁", "防弹衣")
    g.pm("甲", attack("攻击", "丙"))
    g.dawn()
    assert len(g.hand("丙")) == 3


# ---- 一击必杀 (§3.1.1c, §3.1.2c, A7) ------------------------------------------------------


def test_one_hit_kill_ignores_every_protection_and_imprisonment():
    """§3.1.1c "任何特权都无法阻止杀手杀人"; §3.1.7a 3-AP privileges are not imprisoned."""
    g2 = Game()
    g2.pm("丁", "防弹衣")
    g2.pm("戊", "禁锢 甲")
    g2.pm("甲", attack("一击必杀", "丁"))
    out = g2.dawn()
    assert g2.hand("丁") == HANDS_6["丁"][1:]
    assert g2.ap("甲") == 0
    assert "丁昨夜丢了1张庶民牌。" in main_posts(out)


def test_werewolf_one_hit_kill_ignores_bane_and_heal():
    """§3.1.2c; §3.1.6b 狼毒不能对抗…一击必杀."""
    g = Game()
    g.pm("丁", "狼毒")
    g.pm("戊", "巫医 丁")
    g.pm("乙", attack("一击必杀", "丁"))
    g.dawn()
    assert g.hand("丁") == HANDS_6["丁"][1:]


def test_one_hit_kill_does_not_cover_the_same_nights_ordinary_attacks():
    """A7 (default ohk_scope=attack): only the 一击必杀 itself is unblockable."""
    g = Game()
    g.state.player("甲").extra["ap"] = 4
    g.pm("丙", "防弹衣")
    g.pm("甲", attack("一击必杀", "丙", "【一击】") + "\n" + attack("攻击", "丙", "【普通】"))
    out = g.dawn()
    assert g.hand("丙") == HANDS_6["丙"][1:]
    assert "【一击】" in main_posts(out) and "【普通】" not in main_posts(out)


def test_not_enough_ap_for_one_hit_kill_refused_free():
    """§3.3.2: not enough AP ⇒ refused; DECISIONS §0.3: it costs nothing."""
    g = Game()
    g.pm("甲", attack("攻击", "丙"))
    out = g.pm("甲", attack("一击必杀", "丁"))
    assert "行动点数不足" in pms_to(out, "甲")
    assert g.ap("甲") == 2


# ---- 欺骗占卜 / 欺骗先知 and investigations (§3.1.1b, §3.1.2b, §3.1.4a, §3.1.5a, §3.1.6c/d, A1–A3) ----


def answers(out, name: str) -> str:
    return pms_to(out, name)


def test_divine_true_answers():
    """§3.1.4a: 占卜 asks whether the target holds the 杀手 card."""
    g = Game()
    g.state.player("丁").extra["ap"] = 4
    g.pm("丁", "占卜 甲\n占卜 乙")
    out = g.dawn()
    assert "占卜 甲：甲手中有杀手牌。" in answers(out, "丁")
    assert "占卜 乙：乙手中没有杀手牌。" in answers(out, "丁")
    assert "杀手牌" not in main_posts(out)  # never public


def test_foresee_true_answers():
    """§3.1.5a: 先知 asks whether the target holds the 狼人 card."""
    g = Game()
    g.pm("戊", "先知 乙")
    out = g.dawn()
    assert "先知 乙：乙手中有狼人牌。" in answers(out, "戊")


def test_deceive_diviner_inverts_both_ways():
    """§3.1.1b: with 欺骗占卜 on X, a 占卜 of X tonight gets the opposite answer; allowed on
    oneself."""
    g = Game()
    g.state.player("丁").extra["ap"] = 4
    g.pm("甲", "欺骗占卜 甲\n欺骗占卜 乙")
    g.pm("丁", "占卜 甲\n占卜 乙")
    out = g.dawn()
    assert "占卜 甲：甲手中没有杀手牌。" in answers(out, "丁")
    assert "占卜 乙：乙手中有杀手牌。" in answers(out, "丁")
    assert g.ap("甲") == 1


def test_deceive_prophet_inverts_foresee():
    """§3.1.2b: 欺骗先知 on oneself makes a 先知 of the werewolf answer "no"."""
    g = Game()
    g.pm("乙", "欺骗先知 乙")
    g.pm("戊", "先知 乙")
    out = g.dawn()
    assert "先知 乙：乙手中没有狼人牌。" in answers(out, "戊")


def test_deceive_diviner_does_not_touch_foresee_or_probe():
    """A3: 欺骗占卜 inverts only 占卜; 调查占卜 is never inverted."""
    g = Game()
    g.pm("甲", "欺骗占卜 丁")
    g.pm("丙", "调查占卜 丁")  # 丁 holds 占卜/束魂
    out = g.dawn()
    assert "调查占卜 丁：丁手中有占卜。" in answers(out, "丙")


def test_second_deception_on_one_target_refused_free():
    """A3: two deceptions of one target the same night are one; the second is refused, free."""
    g = Game()
    g.pm("甲", "欺骗占卜 乙")
    out = g.pm("甲", "欺骗占卜 乙")
    assert "✘" in pms_to(out, "甲")
    assert g.ap("甲") == 2


def test_deceive_needs_the_card():
    """§5.5 游戏者不能行使自己没有的牌的特权: 欺骗占卜 needs the 杀手 card."""
    g = Game()
    out = g.pm("丙", "欺骗占卜 乙")
    assert "你手中没有" in pms_to(out, "丙")
    assert g.ap("丙") == 3


def test_attribute_answers_yes_and_deception_inverts_it():
    """§3.4.1, A1–A3: a card with the killer attribute makes 占卜 say "yes"; a deception
    inverts that answer too."""
    attrs = {"丙": {"防弹衣/狼毒": "杀手"}, "戊": {"禁锢/反狙击": "狼人"}}
    g = Game(attributes=attrs)
    g.pm("丁", "占卜 丙")
    g.pm("乙", "先知 戊")  # 乙 has 先知/巫医
    out = g.dawn()
    assert "占卜 丙：丙手中有杀手牌。" in answers(out, "丁")
    assert "先知 戊：戊手中有狼人牌。" in answers(out, "乙")
    g = Game(attributes=attrs)
    g.pm("甲", "欺骗占卜 丙")
    g.pm("丁", "占卜 丙")
    out = g.dawn()
    assert "占卜 丙：丙手中没有杀手牌。" in answers(out, "丁")


def test_probe_diviner_and_prophet_with_attributes():
    """§3.1.6c/d, A2: 调查占卜/调查先知 answer yes for the card or its attribute."""
    g = Game(attributes={"己": {"诅咒/庇佑": "先知"}})
    g.state.player("丁").extra["ap"] = 6
    g.pm("丁", "调查占卜 甲\n调查先知 己\n调查先知 丙")
    out = g.dawn()
    text = answers(out, "丁")
    assert "调查占卜 甲：甲手中有占卜。" in text
    assert "调查先知 己：己手中有先知。" in text
    assert "调查先知 丙：丙手中没有先知。" in text


def test_attributes_not_told_to_the_holder():
    """A1: nobody is told which cards carry an attribute until the game ends."""
    g = Game(attributes={"丙": {"防弹衣/狼毒": "杀手"}})
    role_pm = pms_to(g.setup_out, "丙")
    assert "防弹衣/狼毒" in role_pm and "属性" not in role_pm
    out = g.dawn()
    assert "属性" not in pms_to(out, "丙")


def test_investigation_sees_the_night_start_hand():
    """§5.8/§0.2: a card lost tonight is still held tonight (the 杀手 card taken at this dawn
    still answers yes)."""
    g = Game()
    strip(g, "甲", 1)  # 甲 holds only 杀手
    g.pm("己", attack("狙击", "甲"))
    g.pm("丁", "占卜 甲")
    out = g.dawn()
    assert "占卜 甲：甲手中有杀手牌。" in answers(out, "丁")
    assert not g.alive("甲")


# ---- 瞄准狙击 (§3.1.3b, A20–A21) -----------------------------------------------------------


def test_aimed_snipe_counts_from_the_end():
    """§3.1.3b "狙掉对方倒数第2位的那张牌"; unblockable (§3.1.6a, §3.1.7b)."""
    g = Game()
    g.pm("丁", "防弹衣")
    g.pm("戊", "反狙击")
    g.pm("丙", attack("瞄准狙击", "丁 倒数第2"))
    out = g.dawn()
    assert g.hand("丁") == ["庶民", "占卜/束魂", "防弹衣/狼毒"]
    assert "丁昨夜丢了1张特权牌。" in main_posts(out)
    assert g.ap("丙") == 0


def test_aimed_snipe_from_the_front():
    """A20: "第k" is accepted too."""
    g = Game()
    g.pm("丙", attack("瞄准狙击", "丁 第2张"))
    g.dawn()
    assert g.hand("丁") == ["庶民", "必杀/特赦", "防弹衣/狼毒"]


def test_aimed_snipe_at_the_bottom_card_refused_free():
    """§3.1.3b: 游戏者的牌不只一张时，底牌不能被瞄准狙击; A20: refused at intake, no AP."""
    g = Game()
    out = g.pm("丙", attack("瞄准狙击", "丁 倒数第1"))
    assert "底牌不能被瞄准狙击" in pms_to(out, "丙")
    assert g.ap("丙") == 3
    out = g.pm("丙", attack("瞄准狙击", "丁 倒数第5"))
    assert "✘" in pms_to(out, "丙") and g.ap("丙") == 3


def test_aimed_snipe_may_take_a_lone_bottom_card():
    """§3.1.3b: 如果游戏者手中只剩一张底牌了，则底牌可以被瞄准狙击."""
    g = Game()
    strip(g, "丁", 1)
    g.state.data["night_hands"]["丁"] = list(g.state.player("丁").extra["hand"])
    g.pm("丁", "防弹衣")
    g.pm("丙", attack("瞄准狙击", "丁 倒数第1"))
    g.dawn()
    assert not g.alive("丁")


def test_aimed_and_ordinary_same_night():
    """A21: the aimed snipe takes its named card, the ordinary attack the front card."""
    g = Game()
    g.pm("丙", attack("瞄准狙击", "丁 倒数第2", "【瞄准】"))
    g.pm("甲", attack("攻击", "丁", "【普通】"))
    g.dawn()
    assert g.hand("丁") == ["占卜/束魂", "防弹衣/狼毒"]


def test_two_aimed_snipes_at_one_card():
    """A20: a second aimed snipe at a card already taken becomes a front loss."""
    g = Game()
    g.pm("丙", attack("瞄准狙击", "丁 倒数第2", "【一】"))
    g.pm("己", attack("瞄准狙击", "丁 倒数第2", "【二】"))
    g.dawn()
    assert g.hand("丁") == ["占卜/束魂", "防弹衣/狼毒"]


# ---- 束魂 / 巫医: success, and failure after two nights (§3.1.4b, §3.1.5b, A22, A24, A37) ----


def test_bind_success_announced_and_no_vote():
    """§3.1.4b: the bound target survives and can discuss but not vote; A24: announced."""
    g = Game()
    g.pm("丁", "束魂 丙")
    g.pm("甲", attack("攻击", "丙"))
    out = g.dawn()
    assert "丙昨夜被束魂或治疗救下" in main_posts(out)
    out = g.post("丙", "投票 甲")
    assert out.refusals
    out = g.pm("丙", "委托投票 甲")
    assert "✘" in pms_to(out, "丙")
    out = g.dusk({"甲": "乙", "乙": "甲", "丁": "甲", "戊": "乙", "己": "乙"})
    assert "丙没有投票" not in main_posts(out)  # §8.5 does not apply to him
    assert g.alive("丙")


def test_bind_on_a_player_not_attacked_is_silent():
    """§3.1.4b: 束魂落空，天神第二天不公布谁当夜被束魂; he can vote."""
    g = Game()
    g.pm("丁", "束魂 丙")
    out = g.dawn()
    assert "丙昨夜被束魂" not in main_posts(out)
    assert not g.post("丙", "投票 甲").refusals


def test_bound_player_hit_by_another_attacker_still_announced():
    """A37: bound against the killer, the werewolf's attack gets through: he loses the card
    and is announced as bound."""
    g = Game()
    g.pm("丁", "束魂 丙")
    g.pm("甲", attack("攻击", "丙", "【杀手】"))
    g.pm("乙", attack("攻击", "丙", "【狼人】"))
    out = g.dawn()
    assert g.hand("丙") == HANDS_6["丙"][1:]
    assert "丙昨夜被束魂或治疗救下" in main_posts(out)
    assert "【狼人】" in main_posts(out) and "【杀手】" not in main_posts(out)


def test_bind_failure_after_two_nights_by_the_same_binder():
    """§3.1.4b: the same player binds the same target two nights running and nobody attacks
    him ⇒ he loses a card, announced at dawn."""
    g = Game()
    g.pm("丁", "束魂 丙")
    g.dawn()
    g.dusk({"甲": "乙", "乙": "甲", "丙": "戊", "丁": "戊", "戊": "乙", "己": "甲"})
    g.pm("丁", "束魂 丙")
    out = g.dawn()
    assert "丙昨夜丢了1张庶民牌。" in main_posts(out)
    assert g.hand("丙") == HANDS_6["丙"][1:]


def test_bind_failure_not_with_two_binders_across_nights():
    """§3.1.4b: 如果两夜中不是由同一个游戏者使用束魂特权…不产生此效果."""
    g = Game()
    g.pm("丁", "束魂 丙")
    g.dawn()
    g.dusk({"甲": "乙", "乙": "甲", "丙": "戊", "丁": "戊", "戊": "乙", "己": "甲"})
    g.pm("甲", "束魂 丙")
    g.dawn()
    assert g.hand("丙") == HANDS_6["丙"]


def test_bind_failure_not_when_bound_twice_in_one_night():
    """§3.1.4b: 同一夜之中被束魂两次或更多次，不产生此效果."""
    g = Game()
    g.pm("丁", "束魂 丙")
    g.dawn()
    g.dusk({"甲": "乙", "乙": "甲", "丙": "戊", "丁": "戊", "戊": "乙", "己": "甲"})
    g.pm("丁", "束魂 丙")
    g.pm("甲", "束魂 丙")
    g.dawn()
    assert g.hand("丙") == HANDS_6["丙"]


def test_bind_failure_not_when_attacked_by_a_one_hit_kill():
    """A22: an attack of any type by a killer card on either night counts as 被攻击."""
    g = Game()
    g.pm("丁", "束魂 丙")
    g.pm("甲", attack("一击必杀", "丙"))
    g.dawn()
    assert len(g.hand("丙")) == 3
    g.dusk({"甲": "乙", "乙": "甲", "丙": "戊", "丁": "戊", "戊": "乙", "己": "甲"})
    g.pm("丁", "束魂 丙")
    g.dawn()
    assert len(g.hand("丙")) == 3


def test_imprisoned_binding_breaks_the_streak():
    """A22: an imprison-voided binding breaks the streak."""
    g = Game()
    g.pm("丁", "束魂 丙")
    g.pm("戊", "禁锢 丁")
    g.dawn()
    g.dusk({"甲": "乙", "乙": "甲", "丙": "戊", "丁": "戊", "戊": "乙", "己": "甲"})
    g.pm("丁", "束魂 丙")
    g.dawn()
    assert g.hand("丙") == HANDS_6["丙"]


def test_heal_failure_after_two_nights():
    """§3.1.5b: the same rule for 巫医 — a killer's attack does not count as one (only the
    werewolf's or a sniper's)."""
    g = Game()
    g.pm("戊", "巫医 丙")
    g.pm("甲", attack("攻击", "丙"))
    g.dawn()
    assert len(g.hand("丙")) == 3
    g.dusk({"甲": "乙", "乙": "甲", "丙": "戊", "丁": "戊", "戊": "乙", "己": "甲"})
    g.pm("戊", "巫医 丙")
    out = g.dawn()
    assert len(g.hand("丙")) == 2
    assert "丙昨夜丢了1张特权牌。" in main_posts(out)


def test_streak_restarts_after_a_failure():
    """A22: after a failure the next night is night 1 of a new streak."""
    g = Game()
    votes = {"甲": "乙", "乙": "甲", "丙": "乙", "丁": "乙", "戊": "乙", "己": "甲"}
    g.pm("丁", "束魂 戊")
    g.dawn()
    g.dusk(votes)
    g.pm("丁", "束魂 戊")
    g.dawn()
    assert len(g.hand("戊")) == 3
    g.dusk(votes)
    g.pm("丁", "束魂 戊")
    g.dawn()
    assert len(g.hand("戊")) == 3


# ---- 禁锢 (§3.1.7a, DECISIONS 1.1.7 step 2, A27, A35) ----------------------------------------


def test_imprisoned_attack_void_and_still_charged():
    """§3.1.7a: the imprisoned player's 1–2 AP privileges are void; §3.3.3: still charged."""
    g = Game()
    g.pm("戊", "禁锢 甲")
    g.pm("甲", attack("攻击", "丙"))
    g.pm("甲", "占卜 乙")
    out = g.dawn()
    assert g.hand("丙") == HANDS_6["丙"]
    assert g.ap("甲") == 0
    assert "占卜 乙" not in pms_to(out, "甲")
    assert "禁锢" not in main_posts(out)  # A24: imprison blocks stay silent


def test_imprisoned_vest_is_void():
    """§3.1.7a: 防弹衣 is a 1-AP privilege and is voided too."""
    g = Game()
    g.pm("乙", "禁锢 丙")
    g.pm("丙", "防弹衣")
    g.pm("甲", attack("攻击", "丙"))
    g.dawn()
    assert g.hand("丙") == HANDS_6["丙"][1:]


def test_imprisonment_spares_bisha_and_three_point_privileges():
    """§3.1.7a: 一切消耗3点行动点数的强力特权不受禁锢牌影响; 必杀这项特权不受禁锢牌影响."""
    g = Game()
    g.state.player("甲").extra["ap"] = 5
    g.pm("戊", "禁锢 甲")
    g.pm("甲", attack("一击必杀", "丙"))
    g.pm("甲", "必杀 丁")
    g.dawn()
    assert len(g.hand("丙")) == 3 and len(g.hand("丁")) == 3


def test_day_curse_after_imprisoned_night_is_valid():
    """§3.1.7a 游戏者在白天使用的特权不受禁锢牌影响; A35: his night curse is void."""
    g = Game()
    g.state.player("丙").extra["ap"] = 4
    g.pm("戊", "禁锢 丙")
    g.pm("丙", "诅咒 丁")
    g.dawn()
    g.pm("丙", "诅咒 戊")
    out = g.dusk({"甲": "乙", "乙": "甲", "丙": "甲", "丁": "乙", "戊": "甲", "己": "乙"})
    post = main_posts(out)
    assert "| 戊 | 0→1 |" in post
    assert "| 丁 |" not in post


def test_self_imprisonment_refused():
    """A27: 禁锢 can't target oneself; refused, free."""
    g = Game()
    out = g.pm("戊", "禁锢 戊")
    assert "✘" in pms_to(out, "戊") and g.ap("戊") == 4


def test_mutual_imprisonment_cancels():
    """§3.1.7a 两个游戏者互相对对方使用禁锢，效果互相抵销: both act freely; both charged."""
    g = Game()
    g.state.player("乙").extra["ap"] = 3
    g.pm("乙", "禁锢 戊")
    g.pm("戊", "禁锢 乙")
    g.pm("乙", attack("攻击", "丙"))
    g.pm("戊", "巫医 丁")
    g.dawn()
    assert g.hand("丙") == HANDS_6["丙"][1:]
    assert g.ap("乙") == 0 and g.ap("戊") == 0


def test_imprisonment_chain_grounded():
    """1.1.7 step 2: 乙→戊, 戊→甲 ⇒ 戊 imprisoned, his imprisonment of 甲 void, 甲 acts."""
    g = Game()
    g.pm("乙", "禁锢 戊")
    g.pm("戊", "禁锢 甲")
    g.pm("甲", attack("攻击", "丙"))
    g.dawn()
    assert g.hand("丙") == HANDS_6["丙"][1:]


def test_grounded_labelling_cycle_with_an_entry():
    """1.1.7 step 2: X→A, A→B, B→C, C→A ⇒ A and C imprisoned, B free; A↔B alone ⇒ both free,
    both undecided (their imprisonments void)."""
    acts = [{"actor": u, "ability": "jail", "target": v} for u, v in
            [("X", "A"), ("A", "B"), ("B", "C"), ("C", "A")]]
    jailed, undecided = night.jail_labels(acts)
    assert jailed == {"A", "C"} and undecided == set()
    jailed, undecided = night.jail_labels([{"actor": "A", "ability": "jail", "target": "B"},
                                           {"actor": "B", "ability": "jail", "target": "A"}])
    assert jailed == set() and undecided == {"A", "B"}
    jailed, undecided = night.jail_labels([{"actor": u, "ability": "jail", "target": v} for u, v in
                                           [("A", "B"), ("B", "C"), ("C", "A")]])
    assert jailed == set() and undecided == {"A", "B", "C"}


# ---- 反狙击 (§3.1.7b, A5) -------------------------------------------------------------------


def test_anti_sniper_is_global_and_spares_aimed():
    """A5: every ordinary snipe that night is void; §3.1.7b 瞄准狙击不受反狙击的影响."""
    g = Game()
    g.pm("戊", "反狙击")
    g.pm("己", attack("狙击", "丁", "【普通】"))
    g.pm("丙", attack("瞄准狙击", "甲 倒数第2", "【瞄准】"))
    g.dawn()
    assert g.hand("丁") == HANDS_6["丁"]
    assert g.hand("甲") == ["庶民", "占卜/束魂", "杀手"]


def test_two_anti_snipers_do_not_cancel():
    """§3.1.7b 同一夜两个游戏者都使用反狙击特权，仍然生效."""
    g = Game()
    g.pm("戊", "反狙击")
    g.pm("乙", "反狙击")
    g.pm("己", attack("狙击", "丁"))
    g.dawn()
    assert g.hand("丁") == HANDS_6["丁"]


def test_whole_round_privilege_once_a_night():
    """§3.3.5: 反狙击/防弹衣/狼毒/圣人 repeated in one phase count once (charged once)."""
    g = Game()
    g.pm("戊", "反狙击")
    out = g.pm("戊", "反狙击")
    assert "✘" in pms_to(out, "戊")
    assert g.ap("戊") == 2
    g.pm("丙", "防弹衣\n防弹衣")
    assert g.ap("丙") == 2


# ---- 必杀 (§3.1.8a, A34, A40, A41) ---------------------------------------------------------


def test_night_bisha_unblockable_no_declaration():
    """§3.1.8a: at the end of the phase the target loses a card; no declaration (§3.4.2);
    not stopped by protections."""
    g = Game()
    g.pm("丙", "防弹衣")
    g.pm("甲", "必杀 丙")
    out = g.dawn()
    assert g.hand("丙") == HANDS_6["丙"][1:]
    assert "丙昨夜丢了1张庶民牌。" in main_posts(out)
    assert g.ap("甲") == 1


def test_bisha_once_per_card():
    """§3.1.8a 必杀特权在一局游戏中只能使用一次: a second, even the next day, is refused free."""
    g = Game()
    g.pm("甲", "必杀 丙")
    out = g.pm("甲", "必杀 丁")
    assert "只能使用一次" in pms_to(out, "甲")
    g.dawn()
    out = g.pm("甲", "必杀 丁")
    assert "只能使用一次" in pms_to(out, "甲")
    assert g.ap("甲") == 1


def test_cancelled_night_bisha_can_be_sent_again():
    """§3.4.4: a night privilege withdrawn before the lock is not used (AP back)."""
    g = Game()
    g.pm("甲", "必杀 丙")
    g.pm("甲", "取消 必杀")
    assert g.ap("甲") == 3
    out = g.pm("甲", "必杀 丁")
    assert "✔" in pms_to(out, "甲")


def test_day_bisha_at_day_end_before_the_count():
    """§3.1.8a: a 必杀 sent by day takes effect at the end of the day; the lost card no longer
    counts in the weighted vote (§8.2)."""
    g = Game()
    g.dawn()
    out = g.pm("丁", "必杀 甲", hours=2)
    assert "剩余1点" in pms_to(out, "丁")
    assert g.hand("甲") == HANDS_6["甲"]  # not before the end of the day
    out = g.dusk({"甲": "乙", "乙": "丙", "丙": "乙", "丁": "丙", "戊": "丁", "己": "戊"})
    post = main_posts(out)
    assert "甲被必杀攻击，丢了一张庶民牌。" in post
    assert "甲（3）" in post


def test_bisha_on_a_player_emptied_the_same_night_is_spent():
    """A34: the target dies of other hits this phase: the 必杀 is used up, no further effect."""
    g = Game()
    strip(g, "戊", 1)
    g.pm("甲", "必杀 戊")
    g.pm("丙", attack("瞄准狙击", "戊 倒数第1"))
    g.dawn()
    assert not g.alive("戊")
    out = g.pm("甲", "必杀 丁")
    assert "只能使用一次" in pms_to(out, "甲")


# ---- action points (§3.2, §3.3, A44) --------------------------------------------------------


def test_income_two_plus_one_per_commoner():
    """§3.3.1, §3.2: 2 AP a night plus 1 per 庶民牌; carried over (§3.3.4)."""
    g = Game()
    assert [g.ap(n) for n in HANDS_6] == [3, 3, 3, 3, 4, 4]
    g.dawn()
    g.dusk({"甲": "乙", "乙": "甲", "丙": "乙", "丁": "戊", "戊": "乙", "己": "甲"})
    # 乙 and 甲 executed: their 庶民 is in escrow and pays nothing (A44)
    assert g.ap("甲") == 5 and g.ap("乙") == 5
    assert g.ap("戊") == 8 and g.ap("丙") == 6


def test_commoner_lost_tonight_paid_tonight_not_next():
    """A44: a 庶民 lost during a night still paid its AP that night; none from the next night;
    AP is never lost with a card."""
    g = Game()
    g.pm("甲", attack("攻击", "丙"))
    g.dawn()
    assert g.ap("丙") == 3
    g.dusk({"甲": "乙", "乙": "甲", "丙": "戊", "丁": "戊", "戊": "乙", "己": "乙"})
    assert g.ap("丙") == 5


def test_dead_player_acts_no_more():
    """§5.5 / §5.8: a player announced out cannot use privileges."""
    g = Game()
    strip(g, "丁", 1)
    g.state.data["night_hands"]["丁"] = list(g.state.player("丁").extra["hand"])
    g.pm("丙", attack("瞄准狙击", "丁 倒数第1"))
    g.dawn()
    out = g.pm("丁", "必杀 甲")
    assert "出局" in pms_to(out, "丁")


def test_last_card_lost_tonight_still_acts_tonight():
    """A45/§0.2: the narrator's N4 — a player losing his last card tonight still acts tonight."""
    g = Game()
    strip(g, "丙", 1)  # only 狙击手/圣人
    g.state.data["night_hands"]["丙"] = list(g.state.player("丙").extra["hand"])
    g.pm("丙", attack("瞄准狙击", "丁 倒数第2", "【临死】"))
    g.pm("己", attack("瞄准狙击", "丙 倒数第1", "【己】"))
    out = g.dawn()
    assert not g.alive("丙")
    assert g.hand("丁") == ["庶民", "占卜/束魂", "防弹衣/狼毒"]
    assert "【临死】" in main_posts(out)


# ---- announcements never show which card or any identity (§5.8, 1.1.9) ------------------------


def test_dawn_shows_counts_per_type_only():
    """§5.8: "他丢了一张特权牌和一张庶民牌" — the kinds, never which card, never an identity."""
    g = Game()
    g.state.player("甲").extra["ap"] = 6
    strip(g, "乙", 2)  # 禁锢/反狙击, 狼人
    g.state.data["night_hands"]["乙"] = list(g.state.player("乙").extra["hand"])
    g.pm("甲", attack("攻击", "乙", "【一】") + "\n" + attack("攻击", "乙", "【二】") + "\n"
         + attack("攻击", "丙", "【三】"))
    out = g.dawn()
    post = main_posts(out)
    assert "乙昨夜丢了2张特权牌。" in post
    assert "乙的牌已经全部丢光，出局。" in post
    for word in ("狼人", "杀手", "禁锢", "平民", "自选", "阵营", "狙击手", "庶民，"):
        assert word not in post.replace("杀人宣言", ""), word


def test_dead_players_identity_not_in_public_state():
    """§5.8 所有死者的游戏身份都不公布."""
    g = Game()
    strip(g, "乙", 1)
    g.state.data["night_hands"]["乙"] = list(g.state.player("乙").extra["hand"])
    g.pm("甲", attack("一击必杀", "乙"))
    out = g.dawn()
    assert g.ruleset.public_identity(g.state, g.state.player("乙")) == ""
    assert "狼人" not in main_posts(out)


# ---- the self-chooser (§2, §3.4.3, A8, A9) ------------------------------------------------------


def test_chooser_defaults_to_civilian():
    """§2: 自选立场者在第一夜没有决定的话，默认他是平民."""
    g = Game()
    out = g.dawn()
    assert g.state.player("己").faction == "civilians"
    assert "平民" in pms_to(out, "己")


def test_chooser_cowin_may_not_kill():
    """§3.4.3 共赢: 任何牌的任何杀人特权在自选游戏者手中都无效; A8: refused at intake, free,
    and an attack already sent is withdrawn and refunded; 圣人 is allowed."""
    g = Game()
    g.pm("己", attack("狙击", "丁"))
    out = g.pm("己", "立场 狼人 共赢")
    assert "已取消" in pms_to(out, "己")
    assert g.ap("己") == 4
    out = g.pm("己", attack("瞄准狙击", "丁 倒数第2"))
    assert "共赢" in pms_to(out, "己") and g.ap("己") == 4
    out = g.pm("己", "圣人")
    assert "✔" in pms_to(out, "己")
    g.dawn()
    assert g.hand("丁") == HANDS_6["丁"]
    assert g.state.player("己").faction == "werewolves"


def test_chooser_solo_may_kill():
    """§3.4.3 一山不容二虎: the worked example's narrator snipes."""
    g = Game()
    g.pm("己", "立场 狼人 一山不容二虎")
    g.pm("己", attack("狙击", "丁"))
    g.dawn()
    assert len(g.hand("丁")) == 3
    assert g.state.player("己").extra["mode"] == "solo"


def test_side_only_on_night_one_and_only_for_the_chooser():
    """§2: the choice is made on the first night, by the self-chooser."""
    g = Game()
    out = g.pm("丙", "立场 杀手 共赢")
    assert "✘" in pms_to(out, "丙")
    g.dawn()
    out = g.pm("己", "立场 杀手 共赢")
    assert "✘" in pms_to(out, "己")
    assert g.state.player("己").faction == "civilians"


def test_seven_players_chooser_cannot_be_civilian():
    """§3.4.3: 7人游戏时，自选立场者不能选择平民立场; A9: undecided ⇒ random side, co-win."""
    for seed in range(6):
        g = Game(deal=True, players=7, seed=seed)
        s = next(p for p in g.state.players if p.role == "chooser")
        out = g.pm(s.name, "立场 平民")
        assert "不能选择平民" in pms_to(out, s.name)
        g.dawn()
        assert s.name in [p.name for p in g.state.players]
        p = g.state.player(s.name)
        assert p.faction in ("killers", "werewolves") and p.extra["mode"] == "cowin"


def test_chooser_side_without_mode_is_cowin():
    """A9: a side without a mode ⇒ co-win."""
    g = Game()
    g.pm("己", "立场 杀手")
    assert g.state.player("己").extra["mode"] == "cowin"


# ---- victory and the draw (§10, 1.1.10, A10, A30, A31) -------------------------------------------


def test_civilians_win_when_killer_and_werewolf_are_out():
    """§10.1: 杀手和狼人全灭 ⇒ civilians win, all civilians alive or dead share."""
    g = Game()
    strip(g, "甲", 1)
    strip(g, "乙", 1)
    g.state.data["night_hands"] = {p.name: list(p.extra["hand"]) for p in g.state.players}
    g.pm("丙", attack("瞄准狙击", "甲 倒数第1", "【甲】"))
    g.pm("己", attack("瞄准狙击", "乙 倒数第1", "【乙】"))
    out = g.dawn()
    post = main_posts(out)
    assert g.state.winner == "civilians"
    assert "平民阵营获胜" in post
    assert "杀手" in post  # at the end everything is revealed (1.1.9)


def test_civilians_do_not_win_while_an_aligned_chooser_lives():
    """A10: a self-chooser on the werewolves' side must be out too."""
    g = Game()
    g.pm("己", "立场 狼人 共赢")
    strip(g, "甲", 1)
    strip(g, "乙", 1)
    g.state.data["night_hands"] = {p.name: list(p.extra["hand"]) for p in g.state.players}
    g.pm("丙", attack("瞄准狙击", "甲 倒数第1"))
    g.state.player("丁").extra["ap"] = 4
    g.pm("丁", "必杀 乙")
    g.dawn()
    assert g.state.winner is None


def test_killer_wins_with_his_cowin_partner():
    """§10.2/§10.4: everyone outside the killers' side out ⇒ the killer and his co-win
    self-chooser win; the chooser shares the win though he is dead (无论生死)."""
    g = Game()
    g.pm("己", "立场 杀手 共赢")
    for n in ("乙", "丙", "丁", "戊", "己"):
        strip(g, n, 1)
    g.state.data["night_hands"] = {p.name: list(p.extra["hand"]) for p in g.state.players}
    g.state.player("甲").extra["ap"] = 20
    text = "\n".join(attack("一击必杀", n, f"【{n}】") for n in ("乙", "丙", "丁", "戊", "己"))
    g.pm("甲", text)
    out = g.dawn()
    assert g.state.winner == "killers"
    assert "己" in main_posts(out).split("分享奖金：")[1].split("\n")[0]


def test_solo_chooser_wins_only_alone():
    """§10.4 一山不容二虎: the self-chooser wins when everyone else is out; alive with the
    werewolf, nobody wins yet."""
    g = Game()
    g.pm("己", "立场 狼人 一山不容二虎")
    for n in ("甲", "丙", "丁", "戊"):
        strip(g, n, 1)
    g.state.data["night_hands"] = {p.name: list(p.extra["hand"]) for p in g.state.players}
    g.state.player("乙").extra["ap"] = 20
    g.pm("乙", "\n".join(attack("一击必杀", n, f"【{n}】") for n in ("甲", "丙", "丁", "戊")))
    g.dawn()
    assert g.state.winner is None  # 乙 and the solo 己 are on different sides
    g2 = Game()
    g2.pm("己", "立场 狼人 一山不容二虎")
    for n in ("甲", "乙", "丙", "丁", "戊"):
        strip(g2, n, 1)
    g2.state.data["night_hands"] = {p.name: list(p.extra["hand"]) for p in g2.state.players}
    g2.state.player("己").extra["ap"] = 20
    g2.pm("己", "\n".join(attack("瞄准狙击", f"{n} 倒数第1", f"【{n}】") for n in ("甲", "乙", "丙", "丁", "戊")))
    out = g2.dawn()
    assert g2.state.winner == "solo"
    assert "分享奖金：己" in main_posts(out)


def test_everyone_out_is_a_draw():
    """§10.5 所有游戏者都死亡 ⇒ draw (the killer and werewolf shoot each other last)."""
    g = Game()
    for n in ("丙", "丁", "戊", "己"):
        g.ruleset._remove(g.state, g.state.player(n), "modkill")
    strip(g, "甲", 1)
    strip(g, "乙", 1)
    g.state.data["night_hands"] = {p.name: list(p.extra["hand"]) for p in g.state.players if p.alive}
    g.pm("甲", attack("一击必杀", "乙", "【甲】"))
    g.pm("乙", attack("一击必杀", "甲", "【乙】"))
    out = g.dawn()
    assert g.state.winner == "draw"
    assert "平局" in main_posts(out)
    assert "杀手阵营" in main_posts(out) and "狼人阵营" in main_posts(out)  # A31


def test_two_left_without_attack_cards_is_a_draw():
    """§10.5 剩下的两名游戏者手中都没有攻击性的牌; A30: a draw at once."""
    g = Game()
    g.pm("甲", attack("攻击", "丙"))  # nothing to do with the end
    for n in ("乙", "丁", "戊", "己"):
        g.ruleset._remove(g.state, g.state.player(n), "modkill")
    g.state.player("甲").extra["hand"] = [c for c in g.state.player("甲").extra["hand"]
                                          if c.startswith(("commoner", "diviner"))]
    g.state.player("丙").extra["hand"] = [c for c in g.state.player("丙").extra["hand"]
                                          if c.startswith(("commoner", "vest", "curse"))]
    out = g.dawn()
    assert g.state.winner == "draw"
    assert "平局" in main_posts(out)


def test_two_left_with_an_attack_card_play_on():
    """A30: two alive but one can still attack ⇒ no draw."""
    g = Game()
    for n in ("乙", "丁", "戊", "己"):
        g.ruleset._remove(g.state, g.state.player(n), "modkill")
    g.dawn()
    assert g.state.winner is None



# ---- more interactions ---------------------------------------------------------------------------


def test_imprisoned_deception_is_void():
    """§3.1.7a: 欺骗占卜 costs 1 AP, so an imprisoned killer's deception is void; the 占卜
    answers truly."""
    g = Game()
    g.pm("戊", "禁锢 甲")
    g.pm("甲", "欺骗占卜 甲")
    g.pm("丁", "占卜 甲")
    out = g.dawn()
    assert "占卜 甲：甲手中有杀手牌。" in pms_to(out, "丁")


def test_self_attack_allowed():
    """A38: nothing forbids attacking oneself."""
    g = Game()
    g.pm("甲", attack("攻击", "甲"))
    g.dawn()
    assert g.hand("甲") == HANDS_6["甲"][1:]


def test_bind_streak_needs_consecutive_nights():
    """§3.1.4b 连续两夜: N1 and N3 are not consecutive."""
    g = Game()
    votes = {"甲": "乙", "乙": "甲", "丙": "乙", "丁": "乙", "戊": "乙", "己": "甲"}
    g.pm("丁", "束魂 戊")
    g.dawn()
    g.dusk(votes)
    g.dawn()
    g.dusk(votes)
    g.pm("丁", "束魂 戊")
    g.dawn()
    assert g.hand("戊") == HANDS_6["戊"]


def test_cowin_partners_do_not_learn_of_each_other():
    """§3.4.3 即便选择共赢，自选立场者和自己的同伙也互不相识."""
    g = Game()
    out = g.pm("己", "立场 杀手 共赢")
    assert not pms_to(out, "甲")
    out = g.dawn()
    assert "己" not in pms_to(out, "甲")
    assert "己" not in main_posts(out)


def test_cowin_chooser_may_not_bisha():
    """A8: 必杀 is a killing privilege: refused at intake for a co-win self-chooser."""
    hands = dict(HANDS_6, 丁=["庶民", "占卜/束魂", "诅咒/庇佑", "防弹衣/狼毒"],
                 己=["庶民", "庶民", "必杀/特赦", "狙击手/圣人"])
    g = Game(hands=hands)
    g.pm("己", "立场 狼人 共赢")
    out = g.pm("己", "必杀 丁")
    assert "共赢" in pms_to(out, "己") and g.ap("己") == 4


def test_voided_attack_does_not_count_for_the_streak():
    """A22 (failure_counts_voided_attacks=false): an imprison-voided killer attack is not an
    attack on the bound player; the bind streak fails on night 2."""
    g = Game()
    g.pm("戊", "禁锢 甲")
    g.pm("甲", attack("攻击", "丙"))
    g.pm("丁", "束魂 丙")
    out = g.dawn()
    assert "丙昨夜被束魂" not in main_posts(out)
    g.dusk({"甲": "乙", "乙": "甲", "丙": "乙", "丁": "乙", "戊": "乙", "己": "甲"})
    g.pm("丁", "束魂 丙")
    g.dawn()
    assert g.hand("丙") == HANDS_6["丙"][1:]


def _two_left(g: Game, keep: dict[str, list[str]]) -> None:
    """Only the players of `keep` remain, holding those card types (a late position)."""
    for p in g.state.players:
        if p.name not in keep:
            g.ruleset._remove(g.state, p, "modkill")
        else:
            p.extra["hand"] = [c for c in p.extra["hand"] if c.rsplit("-", 1)[0] in keep[p.name]]


def test_two_left_unused_bisha_plays_on_used_bisha_draws():
    """A30: 必杀/特赦 counts as an attack card while its 必杀 is unused."""
    g = Game()
    _two_left(g, {"甲": ["diviner"], "丁": ["bisha", "vest"]})
    g.dawn()
    assert g.state.winner is None
    g = Game()
    g.pm("丁", "必杀 丙")
    _two_left(g, {"甲": ["diviner"], "丁": ["bisha", "vest"]})
    g.dawn()
    assert g.state.winner == "draw"


def test_stalemate_valve_after_three_quiet_cycles():
    """A30 safety valve: 3 full cycles (night + day) without a card lost ⇒ draw, not earlier."""
    g = Game()
    _two_left(g, {"甲": ["killer", "diviner"], "乙": ["werewolf", "prophet"]})
    for _ in range(2):
        g.dawn()
        g.dusk({"甲": "乙", "乙": "甲"})
    g.dawn()
    assert g.state.winner is None
    out = g.dusk({"甲": "乙", "乙": "甲"})
    assert g.state.winner == "draw"
    assert "平局" in main_posts(out)


def test_civilians_share_alive_or_dead():
    """§10.1 所有平民无论生死，分享奖金 — a civilian removed earlier and the self-chooser who
    stayed civilian (§2) share; the killer and werewolf do not."""
    g = Game()
    g.ruleset._remove(g.state, g.state.player("戊"), "modkill")
    strip(g, "甲", 1)
    strip(g, "乙", 1)
    g.state.data["night_hands"] = {p.name: list(p.extra["hand"]) for p in g.state.players if p.alive}
    g.pm("丙", attack("瞄准狙击", "甲 倒数第1", "【甲】"))
    g.pm("己", attack("瞄准狙击", "乙 倒数第1", "【乙】"))
    out = g.dawn()
    share = main_posts(out).split("分享奖金：")[1].split("\n")[0]
    assert set(share.split("、")) == {"丙", "丁", "戊", "己"}


def test_aimed_snipe_never_hits_a_card_restored_by_pardon():
    """A20: the position is resolved against the night-start active hand; the card a pardon
    returns that night is not a possible hit."""
    g = Game()
    g.dawn()
    g.dusk({"甲": "乙", "乙": "甲", "丙": "乙", "丁": "乙", "戊": "乙", "己": "甲"})
    g.pm("丁", "特赦 乙")
    g.pm("丙", attack("瞄准狙击", "乙 第1张"))
    g.dawn()
    assert g.hand("乙") == ["庶民", "禁锢/反狙击", "狼人"]


def test_aimed_snipe_chinese_numeral():
    """A20: "倒数第二" is 倒数第2."""
    g = Game()
    g.pm("丙", attack("瞄准狙击", "丁 倒数第二"))
    g.dawn()
    assert g.hand("丁") == ["庶民", "占卜/束魂", "防弹衣/狼毒"]


def test_dawn_pms_hand_and_ap_dusk_pms_income():
    """1.1.9: every dawn each living player gets his hand (current order) and AP by PM; at day
    end the AP credited for the night."""
    g = Game()
    g.pm("甲", attack("攻击", "丙"))
    out = g.dawn()
    assert "你现在的手牌（按丢牌顺序）：防弹衣/狼毒、诅咒/庇佑、狙击手/圣人" in pms_to(out, "丙")
    assert "你现在有2点行动点数" in pms_to(out, "甲")
    out = g.dusk({"甲": "乙", "乙": "甲", "丙": "乙", "丁": "乙", "戊": "乙", "己": "甲"})
    assert "你得到4点行动点数，现在共有8点" in pms_to(out, "戊")


def test_card_lost_to_night_bisha_still_used_that_night():
    """§3.1.8a 被必杀的人损失的牌如果是在夜间损失，不影响当夜使用损失的牌."""
    hands = dict(HANDS_6, 丁=["占卜/束魂", "庶民", "必杀/特赦", "防弹衣/狼毒"])
    g = Game(hands=hands)
    g.pm("甲", "必杀 丁")
    g.pm("丁", "占卜 甲")
    out = g.dawn()
    assert "占卜 甲：甲手中有杀手牌。" in pms_to(out, "丁")
    assert g.hand("丁") == ["庶民", "必杀/特赦", "防弹衣/狼毒"]


def test_five_players_have_no_chooser():
    """§2 如果只有5名游戏者的话，去掉自选立场者."""
    for seed in range(5):
        g = Game(deal=True, players=5, seed=seed)
        assert all(p.role != "chooser" for p in g.state.players)
        name = g.state.players[0].name
        out = g.pm(name, "立场 杀手 共赢")
        assert "只有自选立场者" in pms_to(out, name)


def test_declaration_boundary_100_characters():
    """§3.4.2 不少于100字; §0.4: non-whitespace code points — 100 is enough, 99 is not."""
    g = Game()
    out = g.pm("甲", "攻击 丙\n" + decl("【边界】", n=99))
    assert "只有99字" in pms_to(out, "甲")
    out = g.pm("甲", "宣言 " + decl("【边界】", n=100))
    assert "杀人宣言（100字）" in pms_to(out, "甲")
    g.dawn()
    assert len(g.hand("丙")) == 3


def test_bind_does_not_succeed_against_a_one_hit_kill():
    """1.1.7 step 7: 束魂 succeeds only against an occurring *ordinary* killer or sniper attack
    (§3.1.4b 普通攻击); against 一击必杀 the card is lost and nothing is announced."""
    g = Game()
    g.pm("丁", "束魂 丙")
    g.pm("甲", attack("一击必杀", "丙"))
    out = g.dawn()
    assert "丙昨夜被束魂" not in main_posts(out)
    assert len(g.hand("丙")) == 3
    assert not g.post("丙", "投票 甲").refusals


def test_a_chosen_side_forgets_what_was_worked_out_from_the_sides():
    """§2: the self-chooser's side changes his faction, so the groups worked out from the
    factions before (`GameState.facts`) are not read again."""
    g = Game()
    stale = {"己": "civilians"}
    g.state.facts["groups"] = stale
    g.pm("己", "立场 狼人 一山不容二虎")
    assert g.state.player("己").faction == "werewolves"
    assert g.state.facts.get("groups") is not stale
