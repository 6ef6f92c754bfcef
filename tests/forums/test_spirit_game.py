"""End to end: a whole game on a live Spirit forum, played as docs/first-game.md says.

The page's own commands, run as a GM types them (`python -m tianshen.cli` for
`.venv/bin/tianshen`), bring up the local forum (`tianshen forum spirit-local`, then
`forum spirit-account`), check it (`forum check`), sign the game up (`admin new-game`) and run
it with `tianshen run` to a winner.  The simulated players log in as their 马甲 and send real
private messages and vote posts; the bot acts only through the forum, and the deadlines fall
by the forum's clock.  Then `admin status`, `admin export`, the backup and the web page.

The only changes to the page: the forum's port (a free one), the start (now), `poll_seconds`,
and a variant that includes the page's trial variant with its phases in seconds, not minutes.
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
import sqlite3
import subprocess
import sys
import urllib.request
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tianshen.cli import app

from .test_first_game_doc import (
    TRIAL,
    _blocks,
    _command,
    _config_block,
    _env,
    _stop,
    _tianshen,
    _trial_dir,
    _wait_for,
)

pytestmark = pytest.mark.live

RULESETS = Path(__file__).resolve().parents[2] / "rulesets"
FAST = """
include = ["{base}"]
title = "经典杀人游戏（10人，测试用快速时间）"

[timing]            # seconds instead of hours, in the proportions of 002
night_hours = {night}
day_hours = {day}
vote_opens_hour = {vote}
ld_extension_hours = {ext}
ld_hours = {ld}
summon_round_hours = {summon}
"""


def test_the_first_game_page_played_on_a_local_spirit_forum(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tianshen.forum.spirit import SpiritPlayers
    from tianshen.forum.spirit_local import free_port
    from tianshen.store import Store

    root = _trial_dir(tmp_path)
    monkeypatch.chdir(root)  # the page runs everything from the top of the clone
    port = free_port()
    env = _env(TIANSHEN_FORUM_PASSWORD="gm-password-of-the-test", TIANSHEN_WEB_TOKEN="web-token-of-the-test",
               COLUMNS="200")
    # 2. the forum, as the page starts it (on a free port), and an account added later
    forum_args = [a.replace("8000", str(port)) for a in _command("forum", "spirit-local", "--dir")]
    log = root / "spirit-local.log"
    with open(log, "w", encoding="utf-8") as out:
        forum = subprocess.Popen([sys.executable, "-m", "tianshen.cli", *forum_args], cwd=root, env=env,
                                 stdout=out, stderr=subprocess.STDOUT)
    try:
        _wait_for(f"http://127.0.0.1:{port}/", forum, log, timeout=900)
        made = log.read_text(encoding="utf-8")
        assert "GM account 神的使者: password from $TIANSHEN_FORUM_PASSWORD" in made
        assert made.count("account ") == 19 and "gm-password-of-the-test" not in made
        accounts_file = root / "trial" / "forum" / "accounts.json"
        assert accounts_file.stat().st_mode & 0o077 == 0
        added = _tianshen(_command("forum", "spirit-account"), root, env)
        assert added.returncode == 0 and "account 小雨: password " in added.stdout, added.stdout + added.stderr

        # 3. the config: the page's, on this port, starting now, its variant in seconds
        s = 1 / 3600
        (root / "trial" / "classic_8_test.toml").write_text(
            FAST.format(base=TRIAL.as_posix(), night=30 * s, day=35 * s, vote=8 * s, ext=24 * s, ld=12 * s,
                        summon=6 * s).replace("10人，测试用快速时间", "8人，试玩，测试用快速时间"), encoding="utf-8")
        start = (datetime.now(UTC) + timedelta(seconds=10)).isoformat(timespec="seconds")
        config = (_config_block().replace("127.0.0.1:8000", f"127.0.0.1:{port}")
                  .replace("../docs/examples/classic_8_trial.toml", "classic_8_test.toml")
                  .replace("poll_seconds = 5", "poll_seconds = 2"))
        config = re.sub(r'^start = "[^"]*"', f'start = "{start}"', config, flags=re.M)
        (root / "trial" / "config.toml").write_text(config, encoding="utf-8")

        # 4. forum check; 5. sign up, run to the end
        check = _tianshen(_command("forum", "check"), root, env)
        print(check.stdout)
        assert check.returncode == 0, check.stdout + check.stderr
        assert "✔ send a test PM to 老王" in check.stdout
        assert "✔ accounts of 1 game(s): 18 exist" in check.stdout, check.stdout
        signed = _tianshen(_command("admin", "new-game"), root, env)
        assert signed.returncode == 0 and "game 试玩局 (#1, classic_8_test, 8 players, 1 substitutes) signed up" \
            in signed.stdout, signed.stdout + signed.stderr
        ran = _tianshen(_command("run"), root, env, timeout=900)
        print(ran.stdout[-3000:])
        assert ran.returncode == 0, ran.stdout[-3000:] + ran.stderr[-3000:]
        last = ran.stdout.strip().splitlines()[-1]
        assert re.fullmatch(r"game 试玩局: over, winner (civilians|killers)", last), last
        assert "gm-password-of-the-test" not in ran.stdout + ran.stderr

        # what the players saw: every PM answered, on the forum; the votes read from the vote threads
        store = Store(f"sqlite:///{root / 'trial' / 'tianshen.db'}")
        game_id = store.game_id("试玩局")
        assert game_id is not None and not store.pending_outbox(game_id)
        received = Counter(i.sender for i in store.inbound(game_id) if i.source == "pm")
        answered = Counter(o.target for o in store.outbox(game_id) if o.kind == "pm" and o.subject == "天神回复")
        assert received and received == answered  # 001 §2.12 / 0.3: every PM gets its receipt
        assert any(i.source == "post" for i in store.inbound(game_id))
        setup = store.load_game(game_id).config["setup"]
        store.close()
        passwords = json.loads(accounts_file.read_text(encoding="utf-8"))
        players = SpiritPlayers(f"http://127.0.0.1:{port}", passwords, "神的使者")
        for seat in setup["seats"]:
            from_gm = [pm for pm in players.inbox(seat["name"]) if pm.sender == "神的使者"]
            assert len(from_gm) >= answered[seat["name"]], seat  # the receipts, in the 马甲's private topics
            role = [pm for pm in players.inbox(seat["forum_name"]) if pm.sender == "神的使者"]
            assert role, seat  # the role PM, in the player's own account

        # 7. the overrides' status and the log; 8. the backups
        status = CliRunner().invoke(app, _command("admin", "status"), env=env)
        assert status.exit_code == 0 and "试玩局" in status.output, status.output
        exported = CliRunner().invoke(app, _command("admin", "export"), env=env)
        assert exported.exit_code == 0, exported.output
        assert json.loads((root / "trial" / "log.json").read_text(encoding="utf-8"))["events"]
        assert (root / "trial" / "report.txt").read_text(encoding="utf-8")
        backup = next(b for b in _blocks("sh") if ".backup" in b).strip()
        if shutil.which("sqlite3"):
            subprocess.run(shlex.split(backup), cwd=root, check=True)
        else:  # the same online backup through Python's sqlite3
            with sqlite3.connect(root / "trial" / "tianshen.db") as src, \
                    sqlite3.connect(root / "trial" / "backup.db") as dst:
                src.backup(dst)
        with sqlite3.connect(root / "trial" / "backup.db") as db:
            assert db.execute("select status from games where name = '试玩局'").fetchall() == [("over",)]

        # 6. the web page
        web_port = free_port()
        web = subprocess.Popen([sys.executable, "-m", "tianshen.cli", *_command("web"), "--port", str(web_port)],
                               cwd=root, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            _wait_for(f"http://127.0.0.1:{web_port}/", web, log, timeout=60)
            with urllib.request.urlopen(f"http://127.0.0.1:{web_port}/game/{game_id}", timeout=10) as resp:
                assert "白狐" in resp.read().decode("utf-8")
        finally:
            _stop(web)
    finally:
        _stop(forum)
    assert forum.returncode == 0 and "serving http://127.0.0.1:" in log.read_text(encoding="utf-8")
