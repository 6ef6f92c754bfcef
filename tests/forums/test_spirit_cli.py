"""`tianshen forum check` against a live Spirit forum, configured as a GM would."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from tianshen.cli import app


def test_forum_check_on_spirit(spirit_server, tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text(f"""
[forum]
kind = "spirit"
base_url = "{spirit_server.base_url}"
username = "{spirit_server.gm_username}"
password_env = "TEST_SPIRIT_PASSWORD"
flood_interval_s = 0
""", encoding="utf-8")
    player = next(iter(spirit_server.players))
    env = {"TEST_SPIRIT_PASSWORD": spirit_server.gm_password, "COLUMNS": "200"}
    result = CliRunner().invoke(app, ["forum", "check", "--config", str(config), "--pm-to", player], env=env)
    assert result.exit_code == 0, result.output
    assert f"✔ log in as {spirit_server.gm_username}" in result.output
    assert "✔ server clock" in result.output and f"✔ send a test PM to {player}" in result.output
    assert "markup markdown, post cap 3000" in result.output
    assert spirit_server.gm_password not in result.output  # credentials never echoed

    wrong = CliRunner().invoke(app, ["forum", "check", "--config", str(config)],
                               env={**env, "TEST_SPIRIT_PASSWORD": "wrong-password"})
    assert wrong.exit_code == 1 and "✘ log in" in wrong.output
