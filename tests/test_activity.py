"""Activity rules (issue 5): analysis-post quotas (001 §6.1.6: five in 48 h) and 诈尸 (001
§4.2–4.3), read from every post on the board and reported to the human GM, not enforced."""

from __future__ import annotations

from pathlib import Path

import pytest

from board_game import GM, KILL_庚, board_game
from classic_helpers import ROLES_10, Game
from tianshen.core.model import PostIn
from tianshen.rules import load_ruleset


def post(g: Game, author: str, hours: float, thread: str = "board:9", text: str = "我的分析") -> list[str]:
    out = g._apply(PostIn(id=g._id("p"), thread=thread, author=author, at=g.at(hours), text=text))
    return out.notes


def with_quota(posts: int, hours: float) -> Game:
    g = Game(10)
    g.ruleset = load_ruleset("classic_10")
    g.ruleset.spec.options["analysis_quota"] = {"posts": posts, "hours": hours}
    return g


def test_lurkers_are_reported_once_a_window_and_nothing_is_enforced() -> None:
    g = with_quota(posts=2, hours=24)
    for name in ROLES_10:
        if name != "壬":
            post(g, name, 2)
            post(g, name, 3)
    post(g, "壬", 4)  # one post only
    out = g.advance("night_end")  # 24 h after the start: the window is complete
    lurk = [n for n in out.notes if n.startswith("潜水")]
    assert lurk == ["潜水：壬 最近24小时只发了1贴（规则要求至少2贴）"]
    assert g.alive("壬")  # reported to the GM, never enforced by the bot
    out = g.advance("vote_open")  # 36 h: everyone's posts are now older than 24 h …
    assert not [n for n in out.notes if "壬" in n]  # … but 壬 is not reported twice in one window


def test_no_report_before_the_game_has_run_a_whole_window() -> None:
    g = with_quota(posts=5, hours=48)
    out = g.advance("night_end")
    assert not out.notes


def test_a_dead_players_post_is_zombie_except_the_nights_dead_writing_a_will() -> None:
    g = Game(10)
    g.kill("甲", "庚")
    g.dawn()
    assert post(g, "庚", 1, text="遗言：我觉得甲是杀手") == []  # day 1: his will, in his own thread
    notes = post(g, "庚", 2, thread="vote:1", text="投票 甲")
    assert notes and notes[0].startswith("诈尸：庚")
    g.advance("vote_open")
    g.day({n: "乙" for n in ROLES_10 if n != "庚"})
    assert post(g, "庚", 1)[0].startswith("诈尸：庚")  # the next night: no longer a will
    assert post(g, "丙", 1) == []  # the living are fine


@pytest.mark.parametrize("rule", [{"analysis_quota": {"posts": 1, "hours": 24}}, {"watch_board": True}])
def test_the_driver_reads_every_board_post_and_tells_the_gm(tmp_path: Path, monkeypatch, rule) -> None:
    base = Path(__file__).resolve().parents[1] / "rulesets" / "classic_10.toml"
    extra = "\n".join(f"{k} = {{ posts = {v['posts']}, hours = {v['hours']} }}" if isinstance(v, dict)
                      else f"{k} = {str(v).lower()}" for k, v in rule.items())
    (tmp_path / "classic_10_board.toml").write_text(f'include = ["{base.as_posix()}"]\n[options]\n{extra}\n',
                                                    encoding="utf-8")
    monkeypatch.setenv("TIANSHEN_RULESETS", str(tmp_path))
    g = board_game(tmp_path, variant="classic_10_board", seed=7, gm_contact="真天神")
    g.board.pm("甲", GM, KILL_庚)
    g.clock.set(g.at(1))
    analysis = g.board.new_thread("丙", "丙的分析", "我认为甲很可疑")
    g.run_to(1)
    g.run_to(24)  # dawn (庚 is dead)
    g.run_to(24 + 12)  # the vote thread opens (on time: a late one would extend the day)
    vote = g.thread("vote:1")
    for name in ROLES_10:
        if name != "庚":
            g.board.post(name, vote, "投票 乙")
    g.run_to(24 + 36)  # night 2
    g.board.post("庚", analysis, "我来说两句")  # no will-writer any more: 诈尸
    g.run_to(24 + 36 + 2)
    store, driver = g.store, g.driver
    notes = [pm.text for pm in g.board.inbox("真天神")]
    assert any(n.startswith("诈尸：庚") for n in notes)
    assert any((i.thread_key or "").startswith("board:") for i in store.inbound(driver.game_id) if i.source == "post")
    if "analysis_quota" in rule:
        assert any(n.startswith("潜水") and "丙" not in n for n in notes)
    store.close()
