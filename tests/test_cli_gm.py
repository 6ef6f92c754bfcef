"""Issue 23 item 6: every `admin` command takes `--config` as well as `--db`; no command makes
an empty database when it finds no game; the help shows `[game]` and is in one language."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from tianshen.cli import admin, app

WIDE = {"COLUMNS": "240"}


def run(*args: str):
    return CliRunner().invoke(app, list(args), env=WIDE)


def _config(tmp_path: Path, db: Path) -> Path:
    players = ", ".join(f'{{ name = "{n}" }}' for n in "甲乙丙丁戊己庚辛")
    path = tmp_path / "c.toml"
    path.write_text(f'[database]\nurl = "sqlite:///{db.as_posix()}"\n[forum]\nkind = "memory"\n'
                    f'[game]\nname = "spring"\nruleset = "classic_8"\nseed = 3\n'
                    f'start = 2099-03-01T20:00:00+08:00\nplayers = [{players}]\n', encoding="utf-8")
    return path


def _admin_commands() -> dict[str, Any]:
    """The `admin` group's click commands (typer's own click: no isinstance on click's classes)."""
    return dict(typer.main.get_command(admin).commands)


def test_every_admin_command_takes_config_and_db() -> None:
    commands = _admin_commands()
    assert len(commands) >= 20
    for name, command in commands.items():
        options = {opt for p in command.params for opt in p.opts}
        assert {"--config", "--db"} <= options, name


def test_admin_commands_read_the_database_from_the_config(tmp_path: Path) -> None:
    db = tmp_path / "spring.db"
    config = _config(tmp_path, db)
    signed = run("admin", "new-game", "--config", str(config))
    assert signed.exit_code == 0, signed.output
    status = run("admin", "status", "--config", str(config))
    assert status.exit_code == 0 and "spring (classic_8)" in status.output, status.output
    started = run("admin", "start", "--config", str(config), "--at", "2099-03-01T20:00:00+08:00")
    assert started.exit_code == 0 and "spring started" in started.output, started.output
    paused = run("admin", "pause", "--config", str(config), "--reason", "论坛维护",
                 "--at", "2099-03-01T21:00:00+08:00")
    assert paused.exit_code == 0 and "pause: done" in paused.output, paused.output
    exported = run("admin", "export", "--config", str(config))
    assert exported.exit_code == 0 and "论坛维护" in exported.output
    other = tmp_path / "other.db"
    elsewhere = run("admin", "new-game", "--config", str(config), "--db", f"sqlite:///{other.as_posix()}")
    assert elsewhere.exit_code == 0 and other.exists(), elsewhere.output  # --db wins over the config


@pytest.mark.parametrize("command", [
    ["admin", "status"], ["admin", "status", "--public"], ["admin", "preview"], ["admin", "export"],
    ["admin", "start"], ["admin", "advance", "--reason", "x"], ["admin", "modkill", "甲", "--reason", "x"],
])
def test_no_command_makes_an_empty_database(tmp_path: Path, command: list[str]) -> None:
    db = tmp_path / "none.db"
    result = run(*command, "--db", f"sqlite:///{db.as_posix()}")
    assert result.exit_code == 2, result.output
    assert "no game in" in result.output and "new-game" in result.output, result.output
    assert not db.exists()


def test_run_with_no_game_anywhere_makes_no_database(tmp_path: Path) -> None:
    db = tmp_path / "none.db"
    config = tmp_path / "c.toml"
    config.write_text(f'[database]\nurl = "sqlite:///{db.as_posix()}"\n', encoding="utf-8")
    try:  # a subprocess: a daemon that waits for games would never return
        done = subprocess.run([sys.executable, "-m", "tianshen.cli", "run", "--config", str(config)],
                              capture_output=True, text=True, timeout=30, env={**os.environ, **WIDE})
    except subprocess.TimeoutExpired:
        pytest.fail("tianshen run waited for a game that nothing will sign up")
    assert done.returncode == 2 and "no game" in done.stdout, done.stdout + done.stderr
    assert not db.exists()


def test_the_web_pages_make_no_database(tmp_path: Path) -> None:
    db = tmp_path / "none.db"
    config = tmp_path / "c.toml"
    config.write_text(f'[database]\nurl = "sqlite:///{db.as_posix()}"\n', encoding="utf-8")
    result = run("web", "--config", str(config), "--port", "1")
    assert result.exit_code == 2 and "no game in" in result.output, result.output
    assert not db.exists()


def test_help_shows_the_table_names() -> None:
    new_game = run("admin", "new-game", "--help")
    assert "[game]" in new_game.output, new_game.output
    web = run("web", "--help")
    assert "[database]" in web.output and "[web]" in web.output, web.output


def _help_texts(command: Any, path: str = "tianshen") -> dict[str, str]:
    texts = {path: command.help or ""}
    for param in command.params:
        texts[f"{path} {param.name}"] = getattr(param, "help", None) or ""
    if hasattr(command, "commands"):
        for name, sub in command.commands.items():
            texts |= _help_texts(sub, f"{path} {name}")
    return texts


def test_help_is_in_one_language() -> None:
    """English; a Chinese word only in brackets after its English (or as the title it is)."""
    han = re.compile(r"[\u4e00-\u9fff]")
    quoted = re.compile(r"\([^()]*\)|《[^》]*》")
    for where, text in _help_texts(typer.main.get_command(app)).items():
        bare = quoted.sub("", text)
        assert not han.search(bare), f"{where}: {text}"
        assert "DECISIONS" not in text and not re.search(r"\b00\d\b", text), f"{where}: {text}"
