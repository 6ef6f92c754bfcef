"""猫有n条命 (seed 000): what players send by PM and what the bot answers.

DECISIONS §0.3 (every PM gets a receipt; an action that can't be used is refused at once and
costs nothing), 1.1.4 (AP reserved at intake, released on cancel), 1.1.5 (a night privilege
sent by day waits for the next night and is charged then), §3.4.4/A26 (lock 10 minutes before
dawn), §3.3.5 (whole-round privileges charged once), §5.5 (no card, no privilege), §6 (the
discard order: the format of §6.1, the 底牌 of §6.2, a random order at the deadline, the
reorder windows of §6.3 at ⌊T/3⌋ and ⌊2T/3⌋, A32)."""

from __future__ import annotations

from n_lives_helpers import FACTIONS_6, HANDS_6, Game, decl, main_posts, pms_to
from tianshen.rules.n_lives import cards

# §6.1's example line needs a hand of 诅咒/庇佑, 禁锢/反狙击, 占卜/束魂, 杀手
EXAMPLE_HANDS = dict(HANDS_6,
                     甲=["禁锢/反狙击", "占卜/束魂", "诅咒/庇佑", "杀手"],
                     丙=["庶民", "防弹衣/狼毒", "庶民", "狙击手/圣人"],
                     戊=["庶民", "庶民", "先知/巫医", "必杀/特赦"])
EXAMPLE_LINE = "我按下列先后顺序丢牌（排在前面的先丢）：诅咒/庇佑、禁锢/反狙击手、占卜/束魂、杀手"
SAFE = {"甲": "乙", "乙": "甲", "丙": "乙", "丁": "乙", "戊": "乙", "己": "甲"}


def replies(out, name: str) -> list:
    return [m for m in out.pms if m.to == name]


# ---- every PM is answered (§0.3) ------------------------------------------------------------


def test_every_pm_gets_exactly_one_reply():
    """§0.3: the bot answers every PM with a receipt — valid, refused or not understood."""
    g = Game()
    for text in ("占卜 甲", "你好天神", "占卜 路人", "帮助", "防弹衣", "取消 占卜", "必杀 甲\n胡言乱语"):
        out = g.pm("丁", text)
        assert len(replies(out, "丁")) == 1, text
    out = g.pm("外人", "占卜 甲")
    assert len(replies(out, "外人")) == 1 and out.refusals


def test_not_understood_reply_shows_the_formats():
    """§0.3: a PM with no command is answered with the formats."""
    g = Game()
    out = g.pm("丁", "今晚月色真好")
    body = pms_to(out, "丁")
    assert "没有看懂" in body and "行使特权" in body


def test_unknown_name_refused_free():
    """§0.3: an unknown target is refused at once, no AP."""
    g = Game()
    out = g.pm("丁", "占卜 路人")
    assert "没有叫“路人”的游戏者" in pms_to(out, "丁")
    assert g.ap("丁") == 3


def test_ambiguous_name_refused_free():
    """§0.3: a name that could mean two players is refused with the candidates."""
    names = ["小明", "小明明", "丙", "丁", "戊", "己"]
    hands = dict(zip(names, HANDS_6.values(), strict=True))
    factions = dict(zip(names, FACTIONS_6.values(), strict=True))
    g = Game(factions=factions, hands=hands)
    out = g.pm("丁", "占卜 明")
    body = pms_to(out, "丁")
    assert "✘" in body and "小明" in body and "小明明" in body
    assert g.ap("丁") == 3
    out = g.pm("丁", "占卜 小明")  # the exact name is taken
    assert "✔ 占卜 小明（" in pms_to(out, "丁")


def test_not_enough_ap_refused_free():
    """§3.3.2 行动点数不足的时候不能行使相应的特权; §0.3: refused, costs nothing."""
    g = Game()
    g.pm("丁", "占卜 甲")
    out = g.pm("丁", "束魂 丙")
    assert "行动点数不足" in pms_to(out, "丁")
    assert g.ap("丁") == 1
    assert [a["ability"] for a in g.state.data["actions"] if a["actor"] == "丁"] == ["divine"]


def test_card_not_held_refused():
    """§5.5 游戏者不能行使自己没有或已经丢弃的牌的特权."""
    g = Game()
    out = g.pm("丙", "占卜 甲")
    assert "你手中没有" in pms_to(out, "丙") and g.ap("丙") == 3
    out = g.pm("丙", f"攻击 甲\n{decl()}")  # 攻击 needs the 杀手 or 狼人 card
    assert "✘" in pms_to(out, "丙")


def test_lost_card_can_no_longer_be_used():
    """§5.5: after 丙's 庶民 and 防弹衣/狼毒 are gone, 防弹衣 is refused."""
    g = Game()
    g.state.player("甲").extra["ap"] = 2
    g.pm("甲", f"攻击 丙\n{decl('【一】')}\n攻击 丙\n{decl('【二】')}")
    g.dawn()
    g.dusk(SAFE)
    out = g.pm("丙", "防弹衣")
    assert "你手中没有" in pms_to(out, "丙")


def test_receipt_shows_the_balance():
    """§0.3 (000): the receipt shows the AP balance after the reservation."""
    g = Game()
    out = g.pm("戊", "巫医 丙")
    assert "花费2点，剩余2点行动点数" in pms_to(out, "戊")


def test_dead_target_refused():
    """§0.3: a dead target is refused at once."""
    g = Game()
    g.ruleset._remove(g.state, g.state.player("丙"), "modkill")
    out = g.pm("丁", "占卜 丙")
    assert "出局" in pms_to(out, "丁") and g.ap("丁") == 3


# ---- cancel, lock, repeats (§3.4.4, A26, §3.3.5, 1.1.4) --------------------------------------------


def test_cancel_refunds_and_the_action_does_not_happen():
    """§3.4.4, 1.1.4: a night action withdrawn before the lock gives its AP back."""
    g = Game()
    g.pm("丁", "占卜 甲")
    out = g.pm("丁", "取消 占卜")
    assert "已取消" in pms_to(out, "丁")
    assert g.ap("丁") == 3
    out = g.dawn()
    assert "占卜 甲：" not in pms_to(out, "丁")


def test_target_change_before_the_lock():
    """§3.4.4 到天亮之前10分钟，游戏者都可以更换自己行使特权的对象 (cancel, then send again)."""
    g = Game()
    g.pm("丁", "占卜 甲", hours=1)
    g.pm("丁", "取消 占卜", hours=23.5)
    g.pm("丁", "占卜 乙", hours=23.8)
    out = g.dawn()
    assert "占卜 乙：" in pms_to(out, "丁") and "占卜 甲：" not in pms_to(out, "丁")


def test_lock_ten_minutes_before_dawn():
    """§3.4.4, A26: from dawn − 10 min no new night action, no change, no cancel."""
    g = Game()
    g.pm("丁", "占卜 甲", hours=2)
    out = g.pm("丁", "取消 占卜", hours=23 + 55 / 60)
    assert "天亮前10分钟" in pms_to(out, "丁")
    out = g.pm("戊", "巫医 丙", hours=23 + 51 / 60)
    assert "天亮前10分钟" in pms_to(out, "戊")
    assert g.ap("戊") == 4 and g.ap("丁") == 1
    out = g.pm("戊", "巫医 丙", hours=23 + 49 / 60)
    assert "✔" in pms_to(out, "戊")


def test_declaration_after_the_lock_refused_attack_void():
    """§3.4.4 and A25: a declaration sent after the lock is refused; the attack is void, free."""
    g = Game()
    g.pm("甲", "攻击 丙", hours=2)
    out = g.pm("甲", "宣言 " + decl(), hours=23.95)
    assert "天亮前10分钟" in pms_to(out, "甲")
    g.dawn()
    assert g.hand("丙") == HANDS_6["丙"] and g.ap("甲") == 3


def test_day_actions_are_final():
    """1.1.4: day 必杀 and curse/bless are charged at once and cannot be withdrawn."""
    g = Game()
    g.dawn()
    g.pm("丁", "必杀 甲", hours=2)
    out = g.pm("丁", "取消 必杀", hours=3)
    assert "✘" in pms_to(out, "丁")
    assert g.ap("丁") == 1


def test_whole_round_privileges_charged_once():
    """§3.3.5 反复使用了天神也视同只用了一次，消耗一次的行动点数: 防弹衣, 狼毒, 反狙击, 圣人."""
    g = Game()
    out = g.pm("丁", "防弹衣\n防弹衣\n狼毒\n狼毒")
    assert pms_to(out, "丁").count("✔") == 2 and pms_to(out, "丁").count("✘") == 2
    assert g.ap("丁") == 1
    g.state.player("己").extra["ap"] = 10
    g.pm("己", "圣人")
    out = g.pm("己", "圣人")
    assert "✘" in pms_to(out, "己") and g.ap("己") == 7


# ---- night privileges sent by day (DECISIONS 1.1.5, A42) --------------------------------------------


def test_night_privilege_by_day_queued_and_charged_at_nightfall():
    """1.1.5: a night privilege PM'd by day waits for the next night and is charged there."""
    g = Game()
    g.dawn()
    out = g.pm("丁", "占卜 甲", hours=2)
    assert "等到第2夜开始时扣除2点" in pms_to(out, "丁")
    assert g.ap("丁") == 3
    out = g.dusk(SAFE)
    assert "已经在第2夜开始时扣除2点" in pms_to(out, "丁")
    assert g.ap("丁") == 3 + 3 - 2
    out = g.dawn()
    assert "占卜 甲：甲手中有杀手牌。" in pms_to(out, "丁")


def test_queued_actions_checked_against_that_nights_ap():
    """1.1.5: checked at nightfall against that night's AP; what can't be paid is dropped and
    the player told."""
    g = Game()
    g.pm("丁", "占卜 甲")
    g.dawn()
    g.pm("丁", "占卜 乙", hours=2)
    g.pm("丁", "束魂 丙", hours=3)
    g.pm("丁", "占卜 戊", hours=4)
    out = g.dusk(SAFE)
    body = pms_to(out, "丁")
    assert body.count("已经在第2夜开始时扣除") == 2
    assert "无法行使" in body and "行动点数不足" in body
    assert g.ap("丁") == 0


def test_queued_action_dropped_when_its_card_is_lost_at_day_end():
    """A42: a queued night action whose card is lost at day end (here: taken by the execution)
    is cancelled, free, and the player is told."""
    hands = dict(HANDS_6, 丁=["占卜/束魂", "庶民", "必杀/特赦", "防弹衣/狼毒"])
    g = Game(hands=hands)
    g.dawn()
    g.pm("丁", "占卜 甲", hours=2)
    out = g.dusk({"甲": "丁", "乙": "丁", "丙": "丁", "丁": "乙", "戊": "乙", "己": "丁"})
    assert "无法行使" in pms_to(out, "丁")
    assert g.ap("丁") == 3 + 3
    out = g.dawn()
    assert "占卜 甲：" not in pms_to(out, "丁")


def test_any_time_privileges_act_by_day_at_once():
    """§3.1.8a, §3.1.9: 必杀 and curse/bless work by day; charged at once (1.1.4)."""
    g = Game()
    g.dawn()
    out = g.pm("丙", "诅咒 甲", hours=2)
    assert "花费1点，剩余2点" in pms_to(out, "丙")


# ---- the discard order (§6.1–6.3, 1.1.3, A32) --------------------------------------------------------


def test_the_seeds_example_order_line():
    """§6.1: 我按下列先后顺序丢牌（排在前面的先丢）：诅咒/庇佑、禁锢/反狙击手、占卜/束魂、杀手."""
    g = Game(hands=EXAMPLE_HANDS)
    out = g.pm("甲", EXAMPLE_LINE)
    assert "✔" in pms_to(out, "甲")
    assert g.hand("甲") == ["诅咒/庇佑", "禁锢/反狙击", "占卜/束魂", "杀手"]
    g.pm("乙", f"攻击 甲\n{decl()}")
    g.dawn()
    assert g.hand("甲") == ["禁锢/反狙击", "占卜/束魂", "杀手"]  # the first card goes first


def test_order_by_half_names_and_commoners():
    """§6.1: cards may be written by a half of their name; 庶民 once per 庶民牌."""
    g = Game()
    out = g.pm("己", "丢牌顺序：诅咒、庶民、庶民、狙击手")
    assert "✔" in pms_to(out, "己")
    assert g.hand("己") == ["诅咒/庇佑", "庶民", "庶民", "狙击手/圣人"]


def test_incomplete_or_foreign_order_refused():
    """§6.1: the order must list the player's own cards, all of them."""
    g = Game()
    out = g.pm("己", "丢牌顺序：诅咒、庶民、狙击手")
    assert "还缺" in pms_to(out, "己")
    out = g.pm("己", "丢牌顺序：杀手、庶民、庶民、狙击手")
    assert "✘" in pms_to(out, "己")
    assert g.hand("己") == HANDS_6["己"]


def _dealt_with_commoner(players: int = 6) -> tuple[Game, str]:
    """A dealt game (no order sent yet) and a player holding a 庶民."""
    for seed in range(50):
        g = Game(deal=True, players=players, seed=seed)
        for p in g.state.players:
            if "庶民" in g.hand(p.name):
                return g, p.name
    raise AssertionError("no hand with a 庶民")


def test_commoner_cannot_be_the_bottom_card():
    """§6.2 游戏者只能选择特权牌作为底牌，不能选择庶民牌作底牌."""
    g, name = _dealt_with_commoner()
    hand = g.hand(name)
    bad = [c for c in hand if c != "庶民"] + ["庶民"] * hand.count("庶民")
    out = g.pm(name, "丢牌顺序：" + "、".join(bad))
    assert "庶民牌不能作底牌" in pms_to(out, name)
    good = ["庶民"] * hand.count("庶民") + [c for c in hand if c != "庶民"]
    out = g.pm(name, "丢牌顺序：" + "、".join(good))
    assert "✔" in pms_to(out, name)
    assert g.hand(name) == good


def test_bottom_card_never_changes():
    """§6.2 底牌一经确定，在整局游戏中都不能再更换; the rest may be resent within 24 h."""
    g, name = _dealt_with_commoner()
    privileges = [c for c in g.hand(name) if c != "庶民"]
    commoners = ["庶民"] * g.hand(name).count("庶民")
    g.pm(name, "丢牌顺序：" + "、".join(commoners + privileges))
    if len(privileges) > 1:
        swapped = privileges[:-2] + [privileges[-1], privileges[-2]]
        out = g.pm(name, "丢牌顺序：" + "、".join(commoners + swapped), hours=3)
        assert "底牌一经确定" in pms_to(out, name)
    out = g.pm(name, "丢牌顺序：" + "、".join(privileges[:-1] + commoners + privileges[-1:]), hours=4)
    assert "✔" in pms_to(out, name)
    assert g.hand(name)[-1] == privileges[-1]


def test_random_order_when_none_by_the_deadline():
    """§5.3/§6.1 未及时告知天神丢牌顺序的，天神将随机决定; 1.1.3: a privilege card at the
    bottom, PM'd to the player."""
    for seed in range(20):
        g = Game(deal=True, players=6, seed=seed)
        sender = g.state.players[0].name
        g.pm(sender, "丢牌顺序：" + "、".join(sorted(g.hand(sender), key=lambda c: c != "庶民")))
        out = g.dawn()
        for p in g.state.players:
            body = pms_to(out, p.name)
            if p.name == sender:
                assert "随机决定" not in body
                continue
            assert "天神随机决定为" in body
            assert g.hand(p.name)[-1] != "庶民"
            assert cards.is_privilege(g.state, p.extra["bottom"])


def test_order_after_the_first_24_hours_refused():
    """§6.1: the order is due within 24 h of the player list; outside a window it is refused."""
    g = Game()
    g.dawn()
    out = g.pm("己", "丢牌顺序：庶民、诅咒、庶民、狙击手", hours=2)
    assert "现在不能改变丢牌顺序" in pms_to(out, "己")
    assert g.hand("己") == HANDS_6["己"]


def _heavy_night(g: Game) -> None:
    """Night 1: 8 cards lost in all (甲 3 on 丙, 乙 3 on 丁, 己 2 snipes on 戊)."""
    g.pm("甲", "\n".join(f"攻击 丙\n{decl(f'【甲{i}】')}" for i in range(3)))
    g.pm("乙", "\n".join(f"攻击 丁\n{decl(f'【乙{i}】')}" for i in range(3)))
    g.pm("己", "\n".join(f"狙击 戊\n{decl(f'【己{i}】')}" for i in range(2)))


def test_reorder_window_at_one_third():
    """§6.3: when ⌊T/3⌋ cards are discarded (6 players: T = 24 → 8) each player may send a new
    order within 24 h; the bottom card stays; after the window, refused."""
    g = Game()
    _heavy_night(g)
    out = g.dawn()
    post = main_posts(out)
    assert "本局已经丢弃8张牌（总牌数24张的1/3）" in post
    out = g.pm("甲", "丢牌顺序：必杀、庶民、占卜、杀手", hours=2)
    assert "✔" in pms_to(out, "甲")
    assert g.hand("甲") == ["必杀/特赦", "庶民", "占卜/束魂", "杀手"]
    out = g.pm("甲", "丢牌顺序：庶民、占卜、杀手、必杀", hours=3)
    assert "底牌一经确定" in pms_to(out, "甲")
    g.dusk(SAFE)
    out = g.pm("己", "丢牌顺序：诅咒、庶民、庶民、狙击手", hours=2)
    assert "现在不能改变丢牌顺序" in pms_to(out, "己")


def test_no_window_below_the_threshold():
    """§6.3: 7 cards discarded is not yet ⌊24/3⌋ = 8."""
    g = Game()
    g.pm("甲", "\n".join(f"攻击 丙\n{decl(f'【甲{i}】')}" for i in range(3)))
    g.pm("乙", "\n".join(f"攻击 丁\n{decl(f'【乙{i}】')}" for i in range(3)))
    g.pm("己", f"狙击 戊\n{decl()}")
    out = g.dawn()
    assert "本局已经丢弃" not in main_posts(out)
    out = g.pm("戊", "丢牌顺序：庶民、禁锢、先知", hours=2)
    assert "现在不能改变丢牌顺序" in pms_to(out, "戊")


def test_thresholds_round_down_for_five_and_seven_players():
    """§6.3 总牌数不能被3整除时，减去余数再除: 5 players T = 25 → 8 and 16; 7 players T = 28 →
    9 and 18."""
    for players, (first, second) in ((5, (8, 16)), (7, (9, 18))):
        g = Game(deal=True, players=players, seed=1)
        assert g.state.data["total"] == {5: 25, 7: 28}[players]
        g.state.data["discarded"] = first - 1
        out = g.dawn()
        assert "本局已经丢弃" not in main_posts(out)
        g.state.data["discarded"] = first
        g.state.data["quiet"] = 0
        lines: list[str] = []
        cards.reorder_check(g.ruleset.spec, g.state, g.now, lines)
        assert lines and f"丢弃{first}张" in str(lines[0]) and "1/3" in str(lines[0])
        g.state.data["discarded"] = second - 1
        lines = []
        cards.reorder_check(g.ruleset.spec, g.state, g.now, lines)
        assert not lines
        g.state.data["discarded"] = second
        cards.reorder_check(g.ruleset.spec, g.state, g.now, lines)
        assert lines and "2/3" in str(lines[0])
        lines = []
        g.state.data["discarded"] = second + 5
        cards.reorder_check(g.ruleset.spec, g.state, g.now, lines)
        assert not lines  # A32: at most two windows


def test_pardoned_card_not_counted_escrow_counted_when_final():
    """A32: only final losses count: an escrow counts at dawn when it becomes final; a
    pardoned card never."""
    g = Game()
    g.dawn()
    g.dusk(SAFE)
    assert g.state.data["discarded"] == 0
    g.pm("丁", "特赦 乙")
    g.dawn()
    assert g.state.data["discarded"] == 1  # 甲's escrow only


def test_queued_aimed_snipe_rechecked_at_nightfall():
    """§3.1.3b/A20 with 1.1.5: a queued 瞄准狙击 is checked at nightfall; a position that is now
    the 底牌 of a hand of more than one card is refused there, not charged, and the bottom card
    is not taken."""
    g = Game()
    g.dawn()
    out = g.pm("丙", f"瞄准狙击 乙 第3张\n{decl()}", hours=2)  # 乙 holds 4: 第3 = 禁锢/反狙击
    assert "✔" in pms_to(out, "丙")
    g.pm("丁", "必杀 乙", hours=3)  # 乙 loses his front card at day end: 第3 is now his 底牌
    g.dusk({"甲": "丁", "乙": "丁", "丙": "丁", "丁": "己", "戊": "己", "己": "丁"})
    assert g.hand("乙") == ["先知/巫医", "禁锢/反狙击", "狼人"]
    out = g.dawn()
    assert "狼人" in g.hand("乙")
    assert g.ap("丙") == 3 + 3


def test_both_thresholds_at_once_open_one_window():
    """A32: both thresholds crossed in one announcement ⇒ one window, both chances used."""
    g = Game()
    g.state.data["discarded"] = 16
    lines: list[str] = []
    cards.reorder_check(g.ruleset.spec, g.state, g.now, lines)
    assert len(lines) == 1 and "2/3" in str(lines[0])
    assert g.state.data["windows"] == 2


def test_vest_bane_saint_on_another_player_refused():
    """§3.1.6a/b 防弹衣/狼毒只能对自己使用 (A6), §3.1.3c 圣人 is the user's own; DECISIONS §0.3:
    a forbidden target is refused at once with a reason, not silently taken as a self-use."""
    g = Game()
    for who, text in (("丁", "防弹衣 丙"), ("丁", "狼毒 丙"), ("丙", "圣人 丁")):
        out = g.pm(who, text)
        assert "✘" in pms_to(out, who), text
    assert g.ap("丁") == 3 and g.ap("丙") == 3
    out = g.pm("丁", "防弹衣 丁")  # naming oneself is fine
    assert "✔" in pms_to(out, "丁")
