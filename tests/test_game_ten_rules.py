"""`game_ten` (游戏十), tested from the rule text.

Authority: seed 001 (`/work/shared/seeds/001_bed02a0bcaa98286.txt`) and DECISIONS.md §0 and
§2 (2.1.1–2.1.10, B1–B37).  Each test names its clause; expected outcomes come from the text.
"""

from __future__ import annotations

from classic_helpers import Game, decl, main_posts, pms_to
from tianshen.core.model import DeadlineIn, GameState, Player
from tianshen.rules.common.actions import prayer_threshold
from tianshen.rules.common.roles import CIVILIANS, KILLERS
from tianshen.rules.game_ten import conversion

NOBODY = "无人死亡"
ROLES = {
    "甲": "killer", "乙": "killer", "丙": "binder", "丁": "curser", "戊": "blesser", "己": "butterfly",
    "庚": "summoner", "子": "commoner", "丑": "commoner", "寅": "commoner", "卯": "commoner",
    "辰": "commoner", "巳": "commoner", "午": "commoner",
}
COMMONERS = ["子", "丑", "寅", "卯", "辰", "巳", "午"]
# 001 §2.10: killer-potential queue 子 丑 寅 午, profession queue 卯 辰 巳 午 (午 has both, last in both)
QUEUES = {"killer_queue": ["子", "丑", "寅", "午"], "profession_queue": ["卯", "辰", "巳", "午"]}


def ten(roles: dict[str, str] | None = None) -> Game:
    """A 14-player game at night 1, everyone checked in (001 §3.2)."""
    g = Game(14, roles or ROLES, variant="game_ten", setup=QUEUES)
    for p in g.state.players:
        g.post(p.name, "签到", thread="main", hours=0.5)
    due = g.ruleset.next_deadline(g.state)
    assert due is not None and due.kind == "checkin_end"
    g._apply(DeadlineIn(id="checkin", at=due.at, kind=due.kind))  # nobody missing: nothing happens
    return g


def vote_out(g: Game, target: str, voters: list[str] | None = None) -> object:
    """Everyone who can vote votes `target` (the target votes someone else)."""
    d = g.state.data["day"]
    names = voters if voters is not None else [p.name for p in g.state.players
                                               if p.alive and p.name not in d["cannot_vote"]]
    other = next(n for n in g.living() if n != target)
    return g.day({v: (target if v != target else other) for v in names})


def quiet_day(g: Game, target: str) -> object:
    """Execute `target` at the end of the day."""
    return vote_out(g, target)


# ---- 001 §2.9 prayers -------------------------------------------------------------------------


def _state(commoners: int, killers: int) -> GameState:
    players = [Player(name=f"c{i}", forum_name="x", seat=i, role="commoner", faction=CIVILIANS)
               for i in range(commoners)]
    players += [Player(name=f"k{i}", forum_name="x", seat=50 + i, role="killer", faction=KILLERS)
                for i in range(killers)]
    return GameState(ruleset="game_ten", variant="game_ten", seed=1, players=players, data={"options": {}})


def test_prayer_threshold_examples_of_the_text() -> None:
    """001 §2.9 examples (DECISIONS §2.1.4): 7/2→4, 6/2→3, 6/1→6 (the quote's "6/1=1" is a
    typo), 2/2 → prayers never work; one commoner's prayer never works."""
    assert prayer_threshold(_state(7, 2)) == 4
    assert prayer_threshold(_state(6, 2)) == 3
    assert prayer_threshold(_state(6, 1)) == 6
    assert prayer_threshold(_state(2, 2)) is None
    assert prayer_threshold(_state(1, 1)) is None


def test_four_prayers_save_from_the_kill_three_do_not() -> None:
    """001 §2.9: 7 commoners / 2 killers ⇒ 4 prayers protect, silently ("昨夜无人死亡")."""
    g = ten()
    g.kill("甲", "丙")
    for c in COMMONERS[:4]:
        g.pm(c, "祈祷 丙")
    out = g.dawn()
    assert g.alive("丙") and NOBODY in main_posts(out) and "【宣言】" not in main_posts(out)
    g2 = ten()
    g2.kill("甲", "丙")
    for c in COMMONERS[:3]:
        g2.pm(c, "祈祷 丙")
    g2.dawn()
    assert not g2.alive("丙")


# ---- 001 §2.2 one-hit kill ------------------------------------------------------------------


def _skip_night_one(g: Game) -> None:
    """001 §2.2 "杀手主动放弃一夜杀人权力": night 1 without a kill; day 1 executes 午."""
    g.dawn()
    quiet_day(g, "午")


def test_one_hit_kill_is_not_stopped_by_the_binder() -> None:
    """001 §2.2: after a skipped night the kill can't be stopped by 束魂."""
    g = ten()
    _skip_night_one(g)
    g.kill("甲", "丁")
    g.pm("丙", "束魂 丁")
    out = g.dawn()
    assert not g.alive("丁") and "【宣言】" in main_posts(out)


def test_one_hit_kill_is_stopped_by_an_effective_prayer() -> None:
    """001 §2.2 "庶民的有效祈祷可以保护被祈祷者逃过一击必杀".  After 午's execution: 6/2 → 3."""
    g = ten()
    _skip_night_one(g)
    g.kill("甲", "丁")
    for c in ["子", "丑", "寅"]:
        g.pm(c, "祈祷 丁")
    g.dawn()
    assert g.alive("丁")


def test_one_hit_kill_through_the_butterfly_and_her_partner() -> None:
    """001 §2.2 "束魂和蝴蝶夫人都无法阻止": the lone-killer partner rule and the kill on the
    partner don't apply on a one-hit night (B30, B32)."""
    g = ten()
    _skip_night_one(g)
    g.kill("甲", "丁")
    g.pm("己", "共舞 丁")
    g.dawn()
    assert not g.alive("丁")


def test_no_privilege_kills_a_killer_on_a_one_hit_night() -> None:
    """001 §2.2: on a one-hit night no privilege can kill a killer (bind failure here), and
    the binder's streak restarts the next night."""
    g = ten()
    g.pm("丙", "束魂 甲")  # night 1: killers skip
    g.dawn()
    quiet_day(g, "午")
    g.pm("丙", "束魂 甲")
    g.kill("乙", "子")
    out = g.dawn()
    assert g.alive("甲") and not g.alive("子")
    assert g.state.data["bind_streak"]["nights"] == 0
    assert "甲" not in main_posts(out)


def test_failed_kill_is_not_a_skip() -> None:
    """001 §2.2 "杀手杀人失败不算主动放弃杀人权力": a bound victim ⇒ the next night is normal."""
    g = ten()
    g.kill("甲", "子")
    g.pm("丙", "束魂 子")
    out = g.dawn()
    assert g.alive("子") and "子" in main_posts(out)
    quiet_day(g, "午")
    g.kill("甲", "丑")
    g.pm("丙", "束魂 丑")
    g.dawn()
    assert g.alive("丑")  # not a one-hit night: the bind still saves


def test_missing_declaration_forfeits_and_enables_one_hit() -> None:
    """001 §2.3: no valid declaration ⇒ 视为主动放弃; "无人死亡" with no reason (B1)."""
    g = ten()
    g.pm("甲", "杀 子\n太短的宣言")
    out = g.dawn()
    assert g.alive("子") and NOBODY in main_posts(out)
    assert g.state.data["last_night_skipped"] is True


# ---- 001 §2.4 束魂 -----------------------------------------------------------------------------


def test_bind_save_is_announced_and_the_saved_cannot_vote() -> None:
    """001 §2.4: the saved player is named and can't vote today."""
    g = ten()
    g.kill("甲", "子")
    g.pm("丙", "束魂 子")
    out = g.dawn()
    assert g.alive("子") and "子" in main_posts(out) and NOBODY in main_posts(out)
    assert "子" in g.state.data["day"]["cannot_vote"]


def test_bind_miss_is_silent() -> None:
    """001 §2.4: a bind on someone the killers did not target is not announced."""
    g = ten()
    g.kill("甲", "丑")
    g.pm("丙", "束魂 子")
    out = g.dawn()
    assert "子" not in main_posts(out) and not g.alive("丑")


def test_bind_failure_kills_without_saying_why() -> None:
    """001 §2.4: the same player bound two nights running, never the killers' target, dies;
    announced as "also died" without cause (B21)."""
    g = ten()
    g.pm("丙", "束魂 子")
    g.kill("甲", "丑")
    g.dawn()
    quiet_day(g, "午")
    g.pm("丙", "束魂 子")
    g.kill("甲", "寅")
    out = g.dawn()
    assert not g.alive("子") and g.state.player("子").death_cause == "bound"
    body = main_posts(out)
    assert "子" in body and "束魂" not in body.split("子")[1].split("\n")[0]


def test_prayer_stops_a_bind_failure() -> None:
    """B6: 001 §2.9 "不会因为任何特权死亡" covers the bind failure; the streak resets."""
    g = ten()
    g.pm("丙", "束魂 子")
    g.kill("甲", "丑")
    g.dawn()
    quiet_day(g, "午")
    g.pm("丙", "束魂 子")
    g.kill("甲", "寅")
    for c in ["子", "卯", "辰"]:  # 5 commoners left (丑 dead, 午 executed) / 2 killers → 3
        g.pm(c, "祈祷 子")
    g.dawn()
    assert g.alive("子") and g.state.data["bind_streak"]["nights"] == 0


def test_targeted_on_one_of_the_two_nights_means_no_failure() -> None:
    """001 §2.4 [注意] and B4 (intent): targeted on either night ⇒ no failure, even when the
    kill was stopped by prayer."""
    g = ten()
    g.pm("丙", "束魂 子")
    g.kill("甲", "子")
    g.dawn()  # bind success
    quiet_day(g, "午")
    g.pm("丙", "束魂 子")
    g.kill("甲", "丑")
    g.dawn()
    assert g.alive("子")


# ---- 001 §2.8 the butterfly ------------------------------------------------------------------


def test_partner_actions_are_void_but_joint_kill_is_not() -> None:
    """001 §2.8: the partner's individual 束魂 fails; the two killers' joint kill does not."""
    g = ten()
    g.pm("己", "共舞 甲")
    g.kill("甲", "子")
    g.pm("丙", "束魂 子")  # binder not the partner: still saves
    out = g.dawn()
    assert g.alive("子") and "子" in main_posts(out)
    g2 = ten()
    g2.pm("己", "共舞 丙")
    g2.kill("甲", "子")
    g2.pm("丙", "束魂 子")  # the binder dances: his bind fails
    g2.dawn()
    assert not g2.alive("子")


def test_actions_on_the_partner_are_void() -> None:
    """001 §2.8 "对蝴蝶夫人的舞伴行使的任何特权都无效": the kill on the partner fails."""
    g = ten()
    g.pm("己", "共舞 子")
    g.kill("甲", "子")
    out = g.dawn()
    assert g.alive("子") and NOBODY in main_posts(out)


def test_kill_on_the_butterfly_takes_her_partner_too() -> None:
    """001 §2.8 mirror: killing the butterfly kills her partner (implicated); the declaration
    is published under the butterfly, the partner "also died" (B22)."""
    g = ten()
    g.pm("己", "共舞 子")
    g.kill("甲", "己")
    out = g.dawn()
    assert not g.alive("己") and not g.alive("子")
    assert g.state.player("子").death_cause == "implicated"
    assert "昨夜也死亡了" in main_posts(out)


def test_curse_on_the_butterfly_reaches_the_partner() -> None:
    """B27: a curse on the butterfly also curses her partner."""
    g = ten()
    g.pm("己", "共舞 子")
    g.pm("丁", "诅咒 己")
    g.dawn()
    assert g.state.data["day"]["net"] == {"己": 1, "子": 1}


def test_butterfly_never_on_herself() -> None:
    """001 §2.8 "蝴蝶夫人的特权不能对自己行使"."""
    g = ten()
    out = g.pm("己", "共舞 己")
    assert out.refusals


def test_lone_killer_dancing_kill_fails() -> None:
    """001 §2.8 / B10: with one living killer his kill is individual, so dancing voids it (a
    failed kill, not a skip: 001 §2.2)."""
    g = ten()
    g.state.player("乙").alive = False  # (set up directly: the conversion already spent)
    g.state.data["converted"] = True
    g.pm("己", "共舞 甲")
    g.kill("甲", "子")
    out = g.dawn()
    assert g.alive("子") and NOBODY in main_posts(out)
    assert g.state.data["last_night_skipped"] is False


# ---- 001 §2.7 招魂 -----------------------------------------------------------------------------


def test_summon_revives_for_one_day_and_failed_summon_is_not_counted() -> None:
    """001 §2.7: the summoned votes (and can't be voted for); a summon never used is not
    counted; a used one is."""
    g = ten()
    g.kill("甲", "子")
    g.dawn()
    quiet_day(g, "午")
    g.pm("庚", "招魂 子")
    g.kill("甲", "丑")
    out = g.dawn()
    assert "子" in main_posts(out) and g.state.data["day"]["revived"] == ["子"]
    vote_out(g, "寅")  # 子 does not vote or post: failed summon
    assert g.state.data["summon_uses"] == 2
    g.pm("庚", "招魂 子")
    g.kill("甲", "卯")
    g.dawn()
    g.advance("vote_open")
    bad = g.post("辰", "投票 子")
    assert bad.refusals  # B15: the summoned can't be voted for
    g.post("子", "投票 辰")
    vote_out(g, "辰", voters=[n for n in g.living() if n not in g.state.data["day"]["ballots"]["main"]])
    assert g.state.data["summon_uses"] == 1
    assert not g.alive("子")


# ---- 001 §2.10 conversion --------------------------------------------------------------------


def test_conversion_when_a_killer_is_among_the_first_six_dead() -> None:
    """001 §2.10: executing a killer (second death) converts the first living commoner of each
    queue; the dead 子 is replaced by 丑 (递补); one vacancy (束魂, killed) is taken; PMs sent."""
    g = ten()
    g.kill("甲", "子")
    g.pm("己", "共舞 午")
    g.dawn()
    vote_out(g, "甲")
    g.kill("乙", "丙")
    out = g.dawn()  # binder dies: vacancy
    assert g.state.data["converted"] is True
    assert g.state.player("丑").role == "killer" and g.state.player("丑").faction == KILLERS
    # the profession conversion happened at dusk of day 1 with no vacancy: 卯 must choose
    assert g.state.player("卯").role in ("binder", "curser", "blesser", "butterfly", "summoner")
    assert out is not None


def test_conversion_to_the_single_vacancy() -> None:
    """001 §2.10 "转职为空缺职业": the killers kill the binder (vacancy), then a killer is
    executed ⇒ 卯 becomes the binder; the new killer is told his mate (§2.1.8)."""
    g = ten()
    g.kill("甲", "丙")
    g.dawn()
    out = vote_out(g, "甲")
    assert g.state.player("子").role == "killer"
    assert g.state.player("卯").role == "binder"
    assert pms_to(out, "子") and pms_to(out, "乙") and pms_to(out, "卯")
    assert "乙" in pms_to(out, "子")[0]
    assert g.state.phase.kind == "night"  # B12: the conversion keeps the game going


def test_no_vacancy_choice_and_guild() -> None:
    """001 §2.10: no vacancy ⇒ he chooses; the same-role holder is put in contact (工会)."""
    g = ten()
    g.dawn()
    vote_out(g, "甲")
    assert g.state.player("卯").role == "unchosen"
    out = g.pm("卯", "转职 诅咒")
    assert not out.refusals and "丁" in pms_to(out, "卯")[0]
    assert g.state.player("卯").role == "curser"


def test_dual_commoner_becomes_the_killer_when_alone() -> None:
    """B12: the dual commoner (last in both queues) as the only candidate becomes the killer,
    and the profession queue, then empty, converts nobody."""
    g = ten()
    for p in g.state.players:
        if p.name in ("子", "丑", "寅", "卯", "辰", "巳"):
            p.alive = False
    done = conversion.convert(g.state)
    assert done == {"killer": "午", "professional": None, "role": None}
    assert g.state.player("午").role == "killer"


# ---- 001 §5 the day --------------------------------------------------------------------------


def test_curse_and_bless_only_on_the_main_vote() -> None:
    """001 §2.5–2.6: +1/−1 in the main vote; they cancel out."""
    g = ten()
    g.pm("丁", "诅咒 子")
    g.pm("戊", "庇佑 子")
    g.dawn()
    assert g.state.data["day"]["net"] == {}


# Night 1 kills the butterfly 己, and with her her partner 午 (001 §2.8): 12 voters, 乙 6, 寅 6
TIE_VOTES = {"丙": "乙", "丁": "乙", "戊": "乙", "庚": "乙", "子": "乙", "寅": "乙",
             "甲": "寅", "乙": "寅", "丑": "寅", "卯": "寅", "辰": "寅", "巳": "寅"}


def _tied_day() -> Game:
    g = ten()
    g.pm("己", "共舞 午")
    g.kill("甲", "己")
    g.dawn()
    assert not g.alive("己") and not g.alive("午")
    return g


def test_tie_chain_to_nobody() -> None:
    """001 §5.2–5.5 (DECISIONS §2.1.6): tie → 生死投票 (still tied) → 遗言计票 (no will) →
    天神招魂 of night 1's dead (they don't vote) → nobody executed, night 2 starts."""
    g = _tied_day()
    g.day(TIE_VOTES)
    assert g.state.phase.step == "ld"
    for v, t in TIE_VOTES.items():
        g.post(v, f"投票 {t}")
    g.advance("ld_end")
    assert g.state.phase.step == "summon"
    assert sorted(g.state.data["day"]["summoned"]) == ["午", "己"]
    out = g.advance("summon_end")
    assert "不处决任何人" in main_posts(out)
    assert g.state.phase.kind == "night" and g.state.phase.number == 2


def test_summoned_dead_break_the_tie() -> None:
    """001 §5.5: a summoned dead's LD vote decides."""
    g = _tied_day()
    g.day(TIE_VOTES)
    for v, t in TIE_VOTES.items():
        g.post(v, f"投票 {t}")
    g.advance("ld_end")
    g.post("己", "投票 寅")
    g.advance("summon_end")
    assert not g.alive("寅") and g.alive("乙")


def test_will_breaks_the_tie_and_prize_list() -> None:
    """001 §5.4 遗言计票 (the butterfly's will accuses 乙) and §7.1: the civilians whose deciding
    (LD) vote was for the executed killer share the prize."""
    g = _tied_day()
    g.pm("己", "指控 乙")
    g.day(TIE_VOTES)
    for v, t in TIE_VOTES.items():
        g.post(v, f"投票 {t}")
    g.advance("ld_end")
    assert not g.alive("乙")
    assert g.state.data["prize"]["乙"] == ["丙", "丁", "戊", "庚", "子", "寅"]


def test_victory_civilians_with_prize_list() -> None:
    """001 §7.1: all killers dead ⇒ civilians win; the victory post lists the prize winners."""
    g = ten()
    g.dawn()
    vote_out(g, "甲")
    g.dawn()
    vote_out(g, "乙")
    g.dawn()
    out = vote_out(g, "子")  # 子 became a killer at the first conversion
    assert g.state.winner == CIVILIANS
    assert "分享奖金" in main_posts(out)


def test_killers_win_when_no_commoner_is_left() -> None:
    """001 §7.2.3 (converted commoners no longer count)."""
    g = ten()
    for p in g.state.players:
        if p.role == "commoner" and p.name != "子":
            p.alive, p.died_in, p.death_cause = False, "day 0", "modkill"
    g.state.data["deaths"] = [{"name": "x", "when": "day 0", "cause": "modkill", "role": "commoner",
                               "killer": False}] * 6
    g.kill("甲", "子")
    g.dawn()
    assert g.state.winner == KILLERS


def test_day_pm_takes_effect_at_the_next_night_end() -> None:
    """001 §2.11: a PM sent during day 1 takes effect at the end of night 2."""
    g = ten()
    g.dawn()
    out = g.pm("甲", f"杀 丑\n{decl('【二】')}", hours=2)
    assert not out.refusals
    quiet_day(g, "午")
    out = g.dawn()
    assert not g.alive("丑") and "【二】" in main_posts(out)


def test_lock_ten_minutes_before_dawn() -> None:
    """001 §2.11: from dawn − 10 min nothing can be changed."""
    g = ten()
    out = g.pm("丙", "束魂 子", hours=23.9)
    assert out.refusals


def test_whole_rehearsal_ends_with_a_winner(tmp_path) -> None:
    """Issue 7 "A whole 14-player rehearsal ends with a winner" (sims for game_ten)."""
    from tianshen.sim.rehearsal import rehearse

    result = rehearse("game_ten", 1, f"sqlite:///{tmp_path / 'g.db'}")
    assert result.winner in (CIVILIANS, KILLERS)
    assert result.state.phase.kind == "over"
    assert len(result.state.players) == 14


# ---- DECISIONS §7: the 001 settings a GM may change ----------------------------------------


def test_bind_vs_prayer_setting() -> None:
    """B5 `bind_vs_prayer`: bind_first (default) announces the bind success and bars the vote;
    prayer_first lets the prayed-for victim survive silently."""
    def night(order: str) -> tuple[Game, str]:
        g = ten()
        g.state.data["options"]["bind_vs_prayer"] = order
        g.kill("甲", "丁")
        g.pm("丙", "束魂 丁")
        for c in COMMONERS[:4]:
            g.pm(c, "祈祷 丁")
        return g, main_posts(g.dawn())

    g, body = night("bind_first")
    assert g.alive("丁") and "丁" in g.state.data["day"]["cannot_vote"] and "束魂" in body
    g, body = night("prayer_first")
    assert g.alive("丁") and g.state.data["day"]["cannot_vote"] == [] and NOBODY in body


def test_ohk_pierces_partner_setting() -> None:
    """B32 `ohk_pierces_partner`: true (default) — the one-hit kill on the butterfly's partner
    goes through; false — the partner rule voids it even on a one-hit night."""
    for pierces, dies in ((True, True), (False, False)):
        g = ten()
        g.state.data["options"]["ohk_pierces_partner"] = pierces
        _skip_night_one(g)
        g.kill("甲", "丁")
        g.pm("己", "共舞 丁")
        g.dawn()
        assert g.alive("丁") is not dies


def test_simultaneous_win_setting() -> None:
    """B36 `simultaneous_win`: when the last killer and the last commoner go at one
    announcement, civilians win by default; killers or a draw when the GM sets so."""
    for setting, winner in (("civilians", CIVILIANS), ("killers", KILLERS), ("draw", "draw")):
        g = ten()
        g.state.data["options"]["simultaneous_win"] = setting
        for p in g.state.players:
            if p.role == "commoner" or (p.role == "killer" and p.name != "甲"):
                p.alive = False
        g.state.player("甲").alive = False
        assert g.ruleset.check_victory(g.state) == winner


# ---- conversion edge cases and the prize (001 §2.10, §7.1) ----------------------------------------


def _death(name: str, role: str, killer: bool, when: str = "night 1", cause: str = "killed") -> dict:
    return {"name": name, "when": when, "cause": cause, "role": role, "killer": killer}


def test_a_killer_as_the_seventh_death_triggers_nothing() -> None:
    """001 §2.10 "游戏的前6位死者中出现1位杀手": the trigger looks at the first six deaths only."""
    g = ten()
    six = [_death(n, "commoner", False, when=f"night {i + 1}") for i, n in enumerate(COMMONERS[:6])]
    g.state.data["deaths"] = six + [_death("甲", "killer", True, when="day 6", cause="executed")]
    assert not conversion.triggered(g.state)
    g.state.data["deaths"] = six[:5] + [_death("甲", "killer", True, when="day 5", cause="executed")]
    assert conversion.triggered(g.state)
    g.state.data["converted"] = True
    assert not conversion.triggered(g.state)  # at most once


def test_several_vacancies_take_the_first_deads_profession() -> None:
    """001 §2.10 "2个以上职业空缺则转为先死者的职业" (DECISIONS §2.1.8)."""
    g = ten()
    for name in ("戊", "丁"):  # the blesser died first, then the curser
        g.state.player(name).alive = False
    g.state.data["deaths"] = [_death("戊", "blesser", False, "night 1"), _death("丁", "curser", False, "night 2")]
    assert conversion.vacant_profession(g.state) == "blesser"
    # the same announcement and cause: a seeded draw between them (B13), repeatable
    g.state.data["deaths"] = [_death("戊", "blesser", False), _death("丁", "curser", False)]
    first = conversion.vacant_profession(g.state.copy())
    assert first in ("blesser", "curser") and conversion.vacant_profession(g.state.copy()) == first


def test_the_binder_who_kills_a_killer_shares_the_prize() -> None:
    """001 §7.1 "束魂和蝴蝶夫人还可以用自己的特权处决杀手": a killer dead of a failed binding
    credits the binder in the civilians' prize list."""
    g = ten()
    g.pm("丙", "束魂 乙")
    g.kill("甲", "丑")
    g.dawn()
    quiet_day(g, "午")
    g.pm("丙", "束魂 乙")
    g.kill("甲", "寅")
    g.dawn()
    assert not g.alive("乙") and g.state.player("乙").death_cause == "bound"
    assert g.state.data["privilege_kills"]["乙"] == ["丙"]
    assert "丙" in str(g.ruleset.victory_extra(g.state, CIVILIANS))
