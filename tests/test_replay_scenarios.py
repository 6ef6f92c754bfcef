"""Replay scripts that say what the ballot and substitute rules are about (issue 34 item 9):
substitutes and their answers, an edited post (at its edit time), a post in a vote thread
after it closed.  The scenarios are in tests/scenarios/."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tianshen.replay import ScriptError, load_script, replay

SCENARIOS = Path(__file__).resolve().parent / "scenarios"


def _phase(result: dict[str, Any], label: str) -> dict[str, Any]:
    [found] = [p for p in result["phases"] if p["phase"] == label]
    return found


def _pms(phase: dict[str, Any], to: str) -> list[str]:
    return [m["text"] for m in phase["private"] if m["to"] == to]


@pytest.fixture(scope="module")
def result() -> dict[str, Any]:
    return replay(load_script(SCENARIOS / "classic_substitute_edit_late.toml"))


def test_a_script_lists_substitutes_and_their_answers(result: dict[str, Any]) -> None:
    night = _phase(result, "night 1")
    assert any("癸**已由替补接替" in body for body in night["public"])
    assert any("马甲是“癸”" in text for text in _pms(night, "替补甲"))  # the first to accept
    assert any("没有接替任何名额" in text for text in _pms(night, "替补乙"))  # 不能: declined


def test_a_script_edits_a_post_at_its_edit_time(result: dict[str, Any]) -> None:
    """001 §5.1: the vote stands as first written; the edit (a change) is refused."""
    day = _phase(result, "day 1")
    assert _pms(day, "丙") == ["你在投票帖的跟帖（投票 壬）无效：你已经投给了辛。投票一旦投出，就禁止修改。"]
    assert any("| 辛 | 7票 | 丙、丁" in body for body in day["public"])


def test_a_script_posts_in_a_vote_thread_after_it_closed(result: dict[str, Any]) -> None:
    assert _pms(_phase(result, "night 2"), "戊") == ["你在投票帖的跟帖（投票 辛）无效：这个投票帖已经截止。"]


def _script(tmp_path: Path, posts: str) -> Path:
    path = tmp_path / "s.toml"
    path.write_text(f'ruleset = "classic_10"\n[[phase]]\nphase = "night 1"\nposts = [{posts}]\n', encoding="utf-8")
    return path


@pytest.mark.parametrize(("posts", "error"), [
    ('{ from = "甲", text = "x", thread = "elsewhere" }', "thread 'elsewhere': accepted: vote, main, or vote N"),
    ('{ from = "甲", text = "x", edit = "nothing", thread = "main" }', "no earlier post named 'nothing'"),
    ('{ from = "甲", text = "x", name = "a", thread = "main" }, { from = "乙", text = "y", edit = "a", at = 2 }',
     "post 'a' is 甲's"),
])
def test_a_bad_post_item_is_refused_saying_why(tmp_path: Path, posts: str, error: str) -> None:
    with pytest.raises(ScriptError) as exc:
        replay(load_script(_script(tmp_path, posts)))
    assert error in str(exc.value)
