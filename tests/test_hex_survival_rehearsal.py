"""Whole `hex_survival` games: simulated 12- and 14-player rehearsals end with a winner
(003 §11), and a replay script shows the GM's state (camp, HP, cell, statuses, dig depths)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tianshen.replay import Script, replay
from tianshen.sim.rehearsal import VESTS, rehearse


@pytest.mark.parametrize(("variant", "seed"), [("hex_survival_12", 1), ("hex_survival_14", 3)])
def test_rehearsal_ends_with_a_winner(variant: str, seed: int, db_url: str) -> None:
    result = rehearse(variant, seed, db_url)
    state = result.state
    assert result.winner in ("red", "blue")
    assert state.phase.kind == "over"
    living = {f: sum(1 for p in state.players if p.alive and p.faction == f) for f in ("red", "blue")}
    loser = "blue" if result.winner == "red" else "red"
    assert living[loser] == 0 or 2 * living[loser] < living[result.winner]  # §11
    text = "\n".join(result.transcript)
    assert f"{'红方' if result.winner == 'red' else '蓝方'}获胜" in text
    for p in state.players:  # §6.1: every death announced with the camp
        if not p.alive and p.death_cause == "hp":
            assert f"{p.name}[/b]血量降为0，死亡。所属阵营" in text
    assert "今夜你可以攻击" in text and "挖到了" in text and "天神代投" in text


def test_replay_script_shows_hp_cells_statuses_and_depths() -> None:
    names = ["甲", "乙", "丙"] + list(VESTS[:9])
    checkin = [{"from": n, "text": "签到", "thread": "main", "at": 0.5} for n in names]  # 003 §7.2
    script = Script.model_validate({
        "ruleset": "hex_survival_12",
        "seed": 5,
        "players": {"甲": "红方", "乙": "红方", "丙": "蓝方"},
        "setup": {"cells": {"甲": "a1", "乙": "a2", "丙": "c3"}},
        "phase": [
            {"phase": "night 1", "pm": [{"from": "甲", "text": "攻击 乙"}], "posts": checkin},
            {"phase": "day 1", "pm": [{"from": "甲", "text": "挖掘"}, {"from": "乙", "text": "移动 b2"}],
             "posts": [{"from": "甲", "text": "投票 丙"}, {"from": "丙", "text": "投票 丙"}]},
        ],
    })
    result = replay(script)
    night, day = result["phases"][0], result["phases"][1]
    assert any("乙昨夜遭到攻击，损失10点血" in p for p in day["public"] + night["public"])
    state = day["state"]["players"]
    assert state["乙"]["cell"] == "b2" and state["乙"]["hp"] == 30
    assert state["甲"]["dig_depths"]["a1"] == 1
    assert state["丙"]["role_name"] == "蓝方" and isinstance(state["甲"]["statuses"], dict)


def test_same_seed_same_game(tmp_path: Path) -> None:
    """DECISIONS §0.6: map, burial, and every draw come from the seed: a rehearsal repeats."""
    a = rehearse("hex_survival_12", 8, f"sqlite:///{tmp_path / 'a.db'}")
    b = rehearse("hex_survival_12", 8, f"sqlite:///{tmp_path / 'b.db'}")
    assert a.transcript == b.transcript and a.winner == b.winner
    assert a.state.data["buried"] == b.state.data["buried"]
