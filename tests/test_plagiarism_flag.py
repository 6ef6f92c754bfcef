"""002 杀人宣言 (DECISIONS C13): 杀人宣言或杀人剧情违反原创或字数的规定，天神可以在第二天多给平民方
一次占卜机会，由天神抽签选择一位平民行使 — only when a human GM flags it before dawn; one
living civilian drawn; one question that day; the answer at the next dawn."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

from classic_helpers import Game, pms_to
from test_admin_cli import START, make_game, run
from tianshen.core.model import GmIn
from tianshen.rules.common.roles import is_killer
from tianshen.store import Store


def gm(g: Game, command: str, reason: str = "宣言抄自小说", hours: float = 2.0, **args: object):
    return g._apply(GmIn(id=g._id("gm"), at=g.at(hours), command=command, args=args, reason=reason))


def flagged_game() -> tuple[Game, str]:
    """Night 1: 甲 kills 庚 with a declaration the GM flags; dawn draws the civilian."""
    g = Game(10)
    g.kill("甲", "庚")
    assert not gm(g, "flag-plagiarism", player="甲").refusals
    out = g.dawn()
    chosen = g.state.data["extra_divinations"][0]["by"]
    assert chosen and not is_killer(g.state.player(chosen)) and g.alive(chosen)
    assert any("多行使一次占卜" in m for m in pms_to(out, chosen))
    assert out.notes and chosen in " ".join(out.notes)
    return g, chosen


def test_flag_draws_a_living_civilian_who_asks_by_day_and_is_answered_at_the_next_dawn() -> None:
    g, chosen = flagged_game()
    out = g.pm(chosen, "占卜 乙", hours=3)
    assert not out.refusals and g.state.data["extra_divinations"][0]["target"] == "乙"
    assert g.pm(chosen, "占卜 丙", hours=4).refusals  # one question (the diviner's day rule: night only)
    assert g.state.data["extra_divinations"][0]["target"] == "乙"
    g.day({n: "甲" for n in g.living() if n != "甲"} | {"甲": "辛"})
    out = g.dawn()
    answers = [m for m in pms_to(out, chosen) if "额外占卜" in m]
    assert answers and "乙：是" in answers[0]  # 乙 is a killer (ROLES_10)


def test_without_a_flag_nobody_gets_an_extra_divination_and_day_divining_is_refused() -> None:
    g = Game(10)
    g.kill("甲", "庚")
    g.dawn()
    assert not g.state.data.get("extra_divinations")
    assert g.pm("丙", "占卜 乙", hours=3).refusals  # 002: privileges only at night


def test_flag_is_refused_without_a_declaration_or_after_dawn() -> None:
    g = Game(10)
    assert gm(g, "flag-plagiarism", player="甲").refusals  # nothing sent tonight
    assert gm(g, "flag-plagiarism", player="庚").refusals  # not a killer
    g.kill("甲", "庚")
    g.dawn()
    assert gm(g, "flag-plagiarism", player="甲").refusals  # C13: before dawn only


def test_the_option_switches_it_off() -> None:
    g = Game(10)
    g.state.data["options"]["plagiarism_extra_divination"] = False
    g.kill("甲", "庚")
    assert gm(g, "flag-plagiarism", player="甲").refusals


def test_admin_flag_plagiarism_command(tmp_path: Path) -> None:
    url, _, _ = make_game(tmp_path)  # night 1, 甲 has sent a kill with its declaration
    assert "flag-plagiarism" in run("admin", "--help").output
    done = run("admin", "flag-plagiarism", "甲", "--reason", "宣言抄自小说", "--db", url,
               "--at", (START + timedelta(hours=2)).isoformat())
    assert done.exit_code == 0, done.output
    store = Store(url)
    state = json.loads(store.load_game(store.game_id("g")).state_json)
    assert state["data"]["extra_divinations"][0]["killer"] == "甲"
    store.close()
