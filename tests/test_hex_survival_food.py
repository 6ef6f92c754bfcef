"""`hex_survival` foods, statuses and HP arithmetic, from seed 003 §3, §4.1, §5 and
DECISIONS §4.1.2, D4–D8, D23–D25.  The expected values are read off the text's table."""

from __future__ import annotations

import pytest

from hex_helpers import Hex, main_posts, pms_to
from tianshen.rules.hex_survival import food as foods
from tianshen.specs import load_spec

CAT = foods.load(load_spec("hex_survival_12").options)
BY_NAME = {f.name: f for f in CAT.foods.values()}

# 003 §5.2, row by row: (food, layer, HP after eating at 20 HP, statuses after)
TABLE = [
    ("抱抱冰激凌球", 1, 50, {}),
    ("西班牙烤蝴蝶", 1, 40, {}),
    ("阿布瓜子", 1, 30, {}),
    ("无油油条", 1, 20, {"poisoned": None}),
    ("没腿胖头鱼", 1, 20, {"poisoned": None}),
    ("格格夹心饼", 1, 20, {"confused": 2}),
    ("美人香茶", 1, 20, {"lost": None}),
    ("21度剑酒", 1, 30, {"drunk": 2}),
    ("水蜜桃薯片", 2, 50, {}),
    ("钥匙煮饺子", 2, 30, {}),
    ("天堂棉花糖", 2, 20, {"immune": 2}),
    ("刺猬刺参", 2, 20, {"poisoned": None}),
    ("麻辣耗子", 2, 20, {"paralysed": 2}),
    ("慢火炖猫肉", 2, 20, {"diarrhoea": 1}),
    ("楼兰葡萄酒", 2, 40, {"drunk": 2}),
    ("油炸老虎腿", 2, 50, {"paralysed": 2}),
    ("烤斑马", 3, 50, {"attack_boost": 2}),
    ("大脸月饼", 3, 50, {"defence_boost": 2}),
    ("匀子酱", 3, 50, {}),
    ("烤全猪", 3, 50, {"immune": 2}),
]
RESTORING = {"水蜜桃薯片", "钥匙煮饺子", "天堂棉花糖", "匀子酱", "烤全猪"}  # 003 §5.3.9 (+ 棉花糖, §5.2)


def test_twenty_foods_in_the_texts_layers() -> None:
    """003 §5.1–5.2: 20 kinds; 8 in layer 1, 8 in layer 2, 4 in layer 3."""
    assert len(CAT.foods) == 20
    assert {name: f.layer for name, f in BY_NAME.items()} == {name: layer for name, layer, _, _ in TABLE}


@pytest.mark.parametrize(("name", "layer", "hp", "after"), TABLE)
def test_each_food_on_a_normal_player(name: str, layer: int, hp: int, after: dict) -> None:
    """003 §5.2 效果, eaten at 20 HP with no status."""
    held: foods.Statuses = {}
    eaten = foods.eat(CAT, 20, held, BY_NAME[name])
    assert eaten.hp_after == hp
    assert held == after


@pytest.mark.parametrize("name", [n for n, _, _, _ in TABLE])
def test_restore_normal_clears_the_seven_bad_statuses_only(name: str) -> None:
    """003 §5.3.9: 回复正常 clears the 7 bad statuses; immunity and the two boosts stay."""
    held: foods.Statuses = {"poisoned": None, "deep_poisoned": None, "lost": None, "drunk": 1,
                            "attack_boost": 1, "defence_boost": 2}
    foods.eat(CAT, 20, held, BY_NAME[name])
    if name in RESTORING:
        assert not any(CAT.statuses[s].bad for s in held)
        assert held["attack_boost"] == 1 and held["defence_boost"] == 2
    else:
        assert {"poisoned", "deep_poisoned", "lost"} <= set(held)


def test_hp_never_above_fifty() -> None:
    """003 §3: 每个游戏者血量最大不超过50点."""
    assert foods.eat(CAT, 40, {}, BY_NAME["抱抱冰激凌球"]).hp_after == 50
    assert foods.eat(CAT, 45, {}, BY_NAME["阿布瓜子"]).hp_after == 50


def test_sea_cucumber_deepens_only_an_existing_poison() -> None:
    """003 §5.3.2 and §5.3.12: 刺猬刺参 on the poisoned → deep poison; other poison foods on
    the poisoned change nothing."""
    held: foods.Statuses = {"poisoned": None}
    foods.eat(CAT, 20, held, BY_NAME["无油油条"])
    assert held == {"poisoned": None}
    foods.eat(CAT, 20, held, BY_NAME["刺猬刺参"])
    assert held == {"poisoned": None, "deep_poisoned": None}


def test_immunity_blocks_bad_statuses_not_hp() -> None:
    """003 §5.3.8 and D24: 不管吃了什么食物，都不会陷入以上7种不良状态; the HP part stays."""
    held: foods.Statuses = {"immune": 1}
    eaten = foods.eat(CAT, 20, held, BY_NAME["21度剑酒"])
    assert eaten.hp_after == 30 and held == {"immune": 1} and eaten.blocked == ["drunk"]
    eaten = foods.eat(CAT, 20, held, BY_NAME["烤斑马"])  # a good status is not blocked
    assert held["attack_boost"] == 2


def test_eating_the_same_status_again_restarts_it() -> None:
    """DECISIONS D7 `status_refresh = reset`: back to 2, not 3."""
    held: foods.Statuses = {"confused": 1}
    foods.eat(CAT, 20, held, BY_NAME["格格夹心饼"])
    assert held == {"confused": 2}


@pytest.mark.parametrize(("attacker_hp", "attacker", "target", "dmg"), [
    (50, {}, {}, 10),                                       # §4.1: 失血10点
    (50, {"attack_boost": 1}, {}, 15),                       # §5.3.10: 多打掉对方5点血
    (50, {}, {"defence_boost": 1}, 5),                       # §5.3.11: 少损失5点血
    (50, {"attack_boost": 1}, {"defence_boost": 1}, 10),     # §5.3.12: 互相抵消 … 损失10点血
    (5, {}, {}, 15),                                         # §4.1: 血量不足10点 ⇒ +5
    (5, {"attack_boost": 2}, {}, 20),                        # §4.1: 合计一次攻击最多…20点血
    (5, {"attack_boost": 2}, {"defence_boost": 1}, 15),
    (10, {}, {}, 10),                                        # 10 is not 不足10点
    (5, {}, {"defence_boost": 1}, 10),
])
def test_damage_of_one_attack(attacker_hp: int, attacker: dict, target: dict, dmg: int) -> None:
    """DECISIONS §4.1.2 / D4: dmg = 10 + 5·boost + 5·[HP < 10] − 5·defence, within 5…20."""
    assert foods.attack_damage(CAT, attacker_hp, attacker, target) == dmg


def test_dawn_loss_hunger_poison_deep_and_diarrhoea() -> None:
    """003 §3.1.1, §3.1.4–3.1.6 and §5.3.3's example: 又深度中毒又腹泻 … 10+10+10=30."""
    assert foods.dawn_loss(CAT, {}) == 10
    assert foods.dawn_loss(CAT, {"poisoned": None}) == 15
    assert foods.dawn_loss(CAT, {"poisoned": None, "deep_poisoned": None}) == 20
    assert foods.dawn_loss(CAT, {"poisoned": None, "deep_poisoned": None, "diarrhoea": 1}) == 30


# ---- through the game: statuses start at dusk, last their days or nights -------------------


def _eat(g: Hex, name: str, food: str) -> None:
    """`name` digs his cell today and finds `food` in the next layer."""
    cell = g.cell(name)
    depth = g.state.data["depth"][cell]
    if depth >= 3:  # dug out: stage a fresh cell for the test
        depth = g.state.data["depth"][cell] = 0
    layers = [None, None, None]
    layers[depth] = next(f.id for f in CAT.foods.values() if f.name == food)
    g.bury(cell, layers)
    assert not g.pm(name, "挖掘").refusals


def _full(g: Hex) -> None:
    for p in g.state.players:
        if p.alive:
            g.set_hp(p.name, 50)


def _day_end(g: Hex) -> None:
    g.vote_all("丑")
    g.dusk()
    _full(g)


def test_confusion_repeats_the_dig_for_two_days() -> None:
    """003 §4.2/§5.3.4, D8: after 格格夹心饼 on day 1, days 2 and 3 repeat day 1's dig; the
    player's own PMs are refused; day 4 is his own again."""
    g = Hex()
    g.dawn()
    _eat(g, "甲", "格格夹心饼")
    _day_end(g)
    assert g.statuses("甲") == {"confused": 2}
    for day in (2, 3):
        g.dawn()
        out = g.pm("甲", "移动 a2")
        assert out.refusals and "混乱" in out.refusals[0].reason
        dusk_out = (g.vote_all("丑"), g.dusk())[1]
        assert g.state.data["depth"]["a1"] == day  # the forced dig went one layer deeper
        assert "自动重复" in pms_to(dusk_out, "甲")[0]
        _full(g)
    assert "confused" not in g.statuses("甲")
    g.dawn()
    assert not g.pm("甲", "移动 a2").refusals


def test_drunk_cannot_dig_for_two_days_but_may_move() -> None:
    """003 §4.3/§5.3.6: 醉酒状态 … 当天不能挖掘 … 两天过后将自动痊愈; 21度剑酒 gives +10 too."""
    g = Hex()
    g.dawn()
    g.set_hp("甲", 20)
    _eat(g, "甲", "21度剑酒")
    g.vote_all("丑")
    g.dusk()
    assert g.hp("甲") == 30 and g.statuses("甲") == {"drunk": 2}
    _full(g)
    for _ in (2, 3):
        g.dawn()
        out = g.pm("甲", "挖掘")
        assert out.refusals and "醉酒" in out.refusals[0].reason
        assert not g.pm("甲", "移动 a2").refusals
        g.pm("甲", "取消")
        _day_end(g)
    g.dawn()
    assert not g.pm("甲", "挖掘").refusals


def test_paralysed_cannot_move_for_two_days_but_may_dig() -> None:
    """003 §4.2/§5.3.7: 麻痹状态 … 当天不能移动; 油炸老虎腿 also fills HP to 50."""
    g = Hex()
    g.dawn()
    g.set_hp("甲", 5)
    _eat(g, "甲", "油炸老虎腿")
    g.vote_all("丑")
    g.dusk()
    assert g.hp("甲") == 50 and g.statuses("甲") == {"paralysed": 2}
    for _ in (2, 3):
        g.dawn()
        out = g.pm("甲", "移动 a2")
        assert out.refusals and "麻痹" in out.refusals[0].reason
        assert not g.pm("甲", "挖掘").refusals
        _day_end(g)
    g.dawn()
    assert not g.pm("甲", "移动 a2").refusals


def test_lost_cannot_attack_until_restored() -> None:
    """003 §4.1/§5.3.5, D25: 美人香茶 → no attack from the next night on, until 回复正常."""
    g = Hex()
    g.dawn()
    _eat(g, "甲", "美人香茶")
    _day_end(g)
    assert "今夜不能攻击" in g.ruleset._status_block(g.state, g.state.player("甲"), True)
    for _ in range(2):
        out = g.pm("甲", "攻击 乙")
        assert out.refusals and "迷失" in out.refusals[0].reason
        g.dawn()
        _day_end(g)
    g.dawn()
    _eat(g, "甲", "钥匙煮饺子")  # §5.3.9: 天黑时将回复正常状态
    _day_end(g)
    assert g.statuses("甲") == {}
    assert not g.pm("甲", "攻击 乙").refusals


def test_diarrhoea_costs_ten_the_next_night_only() -> None:
    """003 §3.1.6/§5.3.3: 慢火炖猫肉 → 下一夜 −10 on top of hunger, then cured."""
    g = Hex()
    g.dawn()
    _eat(g, "甲", "慢火炖猫肉")
    _day_end(g)
    g.dawn()
    assert g.hp("甲") == 30 and g.statuses("甲") == {}
    _day_end(g)
    g.dawn()
    assert g.hp("甲") == 40


def test_poison_never_wears_off_and_deep_poison_adds_five() -> None:
    """003 §3.1.4–3.1.5, §5.3.1–5.3.2, D23: −15 a night poisoned, −20 deeply poisoned."""
    g = Hex()
    g.dawn()
    _eat(g, "甲", "没腿胖头鱼")
    _day_end(g)
    for _ in range(2):
        g.dawn()
        assert g.hp("甲") == 35
        _day_end(g)
    g.dawn()
    _eat(g, "甲", "刺猬刺参")
    _day_end(g)
    g.dawn()
    assert g.hp("甲") == 30 and set(g.statuses("甲")) == {"poisoned", "deep_poisoned"}


def test_immunity_covers_the_next_two_days_food() -> None:
    """003 §5.3.8, D24: 天堂棉花糖 on day 1 keeps day 2's and day 3's foods from harming; day
    4's poison takes."""
    g = Hex()
    g.dawn()
    _eat(g, "甲", "天堂棉花糖")
    _day_end(g)
    for food in ("无油油条", "麻辣耗子"):
        g.dawn()
        _eat(g, "甲", food)
        out = (g.vote_all("丑"), g.dusk())[1]
        assert not any(CAT.statuses[s].bad for s in g.statuses("甲"))
        assert "免疫" in pms_to(out, "甲")[0]
        _full(g)
    assert g.statuses("甲") == {}
    g.dawn()
    _eat(g, "甲", "无油油条")
    _day_end(g)
    assert g.statuses("甲") == {"poisoned": None}


def test_attack_boost_for_two_nights_and_defence_boost() -> None:
    """003 §5.3.10–5.3.12: 烤斑马 → +5 on nights 2 and 3, not 4; 大脸月饼 → −5; both cancel."""
    g = Hex()
    g.dawn()
    _eat(g, "甲", "烤斑马")
    _eat(g, "丁", "大脸月饼")
    _day_end(g)
    assert g.statuses("甲") == {"attack_boost": 2} and g.statuses("丁") == {"defence_boost": 2}
    g.pm("甲", "攻击 乙")
    g.pm("戊", "攻击 丁")
    out = g.dawn()
    assert "乙昨夜遭到攻击，损失15点血" in main_posts(out)
    assert "丁昨夜遭到攻击，损失5点血" in main_posts(out)
    _day_end(g)
    g.pm("甲", "攻击 丁")
    out = g.dawn()
    assert "丁昨夜遭到攻击，损失10点血" in main_posts(out)
    _day_end(g)
    assert g.statuses("甲") == {} and g.statuses("丁") == {}
    g.pm("甲", "攻击 乙")
    out = g.dawn()
    assert "乙昨夜遭到攻击，损失10点血" in main_posts(out)


def test_bad_status_and_boost_stack_with_their_own_clocks() -> None:
    """003 §5.3.12: 不良状态和攻击力增强…可以叠加并存…时效分别计算."""
    g = Hex()
    g.dawn()
    _eat(g, "甲", "格格夹心饼")
    _day_end(g)
    g.dawn()
    g.state.player("甲").extra["statuses"]["attack_boost"] = 2  # as if 烤斑马 came first
    _day_end(g)
    assert g.statuses("甲") == {"confused": 1, "attack_boost": 2}
    g.dawn()
    assert g.statuses("甲") == {"confused": 1, "attack_boost": 1}


def test_low_hp_attacker_hits_harder() -> None:
    """003 §4.1: 攻击时自己的血量不足10点 … 多打掉对方5点血 (D5: HP after the last dusk)."""
    g = Hex()
    g.set_hp("甲", 5)
    g.pm("甲", "攻击 乙")
    out = g.dawn()
    assert "乙昨夜遭到攻击，损失15点血" in main_posts(out)
