"""The classic 8/10/13-player rules, tested from the rule text.

Authority: seed 002 (`/work/shared/seeds/002_4048099b330b552e.txt`, "Part II·夜晚时段"),
DECISIONS.md §0 and §3 (and the parts of §2 that §3.1.7 borrows), seed 001 §5 and §7.
Each test names its clause.  Expected outcomes are derived from the text, not from runs.
"""

from __future__ import annotations

from datetime import timedelta

import pytest

from classic_helpers import (
    ROLES_10,
    Game,
    decl,
    main_posts,
    non_ws_len,
    pms_to,
)
from tianshen.core.model import GameState, Player
from tianshen.core.ruleset import Seat
from tianshen.core.votes import tally
from tianshen.rules.classic.night import prayer_threshold
from tianshen.rules.common.roles import CIVILIANS, KILLERS

NOBODY = "无人死亡"


def line_of(body: str, name: str) -> str:
    """The one line of a post that names `name` (a player's name)."""
    lines = [ln for ln in body.split("\n") if name in ln and not ln.startswith(">")]
    assert len(lines) == 1, f"expected one line naming {name}, got {lines!r} in\n{body}"
    return lines[0]


def everyone_votes(g: Game, target: str, but: dict[str, str] | None = None,
                   skip: tuple[str, ...] = ()) -> dict[str, str]:
    """Every living player votes `target` (the target votes `but`'s choice or someone else)."""
    but = dict(but or {})
    votes = {}
    for name in g.living():
        if name in skip:
            continue
        if name in but:
            votes[name] = but[name]
        elif name == target:
            votes[name] = next(n for n in g.living() if n != target)
        else:
            votes[name] = target
    return votes


# ======================================================================================
# 祈祷 thresholds
# ======================================================================================


def _state(commoners: int, killers: int, fixed: int | None = None) -> GameState:
    players = [Player(name=f"k{i}", forum_name=f"k{i}", seat=i, role="killer", faction=KILLERS)
               for i in range(killers)]
    players += [Player(name=f"c{i}", forum_name=f"c{i}", seat=killers + i, role="commoner", faction=CIVILIANS)
                for i in range(commoners)]
    # dead commoners and killers must not count ("还活着的")
    players += [Player(name="dead_c", forum_name="dead_c", seat=90, role="commoner", faction=CIVILIANS,
                       alive=False),
                Player(name="dead_k", forum_name="dead_k", seat=91, role="killer", faction=KILLERS, alive=False)]
    options = {"killer_mode": "joint"} | ({"prayer_fixed": fixed} if fixed else {})
    return GameState(ruleset="classic", variant="classic_10", seed=1, players=players, data={"options": options})


@pytest.mark.parametrize(
    ("commoners", "killers", "expected"),
    [
        (7, 2, 4),  # 001 §2.9 example (DECISIONS §2.1.4): 7/2 → 4
        (6, 2, 3),  # 6/2 = 3
        (6, 1, 6),  # 6/1 = 6 (the "6/1=1" quote is a typo, DECISIONS §2.1.4)
        (2, 2, None),  # 2/2 = 1 ≤ 1 → 祈祷失效
        (3, 2, 2),  # 002 "按整数上限取值": ⌈1.5⌉ = 2
        (1, 1, None),  # x = 1 → void
        (4, 3, 2),  # 13p start: ⌈4/3⌉ = 2
    ],
)
def test_prayer_threshold_formula(commoners: int, killers: int, expected: int | None) -> None:
    """002 祈祷 (10人 & 13人): x = ⌈还活着的庶民人数 / 还活着的杀手人数⌉, x must be > 1;
    DECISIONS §2.1.4 examples 7÷2→4, 6÷2→3, 6÷1→6, 2÷2→void."""
    assert prayer_threshold(_state(commoners, killers)) == expected


def test_prayer_threshold_8p_is_fixed_two() -> None:
    """002 祈祷 8人玩法: x = 2, whatever the formula would give."""
    assert prayer_threshold(_state(1, 2, fixed=2)) == 2
    assert prayer_threshold(_state(6, 1, fixed=2)) == 2
    g = Game(8)
    assert prayer_threshold(g.state) == 2


def test_effective_prayer_silently_saves_killers_target_10p() -> None:
    """002 祈祷: with x prayers of commoners the killers' target does not die, and the GM
    "只公布当夜没有死人，不公布祈祷成功，也不公布谁被祈祷"; the declaration of a failed kill is
    not published (002 杀人宣言 "因为束魂或祈祷导致杀人失败…不公布"). 10p: 4 commoners, 2 killers → x = 2."""
    g = Game(10)
    g.kill("甲", "丙", tag="【甲的宣言】")
    g.pm("庚", "祈祷 丙")
    g.pm("辛", "祈祷 丙")
    out = g.dawn()
    body = main_posts(out)
    assert g.alive("丙")
    assert NOBODY in body
    assert "【甲的宣言】" not in body
    assert "丙" not in body and "祈祷" not in body and "束魂" not in body
    assert g.living() == list(ROLES_10)


def test_one_prayer_short_of_threshold_does_not_save_10p() -> None:
    """002 祈祷: fewer than x (= 2 in 10p at the start) prayers do nothing."""
    g = Game(10)
    g.kill("甲", "丙", tag="【甲的宣言】")
    g.pm("庚", "祈祷 丙")
    g.pm("辛", "祈祷 丁")
    out = g.dawn()
    assert not g.alive("丙")
    assert "【甲的宣言】" in main_posts(out)


@pytest.mark.parametrize(("prayers", "survives"), [(2, True), (1, False)])
def test_8p_prayer_x_is_two(prayers: int, survives: bool) -> None:
    """002 祈祷 8人玩法: x = 2 (both commoners of the 8p table, DECISIONS §3.1.1)."""
    g = Game(8)
    duty, _ = _duty(g)
    g.kill(duty, "丙", tag="【宣言】")
    for c in ("庚", "辛")[:prayers]:
        g.pm(c, "祈祷 丙")
    out = g.dawn()
    assert g.alive("丙") is survives
    assert ("【宣言】" in main_posts(out)) is not survives


def test_8p_single_living_commoner_can_never_save() -> None:
    """DECISIONS C11: "得到了x个庶民的祈祷" = at least 2; with 1 living commoner in 8p prayers
    can never work."""
    g = Game(8)
    d1, d2 = _duty(g)
    g.kill(d1, "庚")
    g.dawn()
    assert not g.alive("庚")
    g.day(everyone_votes(g, "戊"))
    assert not g.alive("戊") and g.state.phase.kind == "night"
    g.kill(d2, "丙", tag="【第二夜】")
    g.pm("辛", "祈祷 丙")
    out = g.dawn()
    assert not g.alive("丙")
    assert "【第二夜】" in main_posts(out)


# ======================================================================================
# 束魂
# ======================================================================================


def test_bind_save_announced_and_saved_player_cannot_vote() -> None:
    """002 束魂: the bound player is the killers' target → he does not die; the GM announces
    无人死亡 and who was bound; "当天…不能参加投票和生死投票" — his vote post is refused by PM
    and not counted; the day still has its vote ("第二天仍需投票处决一人")."""
    g = Game(10)
    g.kill("甲", "庚", tag="【宣言】")
    g.pm("丁", "束魂 庚")
    out = g.dawn()
    body = main_posts(out)
    assert g.alive("庚")
    assert NOBODY in body
    assert "束魂" in line_of(body, "庚")
    assert "【宣言】" not in body  # kill failed → declaration not published
    g.advance("vote_open")
    # 9 voters can vote: 甲 5, 乙 4.  If 庚's vote (乙) counted it would be a 5-5 tie.
    before = g.json()
    refused = g.post("庚", "投票 乙")
    assert refused.refusals and refused.refusals[0].sender == "庚"
    assert pms_to(refused, "庚") and "投票" in pms_to(refused, "庚")[0]
    assert g.json() == before
    votes = {"乙": "甲", "丙": "甲", "丁": "甲", "戊": "甲", "己": "甲",
             "甲": "乙", "辛": "乙", "壬": "乙", "癸": "乙"}
    g.vote_all(votes)
    out = g.advance("vote_end")
    assert not g.alive("甲") and g.state.player("甲").death_cause == "executed"
    assert g.alive("庚")  # not removed for not voting: he was not allowed to
    assert g.state.phase.kind == "night" and g.state.phase.number == 2


def test_bind_save_player_cannot_delegate_either() -> None:
    """002 束魂: the saved player "不能参加投票" — a delegation (001 §5.3) is refused too."""
    g = Game(10)
    g.kill("甲", "庚")
    g.pm("丁", "束魂 庚")
    g.dawn()
    before = g.json()
    out = g.pm("庚", "委托投票 甲")
    assert out.refusals and g.json() == before


def test_bind_miss_not_announced_and_bound_player_votes() -> None:
    """002 束魂: "束魂落空，天神第二天不公布谁当夜被束魂，被束魂的人也可以讨论和投票"."""
    g = Game(10)
    g.kill("甲", "庚", tag="【宣言】")
    g.pm("丁", "束魂 辛")
    out = g.dawn()
    body = main_posts(out)
    assert not g.alive("庚") and "【宣言】" in body
    assert "辛" not in body and "束魂" not in body
    g.advance("vote_open")
    ok = g.post("辛", "投票 甲")
    assert not ok.refusals


def _night1_quiet_day1_execute(g: Game, executed: str) -> None:
    g.dawn()
    g.day(everyone_votes(g, executed))
    assert not g.alive(executed)
    assert g.state.phase.kind == "night" and g.state.phase.number == 2


def test_bind_failure_two_nights_kills_and_is_attributed() -> None:
    """002 束魂: the same player bound two nights running, killed by the killers on neither,
    dies of the failed binding; the dawn post shows the killers' victim with the declaration
    and says who died by the binder ("说明谁被杀手杀死，谁被束魂者杀死")."""
    g = Game(10)
    g.pm("丁", "束魂 辛")
    _night1_quiet_day1_execute(g, "壬")
    assert g.alive("辛")  # one night is not enough
    g.kill("甲", "庚", tag="【第二夜宣言】")
    g.pm("丁", "束魂 辛")
    out = g.dawn()
    body = main_posts(out)
    assert not g.alive("辛") and not g.alive("庚")
    assert g.state.player("辛").death_cause != g.state.player("庚").death_cause
    assert "【第二夜宣言】" in body
    bind_line = line_of(body, "辛")
    assert "束魂" in bind_line and "失败" in bind_line
    assert "束魂" not in line_of(body, "庚")
    assert NOBODY not in body


def test_prayer_does_not_stop_bind_failure_in_002() -> None:
    """DECISIONS C10: 002's prayer protects only "即使杀手杀他" — a bind-failure death still
    happens.  Night 2: 3 commoners, 2 killers → x = 2, and 2 commoners pray for 辛."""
    g = Game(10)
    g.pm("丁", "束魂 辛")
    _night1_quiet_day1_execute(g, "壬")
    assert prayer_threshold(g.state) == 2
    g.pm("丁", "束魂 辛")
    g.pm("庚", "祈祷 辛")
    g.pm("癸", "祈祷 辛")
    out = g.dawn()
    assert not g.alive("辛")
    assert "束魂" in line_of(main_posts(out), "辛")


def test_bind_streak_needs_two_unattacked_nights() -> None:
    """002 束魂: "这两夜都没有被杀手所杀" — if the killers went for him on one of the two nights
    (a bind success), binding him again the next night does not kill him."""
    g = Game(10)
    g.kill("甲", "辛")
    g.pm("丁", "束魂 辛")
    g.dawn()
    assert g.alive("辛")
    g.day(everyone_votes(g, "壬", skip=("辛",)))
    g.pm("丁", "束魂 辛")
    out = g.dawn()
    assert g.alive("辛")
    assert NOBODY in main_posts(out)


def test_bind_different_players_on_consecutive_nights_is_harmless() -> None:
    """002 束魂: only binding *the same* player two nights running can fail."""
    g = Game(10)
    g.pm("丁", "束魂 辛")
    _night1_quiet_day1_execute(g, "壬")
    g.pm("丁", "束魂 癸")
    g.dawn()
    assert g.alive("辛") and g.alive("癸")


# ======================================================================================
# 占卜
# ======================================================================================


def _diviner_game(first_question: str) -> tuple[Game, list]:
    g = Game(10)
    g.pm("丙", f"占卜 {first_question}")
    dawn1 = g.dawn()
    g.day(everyone_votes(g, "壬"))
    return g, dawn1


def test_divination_answered_at_the_next_dawn_only() -> None:
    """002 占卜: "占卜在第一夜卜问…天神第一天不会给他任何回答，而是在公布第二夜死者的时候才告诉"
    — answer PM'd at dawn 2 with "是" (甲 is a killer)."""
    g, dawn1 = _diviner_game("甲")
    assert pms_to(dawn1, "丙") == []
    dawn2 = g.dawn()
    answers = pms_to(dawn2, "丙")
    assert len(answers) == 1
    assert "甲" in answers[0] and "是" in answers[0] and "不是" not in answers[0]


def test_divination_answer_no_for_a_civilian() -> None:
    """002 占卜: the answer is "是" or "不是"; 庚 is a commoner → 不是, and the role is not
    revealed ("不透露这个人的特殊能力")."""
    g, _ = _diviner_game("庚")
    answers = pms_to(g.dawn(), "丙")
    assert len(answers) == 1 and "不是" in answers[0] and "庶民" not in answers[0]


def test_divination_question_can_change_before_dawn() -> None:
    """002 占卜: "占卜在第一夜天亮以前可以更改自己第一夜要占卜的对象" — the last question counts."""
    g = Game(10)
    g.pm("丙", "占卜 庚", hours=1)
    g.pm("丙", "占卜 甲", hours=2)
    g.dawn()
    g.day(everyone_votes(g, "壬"))
    answers = pms_to(g.dawn(), "丙")
    assert len(answers) == 1 and "甲" in answers[0] and "庚" not in answers[0]


def test_divination_question_cannot_change_after_dawn() -> None:
    """002 占卜: "进入第一天后不能再更改第一夜要占卜的对象"."""
    g = Game(10)
    g.pm("丙", "占卜 甲")
    g.dawn()
    before = g.json()
    out = g.pm("丙", "占卜 庚")
    assert out.refusals and g.json() == before


def test_dead_diviner_gets_no_answer() -> None:
    """DECISIONS C8: the answer goes only to a diviner alive after that dawn's deaths."""
    g, _ = _diviner_game("甲")
    g.kill("甲", "丙")
    out = g.dawn()
    assert not g.alive("丙")
    assert pms_to(out, "丙") == []


# ======================================================================================
# 诅咒 / 庇佑
# ======================================================================================

# 9 voters after a night-1 kill of 庚: 甲 3 (丙丁戊), 辛 3 (甲乙壬), 丙 3 (己辛癸).
THREE_WAY = {"丙": "甲", "丁": "甲", "戊": "甲", "甲": "辛", "乙": "辛", "壬": "辛",
             "己": "丙", "辛": "丙", "癸": "丙"}


def _curse_bless_day(curse: str | None, bless: str | None, votes: dict[str, str]):
    g = Game(10)
    g.kill("甲", "庚")
    if curse:
        g.pm("戊", f"诅咒 {curse}")
    if bless:
        g.pm("己", f"庇佑 {bless}")
    g.dawn()
    return g, g.day(votes)


def test_curse_adds_one_vote_and_is_announced() -> None:
    """002 诅咒: "被诅咒的人，第二天投票时会被多计一票", announced at the count."""
    g, out = _curse_bless_day("辛", None, THREE_WAY)
    assert not g.alive("辛") and g.state.player("辛").death_cause == "executed"
    assert g.alive("甲") and g.alive("丙")
    assert "诅咒" in line_of(main_posts(out), "| 辛 |")


def test_bless_removes_one_vote_and_is_announced() -> None:
    """002 庇佑: "被庇佑的人，第二天投票时会被少计一票", announced at the count when it applied.
    甲 3, 辛 3, 丙 3; bless 甲 (→ 2) and curse 丙 (→ 4) → 丙 is the unique top."""
    g = Game(10)
    g.kill("甲", "庚")
    g.pm("己", "庇佑 甲")
    g.pm("戊", "诅咒 丙")
    g.dawn()
    out = g.day(THREE_WAY)
    assert not g.alive("丙")
    body = main_posts(out)
    assert "庇佑" in line_of(body, "| 甲 |")


def test_curse_and_bless_cancel_silently() -> None:
    """002 诅咒/庇佑: "如果诅咒和庇佑…相抵消，则根本不公布" — and the tie stays a tie (生死投票)."""
    g, out = _curse_bless_day("辛", "辛", THREE_WAY)
    body = main_posts(out)
    assert "诅咒" not in body and "庇佑" not in body
    assert g.state.phase.step == "ld"
    assert sorted(g.state.data["day"]["candidates"]) == sorted(["甲", "辛", "丙"])


def test_bless_on_zero_votes_not_announced() -> None:
    """002 庇佑: "如果被庇佑的人的得票本来就是0，也不再公布他被庇佑" — 癸 (0 votes) blessed:
    no mention of him or of a bless in the tally."""
    votes = dict(THREE_WAY)
    votes["辛"] = "甲"  # 甲 4, 辛 3, 丙 2 → 甲 executed
    g, out = _curse_bless_day(None, "癸", votes)
    body = main_posts(out)
    assert not g.alive("甲")
    assert "庇佑" not in body
    assert not [ln for ln in body.replace("*", "").split("\n") if ln.startswith("癸")]  # no tally line


def test_counts_clamped_at_zero() -> None:
    """DECISIONS B28: count = votes + net, clamped at ≥ 0."""
    t = tally(["乙", "丙", "丙"], {"乙": -1, "癸": -1, "丙": -3})
    assert t.counts["乙"] == 0 and t.counts["丙"] == 0 and t.counts.get("癸", 0) == 0
    assert t.top == []


def test_curse_bless_not_carried_into_life_death_vote() -> None:
    """001 §5.2 (DECISIONS §3.1.7): "诅咒和庇佑的效果不能带入生死投票".
    Main: 甲 3+1 (curse) = 4, 辛 4, 丙 2 → LD 甲/辛.  LD: 甲 4, 辛 5 → 辛 executed; with the curse
    carried over it would be a 5-5 tie."""
    g = Game(10)
    g.kill("甲", "庚")
    g.pm("戊", "诅咒 甲")
    g.dawn()
    g.day({"丙": "甲", "丁": "甲", "戊": "甲", "甲": "辛", "乙": "辛", "壬": "辛", "癸": "辛",
           "己": "丙", "辛": "丙"})
    assert g.state.phase.step == "ld"
    assert set(g.state.data["day"]["candidates"]) == {"甲", "辛"}
    for v, t in {"丙": "甲", "丁": "甲", "戊": "甲", "辛": "甲",
                 "甲": "辛", "乙": "辛", "己": "辛", "壬": "辛", "癸": "辛"}.items():
        g.post(v, f"投票 {t}")
    g.advance("ld_end")
    assert not g.alive("辛") and g.alive("甲")


# ======================================================================================
# 8 players: alternate nights
# ======================================================================================


def _duty(g: Game) -> tuple[str, str]:
    """(the killer of the odd nights, the killer of the even nights), as each killer was told
    in his role PM (002 8人玩法 "杀手甲在第一夜杀人、杀手乙在第二夜杀人")."""
    odd = [n for n in ("甲", "乙") if "单数" in "".join(pms_to(g.setup_out, n))]
    even = [n for n in ("甲", "乙") if "双数" in "".join(pms_to(g.setup_out, n))]
    assert len(odd) == 1 and len(even) == 1 and odd != even
    assert g.ruleset.player_view(g.state, odd[0])["on_duty"]
    return odd[0], even[0]


@pytest.mark.parametrize("seed", [7, 8])  # 7: 甲 starts, 8: 乙 starts (the GM's draw, C4)
def test_8p_off_duty_killer_refused_at_intake(seed: int) -> None:
    """002 8人玩法 "每夜轮流杀人"; DECISIONS C16: a submission from the killer who is off duty is
    refused at intake; the other killer owns the next night."""
    g = Game(8, seed=seed)
    d1, d2 = _duty(g)
    before = g.json()
    out = g.kill(d2, "庚")
    assert out.refusals and out.refusals[0].sender == d2
    assert g.json() == before
    g.kill(d1, "庚")
    g.dawn()
    assert not g.alive("庚")
    g.day(everyone_votes(g, "戊"))
    before = g.json()
    out = g.kill(d1, "丙")
    assert out.refusals and g.json() == before
    g.kill(d2, "丙")
    g.dawn()
    assert not g.alive("丙")


def test_8p_killer_targeting_the_other_killer_kills_nobody() -> None:
    """002 8人玩法 "杀手不能互杀…当夜不死人…公布当夜无人死亡，但不说明原因"; DECISIONS C5: no
    kill for every purpose — a bind on that player is not a bind success (not announced)."""
    g = Game(8)
    d1, d2 = _duty(g)
    out = g.kill(d1, d2, tag="【互杀】")
    assert not out.refusals  # refusing would tell him who the other killer is
    g.pm("丁", f"束魂 {d2}")
    out = g.dawn()
    body = main_posts(out)
    assert g.alive(d2)
    assert NOBODY in body and "【互杀】" not in body and "束魂" not in body
    assert g.state.phase.kind == "day"
    assert g.state.data["day"]["cannot_vote"] == []


def test_8p_self_kill_allowed() -> None:
    """002 8人玩法: "杀手可以自杀"."""
    g = Game(8)
    d1, _ = _duty(g)
    assert not g.kill(d1, d1).refusals
    g.dawn()
    assert not g.alive(d1)


def test_8p_survivor_kills_every_night() -> None:
    """DECISIONS C4: after one killer dies, the survivor kills every night — including the
    nights that were the dead killer's."""
    g = Game(8)
    d1, d2 = _duty(g)
    g.dawn()  # d1 does not kill on night 1
    g.day(everyone_votes(g, d2))
    assert not g.alive(d2)
    # night 2 was d2's; d1 now kills
    out = g.kill(d1, "庚")
    assert not out.refusals
    g.dawn()
    assert not g.alive("庚")
    g.day(everyone_votes(g, "戊"))
    assert not g.kill(d1, "辛").refusals  # night 3 too
    g.dawn()
    assert not g.alive("辛")


# ======================================================================================
# 10 players: joint kill
# ======================================================================================


def test_10p_last_killer_cannot_kill_himself() -> None:
    """002 10人玩法: "杀手仅剩一人时禁止自杀" — refused at intake (DECISIONS §3.1.3)."""
    g = Game(10)
    g.dawn()
    g.day(everyone_votes(g, "乙"))
    assert not g.alive("乙")
    before = g.json()
    out = g.kill("甲", "甲")
    assert out.refusals and out.refusals[0].sender == "甲"
    assert "自杀" in out.refusals[0].reason
    assert g.json() == before


def test_10p_self_kill_allowed_while_two_killers() -> None:
    """002 10人玩法: "杀手方不止一人时，可以自杀"."""
    g = Game(10)
    assert not g.kill("甲", "甲").refusals
    g.dawn()
    assert not g.alive("甲")


def test_10p_joint_kill_disagreement_forfeits() -> None:
    """002 "两名杀手协商杀人…各有不同意见，无法在天神要求的时间内达成一致，视为放弃当夜杀人权力"."""
    g = Game(10)
    g.kill("甲", "庚", tag="【甲】")
    g.kill("乙", "辛", tag="【乙】")
    out = g.dawn()
    assert g.alive("庚") and g.alive("辛")
    assert NOBODY in main_posts(out)


def test_10p_joint_kill_agreement_after_change() -> None:
    """002 "天神没公布当夜死者之前，杀手都可以更换杀人目标": 乙 changes to 甲's target."""
    g = Game(10)
    g.kill("甲", "庚", tag="【甲】", hours=1)
    g.kill("乙", "辛", tag="【乙】", hours=2)
    g.kill("乙", "庚", tag="【乙2】", hours=3)
    g.dawn()
    assert not g.alive("庚") and g.alive("辛")


# ======================================================================================
# 13 players: allied pair + independent
# ======================================================================================


@pytest.mark.parametrize(("bind", "pray", "survives"),
                         [(False, False, False), (True, False, False), (False, True, False), (True, True, True)])
def test_13p_double_kill_needs_bind_and_prayer(bind: bool, pray: bool, survives: bool) -> None:
    """002 13人玩法独有: "如果杀手同盟和独立杀手当夜杀同一个人，则这个人必须当夜同时得到束魂和有效
    祈祷才能免死"; x = ⌈4/3⌉ = 2.  DECISIONS C7: if he dies both declarations are published."""
    g = Game(13)
    g.kill("甲", "癸", tag="【同盟】")
    g.kill("丙", "癸", tag="【独立】")
    if bind:
        g.pm("己", "束魂 癸")
        g.pm("庚", "束魂 癸")
    if pray:
        g.pm("子", "祈祷 癸")
        g.pm("丑", "祈祷 癸")
    out = g.dawn()
    body = main_posts(out)
    assert g.alive("癸") is survives
    if survives:
        assert NOBODY in body and "束魂" in line_of(body, "癸")
        assert "【同盟】" not in body and "【独立】" not in body
    else:
        assert "【同盟】" in body and "【独立】" in body


def test_13p_two_targets_both_die() -> None:
    """002 13人玩法: "每夜杀手方可杀两人"."""
    g = Game(13)
    g.kill("甲", "癸", tag="【同盟】")
    g.kill("丙", "子", tag="【独立】")
    out = g.dawn()
    body = main_posts(out)
    assert not g.alive("癸") and not g.alive("子")
    assert "【同盟】" in body and "【独立】" in body


def test_13p_two_targets_one_bound() -> None:
    """002 束魂 and DECISIONS C14/C17: each kill resolves on its own target; the bound one is
    saved (announced with the actual death), only the successful kill's declaration shows."""
    g = Game(13)
    g.kill("甲", "癸", tag="【同盟】")
    g.kill("丙", "子", tag="【独立】")
    g.pm("己", "束魂 子")
    g.pm("庚", "束魂 子")
    out = g.dawn()
    body = main_posts(out)
    assert not g.alive("癸") and g.alive("子")
    assert "【同盟】" in body and "【独立】" not in body
    assert "束魂" in line_of(body, "子")
    assert NOBODY not in body


def test_13p_killers_may_kill_each_other() -> None:
    """002 13人玩法: "同盟杀手和独立杀手之间可以互杀…可以杀死对方" (identity shown as 杀手,
    DECISIONS B20)."""
    g = Game(13)
    g.kill("甲", "丙", tag="【同盟】")
    g.kill("丙", "甲", tag="【独立】")
    out = g.dawn()
    body = main_posts(out)
    assert not g.alive("甲") and not g.alive("丙")
    assert "杀手" in line_of(body, "甲") and "杀手" in line_of(body, "丙")
    assert g.state.winner is None  # 乙 remains


def test_13p_joint_binders_disagree_forfeit() -> None:
    """002 13人玩法 束魂: "如果两名束魂者对当夜束魂谁各有不同意见…视为放弃当夜束魂权力"."""
    g = Game(13)
    g.kill("甲", "癸")
    g.pm("己", "束魂 癸")
    g.pm("庚", "束魂 子")
    out = g.dawn()
    assert not g.alive("癸")
    assert "束魂" not in main_posts(out)


@pytest.mark.parametrize(("second", "answered"), [("甲", True), ("癸", False)])
def test_13p_joint_diviners(second: str, answered: bool) -> None:
    """002 13人玩法 占卜: two diviners ask jointly; "对当夜占卜谁各有不同意见…视为放弃当夜占卜权力"."""
    g = Game(13)
    g.pm("丁", "占卜 甲")
    g.pm("戊", f"占卜 {second}")
    g.dawn()
    g.day(everyone_votes(g, "寅"))
    out = g.dawn()
    for diviner in ("丁", "戊"):
        answers = pms_to(out, diviner)
        if answered:
            assert len(answers) == 1 and "甲" in answers[0] and "是" in answers[0] and "不是" not in answers[0]
        else:
            assert answers == []


# ======================================================================================
# 杀人宣言
# ======================================================================================


@pytest.mark.parametrize(("chars", "valid"), [(99, False), (100, True)])
def test_declaration_minimum_100_chars(chars: int, valid: bool) -> None:
    """002 杀人宣言: "每杀一人需写一篇不少于100字的杀人宣言"; "未能…提交杀人宣言，视为杀手放弃当夜
    杀人权力" — and the dawn then says only 无人死亡 (DECISIONS §2.1.9)."""
    g = Game(10)
    text = decl("【短】", chars)
    assert non_ws_len(text) == chars
    g.pm("甲", f"杀 庚\n{text}")
    out = g.dawn()
    body = main_posts(out)
    assert g.alive("庚") is not valid
    if valid:
        assert "【短】" in body
    else:
        assert NOBODY in body and "【短】" not in body and "庚" not in body


def test_kill_without_declaration_forfeited() -> None:
    """002 杀人宣言: no declaration by the deadline → the kill is forfeited."""
    g = Game(10)
    g.pm("甲", "杀 庚")
    g.dawn()
    assert g.alive("庚")


def test_story_of_any_length_is_valid() -> None:
    """002 杀人宣言: "杀手自己写当夜杀人剧情的话，则杀人宣言可以不拘字数"; published on success."""
    g = Game(10)
    g.pm("甲", "杀 庚")
    g.pm("乙", "剧情\n月下【短剧情】一刀。", hours=2)
    out = g.dawn()
    assert not g.alive("庚")
    assert "【短剧情】" in main_posts(out)


def test_declaration_in_separate_pm() -> None:
    """grammar/DECISIONS §0.4: a declaration may come in its own PM starting with 宣言; it
    replaces a too-short one sent with the kill."""
    g = Game(10)
    g.pm("甲", f"杀 庚\n{decl('【太短】', 50)}", hours=1)
    g.pm("甲", f"宣言\n{decl('【另寄】', 100)}", hours=2)
    out = g.dawn()
    assert not g.alive("庚")
    body = main_posts(out)
    assert "【另寄】" in body and "【太短】" not in body


def test_kill_target_can_change_until_dawn() -> None:
    """002 "天神没公布当夜死者之前，杀手都可以更换杀人目标"."""
    g = Game(10)
    g.kill("甲", "庚", hours=1)
    g.kill("甲", "辛", hours=23.5)
    g.dawn()
    assert g.alive("庚") and not g.alive("辛")


def test_declaration_published_only_on_success() -> None:
    """002 "只有杀手杀人成功的情况下天神才公布杀人宣言…因为束魂或祈祷导致杀人失败…不公布"."""
    g = Game(10)
    g.kill("甲", "庚", tag="【第一夜】")
    g.pm("丁", "束魂 庚")
    assert "【第一夜】" not in main_posts(g.dawn())
    g.day(everyone_votes(g, "壬", skip=("庚",)))
    g.kill("甲", "辛", tag="【第二夜】")
    out = g.dawn()
    assert "【第二夜】" in main_posts(out)
    assert "【第一夜】" not in main_posts(out)


# ======================================================================================
# The vote chain (001 §5, DECISIONS §2.1.6 via §3.1.7)
# ======================================================================================


def test_unique_top_executed_with_identity() -> None:
    """001 §5.1: the unique top is executed and announced as 杀手 or 平民 (professions as 平民)."""
    g = Game(10)
    g.dawn()
    out = g.day(everyone_votes(g, "丁"))  # the binder
    assert not g.alive("丁")
    body = main_posts(out).replace("*", "")
    line = next(ln for ln in body.split("\n") if "丁被" in ln)
    assert "平民" in line and "束魂" not in line
    g.dawn()
    out = g.day(everyone_votes(g, "乙"))
    body = main_posts(out).replace("*", "")
    assert "杀手" in next(ln for ln in body.split("\n") if "乙被" in ln)


def _tie_day(g: Game) -> None:
    """Night 1: 庚 killed.  Main vote 3/3/3 among 甲, 乙, 丙 (see THREE_WAY_KILLERS)."""
    g.kill("甲", "庚", tag="【庚】")
    g.dawn()
    g.day(THREE_WAY_KILLERS)
    assert g.state.phase.step == "ld"
    assert set(g.state.data["day"]["candidates"]) == {"甲", "乙", "丙"}


THREE_WAY_KILLERS = {"甲": "乙", "乙": "丙", "丙": "甲", "丁": "甲", "戊": "甲", "己": "乙",
                     "辛": "乙", "壬": "丙", "癸": "丙"}


def test_tie_goes_to_life_death_vote_among_tied() -> None:
    """001 §5.2: "最高票得票者不止一人…所有最高票得票者要接受生死投票"; a unique LD top is executed."""
    g = Game(10)
    _tie_day(g)
    # a vote for someone not tied is refused
    before = g.json()
    out = g.post("丁", "投票 辛")
    assert out.refusals and g.json() == before
    votes = dict(THREE_WAY_KILLERS)
    votes["丁"] = "乙"  # 甲 2, 乙 4, 丙 3
    for v, t in votes.items():
        g.post(v, f"投票 {t}")
    out = g.advance("ld_end")
    assert not g.alive("乙") and g.alive("甲") and g.alive("丙")
    assert g.state.phase.kind == "night" and g.state.phase.number == 2


def test_ld_tie_then_will_counting() -> None:
    """001 §5.4: LD still tied → "把当夜全体死者的遗言中指控的对象多计一票" — 庚 (killed on night 1)
    accuses 甲 by PM `指控 甲`."""
    g = Game(10)
    _tie_day(g)
    assert not g.pm("庚", "指控 甲").refusals
    for v, t in THREE_WAY_KILLERS.items():
        g.post(v, f"投票 {t}")
    g.advance("ld_end")
    assert not g.alive("甲") and g.alive("乙") and g.alive("丙")
    assert g.state.phase.kind == "night"


def test_only_last_nights_dead_may_accuse() -> None:
    """001 §5.4: wills of "当夜全体死者" — a living player cannot send an accusation."""
    g = Game(10)
    _tie_day(g)
    before = g.json()
    out = g.pm("辛", "指控 甲")
    assert out.refusals and g.json() == before


def test_wills_tied_then_summoning_by_post() -> None:
    """001 §5.5: wills still tied → "由天神召唤当夜全体死者…在生死投票中投一票"; 庚 votes by post."""
    g = Game(10)
    _tie_day(g)
    for v, t in THREE_WAY_KILLERS.items():
        g.post(v, f"投票 {t}")
    out = g.advance("ld_end")
    assert g.state.phase.step == "summon"
    assert any(m.to == "庚" for m in out.pms)  # the summoned are told
    assert not g.post("庚", "投票 乙").refusals
    g.advance("summon_end")
    assert not g.alive("乙") and g.alive("甲")


def test_summoned_dead_may_vote_by_pm() -> None:
    """001 §5.5 / DECISIONS §2.1.6 step 6: the summoned dead cast one LD vote (PM accepted)."""
    g = Game(10)
    _tie_day(g)
    for v, t in THREE_WAY_KILLERS.items():
        g.post(v, f"投票 {t}")
    g.advance("ld_end")
    assert not g.pm("庚", "投票 丙").refusals
    g.advance("summon_end")
    assert not g.alive("丙")


def test_nothing_decides_nobody_executed() -> None:
    """001 §5.5: "如果生死投票、遗言计票、招魂都不能产生唯一的最高票得票者，则当天不处决任何人，
    游戏直接进入下一夜" — day 1 has only the night-1 dead to summon (DECISIONS B17)."""
    g = Game(10)
    _tie_day(g)
    for v, t in THREE_WAY_KILLERS.items():
        g.post(v, f"投票 {t}")
    g.advance("ld_end")
    out = g.advance("summon_end")  # 庚 did not vote
    assert g.living() == [n for n in ROLES_10 if n != "庚"]
    assert g.state.phase.kind == "night" and g.state.phase.number == 2
    assert "不处决" in main_posts(out)
    assert g.ruleset.next_deadline(g.state).kind == "night_end"


def test_vote_cannot_change() -> None:
    """001 §5.1: "投票一旦投出，就禁止修改" — the second post is refused, the first counts."""
    g = Game(10)
    g.dawn()
    g.advance("vote_open")
    assert not g.post("辛", "投票 甲").refusals
    before = g.json()
    out = g.post("辛", "投票 乙")
    assert out.refusals and "修改" in out.refusals[0].reason and g.json() == before
    # With 辛's first vote (甲):
    # 甲 5, 乙 4 → 甲 executed; had his second vote (乙) counted instead: 甲 4, 乙 5.
    rest = {"丙": "甲", "丁": "甲", "戊": "甲", "己": "甲", "甲": "乙", "乙": "丙", "庚": "乙",
            "壬": "乙", "癸": "乙"}
    g.vote_all(rest)
    g.advance("vote_end")
    assert not g.alive("甲") and g.alive("乙")


def test_late_vote_post_refused() -> None:
    """DECISIONS §0.1: forum time decides; a vote posted after the vote deadline is refused,
    and the player, having no valid vote, is out of the game (001 §5.3)."""
    g = Game(10)
    g.dawn()
    g.advance("vote_open")
    votes = everyone_votes(g, "庚", skip=("癸",))
    g.vote_all(votes)
    end = g.ruleset.next_deadline(g.state).at
    before = g.json()
    out = g.post("癸", "投票 辛", at=end + timedelta(minutes=1))
    assert out.refusals and out.refusals[0].sender == "癸" and pms_to(out, "癸")
    assert g.json() == before
    g.advance("vote_end")
    assert not g.alive("庚")
    assert not g.alive("癸") and g.state.player("癸").death_cause != "executed"


def test_vote_before_thread_opens_refused() -> None:
    """002 时段: the vote thread is posted at the 13th hour of the day; no vote before it."""
    g = Game(10)
    g.dawn()
    before = g.json()
    out = g.post("辛", "投票 甲", thread="vote:1")
    assert out.refusals and g.json() == before


def test_delegation_cast_after_the_others() -> None:
    """001 §5.3 委托投票: sent by PM; "天神会在其他游戏者都投票后代游戏者投出这一票"."""
    g = Game(10)
    g.dawn()
    assert not g.pm("癸", "委托投票 甲").refusals
    votes = everyone_votes(g, "甲", skip=("癸",))
    out = g.day(votes)
    assert not g.alive("甲") and g.alive("癸")
    body = main_posts(out).replace("*", "")
    line = next(ln for ln in body.split("\n") if ln.startswith("| 甲 |"))
    voters = line.split("|")[3].strip()
    assert voters.endswith("癸（委托）")  # listed last, as delegated


def test_delegation_voided_by_own_vote() -> None:
    """001 §5.3: "如果游戏者能够在投票结束前自己投票，则委托给天神的一票自动失效".
    甲 4, 辛 4, plus 壬: delegated 甲 then posted 辛 → 辛 5 executed."""
    g = Game(10)
    g.dawn()
    g.pm("壬", "委托投票 甲")
    votes = {"丙": "甲", "丁": "甲", "戊": "甲", "己": "甲", "甲": "辛", "乙": "辛", "庚": "辛",
             "癸": "辛", "辛": "丙", "壬": "辛"}
    g.day(votes)
    assert not g.alive("辛") and g.alive("甲")


def test_non_voter_removed_with_identity() -> None:
    """001 §5.3/§6.1.5: "没有投票也没有委托投票的，视为自动退出游戏" (DECISIONS B34: identity shown)."""
    g = Game(10)
    g.dawn()
    out = g.day(everyone_votes(g, "庚", skip=("乙",)))
    assert not g.alive("庚") and not g.alive("乙")
    body = main_posts(out).replace("*", "")
    removal = next(ln for ln in body.split("\n") if ln.startswith("乙") and "投票" in ln)
    assert "杀手" in removal


# ======================================================================================
# Victory (001 §7 per DECISIONS §3.1.7)
# ======================================================================================


def _victory_state(dead: list[str]) -> tuple[Game, GameState]:
    g = Game(10)
    s = g.state.copy()
    for n in dead:
        s.player(n).alive = False
    return g, s


@pytest.mark.parametrize(
    ("dead", "winner"),
    [
        ([], None),
        (["甲", "乙"], CIVILIANS),  # 001 §7.1 杀手全灭
        # 2 killers vs 1 civilian (a commoner): 7.2.1 杀手的人数多于平民
        (["丙", "丁", "戊", "己", "庚", "辛", "壬"], KILLERS),
        # 2 vs 2, curser and blesser dead: 7.2.2
        (["丙", "丁", "戊", "己", "庚", "辛"], KILLERS),
        # 2 vs 2, curser alive: no win (commoner 癸 alive)
        (["丙", "丁", "己", "庚", "辛", "壬"], None),
        # no commoner left: 7.2.3
        (["庚", "辛", "壬", "癸"], KILLERS),
        # 1 killer vs 3 civilians with a commoner: nothing
        (["甲", "丙", "丁", "戊", "己", "庚"], None),
        # DECISIONS B36: all killers and all commoners dead → civilians
        (["甲", "乙", "庚", "辛", "壬", "癸"], CIVILIANS),
    ],
)
def test_victory_conditions(dead: list[str], winner: str | None) -> None:
    """001 §7.1, §7.2.1–7.2.3 (without the summoner, DECISIONS §3.1.7 / C3) and B36."""
    g, s = _victory_state(dead)
    assert g.ruleset.check_victory(s) == winner


def test_victory_end_to_end_civilians() -> None:
    """001 §7.1: "杀手全灭（无论是因为自杀、互杀、被平民所杀）" — 甲 kills himself (10p, allowed with
    two killers), 乙 is executed → civilians win, the game is over."""
    g = Game(10)
    g.kill("甲", "甲")
    g.dawn()
    assert not g.alive("甲") and g.state.winner is None
    out = g.day(everyone_votes(g, "乙"))
    assert g.state.winner == CIVILIANS
    assert g.state.phase.kind == "over"
    assert g.ruleset.next_deadline(g.state) is None
    assert "平民" in main_posts(out)


def test_victory_at_execution_no_commoner_left_8p() -> None:
    """001 §7.2.3 "所有庶民都已经被消灭…被投票处决" checked after the execution (DECISIONS §2.1.10)."""
    g = Game(8)
    d1, _ = _duty(g)
    g.kill(d1, "庚")
    g.dawn()
    out = g.day(everyone_votes(g, "辛"))
    assert g.state.winner == KILLERS and g.state.phase.kind == "over"
    assert "杀手" in main_posts(out)


def test_victory_at_dawn_no_commoner_left_8p() -> None:
    """001 §7.2.3 checked after the dawn post (DECISIONS §2.1.10): the last commoner is killed
    on night 2 while 5 civilians would otherwise play on."""
    g = Game(8)
    d1, d2 = _duty(g)
    g.kill(d1, "庚")
    g.dawn()
    g.day(everyone_votes(g, "戊"))
    assert g.state.winner is None
    g.kill(d2, "辛")
    g.dawn()
    assert g.state.winner == KILLERS and g.state.phase.kind == "over"
    assert g.ruleset.next_deadline(g.state) is None


# ======================================================================================
# Refusals that change nothing
# ======================================================================================


def _refused(g: Game, sender: str, text: str, at=None, reason_has: str = "") -> None:
    before = g.json()
    out = g.pm(sender, text, at=at)
    assert out.refusals, f"{text!r} from {sender} was not refused"
    assert g.json() == before, "a refused PM changed the state"
    replies = [m for m in out.pms if m.to == sender]
    assert replies, "the sender got no reply PM"
    if reason_has:
        assert reason_has in out.refusals[0].reason
        assert any(reason_has in m.body for m in replies)


def test_refuse_malformed_pm() -> None:
    """DECISIONS §0.3: every PM is answered; a PM with no command records nothing."""
    g = Game(10)
    _refused(g, "庚", "你好，我想问一下规则")


def test_refuse_unknown_name() -> None:
    """core.names: an unknown name is refused with the list, never guessed."""
    g = Game(10)
    _refused(g, "庚", "祈祷 路人", reason_has="路人")


def test_refuse_ambiguous_names() -> None:
    """core.names: a name that matches several players (a partial name, in any width or case)
    is refused with the candidates; seats that fold to the same name are refused at setup."""
    names = ["Alice", "alice2", "李雷", "李梅", "戊", "己", "庚", "辛", "壬", "癸"]
    roles = dict(zip(names, ROLES_10.values(), strict=True))
    g = Game(10, roles=roles, seats=[Seat(name=n) for n in names])
    _refused(g, "庚", "祈祷 ＡＬＩ", reason_has="alice2")
    _refused(g, "庚", "祈祷 李", reason_has="李梅")
    # a full name still works, in any width or case
    assert not g.pm("庚", "祈祷 李雷").refusals
    assert not g.pm("庚", "祈祷 ALICE").refusals
    with pytest.raises(ValueError, match="told apart"):
        Game(10, roles=roles, seats=[Seat(name=n) for n in ["Ａlice", "alice", *names[2:]]])


def test_refuse_night_power_during_day() -> None:
    """002 平民: "在此期间之外寄给天神的短消息，视为无效" — a power sent in the day is refused."""
    g = Game(10)
    g.dawn()
    _refused(g, "丁", "束魂 庚")
    _refused(g, "甲", f"杀 庚\n{decl('x')}")


def test_refuse_pm_after_night_end_time() -> None:
    """002 平民 / DECISIONS §0.1: forum time decides; a PM sent after the night's end (before the
    bot processed the deadline) is invalid."""
    g = Game(10)
    end = g.ruleset.next_deadline(g.state).at
    _refused(g, "丁", "束魂 庚", at=end + timedelta(minutes=1))


def test_refuse_pm_sent_before_the_night_began() -> None:
    """002 平民: the window is "天神公布当天被投票处决者之时起" — a PM whose forum time is in the day
    but which is processed after dusk is still outside the window."""
    g = Game(10)
    g.dawn()
    g.day(everyone_votes(g, "壬"))
    dusk = g.state.phase.started_at
    _refused(g, "丁", "束魂 庚", at=dusk - timedelta(minutes=5))
    _refused(g, "甲", f"杀 庚\n{decl('x')}", at=dusk - timedelta(minutes=5))


def test_refuse_dead_player_pm() -> None:
    """002 "已经被天神宣布死亡的游戏者不能行使特权"."""
    g = Game(10)
    g.kill("甲", "庚")
    g.dawn()
    g.day(everyone_votes(g, "壬"))
    _refused(g, "庚", "祈祷 辛")


def test_refuse_non_player() -> None:
    """002: only players' PMs count; anyone else is answered and ignored."""
    g = Game(10)
    _refused(g, "路人甲", "祈祷 庚")


def test_refuse_real_forum_account() -> None:
    """001 §8.2 马甲: "游戏者必须使用天神注册的游戏专用马甲…行使特权" — a PM from the player's own
    account is refused and he is told to use the 马甲."""
    seats = [Seat(name=n, forum_name=f"真身{n}") for n in ROLES_10]
    g = Game(10, seats=seats)
    _refused(g, "真身庚", "祈祷 辛", reason_has="庚")


def test_refuse_power_of_another_role() -> None:
    """002: each role has its own power — a commoner cannot kill."""
    g = Game(10)
    _refused(g, "庚", f"杀 辛\n{decl('x')}")


# ======================================================================================
# Determinism
# ======================================================================================


def _script(seed: int) -> Game:
    g = Game(10, roles={}, seed=seed)  # roles dealt by the seeded RNG
    killers = [p.name for p in g.state.players if p.role == "killer"]
    victim = next(p.name for p in g.state.players if p.role == "commoner")
    g.kill(killers[0], victim)
    g.dawn()
    target = next(n for n in g.living() if n not in killers)
    g.day(everyone_votes(g, target))
    return g


def test_same_inputs_same_state() -> None:
    """DECISIONS §0.6: seeded randomness — the same inputs and seed give identical states."""
    a, b = _script(11), _script(11)
    assert a.json() == b.json()
    assert [o.model_dump_json() for o in a.history] == [o.model_dump_json() for o in b.history]


# ======================================================================================
# More clauses
# ======================================================================================


def test_divination_about_a_dead_target_still_answered() -> None:
    """DECISIONS C8: "A dead target is still answered" — 甲 asked on night 1, executed on day 1."""
    g = Game(10)
    g.pm("丙", "占卜 甲")
    g.dawn()
    g.day(everyone_votes(g, "甲"))
    assert not g.alive("甲")
    answers = pms_to(g.dawn(), "丙")
    assert len(answers) == 1 and "是" in answers[0] and "不是" not in answers[0]


def test_8p_kill_on_other_killer_does_not_break_bind_streak() -> None:
    """DECISIONS C5: the on-duty killer's kill on the other killer is "no kill for all purposes",
    so binding that killer on nights 1 and 2 is a bind failure (002 束魂) and he dies."""
    g = Game(8)
    d1, d2 = _duty(g)
    g.kill(d1, d2)
    g.pm("丁", f"束魂 {d2}")
    g.dawn()
    assert g.alive(d2)
    g.day(everyone_votes(g, "戊"))
    g.pm("丁", f"束魂 {d2}")
    out = g.dawn()
    assert not g.alive(d2)
    assert "束魂" in line_of(main_posts(out), d2)


def test_late_delegation_refused() -> None:
    """001 §5.3: "委托投票只要在投票结束前寄出…视为有效" — one sent after the end is not, even if
    the bot reads it before it closes the vote (forum time decides, DECISIONS §0.1)."""
    g = Game(10)
    g.dawn()
    g.advance("vote_open")
    end = g.ruleset.next_deadline(g.state).at
    before = g.json()
    out = g.pm("癸", "委托投票 甲", at=end + timedelta(minutes=1))
    assert out.refusals and g.json() == before


def test_will_accusing_several_adds_one_to_each() -> None:
    """001 §5.4: "遗言指控的对象不止一人时，所有被指控的人都多计一票" — 甲 and 乙 both get +1, so
    the tie stays (甲 4, 乙 4, 丙 3); the summoned 庚 then decides for 乙."""
    g = Game(10)
    _tie_day(g)
    assert not g.pm("庚", "指控 甲、乙").refusals
    for v, t in THREE_WAY_KILLERS.items():
        g.post(v, f"投票 {t}")
    g.advance("ld_end")
    assert g.state.phase.step == "summon"
    assert g.alive("甲") and g.alive("乙")
    g.post("庚", "投票 乙")
    g.advance("summon_end")
    assert not g.alive("乙") and g.alive("甲") and g.alive("丙")


def test_ld_non_voter_removed() -> None:
    """001 §5.3: "投票和生死投票都不能弃权" — no LD vote and no delegation → out of the game."""
    g = Game(10)
    _tie_day(g)
    votes = dict(THREE_WAY_KILLERS)
    votes.pop("癸")
    votes["丁"] = "乙"  # 甲 2, 乙 4, 丙 2
    for v, t in votes.items():
        g.post(v, f"投票 {t}")
    g.advance("ld_end")
    assert not g.alive("乙")
    assert not g.alive("癸") and g.state.player("癸").death_cause != "executed"


def test_bound_saved_player_cannot_vote_in_ld() -> None:
    """002 束魂: the saved player "不能参加投票和生死投票"."""
    g = Game(10)
    g.kill("甲", "庚")
    g.pm("丁", "束魂 庚")
    g.dawn()
    # 9 voters: 甲 3, 乙 3, 丙 3 (庚 cannot vote)
    g.day(THREE_WAY_KILLERS)
    assert g.state.phase.step == "ld"
    before = g.json()
    out = g.post("庚", "投票 甲")
    assert out.refusals and g.json() == before


def test_dead_player_vote_post_refused() -> None:
    """002 "已经被天神宣布死亡的游戏者不能行使特权"; only the living vote (001 §5.1)."""
    g = Game(10)
    g.kill("甲", "庚")
    g.dawn()
    g.advance("vote_open")
    before = g.json()
    out = g.post("庚", "投票 甲")
    assert out.refusals and pms_to(out, "庚") and g.json() == before


def test_tied_non_voter_is_not_a_ld_candidate() -> None:
    """001 §5.3 "没有投票也没有委托投票的，视为自动退出游戏" + §5.2: a tied player removed for not
    voting is out of the game; he is neither a 生死投票 candidate nor executed again.  (DECISIONS
    has no clause for this; the remaining tied player is the unique top.)  甲 4 (does not vote),
    辛 4."""
    g = Game(10)
    g.dawn()
    out = g.day({"丙": "甲", "丁": "甲", "戊": "甲", "己": "甲", "乙": "辛", "壬": "辛", "癸": "辛",
                 "庚": "辛", "辛": "丙"})
    assert not g.alive("甲") and g.state.player("甲").death_cause != "executed"
    assert not g.alive("辛") and g.state.player("辛").death_cause == "executed"
    assert g.state.phase.kind == "night"
    body = main_posts(out).replace("*", "")
    assert len([ln for ln in body.split("\n") if ln.startswith("甲") and "身份" in ln]) == 1


def test_ld_candidate_who_does_not_vote_is_not_executed_twice() -> None:
    """001 §5.3: a LD candidate who does not vote in the 生死投票 is removed; the remaining
    candidates decide (DECISIONS gap, as above)."""
    g = Game(10)
    _tie_day(g)
    # 甲 does not vote in the LD and is removed.  LD: 甲 3, 乙 3, 丙 2 → without 甲, 乙 is the top.
    votes = {"乙": "甲", "丙": "甲", "丁": "甲", "戊": "乙", "己": "乙", "辛": "乙", "壬": "丙", "癸": "丙"}
    for v, t in votes.items():
        g.post(v, f"投票 {t}")
    g.advance("ld_end")
    assert not g.alive("甲") and g.state.player("甲").death_cause != "executed"
    assert not g.alive("乙") and g.state.player("乙").death_cause == "executed"
    assert g.alive("丙")


def test_an_edited_vote_post_counts_as_first_written() -> None:
    """001 §5.1 (DECISIONS C2): 投票一旦投出，就禁止修改 — the forum shows the first version of
    an edited post; that one is counted and the voter is told."""
    from tianshen.core.model import PostIn

    g = Game(10)
    g.dawn()
    g.advance("vote_open")
    out = g._apply(PostIn(id="e1", thread="vote:1", author="丙", at=g.at(1), text="投票 乙",
                          edited=True, original_text="投票 甲"))
    assert g.state.data["day"]["ballots"]["main"]["丙"]["target"] == "甲"
    assert any("按原文计票" in m.body and "甲" in m.body for m in out.pms if m.to == "丙")
