"""Scripted games (docs/replay.md): determinism, the JSON shape, 束魂, the tie-break, bad scripts."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tianshen.replay import ScriptError, load_script, replay

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = Path(__file__).resolve().parent / "scripts"
EXAMPLE = ROOT / "docs" / "examples" / "classic_10_bind.toml"
NAMES = ["甲", "乙", "丙", "丁", "戊", "己", "庚", "辛", "壬", "癸"]


def run(name: str, db_url: str | None = None) -> dict[str, Any]:
    return replay(load_script(SCRIPTS / name), db_url)


def phase(result: dict[str, Any], label: str) -> dict[str, Any]:
    [found] = [p for p in result["phases"] if p["phase"] == label]
    return found


@pytest.mark.parametrize("path", [EXAMPLE, SCRIPTS / "bind_save.toml", SCRIPTS / "tie_ld.toml"])
def test_the_same_script_gives_the_same_json(path: Path) -> None:
    first = json.dumps(replay(load_script(path)), sort_keys=True, ensure_ascii=False)
    second = json.dumps(replay(load_script(path)), sort_keys=True, ensure_ascii=False)
    assert first == second
    assert len(first) > 1000


def test_the_database_does_not_change_the_result(db_url: str) -> None:
    assert run("tie_ld.toml", db_url) == run("tie_ld.toml")


def test_json_shape() -> None:
    result = run("bind_save.toml")
    assert set(result) == {"ruleset", "seed", "phases", "winner"}
    assert (result["ruleset"], result["seed"], result["winner"]) == ("classic_10", 7, None)
    assert [p["phase"] for p in result["phases"]] == ["night 1", "day 1"]
    for p in result["phases"]:
        assert set(p) == {"phase", "public", "private", "refusals", "gm", "state"}
        assert all(isinstance(body, str) and body for body in p["public"])
        assert all(set(m) == {"to", "text"} for m in p["private"])
        assert all(set(r) == {"from", "text", "reason"} for r in p["refusals"])
        assert list(p["state"]["players"]) == NAMES
        for view in p["state"]["players"].values():
            assert {"alive", "faction", "role"} <= set(view)
            assert isinstance(view["alive"], bool)
            assert view["faction"] in ("killers", "civilians")
    roles = {n: v["role"] for n, v in result["phases"][0]["state"]["players"].items()}
    assert roles == {"甲": "killer", "乙": "killer", "丙": "diviner", "丁": "binder", "戊": "curser",
                     "己": "blesser", "庚": "commoner", "辛": "commoner", "壬": "commoner", "癸": "commoner"}
    json.loads(json.dumps(result))  # plain JSON types only


def test_winner_is_set_when_the_game_ends() -> None:
    result = replay(load_script(EXAMPLE))
    assert result["winner"] == "civilians"
    last = result["phases"][-1]["state"]["players"]
    assert [n for n, v in last.items() if v["alive"]] == ["庚"]  # everyone else failed to vote in the LD


def test_bind_save_and_the_saved_player_cannot_vote() -> None:
    result = run("bind_save.toml")
    night, day = phase(result, "night 1"), phase(result, "day 1")
    dawn = night["public"][-1]
    assert "昨夜无人死亡" in dawn and "**庚**昨夜被束魂救活" in dawn
    assert night["state"]["players"]["庚"]["alive"] is True
    assert night["state"]["players"]["庚"]["can_vote"] is False
    assert night["state"]["players"]["丁"]["bind_streak"] == {"target": "庚", "nights": 0}
    receipts = [m["text"] for m in night["private"] if m["to"] == "甲" and "杀 庚" in m["text"]]
    assert len(receipts) == 1 and "合格" in receipts[0]

    assert day["refusals"] == [{
        "from": "庚", "text": "投票 甲",
        "reason": "你在投票帖的跟帖（投票 甲）无效：你昨夜被束魂救活，魂不守舍，今天不能参加投票和生死投票。",
    }]
    assert [m for m in day["private"] if m["to"] == "庚"] == [{"to": "庚", "text": day["refusals"][0]["reason"]}]
    assert "今天不能投票的人：庚" in day["public"][0]
    tally = day["public"][1]
    assert "| 甲 | 6票 | 丙、丁、戊、己、辛、壬 |" in tally  # 庚's vote is not among them
    assert "| 丙 | 3票 | 甲、乙、癸 |" in tally
    assert "**甲**被投票处决，身份：杀手。" in tally
    players = day["state"]["players"]
    assert (players["甲"]["alive"], players["甲"]["death_cause"]) == (False, "executed")
    assert [n for n, v in players.items() if not v["alive"]] == ["甲"]  # 庚 was not removed for not voting
    assert result["winner"] is None


def test_tie_goes_to_the_life_death_vote_and_executes() -> None:
    result = run("tie_ld.toml")
    day = phase(result, "day 1")
    assert day["refusals"] == []
    tally, ld_thread, ld_result = day["public"][1:4]
    assert "| 丙 | 5票 | 甲、乙、己、辛、癸 |" in tally and "| 甲 | 5票 | 丙、丁、戊、庚、壬 |" in tally
    assert "进入生死投票" in tally and "被投票处决" not in tally
    assert "**生死投票**" in ld_thread and "候选：丙、甲" in ld_thread
    assert "| 甲 | 7票 | 丙、丁、戊、己、庚、辛、壬 |" in ld_result
    assert "| 丙 | 3票 | 甲、乙、癸 |" in ld_result
    assert "**甲**被投票处决，身份：杀手。" in ld_result and "第2夜" in ld_result
    players = day["state"]["players"]
    assert [n for n, v in players.items() if not v["alive"]] == ["甲"]
    assert (players["甲"]["died_in"], players["甲"]["death_cause"]) == ("day 1", "executed")
    assert result["winner"] is None


@pytest.mark.parametrize(("name", "message"), [
    ("bad_role.toml", "unknown role '狼人' for player '乙'"),
    ("bad_phase.toml", "script phase 'day 1' but the game is at 'night 1'"),
    ("too_many_players.toml", "classic_8 has 8 players, the script names 9"),
    ("too_many_killers.toml", "the game cannot start: role 'killer' is not available (or too many) in classic_10"),
    ("vote_too_early.toml", "post by 白狐: no vote:1 thread is open yet (day 1)"),
])
def test_malformed_scripts(name: str, message: str) -> None:
    with pytest.raises(ScriptError) as info:
        run(name)
    assert message in str(info.value)


def test_toml_syntax_error_names_the_file_the_line_and_the_fix() -> None:
    with pytest.raises(ScriptError) as info:
        load_script(SCRIPTS / "bad_syntax.toml")
    text = str(info.value)
    assert text.startswith(str(SCRIPTS / "bad_syntax.toml") + ":")
    assert "line 5" in text
    assert '"甲" = ' in text  # how to write the key


def test_missing_file_and_unknown_ruleset(tmp_path: Path) -> None:
    with pytest.raises(ScriptError, match="missing.toml"):
        load_script(tmp_path / "missing.toml")
    script = tmp_path / "s.toml"
    script.write_text('ruleset = "classic_99"\n', encoding="utf-8")
    with pytest.raises(ScriptError, match="unknown ruleset 'classic_99'"):
        replay(load_script(script))


def test_script_going_on_after_the_end(tmp_path: Path) -> None:
    text = EXAMPLE.read_text(encoding="utf-8") + '\n[[phase]]\nphase = "night 2"\n'
    script = tmp_path / "long.toml"
    script.write_text(text, encoding="utf-8")
    with pytest.raises(ScriptError, match="after the game ended"):
        replay(load_script(script))


def test_gm_overrides_in_a_script_are_shown() -> None:
    """Issue 5: every override leaves a trace that the replay shows."""
    result = run("gm_overrides.toml")
    night = phase(result, "night 1")
    assert [(g["command"], g["reason"]) for g in night["gm"]] == [
        ("reject-declaration", "抄书"), ("extend", "等杀手重写宣言")]
    assert night["gm"][1]["args"] == {"hours": 6}
    assert any("拒绝了你们的杀人宣言" in m["text"] for m in night["private"] if m["to"] == "甲")
    assert any("延长6小时" in p for p in night["public"])
    assert night["state"]["players"]["庚"]["alive"]  # no declaration left at dawn: the kill is forfeited
