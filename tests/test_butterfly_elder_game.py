"""Seed 004 三, 五 and 补充说明 二: the win with the independents' priority, identities, wills,
诈尸 and its penalties, lurking and leave; the GM's overrides; a whole rehearsal."""

from __future__ import annotations

from datetime import timedelta

from butterfly_helpers import (
    BUTTERFLY,
    DOCTOR,
    ELDER,
    KILLER,
    POLICE,
    SNIPER,
    VILLAGERS,
    Game,
    main_posts,
    pms_to,
)
from tianshen.core.model import GameState


def kill_off(g: Game, names: list[str]) -> None:
    """Mark players dead directly (for the pure win check)."""
    for n in names:
        g.state.player(n).alive = False


# ---- 三: victory ----------------------------------------------------------------------------


def test_good_win_when_all_killers_dead() -> None:
    """三 好人方胜利条件：杀手方人员全部死亡 — announced with every role and the seed."""
    g = Game()
    g.gm("modkill", player="甲")
    g.gm("modkill", player="乙")
    out = g.powers({SNIPER: "狙 丙"})
    assert g.state.winner == "good" and g.state.phase.kind == "over"
    text = main_posts(out)
    assert "**丙**出局，身份：杀手。" in text and "好人方获胜" in text and "本局随机种子：7" in text
    assert "庚（真身庚）：花蝴蝶" in text


def test_killers_win_when_specials_or_villagers_all_dead() -> None:
    """三 杀手方胜利条件：好人方特殊身份全部死亡或好人方水民全部死亡."""
    g = Game()
    kill_off(g, [POLICE, SNIPER, DOCTOR])
    assert g.ruleset.check_victory(g.state) == "killers"
    g = Game()
    kill_off(g, VILLAGERS)
    assert g.ruleset.check_victory(g.state) == "killers"
    g = Game()
    kill_off(g, [POLICE, SNIPER, *VILLAGERS[:7]])
    assert g.ruleset.check_victory(g.state) is None


def test_independents_win_at_five_with_priority() -> None:
    """三 剩余5人时，独立方有人存活…同时达成…独立方胜利优先 (E8: at most 5)."""
    g = Game()
    kill_off(g, [POLICE, SNIPER, DOCTOR, *VILLAGERS])  # 5 left: 3 killers, butterfly, elder
    assert g.ruleset.check_victory(g.state) == "independents"
    g = Game()
    kill_off(g, ["甲", "乙", "丙", POLICE, SNIPER, DOCTOR, BUTTERFLY, *VILLAGERS[:5]])  # 4 left with the elder
    assert g.ruleset.check_victory(g.state) == "independents"
    g = Game()
    kill_off(g, [POLICE, SNIPER, DOCTOR, BUTTERFLY, ELDER, *VILLAGERS[:6]])  # 5 left, no independent
    assert g.ruleset.check_victory(g.state) == "killers"
    g = Game()
    kill_off(g, ["乙", "丙", DOCTOR, *VILLAGERS[:7]])  # 6 left with both independents
    assert g.ruleset.check_victory(g.state) is None


def test_threshold_mode_is_data() -> None:
    """E8 `indep_threshold_mode = eq`: only exactly 5 alive."""
    g = Game(options={"indep_threshold_mode": "eq"})
    kill_off(g, ["乙", "丙", POLICE, SNIPER, DOCTOR, *VILLAGERS[:6]])  # 5 alive
    assert g.ruleset.check_victory(g.state) == "independents"
    g.state.player(VILLAGERS[6]).alive = False  # 4 alive
    assert g.ruleset.check_victory(g.state) != "independents"


def test_good_and_killers_at_once_is_a_draw() -> None:
    """E9 `simultaneous = draw` (good, killers)."""
    g = Game()
    kill_off(g, ["甲", "乙", "丙", POLICE, SNIPER, DOCTOR, BUTTERFLY, ELDER])  # 8 villagers left
    assert g.ruleset.check_victory(g.state) == "draw"
    g = Game(options={"simultaneous": "good"})
    kill_off(g, ["甲", "乙", "丙", POLICE, SNIPER, DOCTOR, BUTTERFLY, ELDER])
    assert g.ruleset.check_victory(g.state) == "good"


def test_win_at_the_vote_is_announced() -> None:
    """三, checked after the vote result; the killers' win through the results post."""
    g = Game()
    g.gm("modkill", player="甲")
    g.gm("modkill", player="乙")
    g.powers()
    out = g.day({"壬": "丙", "癸": "丙"})
    assert g.state.winner == "good" and "好人方获胜" in main_posts(out)
    g = Game()
    g.gm("modkill", player=POLICE)
    g.gm("modkill", player=SNIPER)
    out = g.powers({KILLER: "杀 己"})
    assert g.state.winner == "killers" and "杀手方获胜" in main_posts(out)


# ---- 五: identity, wills, 诈尸 ----------------------------------------------------------------


def test_identity_by_side() -> None:
    """五 杀手方人员公布为杀手；好人方人员公布为好人；独立方公布具体身份."""
    g = Game()
    out = g.powers({KILLER: "杀 丁", SNIPER: "狙 乙"})
    assert "**丁**出局，身份：好人。" in main_posts(out)
    assert "**乙**出局，身份：杀手。" in main_posts(out)
    out = g.day({"壬": "庚", "癸": "庚"})
    assert "**庚**得票最高，出局，身份：花蝴蝶。" in main_posts(out)


def test_one_will_within_24_hours() -> None:
    """五 所有死亡的人有一次遗言机会，遗言时间为死亡后24小时内; any later post is 诈尸."""
    g = Game()
    out = g.powers({KILLER: "杀 壬"})
    assert "24小时内" in main_posts(out)
    out = g.post("壬", "遗言：我是水民", thread="main", hours=2)
    assert not out.notes
    out = g.post("壬", "再补充一句", thread="main", hours=3)
    assert any("诈尸" in n and "壬" in n for n in out.notes)
    assert g.state.data["zombie_flags"][0]["player"] == "壬"


def test_will_after_24_hours_is_zombie() -> None:
    g = Game()
    g.powers({KILLER: "杀 壬"})
    out = g.post("壬", "遗言", thread="main", at=g.now + timedelta(hours=24, minutes=1))
    assert any("诈尸" in n for n in out.notes)


def test_will_is_not_a_vote_and_edited_will_is_flagged() -> None:
    """补充 二 3 遗言帖不得修改; the vote thread is for votes only (补充 二 5)."""
    g = Game()
    g.powers({KILLER: "杀 壬", SNIPER: "狙 癸"})
    out = g.post("壬", "投票 乙")
    assert out.refusals and any("诈尸" in n for n in out.notes)
    out = g.post("癸", "遗言（改过）", thread="main", edited=True, original="遗言")
    assert any("修改" in n for n in out.notes)


def test_silence_after_the_clock_post_is_reported() -> None:
    """补充 一 4: 从看表帖开始，所有玩家禁言."""
    g = Game()
    out = g.advance("powers_end")
    assert "看表帖" in main_posts(out)
    out = g.post("壬", "说句话", thread="main", hours=0.1)
    assert any("禁言期间" in n for n in out.notes)


def test_confirmed_zombie_good_gives_killers_an_extra_kill() -> None:
    """五 好人方：增加杀手方权利一轮 (E14: one more kill next round)."""
    g = Game()
    assert g.pm(KILLER, "加杀 癸").refusals  # no extra kill without a penalty
    g.powers({KILLER: "杀 壬"})
    g.post("壬", "遗言", thread="main")
    g.post("壬", "诈尸了", thread="main", hours=2)
    out = g.gm("confirm_zombie", player="壬", after=3)
    assert "杀手方第2轮增加一次杀人权利" in main_posts(out)
    out = g.day()
    assert any("加杀" in b for b in pms_to(out, "乙"))
    g.pm(KILLER, "杀 癸")
    assert not g.pm("乙", "加杀 子").refusals
    g.powers()
    assert not g.alive("癸") and not g.alive("子")


def test_confirmed_zombie_killer_suspends_the_kill() -> None:
    """五 杀手方：暂停杀手方权利一轮."""
    g = Game()
    g.powers({SNIPER: "狙 乙"})
    g.post("乙", "遗言", thread="main")
    g.post("乙", "又说话", thread="main", hours=2)
    g.gm("confirm-zombie", player="乙", after=3)
    g.day()
    out = g.pm(KILLER, "杀 壬")
    assert out.refusals and "暂停" in out.refusals[0].reason
    g.powers()
    assert g.alive("壬")
    g.day()
    assert not g.pm(KILLER, "杀 壬").refusals


def test_confirmed_zombie_independent_cancels_their_powers() -> None:
    """五 独立方：取消独立方所有权利一轮 — no mute, no hug, no revive that round."""
    g = Game()
    g.powers({SNIPER: "狙 庚"})
    g.post("庚", "遗言", thread="main")
    g.post("庚", "我又来了", thread="main", hours=2)
    g.gm("confirm_zombie", player="庚", after=3)
    g.day()
    out = g.pm(ELDER, "禁言 壬")
    assert out.refusals and "取消" in out.refusals[0].reason
    g.powers({KILLER: "杀 辛"})
    assert not g.alive(ELDER)


def test_confirm_zombie_needs_a_dead_player() -> None:
    g = Game()
    out = g.gm("confirm_zombie", player="壬")
    assert out.refusals and g.state.data["penalties"]["extra_kill"] == []


# ---- 补充 二: lurking and leave ----------------------------------------------------------------


def test_lurking_warned_then_out_at_two() -> None:
    """补充 二 2 潜水一天给予警告，累计2次警告，按出局处理 (E27: as a death, identity shown)."""
    g = Game()
    g.powers()
    for n in g.living():
        if n != "巳":
            g.post(n, "发言", thread="main")
    out = g.advance("vote_end")
    assert any("第1次警告" in b for b in pms_to(out, "巳"))
    assert g.alive("巳") and g.view("巳")["lurk_warnings"] == 1
    g.powers()
    for n in g.living():
        if n != "巳":
            g.post(n, "发言", thread="main")
    out = g.advance("vote_end")
    assert not g.alive("巳")
    assert "**巳**潜水累计2次警告，按出局处理，身份：好人。" in main_posts(out)


def test_a_vote_counts_as_a_post_and_leave_excuses() -> None:
    """补充 二 1 最多请假24小时: a player on leave is not warned; longer leave is refused."""
    g = Game()
    g.powers()
    assert g.gm("leave", player="辰", hours=30).refusals
    assert not g.gm("leave", player="辰", hours=20).refusals
    for n in g.living():
        if n not in ("辰", "巳"):
            g.post(n, "发言", thread="main")
    g.post("巳", "投票 乙")
    g.advance("vote_end")
    assert g.view("辰")["lurk_warnings"] == 0 and g.view("巳")["lurk_warnings"] == 0


# ---- PM intake and the GM's overrides ----------------------------------------------------------


def test_every_pm_is_answered() -> None:
    g = Game()
    out = g.pm("壬", "确认")
    assert "已确认" in pms_to(out, "壬")[0]
    out = g.pm("壬", "你好")
    assert out.refusals and "没有看懂" in pms_to(out, "壬")[0]
    out = g.pm("真身壬", "杀 甲")
    assert out.refusals and "马甲" in out.refusals[0].reason
    out = g.pm("壬", "投票 甲")
    assert out.refusals and "投票帖" in out.refusals[0].reason
    out = g.pm("壬", "杀 甲")
    assert out.refusals and "没有特殊权力" in out.refusals[0].reason


def test_gm_void_and_enter_action_and_vote() -> None:
    g = Game()
    g.pm(SNIPER, "狙 乙")
    out = g.gm("void_action", player=SNIPER)
    assert any("取消" in b for b in pms_to(out, SNIPER))
    g.gm("enter_action", player=KILLER, text="杀 壬")
    g.powers()
    assert g.alive("乙") and not g.alive("壬")
    g.post("癸", "投票 乙")
    g.gm("void_vote", player="癸")
    assert "癸" not in g.state.data["ballots"]
    g.gm("enter_vote", player="子", target="丙")
    g.day()
    assert not g.alive("丙")


def test_gm_end_game_and_extend() -> None:
    g = Game()
    before = g.state.phase.ends_at
    g.gm("extend", hours=2)
    assert g.state.phase.ends_at == before + timedelta(hours=2)
    out = g.gm("end_game", winner="independents")
    assert g.state.winner == "independents" and "独立方" in main_posts(out)


# ---- views and the whole game ---------------------------------------------------------------


def test_player_view_and_state_round_trip() -> None:
    """The replay `state`: role, alive, needle marks with rounds, butterfly uses, revive, muted."""
    g = Game()
    g.powers({DOCTOR: "救 壬", BUTTERFLY: "抱 巳", ELDER: "禁言 癸"})
    v = g.view("壬")
    assert v["role"] == "villager" and v["alive"] and v["needle_marks"] == [1]
    assert g.view("癸")["muted"] is True
    assert g.view(BUTTERFLY)["butterfly_uses_left"] == 3
    assert g.view(ELDER)["revive_used"] is False
    assert GameState.model_validate_json(g.state.model_dump_json()) == g.state


def test_rehearsal_ends_with_a_winner(tmp_path) -> None:
    from tianshen.sim.rehearsal import rehearse

    result = rehearse("butterfly_elder", 1, f"sqlite:///{tmp_path / 'g.db'}")
    assert result.winner in ("good", "killers", "independents", "draw")
    assert result.state.phase.kind == "over"
    assert len(result.state.players) == 16
    assert any("投票结果" in line for line in result.transcript)


def test_posts_anywhere_on_the_board_count() -> None:
    """With `watch_board`, posts outside the game's threads (thread "board:<id>") are a will,
    诈尸, or a day's post against lurking."""
    g = Game()
    assert g.ruleset.spec.options["watch_board"] is True
    g.powers({KILLER: "杀 壬"})
    assert not g.post("壬", "遗言", thread="board:77").notes
    assert any("诈尸" in n for n in g.post("壬", "灌水", thread="board:78", hours=2).notes)
    g.post("癸", "闲聊", thread="board:79")
    assert "癸" in g.state.data["lurk"]["posted"]


SCRIPT = """
ruleset = "butterfly_elder"
seed = 3
[players]
"甲" = "杀手"
"乙" = "杀手"
"丙" = "杀手"
"丁" = "警察"
"戊" = "狙击"
"己" = "医生"
"庚" = "花蝴蝶"
"辛" = "森林老人"
"壬" = "水民"

[[phase]]
phase = "night 1"
pm = [
  { from = "甲", text = "杀 辛" },
  { from = "庚", text = "抱 戊" },
  { from = "戊", text = "狙 乙" },
  { from = "己", text = "救 壬" },
  { from = "辛", text = "禁言 丙" },
]

[[phase]]
phase = "day 1"
posts = [
  { from = "丁", text = "投票 乙" },
  { from = "丙", text = "乙" },
]
"""


def test_replay_script_state(tmp_path) -> None:
    """docs/replay.md: the scripted game's `state` shows needle marks with their rounds, the
    butterfly's uses, the elder's revival and the mute."""
    from tianshen.replay import load_script, replay

    path = tmp_path / "s.toml"
    path.write_text(SCRIPT, encoding="utf-8")
    result = replay(load_script(path))
    night = [p for p in result["phases"] if p["phase"] == "night 1"][0]
    players = night["state"]["players"]
    assert players["壬"]["needle_marks"] == [1]
    assert players["庚"]["butterfly_uses_left"] == 3
    assert players["辛"]["revive_used"] is True and players["辛"]["alive"] is True
    assert players["丙"]["muted"] is True
    assert players["乙"]["alive"] is True  # the hugged sniper's shot is void
    [results] = [x for x in night["public"] if x.startswith("**第1轮权力结果**")]
    assert "**辛**出局后自动复活，身份：森林老人" in results
    assert "戊" not in results and "庚" not in results  # 5.1.6: who hugged or was hugged is never told
    day = [p for p in result["phases"] if p["phase"] == "day 1"][0]
    assert "**乙**得票最高，出局，身份：杀手。" in "\n".join(day["public"])
