"""`hex_survival` game flow, from seed 003 (§4, §5.1, §6, §8, §9, §11) and DECISIONS §4
(4.1.3–4.1.7, D6, D9–D22, D27–D29).  Each test names its clause."""

from __future__ import annotations

from collections import Counter
from datetime import timedelta

from hex_helpers import CAMPS12, Hex, main_posts, pms_to
from tianshen.rules.hex_survival import food as foods
from tianshen.specs import load_spec

CAT = foods.load(load_spec("hex_survival_12").options)
ID = {f.name: f.id for f in CAT.foods.values()}


def _full(g: Hex) -> None:
    for p in g.state.players:
        if p.alive:
            g.set_hp(p.name, 50)


# ---- setup: food burial (003 §5.1, D9, D10) ------------------------------------------------


def test_forty_foods_buried_by_layer() -> None:
    """003 §5.1: 20 kinds × 2 in a 4×4×3 block, at most one a slot, each in its table layer:
    layers 1 and 2 full, layer 3 half empty."""
    g = Hex(cells={}, seed=3)
    buried = g.state.data["buried"]
    assert len(buried) == 16 and all(len(v) == 3 for v in buried.values())
    items = [(layer, item) for v in buried.values() for layer, item in enumerate(v, 1) if item]
    assert len(items) == 40
    assert Counter(item for _, item in items) == Counter({f: 2 for f in CAT.foods})
    assert all(CAT.foods[item].layer == layer for layer, item in items)
    assert sum(1 for v in buried.values() if v[2] is None) == 8


# ---- night (003 §4.1, §6.2, D20–D22) -----------------------------------------------------


def test_attack_out_of_range_is_refused_and_costs_nothing() -> None:
    """003 §4.1: 只能攻击…相邻的格子里的游戏者; a refused PM changes nothing and is answered."""
    g = Hex()
    g.pm("甲", "攻击 乙")
    out = g.pm("甲", "攻击 子")  # 子 at c3, not next to a1
    assert out.refusals and "不在你今夜的攻击范围内" in pms_to(out, "甲")[0]
    assert g.state.data["night"]["attacks"] == {"甲": "乙"}


def test_self_attack_and_two_attacks_add_up() -> None:
    """003 §4.1 游戏者可以攻击自己，一样会失血10点; D22 several attacks add; D20 the dawn post
    gives the total, never the attacker."""
    g = Hex()
    g.pm("甲", "攻击 甲")
    g.pm("丙", "攻击 丁")  # a3 and b1 both border a4
    g.pm("戊", "攻击 丁")
    out = g.dawn()
    post = main_posts(out)
    assert "甲昨夜遭到攻击，损失10点血" in post
    assert "丁昨夜遭到攻击，损失20点血" in post
    assert "丙" not in post and "戊" not in post
    assert g.hp("甲") == 30 and g.hp("丁") == 20 and g.hp("乙") == 40  # hunger 10 for everyone


def test_latest_attack_counts_and_can_be_withdrawn() -> None:
    """DECISIONS §0.3 (003: no lock): the last PM before dawn counts; §4.1 可以放弃攻击权力."""
    g = Hex()
    g.pm("甲", "攻击 乙")
    out = g.pm("甲", "攻击 丁")
    assert "取代" in pms_to(out, "甲")[0]
    assert g.state.data["night"]["attacks"] == {"甲": "丁"}
    g.pm("甲", "放弃攻击")
    assert g.state.data["night"]["attacks"] == {}
    out = g.dawn()
    assert "昨夜没有人遭到攻击" in main_posts(out)


def test_day_and_night_commands_only_in_their_phase() -> None:
    """003 §4: attack at night, move or dig by day."""
    g = Hex()
    out = g.pm("甲", "挖掘")
    assert out.refusals and "夜里" in out.refusals[0].reason
    g.dawn()
    out = g.pm("甲", "攻击 乙")
    assert out.refusals and "白天" in out.refusals[0].reason


def test_dawn_pms_hp_and_statuses_private() -> None:
    """003 §6.3–6.4: each player is told his HP and statuses at dawn, by PM only."""
    g = Hex()
    g.state.player("乙").extra["statuses"]["poisoned"] = None
    g.pm("甲", "攻击 乙")
    out = g.dawn()
    pm = pms_to(out, "乙")[0]
    assert "你的血量：25/50" in pm and "中毒" in pm
    assert "中毒" not in main_posts(out) and "25" not in main_posts(out)


def test_death_at_zero_with_the_camp_and_a_will() -> None:
    """003 §6.1 (D27): HP 0 = dead, the camp announced; §8.2 he may leave a will next period."""
    g = Hex()
    g.set_hp("乙", 20)
    g.pm("甲", "攻击 乙")
    out = g.dawn()
    assert not g.alive("乙")
    assert "**乙**血量降为0，死亡。所属阵营：红方" in main_posts(out)
    assert "遗言" in pms_to(out, "乙")[0]
    # the will, in its own thread the next day, is no 诈尸
    out = g.post("乙", "我的遗言。" * 60, thread="board:99")
    assert not out.notes
    g.vote_all("丑")
    g.dusk()
    out = g.post("乙", "我的分析：" * 60, thread="board:100")
    assert out.notes and "诈尸" in out.notes[0]


def test_attacks_of_those_who_die_at_dawn_still_count() -> None:
    """DECISIONS §0.2/§4.1.4 step 4: all of the night resolves at once."""
    g = Hex()
    g.set_hp("甲", 10)
    g.pm("甲", "攻击 乙")
    out = g.dawn()
    assert not g.alive("甲") and "乙昨夜遭到攻击，损失10点血" in main_posts(out)


# ---- day: digging (003 §4.3–4.4, §5.1, D9, D11, D12) -------------------------------------


def test_one_layer_a_day_whoever_digs_and_shared_food() -> None:
    """003 §5.1: 同一天内多人在同一个格子内挖掘，视为同一次挖掘，只能向下挖一层; §4.3: 挖到的食物
    由他们一起吃，食物的效果对他们都起作用; the 4th dig finds nothing (D9)."""
    cells = dict({"甲": "a1", "乙": "a1", "丙": "a3", "丁": "a4", "戊": "b1", "己": "b2",
                 "庚": "b3", "辛": "b4", "壬": "c1", "癸": "c2", "子": "c3", "丑": "c4"})
    g = Hex(cells=cells, camps=CAMPS12)
    g.bury("a1", [ID["抱抱冰激凌球"], ID["麻辣耗子"], ID["烤斑马"]])
    expected = [("抱抱冰激凌球", {}), ("麻辣耗子", {"paralysed": 2}), ("烤斑马", {"attack_boost": 2})]
    for day, (food, statuses) in enumerate(expected, 1):
        g.dawn()
        g.set_hp("甲", 20)
        g.set_hp("乙", 20)
        g.pm("甲", "挖掘")
        g.pm("乙", "挖")
        g.vote_all("丑")
        out = g.dusk()
        assert g.state.data["depth"]["a1"] == day
        for name in ("甲", "乙"):
            assert f"【{food}】" in pms_to(out, name)[0]
            assert g.statuses(name) == statuses
        # nobody is told who ate with him (003 §4.3)
        assert "乙" not in pms_to(out, "甲")[0].split("\n")[0]
        _full(g)
        for name in ("甲", "乙"):
            g.state.player(name).extra["statuses"].clear()
    g.dawn()
    g.pm("甲", "挖掘")
    g.vote_all("丑")
    out = g.dusk()
    assert "什么也没有挖到" in pms_to(out, "甲")[0]


def test_move_or_dig_not_both_the_latest_counts() -> None:
    """003 §4.4 二者只能选其一; D12 the latest valid PM counts; no PM = neither."""
    g = Hex()
    g.dawn()
    g.bury("a1", [ID["阿布瓜子"], None, None])
    g.pm("甲", "挖掘")
    out = g.pm("甲", "移动 a2")
    assert "取代" in pms_to(out, "甲")[0]
    g.vote_all("丑")
    out = g.dusk()
    assert g.cell("甲") == "a2" and g.state.data["depth"]["a1"] == 0
    assert g.cell("乙") == "a2"  # 乙 sent nothing: stays
    assert "移动到了 a2" in pms_to(out, "甲")[0]
    assert "今夜你可以攻击" in pms_to(out, "甲")[0] and "你现在在 a2 格" in pms_to(out, "甲")[0]


def test_bad_move_pm_is_refused_and_loses_nothing() -> None:
    g = Hex()
    g.dawn()
    g.pm("甲", "挖掘")
    for text in ("移动 z9", "移动 c3", "移动"):
        out = g.pm("甲", text)
        assert out.refusals and pms_to(out, "甲")
    assert g.state.data["day"]["actions"] == {"甲": {"kind": "dig"}}


# ---- dusk order (D6) and punishment (003 §3.1.3, §9.1–9.2) ----------------------------------


def test_food_before_punishment_at_dusk() -> None:
    """DECISIONS D6 `dusk_order = food_then_punish`: HP 10, punished, eats +30 → 30, alive."""
    g = Hex()
    g.dawn()
    g.set_hp("甲", 10)
    g.bury("a1", [ID["抱抱冰激凌球"], None, None])
    g.pm("甲", "挖掘")
    g.vote_all("甲")
    out = g.dusk()
    assert g.alive("甲") and g.hp("甲") == 30
    assert "被惩处：**甲**" in main_posts(out)


def test_punish_then_food_option() -> None:
    """D6 `dusk_order = punish_then_food`: HP 10, punished → 0 and dead before the food; the
    item is still dug up (the cell goes one layer deeper)."""
    g = Hex(options={"dusk_order": "punish_then_food"})
    g.dawn()
    g.set_hp("甲", 10)
    g.bury("a1", [ID["抱抱冰激凌球"], None, None])
    g.pm("甲", "挖掘")
    g.vote_all("甲")
    out = g.dusk()
    assert not g.alive("甲") and "**甲**血量降为0" in main_posts(out)


def test_teammates_only_when_the_gm_chooses() -> None:
    """D30 `reveal_teammates = false`: nothing in the text tells a player his team-mates."""
    assert "队友：" not in pms_to(Hex().setup_out, "甲")[0]
    g = Hex(options={"reveal_teammates": True})
    assert "你的队友：乙、丙、丁、戊、己。" in pms_to(g.setup_out, "甲")[0]


def test_ties_punish_everyone_at_the_top() -> None:
    """003 §9.2: 所有最高票得票者都将受到惩处 (−10 each at dusk)."""
    g = Hex()
    g.dawn()
    names = [p.name for p in g.state.players]
    for i, name in enumerate(names):
        g.post(name, f"投票 {'乙' if i % 2 else '丙'}")
    out = g.dusk()
    assert "被惩处：**乙、丙**" in main_posts(out) or "被惩处：**丙、乙**" in main_posts(out)
    assert g.hp("乙") == 30 and g.hp("丙") == 30 and g.hp("丁") == 40


def test_punished_to_zero_dies_at_dusk_with_the_camp() -> None:
    """003 §3.1.3/§6.1: 损失10点血，由天神在天黑时扣除; at 0 he dies, camp announced."""
    g = Hex()
    g.dawn()
    g.set_hp("子", 10)
    g.vote_all("子")
    out = g.dusk()
    assert not g.alive("子") and "**子**血量降为0，死亡。所属阵营：蓝方" in main_posts(out)


# ---- the vote (003 §9, DECISIONS §4.1.6) ---------------------------------------------------


def _ballot(g: Hex, name: str) -> str:
    return g.state.data["day"]["ballots"][name]["target"]


def test_missing_blank_or_abstaining_vote_counts_for_oneself() -> None:
    """003 §9.5: 投弃权票或没有在规定时间内投票的游戏者，他这一票视为投给了自己."""
    g = Hex()
    g.dawn()
    g.post("乙", "投票")
    g.post("丙", "投票 弃权")
    out = g.dusk()
    table = main_posts(out)
    assert "| 乙 | 1票 | 乙 |" in table and "| 丙 | 1票 | 丙 |" in table
    assert "| 甲 | 1票 | 甲（未投票，视为投给自己） |" in table


def test_one_change_by_a_new_post() -> None:
    """003 §9.3: 每个游戏者有一次改修自己的投票的权利 … 改票后就不能再次改票."""
    g = Hex()
    g.dawn()
    g.post("甲", "投票 乙", hours=1)
    g.post("甲", "改投 丙\n投票 丙", hours=2)
    assert _ballot(g, "甲") == "丙"
    out = g.post("甲", "投票 丁", hours=3)
    assert out.refusals and "只有一次" in pms_to(out, "甲")[0]
    assert _ballot(g, "甲") == "丙"


def test_no_change_in_the_last_hour() -> None:
    """003 §9.3: 投票时段的最后一个小时禁止改票 — a first vote is still taken."""
    g = Hex()
    g.dawn()
    g.post("甲", "投票 乙", hours=1)
    out = g.post("甲", "投票 丙", hours=35.5)
    assert out.refusals and "一小时" in pms_to(out, "甲")[0]
    assert _ballot(g, "甲") == "乙"
    assert not g.post("丁", "投票 丙", hours=35.5).refusals


def test_edited_vote_counts_as_first_written_and_ends_changes() -> None:
    """003 §9.3: 直接编辑的视为改票无效，仍按…原投票贴的投票对象计票，并禁止游戏者再次改票."""
    g = Hex()
    g.dawn()
    out = g.post("甲", "投票 丙", edited=True, original="投票 乙")
    assert _ballot(g, "甲") == "乙" and "编辑" in pms_to(out, "甲")[0]
    out = g.post("甲", "投票 丁", hours=2)
    assert out.refusals and _ballot(g, "甲") == "乙"


def test_edited_vote_with_unknown_original_counts_for_the_editor() -> None:
    """003 §9.3: 如果…不能判断…原来一票投给了谁，这一票将被计为投给了改票者自己."""
    g = Hex()
    g.dawn()
    g.post("甲", "投票 丙", edited=True, original=None)
    assert _ballot(g, "甲") == "甲"


def test_an_edited_change_is_void() -> None:
    """003 §9.3: editing does not count as a change; the right to change is gone."""
    g = Hex()
    g.dawn()
    g.post("甲", "投票 乙")
    g.post("甲", "投票 丙", hours=2, edited=True, original=None)
    assert _ballot(g, "甲") == "乙"
    assert g.post("甲", "投票 丁", hours=3).refusals


def test_ambiguous_first_vote_must_be_cast_again_without_a_change() -> None:
    """003 §9.6: 原投票有歧义 … 要求游戏者再次投票，但取消改票权利; 改票有歧义 → 按原投票计票."""
    g = Hex()
    g.dawn()
    out = g.post("甲", "投票 乙、丙")  # two players: ambiguous (an unknown name costs nothing, issue 17)
    assert out.refusals and "重新" in pms_to(out, "甲")[0] and "甲" not in g.state.data["day"]["ballots"]
    g.post("甲", "投票 乙", hours=2)
    assert _ballot(g, "甲") == "乙"
    assert g.post("甲", "投票 丙", hours=3).refusals and _ballot(g, "甲") == "乙"
    g.post("丁", "投票 乙")
    out = g.post("丁", "投票 谁谁", hours=2)  # an unclear change: void, the change right stays
    assert out.refusals and _ballot(g, "丁") == "乙"
    assert not g.post("丁", "投票 丙", hours=3).refusals and _ballot(g, "丁") == "丙"


def test_delegated_vote_is_cast_at_once_and_uses_the_change() -> None:
    """003 §9.9 (D15): 天神将在看到游戏者的委托后将立刻代其投票，并注明委托的时间; a delegated
    change uses the one change."""
    g = Hex()
    g.dawn()
    out = g.pm("甲", "委托投票 乙")
    vote_posts = [p.body for p in out.posts if p.thread == "vote:1"]
    assert vote_posts and "受甲委托" in vote_posts[0] and "投票 乙" in vote_posts[0]
    assert "寄出" in vote_posts[0] and _ballot(g, "甲") == "乙"
    g.pm("甲", "委托投票 丙", hours=2)
    assert _ballot(g, "甲") == "丙"
    out = g.pm("甲", "委托投票 丁", hours=3)
    assert out.refusals and _ballot(g, "甲") == "丙"


def test_votes_from_the_dead_or_for_the_dead_are_refused() -> None:
    g = Hex()
    g.set_hp("乙", 10)
    g.dawn()
    assert g.post("乙", "投票 甲").refusals
    out = g.post("甲", "投票 乙")
    assert out.refusals and "死亡" in pms_to(out, "甲")[0]


def _quiet_day(g: Hex, skip: tuple[str, ...] = ()) -> object:
    g.dawn()
    for p in g.state.players:
        if p.alive and p.name not in skip:
            g.post(p.name, "投票 丑")
    out = g.dusk()
    _full(g)
    return out


def test_two_missed_votes_in_a_row_without_substitute_is_out() -> None:
    """003 §9.8/§10.1.5 (D17): the second day in a row without a vote → out, camp announced."""
    g = Hex()
    _quiet_day(g, skip=("甲",))
    assert g.alive("甲")
    out = _quiet_day(g, skip=("甲",))
    assert not g.alive("甲") and "**甲**连续两天没有投票，被判出局。所属阵营：红方" in main_posts(out)
    assert any("甲" in n for n in out.notes)


def test_a_vote_between_two_misses_resets_the_count() -> None:
    g = Hex()
    _quiet_day(g, skip=("甲",))
    _quiet_day(g)
    _quiet_day(g, skip=("甲",))
    assert g.alive("甲")


def test_two_missed_votes_with_a_substitute_opens_a_substitution() -> None:
    """003 §9.8: 天神可以直接更换替换 — the 交替期 opens at dusk (the night gets +12 h)."""
    g = Hex(substitutes=["替补甲"])
    _quiet_day(g, skip=("甲",))
    night_end = None
    g.dawn()
    for p in g.state.players:
        if p.name != "甲":
            g.post(p.name, "投票 丑")
    out = g.dusk()
    night_end = g.state.phase.ends_at
    assert g.alive("甲") and g.state.data.get("substitution", {}).get("seats") == ["甲"]
    assert any(m.to == "替补甲" for m in out.pms)
    assert night_end == g.now + timedelta(hours=36)


def test_the_substitution_opens_also_when_the_input_is_folded_in_place() -> None:
    """The opening is core's `after_input` hook, not an override of `apply`: the Monte Carlo
    games (apply_in_place) open it too."""
    g = Hex(substitutes=["替补甲"])
    g.ruleset.apply = g.ruleset.apply_in_place  # type: ignore[method-assign]
    _quiet_day(g, skip=("甲",))
    g.dawn()
    for p in g.state.players:
        if p.name != "甲":
            g.post(p.name, "投票 丑")
    out = g.dusk()
    assert g.state.data.get("substitution", {}).get("seats") == ["甲"] and any(m.to == "替补甲" for m in out.pms)


def test_substitution_in_the_day_gives_one_more_change() -> None:
    """003 §9.4 (D13): the day and the vote are extended (12 h) and everyone may change once more."""
    from tianshen.core.model import GmIn

    g = Hex(substitutes=["替补甲"])
    g.dawn()
    g.post("甲", "投票 乙", hours=1)
    g.post("甲", "投票 丙", hours=2)
    assert g.post("甲", "投票 丁", hours=3).refusals
    ends = g.state.phase.ends_at
    g.apply(GmIn(id="gm1", at=g.at(4), command="substitute", args={"players": "子"}, reason="子失联"))
    assert g.state.phase.ends_at == ends + timedelta(hours=12)
    assert not g.post("甲", "投票 丁", hours=40).refusals and _ballot(g, "甲") == "丁"


def test_leave_excuses_a_missed_vote() -> None:
    """003 §9.8: 也未向天神请假 — a player on leave is not counted."""
    from tianshen.core.model import GmIn

    g = Hex()
    _quiet_day(g, skip=("甲",))
    g.dawn()
    g.apply(GmIn(id="gm1", at=g.at(2), command="leave", args={"player": "甲", "hours": 6}, reason="出差"))
    for p in g.state.players:
        if p.name != "甲":
            g.post(p.name, "投票 丑")
    g.dusk()
    assert g.alive("甲")


# ---- 默哀期 (003 §8.4, D28) and victory (§11, D19) -------------------------------------------


def _kill(g: Hex, names: list[str]) -> None:
    for n in names:
        p = g.state.player(n)
        p.alive, p.died_in, p.death_cause = False, "night 1", "hp"


def test_silence_period_at_four_alive() -> None:
    """003 §8.4: 游戏到还剩4人之时，天神将宣布游戏进入默哀期; posts of the dead are flagged."""
    camps = {n: ("red" if i < 7 else "blue") for i, n in enumerate(
        ["甲", "乙", "丙", "丁", "戊", "己", "庚", "辛", "壬", "癸", "子", "丑", "寅", "卯"])}
    g = Hex(camps=camps, cells={}, variant="hex_survival_14")
    _kill(g, ["丙", "丁", "戊", "己", "庚", "壬", "癸", "子", "丑"])
    g.set_hp("卯", 10)
    out = g.dawn()  # 卯 dies: 2 v 2, four alive
    assert "默哀期" in main_posts(out) and any("默哀期" in n for n in out.notes)
    assert g.state.winner is None
    out = g.post("丙", "我来分析一下", thread="vote:1")
    assert any("默哀期" in n for n in out.notes)
    out = g.post("旁观者", "我来分析一下", thread="board:7")
    assert any("默哀期" in n for n in out.notes)


def test_victory_rules() -> None:
    """003 §11: a camp wiped out, or fewer than half of the other's living members, loses;
    both wiped out at once → draw (D19)."""
    camps = {n: ("red" if i < 7 else "blue") for i, n in enumerate(
        ["甲", "乙", "丙", "丁", "戊", "己", "庚", "辛", "壬", "癸", "子", "丑", "寅", "卯"])}
    g = Hex(camps=camps, cells={}, variant="hex_survival_14")
    rs, st = g.ruleset, g.state
    assert rs.check_victory(st) is None
    _kill(g, ["甲", "乙", "丙", "丁"])  # 3 red v 7 blue: 3 < 3.5
    assert rs.check_victory(st) == "blue"
    g2 = Hex()  # 12: 3 v 6 plays on (3 is not under half of 6)
    _kill(g2, ["甲", "乙", "丙"])
    assert g2.ruleset.check_victory(g2.state) is None
    _kill(g2, ["丁"])  # 2 v 6
    assert g2.ruleset.check_victory(g2.state) == "blue"
    g3 = Hex()
    _kill(g3, ["子", "丑", "壬", "癸", "庚", "辛"])  # blue wiped out
    assert g3.ruleset.check_victory(g3.state) == "red"
    _kill(g3, ["甲", "乙", "丙", "丁", "戊", "己"])
    assert g3.ruleset.check_victory(g3.state) == "draw"


def test_winner_announced_at_dawn_with_every_camp() -> None:
    g = Hex()
    _kill(g, ["庚", "辛", "壬", "癸"])  # 6 red v 2 blue: 2 < 3, the win is found at the next dawn
    out = g.dawn()
    assert g.state.phase.kind == "over" and g.state.winner == "red"
    assert "红方获胜" in main_posts(out) and "\n子：蓝方" in main_posts(out)  # 马甲 = account: listed once (issue 31 item 8)


def test_player_view_shows_hp_cell_statuses_and_depths() -> None:
    """The replay `state`: camp, HP, cell, statuses with what is left, the dig depths."""
    g = Hex()
    g.state.player("甲").extra["statuses"].update(confused=2, poisoned=None)
    view = g.ruleset.player_view(g.state, "甲")
    assert view["role_name"] == "红方" and view["hp"] == 50 and view["cell"] == "a1"
    assert view["statuses"] == {"混乱": 2, "中毒": "∞"}
    assert view["dig_depths"]["a1"] == 0 and len(view["dig_depths"]) == 16


def test_unknown_pm_and_outsiders_get_an_answer() -> None:
    g = Hex()
    out = g.pm("甲", "你好")
    assert out.refusals and pms_to(out, "甲")
    out = g.pm("路人", "攻击 甲")
    assert out.refusals and pms_to(out, "路人")
    out = g.pm("甲", "状态")
    assert "你的血量：50/50" in pms_to(out, "甲")[0]


def test_vote_thread_within_the_first_hour() -> None:
    """003 §7.5: 天神将在天亮后1小时之内贴出当天投票帖 — at dawn by default, or after
    `vote_opens_hour`; until then a delegation is refused and costs nothing."""
    g = Hex()
    out = g.dawn()
    assert [p.thread for p in out.posts] == ["main", "vote:1"] and g.state.phase.step == "vote"
    g = Hex()
    g.ruleset.spec.timing.vote_opens_hour = 1
    out = g.dawn()
    assert [p.thread for p in out.posts] == ["main"] and g.state.phase.step == "discussion"
    assert g.pm("甲", "委托投票 乙", hours=0.5).refusals
    out = g.advance("vote_open")
    assert out.posts[0].thread == "vote:1" and out.posts[0].title == "第1天投票帖"
    assert not g.pm("甲", "委托投票 乙", hours=0.5).refusals
