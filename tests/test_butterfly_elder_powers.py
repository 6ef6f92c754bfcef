"""Seed 004 一 and 六 (DECISIONS 5.1.3–5.1.4): the powers, the needle marks, and every
butterfly interaction listed in 六 and its supplement."""

from __future__ import annotations

from collections import Counter

from butterfly_helpers import BUTTERFLY, DOCTOR, ELDER, KILLER, POLICE, SNIPER, Game, main_posts, pms_to
from tianshen.core.ruleset import GameSetup, Seat
from tianshen.rules import load_ruleset


def check_answer(out, police: str = POLICE) -> str:
    return "\n".join(m.body for m in out.pms if m.to == police and m.subject == "查验结果")


# ---- 一: the deal ---------------------------------------------------------------------------


def test_deal_has_the_roles_of_the_text() -> None:
    """一: 16 players — 3 killers, police, sniper, doctor, 8 villagers, butterfly, elder."""
    ruleset = load_ruleset("butterfly_elder")
    seats = [Seat(name=f"玩家{i}") for i in range(16)]
    state = ruleset.setup(GameSetup(seats=seats, seed=3, start=Game().now)).state
    roles = Counter(p.role for p in state.players)
    assert roles == {"killer": 3, "police": 1, "sniper": 1, "doctor": 1, "villager": 8, "butterfly": 1, "elder": 1}
    factions = Counter(p.faction for p in state.players)
    assert factions == {"killers": 3, "good": 11, "independents": 2}


def test_killers_share_one_group() -> None:
    """一 注: 杀手方共群共同行权 — the role PM names the partners, and a kill sent by one
    killer is told to each of the others."""
    g = Game()
    role_pm = pms_to(g.setup_out, "真身甲")[0]
    assert "乙" in role_pm and "丙" in role_pm
    out = g.pm(KILLER, "杀 壬")
    assert any("杀 壬" in b for b in pms_to(out, "乙"))
    assert any("杀 壬" in b for b in pms_to(out, "丙"))
    assert not pms_to(out, POLICE)


def test_joint_kill_latest_submission_of_any_living_killer_counts() -> None:
    """一 每轮可共同决定杀一人; E12: the latest submission from any living killer counts."""
    g = Game()
    g.pm("甲", "杀 壬", hours=1)
    g.pm("乙", "杀 癸", hours=2)
    out = g.powers()
    assert g.alive("壬") and not g.alive("癸")
    assert "**癸**出局，身份：好人。" in main_posts(out)


def test_dead_killer_cannot_submit_and_killer_may_skip() -> None:
    """E12/E20: dead killers stay in the group but only living killers' kills are taken;
    skipping (取消) is allowed."""
    g = Game()
    g.gm("modkill", player="丙")
    out = g.pm("丙", "杀 壬")
    assert out.refusals and "出局" in out.refusals[0].reason
    g.pm("甲", "杀 壬")
    g.pm("甲", "取消")
    g.powers()
    assert g.alive("壬")


def test_police_check_answers_yes_or_no() -> None:
    """一 警察: 每轮可验一人是否杀手，法官回答是或否."""
    g = Game()
    out = g.powers({POLICE: "验 乙"})
    assert "是杀手" in check_answer(out) and "不是" not in check_answer(out)
    g.day()
    out = g.powers({POLICE: "验 壬"})
    assert "不是杀手" in check_answer(out)


def test_refusals_lose_nothing() -> None:
    """§0.3: an invalid action is refused at once with a reason and costs nothing — the
    earlier valid action stands."""
    g = Game()
    g.pm(SNIPER, "狙 乙")
    for text in ("狙 戊", "狙 无名氏", "狙", "验 甲"):
        out = g.pm(SNIPER, text)
        assert out.refusals, text
        assert "未能接受" in pms_to(out, SNIPER)[0]
    out = g.pm(POLICE, "验 丁")
    assert out.refusals
    g.powers()
    assert not g.alive("乙")


def test_powers_only_in_the_power_window() -> None:
    """补充 一 3–4: powers are sent in the power round; after the 看表帖 nothing is taken."""
    g = Game()
    g.advance("powers_end")
    out = g.pm(SNIPER, "狙 乙", hours=0.1)
    assert out.refusals and "不是权力行使时间" in out.refusals[0].reason
    g.advance("results")
    out = g.pm(SNIPER, "狙 乙", hours=1)
    assert out.refusals


def test_sniper_shot_kills_and_doctor_saves() -> None:
    """一 狙击 and 医生: a shot kills unless the doctor saves him; saved → no mark."""
    g = Game()
    g.powers({SNIPER: "狙 乙"})
    assert not g.alive("乙")
    g.day()
    g.powers({SNIPER: "狙 丙", DOCTOR: "救 丙"})
    assert g.alive("丙")
    assert g.view("丙")["needle_marks"] == []


def test_kill_and_shot_on_one_player_one_save() -> None:
    """E30: killed and shot, one save saves him; without it he dies once."""
    g = Game()
    g.powers({KILLER: "杀 壬", SNIPER: "狙 壬", DOCTOR: "救 壬"})
    assert g.alive("壬") and g.view("壬")["needle_marks"] == []
    g.day()
    out = g.powers({KILLER: "杀 壬", SNIPER: "狙 壬"})
    assert main_posts(out).count("**壬**出局") == 1


# ---- needle marks (一 医生, E3) ---------------------------------------------------------------


def test_save_on_unattacked_player_leaves_a_mark() -> None:
    g = Game()
    g.powers({DOCTOR: "救 壬"})
    assert g.alive("壬")
    assert g.view("壬")["needle_marks"] == [1]


def test_two_marks_in_consecutive_rounds_kill() -> None:
    """一 任何一个人累计2个针孔就会死亡 (E3: a mark lasts its round and the next)."""
    g = Game()
    g.powers({DOCTOR: "救 壬"})
    g.day()
    out = g.powers({DOCTOR: "救 壬"})
    assert not g.alive("壬")
    assert g.state.player("壬").death_cause == "needles"
    assert "**壬**出局，身份：好人。" in main_posts(out)


def test_marks_expire_after_a_round() -> None:
    """一 隔轮针孔消失: marks in rounds 1 and 3 never meet."""
    g = Game()
    g.powers({DOCTOR: "救 壬"})
    g.day()
    g.powers()
    assert g.view("壬")["needle_marks"] == [1]
    g.day()
    g.powers({DOCTOR: "救 壬"})
    assert g.alive("壬")
    assert g.view("壬")["needle_marks"] == [3]


def test_needle_window_is_data() -> None:
    """E3 `needle_window_rounds`: with 3, marks of rounds 1 and 3 do kill."""
    g = Game(options={"needle_window_rounds": 3})
    g.powers({DOCTOR: "救 壬"})
    g.day()
    g.powers()
    g.day()
    g.powers({DOCTOR: "救 壬"})
    assert not g.alive("壬")


def test_doctor_may_save_himself() -> None:
    """E3 `doctor_self = true`: allowed (and it marks him); off → refused."""
    g = Game()
    out = g.pm(DOCTOR, "救 己")
    assert not out.refusals
    g.powers()
    assert g.view(DOCTOR)["needle_marks"] == [1]
    g2 = Game(options={"doctor_self": False})
    assert g2.pm(DOCTOR, "救 己").refusals


def test_voided_kill_is_no_attack_for_the_doctor() -> None:
    """E4 `doctor_attack_basis = effective`: a killer is hugged, so the kill fails; the
    doctor's save on its target is a save on an unattacked player: a mark."""
    g = Game()
    g.powers({BUTTERFLY: "抱 乙", KILLER: "杀 壬", DOCTOR: "救 壬"})
    assert g.alive("壬")
    assert g.view("壬")["needle_marks"] == [1]
    g2 = Game(options={"doctor_attack_basis": "intent"})
    g2.powers({BUTTERFLY: "抱 乙", KILLER: "杀 壬", DOCTOR: "救 壬"})
    assert g2.alive("壬") and g2.view("壬")["needle_marks"] == []


# ---- 六: the butterfly ------------------------------------------------------------------------


def test_hugged_sniper_shot_is_void() -> None:
    """六 花蝴蝶抱走狙击手，狙击手那轮开的枪无效."""
    g = Game()
    g.powers({BUTTERFLY: "抱 戊", SNIPER: "狙 乙"})
    assert g.alive("乙")


def test_hugged_doctor_save_is_void() -> None:
    """六 花蝴蝶抱走医生，医生救人无效 (E15: no save and no mark)."""
    g = Game()
    g.powers({BUTTERFLY: "抱 己", SNIPER: "狙 壬", DOCTOR: "救 壬"})
    assert not g.alive("壬")
    g2 = Game()
    g2.powers({BUTTERFLY: "抱 己", DOCTOR: "救 癸"})
    assert g2.view("癸")["needle_marks"] == []


def test_hugged_police_gets_no_answer() -> None:
    """六 花蝴蝶抱走警察，法官不会给警察任何回答."""
    g = Game()
    out = g.powers({BUTTERFLY: "抱 丁", POLICE: "验 乙"})
    answer = check_answer(out)
    assert "没有得到回答" in answer and "杀手" not in answer


def test_hugged_killer_kill_fails_but_other_deaths_stand() -> None:
    """六 花蝴蝶抱走任意一个杀手时，杀手杀的人不会被杀死（如果被杀人正巧是由于其它原因而
    死，如被狙击手打死或者中了医生的空针2次，还是会死）."""
    g = Game()
    g.powers({BUTTERFLY: "抱 丙", KILLER: "杀 壬"})
    assert g.alive("壬")
    g.day()
    g.powers({BUTTERFLY: "抱 乙", KILLER: "杀 壬", SNIPER: "狙 壬"})
    assert not g.alive("壬")
    g.day()
    g.powers({DOCTOR: "救 癸"})
    g.day()
    g.powers({BUTTERFLY: "抱 甲", KILLER: "杀 癸", DOCTOR: "救 癸"})
    assert not g.alive("癸") and g.state.player("癸").death_cause == "needles"


def test_killing_the_butterfly_kills_her_partner() -> None:
    """六 杀手杀花蝴蝶，而医生又没有救花蝴蝶，花蝴蝶和他抱着的人一起死."""
    g = Game()
    out = g.powers({BUTTERFLY: "抱 壬", KILLER: "杀 庚"})
    assert not g.alive(BUTTERFLY) and not g.alive("壬")
    assert "**庚**出局，身份：花蝴蝶。" in main_posts(out)
    assert "**壬**出局，身份：好人。" in main_posts(out)


def test_shooting_the_butterfly_kills_her_partner() -> None:
    """六 狙击手打中花蝴蝶…花蝴蝶和他抱着的人一起死."""
    g = Game()
    g.powers({BUTTERFLY: "抱 乙", SNIPER: "狙 庚"})
    assert not g.alive(BUTTERFLY) and not g.alive("乙")


def test_save_on_unattacked_butterfly_marks_both() -> None:
    """六 如果医生救花蝴蝶而花蝴蝶没有被杀手杀或者被狙击手打，花蝴蝶和他抱着的人一起中空针一下."""
    g = Game()
    g.powers({BUTTERFLY: "抱 壬", DOCTOR: "救 庚"})
    assert g.view(BUTTERFLY)["needle_marks"] == [1]
    assert g.view("壬")["needle_marks"] == [1]


def test_save_on_attacked_butterfly_marks_only_her_partner() -> None:
    """六 如果医生救花蝴蝶而花蝴蝶被杀手杀或者被狙击手打，花蝴蝶不死，而他抱着的人中空针一下 (E16)."""
    g = Game()
    g.powers({BUTTERFLY: "抱 壬", KILLER: "杀 庚", DOCTOR: "救 庚"})
    assert g.alive(BUTTERFLY) and g.alive("壬")
    assert g.view(BUTTERFLY)["needle_marks"] == []
    assert g.view("壬")["needle_marks"] == [1]


def test_partner_dies_of_needles_through_the_butterfly() -> None:
    """E5: needles reach the partner through a save on the butterfly: two in a row kill."""
    g = Game()
    g.powers({DOCTOR: "救 壬"})
    g.day()
    g.powers({BUTTERFLY: "抱 壬", DOCTOR: "救 庚"})
    assert not g.alive("壬") and g.alive(BUTTERFLY)


def test_hugged_player_is_untouchable() -> None:
    """六 被花蝴蝶抱走的玩家…被杀手/狙击杀不死，被警察验不到，被医生扎不到，不能被森林老人禁言."""
    g = Game()
    out = g.powers({BUTTERFLY: "抱 壬", KILLER: "杀 壬", POLICE: "验 壬", DOCTOR: "救 壬", ELDER: "禁言 壬"})
    assert g.alive("壬")
    assert g.view("壬")["needle_marks"] == []
    assert "没有得到回答" in check_answer(out)
    assert "禁言" not in main_posts(out) and not g.view("壬")["muted"]
    g.day()
    g.powers({BUTTERFLY: "抱 乙", SNIPER: "狙 乙"})
    assert g.alive("乙")


def test_police_check_on_the_butterfly() -> None:
    """六 花蝴蝶抱了任何一个非警察的人，警察验花蝴蝶反馈为非杀，验不到花蝴蝶抱走的玩家 (E18);
    补充: the check does not reach her partner."""
    g = Game()
    out = g.powers({BUTTERFLY: "抱 乙", POLICE: "验 庚"})
    assert "第1轮你查验的庚：不是杀手。" in check_answer(out)


def test_mute_on_the_butterfly_does_not_reach_her_partner() -> None:
    """六 补充: 不产生连带的为被警察查，被森林老人禁言."""
    g = Game()
    g.powers({BUTTERFLY: "抱 壬", ELDER: "禁言 庚"})
    assert g.view(BUTTERFLY)["muted"] and not g.view("壬")["muted"]


def test_butterfly_rules_not_self_not_twice_four_uses() -> None:
    """一 花蝴蝶: 此权利不可连续两轮作用于一人; 整个游戏拥有4次行权机会; 不能抱自己 (六 抱走他人)."""
    g = Game()
    assert g.pm(BUTTERFLY, "抱 庚").refusals
    g.powers({BUTTERFLY: "抱 壬"})
    assert g.view(BUTTERFLY)["butterfly_uses_left"] == 3
    g.day()
    out = g.pm(BUTTERFLY, "抱 壬")
    assert out.refusals and "连续两轮" in out.refusals[0].reason
    g.powers({BUTTERFLY: "抱 癸"})
    g.day()
    g.powers({BUTTERFLY: "抱 壬"})
    g.day()
    g.powers({BUTTERFLY: "抱 子"})
    assert g.view(BUTTERFLY)["butterfly_uses_left"] == 0
    g.day()
    out = g.pm(BUTTERFLY, "抱 丑")
    assert out.refusals and "4次" in out.refusals[0].reason


def test_hug_on_a_player_without_powers_uses_one() -> None:
    """E28: a valid hug uses one of the four, whoever the partner is."""
    g = Game()
    g.powers({BUTTERFLY: "抱 巳"})
    assert g.view(BUTTERFLY)["butterfly_uses_left"] == 3


def test_butterfly_deadline_is_earlier() -> None:
    """六 花蝴蝶的权力时间比其他特殊人物权力时间提前10－15分钟 (E19: told to her only)."""
    g = Game()
    role_pm = pms_to(g.setup_out, "真身庚")[0]
    assert "15分钟" in role_pm
    assert "15分钟" not in pms_to(g.setup_out, "真身戊")[0]
    g.powers()
    g.day()  # round 2's window is two hours long
    out = g.pm(BUTTERFLY, "抱 壬", hours=1.8)
    assert out.refusals and "15分钟" in out.refusals[0].reason
    assert not g.pm(SNIPER, "狙 乙", hours=1.8).refusals
    assert not g.pm(BUTTERFLY, "抱 壬", hours=1.7).refusals


def test_every_other_round_setting() -> None:
    """E2 `butterfly_gehun = every_other_round`: she may hug only every other round."""
    g = Game(options={"butterfly_gehun": "every_other_round"})
    g.powers({BUTTERFLY: "抱 壬"})
    g.day()
    out = g.pm(BUTTERFLY, "抱 癸")
    assert out.refusals and "隔轮" in out.refusals[0].reason
    g.powers()
    g.day()
    assert not g.pm(BUTTERFLY, "抱 癸").refusals
    g_default = Game()
    g_default.powers({BUTTERFLY: "抱 壬"})
    g_default.day()
    assert not g_default.pm(BUTTERFLY, "抱 癸").refusals


# ---- 一: the forest elder ---------------------------------------------------------------------


def test_elder_mute_and_zero_rules() -> None:
    """一 森林老人: mute or zero, not both (the later replaces); zero never on himself; neither
    on the same player two rounds running."""
    g = Game()
    assert g.pm(ELDER, "归零 辛").refusals
    g.pm(ELDER, "禁言 壬")
    out = g.pm(ELDER, "归零 癸")
    assert "取代" in pms_to(out, ELDER)[0]
    out = g.powers()
    assert "禁言" not in main_posts(out)  # the zero replaced the mute
    g.day()
    out = g.pm(ELDER, "归零 癸")
    assert out.refusals and "连续两轮" in out.refusals[0].reason
    assert not g.pm(ELDER, "禁言 癸").refusals
    g.powers()
    g.day()
    out = g.pm(ELDER, "禁言 癸")
    assert out.refusals and "连续两轮" in out.refusals[0].reason
    assert not g.pm(ELDER, "禁言 辛").refusals  # mute on himself is not forbidden


def test_mute_is_announced_and_flags_speech() -> None:
    """一 技能一 and E22 `announce_mute`: the mute is announced; the muted player's posts
    are reported to the GM; his vote counts, extra text flagged."""
    g = Game()
    out = g.powers({ELDER: "禁言 壬"})
    assert "**壬**本轮被森林老人禁言" in main_posts(out)
    assert g.view("壬")["muted"]
    out = g.post("壬", "我想说两句", thread="main")
    assert any("禁言" in n for n in out.notes)
    out = g.post("壬", "癸")
    assert not out.notes and g.state.data["ballots"]["壬"]["target"] == "癸"
    out = g.post("壬", "投票 癸\n因为他昨天很奇怪", hours=2)
    assert any("名字以外" in n for n in out.notes)
    assert g.state.data["ballots"]["壬"]["target"] == "癸"
    g.day()
    assert not g.view("壬")["muted"]


def test_muted_player_killed_has_no_will() -> None:
    """一 技能一 连遗言也不能说 (E21)."""
    g = Game()
    out = g.powers({ELDER: "禁言 壬", KILLER: "杀 壬"})
    assert "壬本轮被禁言，没有遗言" in main_posts(out)
    out = g.post("壬", "遗言：我是好人", thread="main")
    assert any("诈尸" in n for n in out.notes)


def test_hugged_elder_powers_void() -> None:
    """一: 当轮老人被蝴蝶抱，则老人当轮三个技能均无法生效 — mute void."""
    g = Game()
    out = g.powers({BUTTERFLY: "抱 辛", ELDER: "禁言 壬"})
    assert "禁言" not in main_posts(out)
    assert not g.view("壬")["muted"]


def test_elder_revives_once() -> None:
    """一 技能三: out by a kill he revives, his identity announced, skills 1 and 2 lost; the
    next death is final."""
    g = Game()
    out = g.powers({KILLER: "杀 辛"})
    assert g.alive(ELDER)
    assert "**辛**出局后自动复活，身份：森林老人" in main_posts(out)
    assert g.view(ELDER)["revive_used"]
    g.day()
    out = g.pm(ELDER, "禁言 壬")
    assert out.refusals and "失去" in out.refusals[0].reason
    out = g.powers({SNIPER: "狙 辛"})
    assert not g.alive(ELDER)
    assert "**辛**出局，身份：森林老人。" in main_posts(out)


def test_elder_revives_after_double_needles() -> None:
    """一 技能三: 被医生双针造成出局后，老人自动复活."""
    g = Game()
    g.powers({DOCTOR: "救 辛"})
    g.day()
    g.powers({DOCTOR: "救 辛"})
    assert g.alive(ELDER) and g.view(ELDER)["revive_used"]


def test_elder_hugged_does_not_revive() -> None:
    """一 例: 如老人当晚被蝴蝶行权，当晚老人被杀…好命均不能发动 (E5: the death comes through
    the butterfly)."""
    g = Game()
    out = g.powers({BUTTERFLY: "抱 辛", KILLER: "杀 庚"})
    assert not g.alive(ELDER) and not g.alive(BUTTERFLY)
    assert "复活" not in main_posts(out)


def test_zero_on_the_butterfly_does_not_reach_her_partner() -> None:
    """六 归零技能可发动，被归零的为森林老人指定的玩家，蝴蝶不受影响 — the zero is on the
    player named; nothing of it passes between the butterfly and her partner."""
    g = Game()
    g.powers({BUTTERFLY: "抱 乙", ELDER: "归零 庚"})
    g.day({"壬": "庚", "癸": "庚", "子": "庚", "丑": "乙", "寅": "乙"})
    assert g.alive(BUTTERFLY) and not g.alive("乙")


def test_the_elder_hugs_nobody() -> None:
    """六 抱走概念仅限于花蝴蝶，森林老人没有抱走的概念: a muted sniper still shoots."""
    g = Game()
    out = g.powers({ELDER: "禁言 戊", SNIPER: "狙 乙"})
    assert "**戊**本轮被森林老人禁言" in main_posts(out)
    assert not g.alive("乙")
