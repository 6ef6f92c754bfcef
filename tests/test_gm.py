"""The human GM's overrides (tianshen admin): each needs a reason, is logged in the state
and the event log, and does exactly what it says."""

from __future__ import annotations

from datetime import timedelta

import pytest

from classic_helpers import ROLES_10, Game, decl, main_posts, pms_to
from tianshen.core.model import GmIn


def gm(g: Game, command: str, reason: str = "测试", hours: float = 2.0, **args: object):
    return g._apply(GmIn(id=g._id("gm"), at=g.at(hours), command=command, args=args, reason=reason))


def test_every_override_needs_a_reason_and_a_known_command() -> None:
    g = Game(10)
    before = g.json()
    assert "reason" in gm(g, "advance", reason=" ").refusals[0].reason
    assert "unknown command" in gm(g, "explode").refusals[0].reason
    assert "没有叫" in gm(g, "modkill", player="黑熊").refusals[0].reason
    assert g.json() == before


def test_advance_ends_the_night_now_and_is_logged() -> None:
    g = Game(10)
    g.kill("甲", "庚")
    out = gm(g, "advance", reason="所有人都已行动", hours=3)
    assert g.state.phase.label == "day 1"
    assert g.state.phase.started_at == g.at(3)
    assert "庚" in main_posts(out) and not g.alive("庚")
    assert g.state.data["gm_log"] == [{"at": g.at(3).isoformat(), "command": "advance", "args": {},
                                       "reason": "所有人都已行动"}]
    assert out.log[0].startswith("GM advance")


def test_extend_moves_the_deadline_and_says_so() -> None:
    g = Game(10)
    end = g.state.phase.ends_at
    out = g._apply(GmIn(id="x", at=g.at(1), command="extend", args={"hours": 6}, reason="论坛维护"))
    assert g.ruleset.next_deadline(g.state).at == end + timedelta(hours=6)
    assert "延长6小时" in main_posts(out) and "论坛维护" in main_posts(out)
    assert "hours" in gm(g, "extend", hours=1).refusals[0].reason  # no --hours given


def test_extend_in_the_day_moves_the_vote_thread_too() -> None:
    g = Game(10)
    g.dawn()
    opens = g.ruleset.next_deadline(g.state).at
    g._apply(GmIn(id="x", at=g.at(1), command="extend", args={"hours": 4}, reason="请假"))
    assert g.ruleset.next_deadline(g.state).at == opens + timedelta(hours=4)
    g.advance("vote_open")
    assert g.ruleset.next_deadline(g.state).at == g.state.phase.started_at + timedelta(hours=36 + 4)


def test_pause_stops_the_clock_and_resume_extends_by_the_pause() -> None:
    g = Game(10)
    end = g.state.phase.ends_at
    gm(g, "pause", hours=2, reason="论坛宕机")
    assert g.ruleset.next_deadline(g.state) is None
    assert not g.pm("丁", "束魂 庚", hours=3).refusals  # PMs still count
    out = gm(g, "resume", hours=7, reason="论坛恢复")
    assert g.ruleset.next_deadline(g.state).at == end + timedelta(hours=5)
    assert "游戏继续" in main_posts(out)
    assert "not paused" in gm(g, "resume", hours=8).refusals[0].reason


def test_void_action_cancels_it_and_tells_the_player() -> None:
    g = Game(10)
    g.kill("甲", "庚")
    out = gm(g, "void-action", player="甲", reason="目标写错")
    assert "甲" not in g.state.data["subs"]["kill"]
    assert any("取消" in m and "目标写错" in m for m in pms_to(out, "甲"))
    g.dawn()
    assert g.alive("庚")
    assert "没有可以取消的行动" in gm(g, "void-action", player="丙").refusals[0].reason


def test_enter_action_takes_a_pm_sent_another_way() -> None:
    g = Game(10)
    out = gm(g, "enter-action", player="丁", text="束魂 庚", reason="玩家短消息发错了对象")
    assert g.state.data["subs"]["soulbind"] == {"丁": "庚"}
    assert pms_to(out, "丁")  # the player gets the receipt


def test_void_vote_and_enter_vote() -> None:
    g = Game(10)
    g.dawn()
    g.vote_all({"丙": "甲"})
    out = gm(g, "void-vote", player="丙", reason="投票帖被误删", hours=2)
    assert "丙" not in g.state.data["day"]["ballots"]["main"]
    assert any("作废" in m for m in pms_to(out, "丙"))
    gm(g, "enter-vote", player="丙", target="乙", reason="玩家在其他帖子投了票", hours=3)
    assert g.state.data["day"]["ballots"]["main"]["丙"]["target"] == "乙"
    assert "禁止修改" in gm(g, "enter-vote", player="丙", target="甲", hours=4).refusals[0].reason


def test_rejected_declaration_forfeits_the_kill_unless_a_new_one_comes() -> None:
    """002 杀人宣言: 天神可以拒绝使用…并要求杀手继续提交符合要求的杀人宣言."""
    g = Game(10)
    g.kill("甲", "庚")
    out = gm(g, "reject-declaration", player="甲", reason="抄书")
    assert set(m.to for m in out.pms) == {"甲", "乙"}  # both killers are asked
    assert all("抄书" in m.body for m in out.pms)
    g.dawn()
    assert g.alive("庚")  # no valid declaration at dawn: the kill is forfeited
    g2 = Game(10)
    g2.kill("甲", "庚")
    gm(g2, "reject-declaration", player="乙", reason="抄书")
    g2.pm("乙", "宣言\n" + decl("【新】"), hours=5)
    out = g2.dawn()
    assert not g2.alive("庚") and "【新】" in main_posts(out)


def test_modkill_removes_the_player_with_identity_and_checks_victory() -> None:
    g = Game(10)
    out = gm(g, "modkill", player="庚", reason="用真身发分析")
    assert not g.alive("庚") and g.state.player("庚").death_cause == "modkill"
    assert "庚" in main_posts(out) and "平民" in main_posts(out) and "用真身发分析" in main_posts(out)
    gm(g, "modkill", player="甲", reason="作弊")
    out = gm(g, "modkill", player="乙", reason="作弊")
    assert g.state.winner == "civilians" and g.state.phase.kind == "over"
    assert "平民方获胜" in main_posts(out)
    assert "over" in gm(g, "advance").refusals[0].reason


def test_leave_extends_the_phase() -> None:
    """002 / 001 §6.2 请假: 天神根据实际情况决定延长游戏时段."""
    g = Game(10)
    end = g.state.phase.ends_at
    out = g._apply(GmIn(id="l", at=g.at(1), command="leave", args={"player": "丙", "hours": 12}, reason="出差"))
    assert g.ruleset.next_deadline(g.state).at == end + timedelta(hours=12)
    assert "丙请假" in main_posts(out)


def test_end_game_reveals_every_role_and_the_seed() -> None:
    g = Game(10)
    out = gm(g, "end-game", reason="人数不足")
    assert g.state.phase.kind == "over" and g.state.winner is None
    body = main_posts(out)
    assert all(name in body for name in ROLES_10) and "杀手" in body and str(g.state.seed) in body
    g2 = Game(10)
    assert "winner" in gm(g2, "end-game", winner="wolves").refusals[0].reason


@pytest.mark.parametrize("kind", ["night_end", "vote_end"])
def test_preview_is_what_the_deadline_then_posts(kind: str) -> None:
    g = Game(10)
    g.kill("甲", "庚")
    g.pm("丁", "束魂 丙")
    if kind == "vote_end":
        g.dawn()
        g.vote_all({n: "甲" for n in ROLES_10 if n != "庚"})
    due = g.ruleset.next_deadline(g.state)
    from tianshen.core.model import DeadlineIn

    preview = g.ruleset.apply(g.state, DeadlineIn(id="p", at=due.at, kind=due.kind))
    before = g.json()
    assert g.json() == before  # nothing committed
    real = g.advance(kind)
    assert [p.body for p in preview.posts] == [p.body for p in real.posts]
    assert preview.log == real.log and preview.log  # the step-by-step explanation


def test_a_pm_asking_for_the_count_gets_it_privately() -> None:
    """Issue 5: a PM 「票数」 gets the current count; the requester is not revealed, and
    delegations stay secret until the count."""
    g = Game(10)
    g.dawn()
    g.vote_all({"丙": "甲", "丁": "甲", "戊": "乙"})
    g.pm("己", "委托投票 乙", hours=2)
    out = g.pm("庚", "票数", hours=3)
    body = "\n".join(m.body for m in out.pms if m.to == "庚")
    assert "甲：2票" in body and "乙：1票" in body  # the delegation is not counted yet
    assert not out.posts  # nothing public
    early = Game(10)
    assert "没有进行中的投票" in early.pm("庚", "票数").pms[-1].body


def test_reminders_go_to_those_who_have_not_acted_or_voted() -> None:
    """Issue 5: a configurable number of hours before the deadline, a PM to every player who
    has not acted (night) or voted (day); once per phase; the off-duty 8p killer is left alone."""
    g = Game(10)
    g.state.data["options"]["reminder_hours"] = 3
    end = g.state.phase.ends_at
    g.kill("甲", "庚")
    g.pm("丁", "束魂 丙")
    due = g.ruleset.next_deadline(g.state)
    assert (due.kind, due.at) == ("reminder", end - timedelta(hours=3))
    out = g.advance("reminder")
    reminded = {m.to for m in out.pms}
    assert reminded == set(ROLES_10) - {"甲", "丁"} - {"乙"}  # 乙's group already has a kill in
    assert all("提醒" in m.body for m in out.pms) and not out.posts
    assert g.ruleset.next_deadline(g.state).kind == "night_end"  # once per phase
    g.advance("night_end")
    g.advance("vote_open")
    g.vote_all({"丙": "甲"})
    g.pm("丁", "委托投票 甲", hours=2)
    out = g.advance("reminder")
    assert {m.to for m in out.pms} == set(g.living()) - {"丙", "丁"}


def test_a_phase_shorter_than_the_reminder_gets_none() -> None:
    g = Game(10)
    g.state.data["options"]["reminder_hours"] = 30  # longer than the 24-h night
    assert g.ruleset.next_deadline(g.state).kind == "night_end"
