"""End to end: a whole game on a live Spirit forum, played as docs/first-game.md says.

The page's own commands, run as a GM types them (`python -m tianshen.cli` for
`.venv/bin/tianshen`), bring up the local forum (`tianshen forum spirit-local`, then
`forum spirit-account`), check it (`forum check`), sign the game up (`admin new-game`) and run
it with `tianshen run` to a winner.  The simulated players log in as their 马甲 and send real
private messages and vote posts; the bot acts only through the forum, and the deadlines fall
by the forum's clock.  Then `admin status`, `admin export`, the backup and the web page.

The only changes to the page: the forum's port (a free one), the start (now), `poll_seconds`,
a fixed seed (a game over after night 2: `SEED`), and a variant that includes the page's trial
variant with its phases in seconds, not minutes.

This is the one live game that runs by real deadlines (the other live games end their phases
early, by events).  So that a loaded machine gives the same verdict, its times are measured,
not guessed: the phases are stretched by how slow the page's `forum check` was against an idle
machine's (`slowness`), the start is "now + the deal's lead time" taken just before the
sign-up, and the run's time-out is computed from the phase lengths.
"""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
import subprocess
import sys
import time
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
# The phases at idle speed.  Measured (phase_use, printed by the test; poll 2 s, ×1.1 at load 3):
# the night's PMs came 2-5 s into the night, the votes 2-3 s after the vote thread opened.  A
# step needs a poll to show it to the players and one to read what they wrote, so each window
# below is at least 2.5 times what it took then (and the whole is stretched by `slowness`).
PHASES_S = dict(night=12, day=14, vote=4, ext=10, ld=6, summon=4)
POLL_S = 1
IDLE_CHECK_S = 4.0  # `forum check` of the page on an idle machine (2 cores): what `slowness` divides by
MAX_SLOWNESS = 8.0
MAX_DAYS = 5  # classic_8 is over within four nights and days; one more for the deal and the end
# The deal's seed (the page lets tianshen draw it at sign-up): one whose game is over after
# night 2 (night 1, day 1 with its votes, night 2: the simulated players act by the seed too), so
# the real deadlines take three phases, not up to seven (a game to night 4 took 90 s of the
# test's 110 s).  Found by playing seeds 1-119 on the memory board by hand-ticks; 25, 54 and 78
# end as early.
SEED = 8


def phase_use(store, game_id: int) -> list[str]:  # store: tianshen.store.Store
    """Each phase's length and when in it the players' inputs came (by the forum's clock):
    how much of a phase the game needed, the measure of PHASES_S."""
    lines = []
    for phase in store.phases(game_id):
        if phase.ended_at is None or phase.label in ("setup", "board"):
            continue
        at = sorted((i.sent_at - phase.started_at).total_seconds() for i in store.inbound(game_id, phase.label)
                    if i.source in ("pm", "post"))
        used = f"inputs {at[0]:.1f}-{at[-1]:.1f} s in" if at else "no input"
        lines.append(f"{phase.label}: {(phase.ended_at - phase.started_at).total_seconds():.1f} s, {used}")
    return lines


def slowness(check_seconds: float) -> float:
    """How much longer than on an idle machine a command took: the phases get that much longer."""
    return min(MAX_SLOWNESS, max(1.0, check_seconds / IDLE_CHECK_S))


def test_the_first_game_page_played_on_a_local_spirit_forum(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tianshen.forum.spirit import SpiritPlayers
    from tianshen.forum.spirit_local import free_port
    from tianshen.store import Store

    root, trial = _trial_dir(tmp_path, monkeypatch)  # the clone, and ~/tianshen-trial outside it
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
        accounts_file = trial / "forum" / "accounts.json"
        assert accounts_file.stat().st_mode & 0o077 == 0
        added = _tianshen(_command("forum", "spirit-account"), root, env)
        assert added.returncode == 0 and "account 小雨: password " in added.stdout, added.stdout + added.stderr

        # 3. the config: the page's, on this port, its variant in seconds (the start: below)
        config = (_config_block().replace("127.0.0.1:8000", f"127.0.0.1:{port}")
                  .replace('ruleset = "classic_8_trial.toml"', 'ruleset = "classic_8_test.toml"')
                  .replace("poll_seconds = 5", f"poll_seconds = {POLL_S}")
                  .replace('\nsubstitutes = ', f"\nseed = {SEED}\nsubstitutes = "))
        assert f"seed = {SEED}" in config
        config_path = trial / "config.toml"

        def write_variant(slow: float) -> None:
            hours = {k: v * slow / 3600 for k, v in PHASES_S.items()}
            (trial / "classic_8_test.toml").write_text(
                FAST.format(base=TRIAL.as_posix(), **hours).replace("10人，测试用快速时间", "8人，试玩，测试用快速时间"),
                encoding="utf-8")

        def write_config(start: datetime) -> None:
            at = start.isoformat(timespec="seconds")
            config_path.write_text(re.sub(r'^start = "[^"]*"', f'start = "{at}"', config, flags=re.M),
                                   encoding="utf-8")

        write_variant(1.0)
        write_config(datetime.now(UTC) + timedelta(days=1))  # for the check; the sign-up sets the start

        # 4. forum check; 5. sign up, run to the end
        t0 = time.monotonic()
        check = _tianshen(_command("forum", "check"), root, env)
        check_seconds = time.monotonic() - t0
        print(check.stdout)
        assert check.returncode == 0, check.stdout + check.stderr
        assert "✔ send a test PM to 老王" in check.stdout
        assert "✔ accounts of 1 game(s): 18 exist" in check.stdout, check.stdout
        slow = slowness(check_seconds)
        write_variant(slow)
        # the start: now + the deal's lead time (new-game does what `forum check` did, and the
        # deal's writes have no flood interval on this forum), taken just before the sign-up
        write_config(datetime.now(UTC) + timedelta(seconds=2 * check_seconds + 1))
        signed = _tianshen(_command("admin", "new-game"), root, env)
        assert signed.returncode == 0 and "game 试玩局 (#1, classic_8_test, 8 players, 1 substitutes) signed up" \
            in signed.stdout, signed.stdout + signed.stderr
        game_seconds = MAX_DAYS * (PHASES_S["night"] + PHASES_S["day"] + PHASES_S["ext"]) * slow
        print(f"forum check took {check_seconds:.1f} s: phases ×{slow:.1f}, the run's time-out {game_seconds + 120:.0f} s")
        ran = _tianshen(_command("run"), root, env, timeout=game_seconds + 120)
        print(ran.stdout[-3000:])
        assert ran.returncode == 0, ran.stdout[-3000:] + ran.stderr[-3000:]
        last = ran.stdout.strip().splitlines()[-1]
        assert re.fullmatch(r"game 试玩局: over, winner (平民方 \(civilians\)|杀手方 \(killers\))", last), last
        assert "gm-password-of-the-test" not in ran.stdout + ran.stderr

        # what the players saw: every PM answered, on the forum; the votes read from the vote threads
        store = Store(f"sqlite:///{trial / 'tianshen.db'}")
        game_id = store.game_id("试玩局")
        assert game_id is not None and not store.pending_outbox(game_id)
        received = Counter(i.sender for i in store.inbound(game_id) if i.source == "pm")
        answered = Counter(o.target for o in store.outbox(game_id) if o.kind == "pm" and o.subject == "天神回复")
        assert received and received == answered  # 001 §2.12 / 0.3: every PM gets its receipt
        assert any(i.source == "post" for i in store.inbound(game_id))
        print("phases: " + "; ".join(phase_use(store, game_id)))
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
        assert json.loads((trial / "log.json").read_text(encoding="utf-8"))["events"]
        assert (trial / "report.txt").read_text(encoding="utf-8")
        backup = next(b for b in _blocks("sh") if ".backup" in b).strip()
        if shutil.which("sqlite3"):
            subprocess.run(backup, shell=True, cwd=root, env=env, check=True)  # as typed: ~ and $HOME
        else:  # the same online backup through Python's sqlite3
            with sqlite3.connect(trial / "tianshen.db") as src, sqlite3.connect(trial / "backup.db") as dst:
                src.backup(dst)
        with sqlite3.connect(trial / "backup.db") as db:
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
