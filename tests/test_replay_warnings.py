"""Replay scripts that lack the posts a ruleset requires get a warning naming them (issue 17):
签到 within `checkin_hours` (000 §5.2, 001 §3.2, 003 §7.2) and 004 补充 二 2's one post a day."""

from __future__ import annotations

import logging

import pytest

from tianshen.replay import Script, replay
from tianshen.sim.rehearsal import VESTS


def script(ruleset: str, phases: list[dict]) -> Script:
    return Script.model_validate({"ruleset": ruleset, "seed": 3, "phase": phases})


@pytest.mark.parametrize("ruleset, players", [("n_lives", 6), ("game_ten", 14), ("hex_survival_12", 12)])
def test_a_missing_checkin_is_warned_naming_the_players(ruleset: str, players: int,
                                                         caplog: pytest.LogCaptureFixture) -> None:
    names = VESTS[:players]
    checked = [{"from": n, "text": "签到", "thread": "main", "at": 0.5} for n in names[2:]]
    with caplog.at_level(logging.WARNING, logger="tianshen.replay"):
        result = replay(script(ruleset, [{"phase": "night 1", "posts": checked}]))
    warning = " ".join(result.get("warnings", []))
    assert "签到" in warning and names[0] in warning and names[1] in warning and names[2] not in warning
    assert names[0] in caplog.text  # also on stderr, for the plain (non-JSON) output


def test_a_script_with_every_checkin_has_no_warning() -> None:
    names = VESTS[:6]
    posts = [{"from": n, "text": "签到", "thread": "main", "at": 0.5} for n in names]
    assert "warnings" not in replay(script("n_lives", [{"phase": "night 1", "posts": posts}]))


def test_butterfly_one_post_a_day_is_warned() -> None:
    names = VESTS[:16]
    chat = [{"from": n, "text": "我来说两句", "thread": "main"} for n in names[1:]]
    result = replay(script("butterfly_elder", [{"phase": "night 1"}, {"phase": "day 1", "posts": chat}]))
    warning = " ".join(result.get("warnings", []))
    assert "one post a day" in warning and names[0] in warning and names[1] not in warning
