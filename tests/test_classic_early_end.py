"""Early end (提前结束): 002 "如果一个时段内所有游戏者的活动都已经完成，天神可以提前结束这个时段";
DECISIONS §0.5 `early_end = require_all_done`: only when every living player has sent /done
(and, in a day, every vote has been cast)."""

from __future__ import annotations

from classic_helpers import ROLES_10, Game


def test_night_ends_early_when_every_living_player_is_done() -> None:
    g = Game(10)
    names = list(ROLES_10)
    for i, name in enumerate(names[:-1]):
        g.pm(name, "/done", hours=1 + i * 0.1)
    assert g.ruleset.next_deadline(g.state).at == g.state.phase.ends_at  # one still missing
    g.pm(names[-1], "/done", hours=3)
    due = g.ruleset.next_deadline(g.state)
    assert due.kind == "night_end"
    assert due.at == g.at(3)


def test_day_vote_ends_early_only_when_everyone_voted_and_is_done() -> None:
    g = Game(10)
    g.advance("night_end")
    g.advance("vote_open")
    names = list(ROLES_10)
    for i, name in enumerate(names):
        g.pm(name, "完成", hours=0.5 + i * 0.01)
    for i, name in enumerate(names[:-1]):
        g.post(name, "投票 甲", hours=1 + i * 0.01)
    assert g.ruleset.next_deadline(g.state).at > g.at(20)  # 癸 has not voted yet
    g.post(names[-1], "投票 乙", hours=2)
    due = g.ruleset.next_deadline(g.state)
    assert (due.kind, due.at) == ("vote_end", g.at(2))


def test_done_from_a_dead_player_does_not_count() -> None:
    g = Game(10)
    out = g.pm("甲", "杀 庚\n" + "夜" * 120)
    assert out.state.player("甲").alive
    g.advance("night_end")
    assert not g.state.player("庚").alive
    g.advance("vote_open")
    reply = g.pm("庚", "/done")
    assert "庚" not in g.state.data.get("done", [])
    assert reply.pms and "死亡" in reply.pms[-1].body


def test_done_of_the_night_does_not_carry_into_the_day() -> None:
    g = Game(10)
    names = list(ROLES_10)
    for i, name in enumerate(names):
        g.pm(name, "/done", hours=1 + i * 0.01)
    g.advance("night_end")
    g.advance("vote_open")
    for i, name in enumerate(names):
        g.post(name, "投票 甲", hours=1 + i * 0.01)
    due = g.ruleset.next_deadline(g.state)
    assert due.at == g.now + (g.state.phase.ends_at - g.now)  # the scheduled end, not early
    assert due.at > g.at(20)
