"""交替期 (002 更换替补, 001 §6.3, DECISIONS §0.5): the phase is extended 12 h, every
substitute is asked, the first to answer takes the longest-lurking seat with everything it
holds; the player's return cancels it; an untaken seat is wasted."""

from __future__ import annotations

from datetime import timedelta

from board_game import GM, KILL_庚, board_game
from classic_helpers import ROLES_10, T0, Game, main_posts
from tianshen.core.model import GmIn
from tianshen.core.ruleset import GameSetup, Seat
from tianshen.rules import load_ruleset

SUBS = ["替补甲", "替补乙", "替补丙"]


def game_with_subs() -> Game:
    g = Game(10)
    r = load_ruleset("classic_10")
    out = r.setup(GameSetup(seats=[Seat(name=n, forum_name=f"{n}本人") for n in ROLES_10], seed=7, start=T0,
                            fixed_roles=ROLES_10, substitutes=SUBS))
    g.ruleset, g.state = r, out.state
    return g


def substitute(g: Game, players: str, hours: float = 2, last_seen: dict | None = None):
    return g._apply(GmIn(id=g._id("gm"), at=g.at(hours), command="substitute",
                         args={"players": players, "last_seen": last_seen or {}}, reason="潜水"))


def test_the_phase_is_extended_and_every_substitute_asked() -> None:
    g = game_with_subs()
    end = g.state.phase.ends_at
    out = substitute(g, "庚")
    assert g.state.phase.ends_at == end + timedelta(hours=12)
    assert sorted(m.to for m in out.pms) == sorted(SUBS)
    assert "庚" in main_posts(out) and "交替期" in main_posts(out)
    due = g.ruleset.next_deadline(g.state)  # the 交替期 ends 12 h after it opened, before the night
    assert (due.kind, due.at) == ("substitution_end", g.at(2 + 12))


def test_the_first_to_answer_takes_the_seat_with_everything_it_holds() -> None:
    g = game_with_subs()
    g.pm("庚", "祈祷 丙")  # the seat's pending action
    substitute(g, "庚")
    out = g.pm("替补乙", "可以，马上来", hours=3)
    seat = g.state.player("庚")
    assert seat.forum_name == "替补乙" and seat.role == "commoner" and seat.alive
    assert g.state.data["subs"]["pray"]["庚"] == "丙"  # pending actions stay with the seat
    role_pm = [m.body for m in out.pms if m.to == "替补乙"]
    assert len(role_pm) == 1 and "庶民" in role_pm[0] and "庚" in role_pm[0]
    assert [m.to for m in out.pms if m.to != "替补乙"] == ["庚本人"]  # the silent substitutes: no PM (issue 32)
    assert "替补乙" not in main_posts(out)  # who plays the 马甲 stays secret
    assert "substitution" not in g.state.data  # closed: the seat is filled


def test_the_replaced_player_is_told() -> None:
    """Issue 23 item 12: the player whose seat was taken gets a PM at his own account."""
    g = game_with_subs()
    substitute(g, "庚")
    out = g.pm("替补乙", "可以", hours=3)
    told = [m for m in out.pms if m.to == "庚本人"]
    assert len(told) == 1 and "庚" in told[0].body and "替补接替" in told[0].body and "退出" in told[0].body


def test_a_second_substitute_answering_after_the_seat_is_taken_is_told_so() -> None:
    """Issue 23 item 12: not "你不是本局游戏者" — the seat went to a faster substitute."""
    g = game_with_subs()
    substitute(g, "庚")
    g.pm("替补乙", "可以，马上来", hours=3)
    late = g.pm("替补甲", "我也可以", hours=4)
    body = [m.body for m in late.pms if m.to == "替补甲"]
    assert len(body) == 1 and "已经被先回复的替补接替" in body[0] and "不是本局" not in body[0]
    assert late.refusals and g.state.player("庚").forum_name == "替补乙"  # nothing changes
    again = g.pm("替补甲", "请问还要人吗", hours=5)  # any later PM of a substitute
    body = [m.body for m in again.pms if m.to == "替补甲"]
    assert len(body) == 1 and "你是本局的替补" in body[0] and "不是本局" not in body[0]


def test_a_second_substitute_gets_one_pm_and_no_thanks_before_he_answers(tmp_path) -> None:
    """Issue 32 item 11: two substitutes answer within one poll; the second was sent 「谢谢你的
    回复」 for the seat being filled (before his answer was read), then the answer to his
    reply: two PMs.  Now: one PM, the answer to his reply; a substitute who never answered
    gets nothing more."""
    g = board_game(tmp_path, seed=7, own_accounts=True, substitutes=SUBS)
    g.board.pm("甲", GM, KILL_庚)
    g.run_to(2)
    g.driver.gm("substitute", "潜水", g.clock.now(), players="辛", last_seen=g.driver.last_seen())
    g.run_to(2.5)
    asked = {s: len(g.board.inbox(s)) for s in SUBS}
    g.clock.set(g.at(3))
    g.board.pm("替补丙", GM, "可以")
    g.clock.set(g.at(3.01))
    g.board.pm("替补甲", GM, "可以，我也能来")
    g.run_to(3.1)
    [answer] = g.board.inbox("替补甲")[asked["替补甲"]:]
    assert "已经被先回复的替补接替" in answer.text and "谢谢你的回复" not in answer.text
    assert g.board.inbox("替补乙")[asked["替补乙"]:] == []  # he never answered: nothing to thank him for
    g.clock.set(g.at(5))
    g.board.pm("替补乙", GM, "还需要人吗")
    g.run_to(5.1)
    [answer] = g.board.inbox("替补乙")[asked["替补乙"]:]
    assert "已经被先回复的替补接替" in answer.text
    g.store.close()


def test_an_answer_after_a_wasted_period_names_its_end_in_the_boards_zone() -> None:
    g = game_with_subs()
    substitute(g, "甲")
    g.advance("substitution_end")
    late = g.pm("替补甲", "可以", hours=20)
    [body] = [m.body for m in late.pms if m.to == "替补甲"]
    assert "北京时间" in body and "UTC" not in body, body


def test_several_seats_longest_lurker_first() -> None:
    g = game_with_subs()
    seen = {"庚": (T0 + timedelta(hours=1)).isoformat(), "辛": T0.isoformat()}
    substitute(g, "庚,辛", last_seen=seen)
    assert g.state.data["substitution"]["seats"] == ["辛", "庚"]
    g.pm("替补丙", "可以", hours=3)
    g.pm("替补甲", "好的", hours=4)
    assert g.state.player("辛").forum_name == "替补丙"
    assert g.state.player("庚").forum_name == "替补甲"


def test_a_declining_answer_takes_nothing() -> None:
    g = game_with_subs()
    substitute(g, "庚")
    out = g.pm("替补甲", "不能，最近太忙", hours=3)
    assert g.state.player("庚").forum_name == "庚本人"
    assert out.pms and "没有接替" in out.pms[0].body


def test_the_players_return_cancels_the_swap() -> None:
    g = game_with_subs()
    substitute(g, "庚")
    out = g.pm("庚", "祈祷 丙", hours=3)  # he is back before any substitute answered
    assert "substitution" not in g.state.data
    assert "换人取消" in main_posts(out) and not out.refusals
    assert not {m.to for m in out.pms} & set(SUBS)  # nobody has answered: nobody is written to
    assert g.state.data["subs"]["pray"]["庚"] == "丙"  # and his PM counts
    late = g.pm("替补甲", "可以", hours=4)  # his answer is told the swap is off, not that a seat was taken
    [body] = [m.body for m in late.pms if m.to == "替补甲"]
    assert "换人已经取消" in body and "接替" in body and "先回复的替补" not in body


def test_an_untaken_seat_is_wasted_and_counts_as_a_death() -> None:
    g = game_with_subs()
    substitute(g, "甲")
    out = g.advance("substitution_end")
    p = g.state.player("甲")
    assert not p.alive and p.death_cause == "wasted"
    assert "甲" in main_posts(out) and "杀手" in main_posts(out)  # identity shown (B34)
    assert g.ruleset.next_deadline(g.state).kind == "night_end"  # the game goes on


def test_refused_without_substitutes_or_for_the_dead() -> None:
    g = Game(10)  # no substitutes
    assert "no substitutes" in substitute(g, "庚").refusals[0].reason
    g2 = game_with_subs()
    assert "not a living player" in substitute(g2, "黑熊").refusals[0].reason


def test_end_to_end_on_the_built_in_board(tmp_path) -> None:
    """The GM opens it, the substitutes get the PM on the board, the first answer wins, and
    the new player gets the role PM in his own inbox."""
    g = board_game(tmp_path, seed=7, own_accounts=True, substitutes=SUBS)
    clock, board, store, driver, start = g.clock, g.board, g.store, g.driver, g.start
    board.pm("甲", GM, KILL_庚)
    g.run_to(2)
    out = driver.gm("substitute", "潜水超过24小时", clock.now(), players="辛", last_seen=driver.last_seen())
    assert not out.refusals
    assert all(any("替补" in pm.subject or "替补" in pm.text for pm in board.inbox(s)) for s in SUBS)
    clock.set(start + timedelta(hours=3))
    board.pm("替补丙", "神的使者", "可以")
    driver.advance(clock.now())
    assert driver.state().player("辛").forum_name == "替补丙"
    assert any("庶民" in pm.text and "辛" in pm.text for pm in board.inbox("替补丙"))
    clock.set(driver.ruleset.next_deadline(driver.state()).at)
    driver.advance(clock.now())  # the night (extended by 12 h) ends normally
    assert driver.state().phase.label == "day 1" and not driver.state().player("庚").alive
    store.close()
