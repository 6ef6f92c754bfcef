"""Issue 23: docs/first-game.md is followed as written.

* every `tianshen …` command of the page parses (its options and arguments, as typed);
* its config block loads, names the page's trial variant and only accounts the page makes;
* live, in test_spirit_game.py (the suite's whole game on Spirit, so not a second one): the
  page's own commands, run as a GM types them, bring up the local Spirit forum and play the
  trial game to a winner.  The helpers it uses are here.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import time
import urllib.request
from datetime import UTC, datetime
from pathlib import Path

import click
import pytest
import typer
import typer.main
from typer.testing import CliRunner

from tianshen.cli import app
from tianshen.config import check_games, load_config

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "first-game.md"
TRIAL = ROOT / "docs" / "examples" / "classic_8_trial.toml"
SRC = ROOT / "src"


def _blocks(lang: str) -> list[str]:
    text = DOC.read_text(encoding="utf-8")
    return [body for tag, body in re.findall(r"^```(\w*)\n(.*?)^```", text, re.M | re.S) if tag == lang]


def _commands() -> list[list[str]]:
    """Every `.venv/bin/tianshen …` of the page: the lines of its sh blocks (continuations
    joined) and the commands quoted inline; the words after `tianshen`."""
    lines = []
    for block in _blocks("sh"):
        lines += block.replace("\\\n", " ").splitlines()
    lines += re.findall(r"`(\.venv/bin/tianshen [^`]+)`", DOC.read_text(encoding="utf-8"))
    return [[os.path.expanduser(w) for w in shlex.split(line)[1:]]  # `~/…` as the shell expands it
            for line in lines if line.startswith(".venv/bin/tianshen")]


def _setup_lines() -> list[str]:
    """The page's `mkdir` and `cp` lines, in order: what makes the trial directory."""
    return [ln for b in _blocks("sh") for ln in b.splitlines() if ln.startswith(("mkdir ", "cp "))]


def _command(*path: str) -> list[str]:
    found = [c for c in _commands() if c[: len(path)] == list(path)]
    assert found, f"the page has no `tianshen {' '.join(path)}`"
    return found[0]


def _config_block() -> str:
    found = [b for b in _blocks("toml") if b.startswith("# ~/tianshen-trial/config.toml")]
    assert len(found) == 1
    return found[0]


def _parse(args: list[str]) -> None:
    """Parse a command line as `tianshen` would (options, arguments), without running it."""
    cmd: click.Command = typer.main.get_command(app)
    path = ["tianshen"]
    while isinstance(cmd, click.Group) and args and not args[0].startswith("-"):
        sub = cmd.get_command(click.Context(cmd), args[0])
        assert sub is not None, f"no command `{' '.join(path + args[:1])}`"
        path.append(args[0])
        cmd, args = sub, args[1:]
    try:
        cmd.make_context(" ".join(path), list(args))
    except (click.exceptions.Exit, typer.Exit) as exc:  # --help
        assert exc.exit_code == 0
    except click.UsageError as exc:
        raise AssertionError(f"`{' '.join(path + args)}`: {exc}") from None


def test_every_command_of_the_page_parses() -> None:
    commands = _commands()
    assert len(commands) >= 15
    for args in commands:
        _parse(args)
    for path in (("forum", "spirit-local"), ("forum", "spirit-account"), ("forum", "check"), ("admin", "new-game"),
                 ("run",), ("web",), ("admin", "status"), ("admin", "export")):
        _command(*path)


def _trial_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """The layout the page uses: the clone (its `docs/`) and, outside it, the GM's
    `~/tianshen-trial/` ($HOME is a directory of the test; the cached forum install stays
    where it is).  Returns (the clone, the trial directory), made by the page's commands."""
    from tianshen.forum.spirit_local import cache_dir

    clone, home = tmp_path / "clone", tmp_path / "home"
    clone.mkdir()
    home.mkdir()
    (clone / "docs").symlink_to(ROOT / "docs")
    monkeypatch.setenv("TIANSHEN_SPIRIT_CACHE", str(cache_dir()))
    monkeypatch.setenv("HOME", str(home))
    for line in _setup_lines():
        subprocess.run(line, shell=True, cwd=clone, check=True)  # mkdir -p ~/tianshen-trial; cp …
    return clone, home / "tianshen-trial"


def _accounts_made() -> list[str]:
    args = _command("forum", "spirit-local", "--dir")
    return args[args.index("--accounts") + 1].split(",")


def test_the_config_of_the_page_loads(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _, trial = _trial_dir(tmp_path, monkeypatch)
    path = trial / "config.toml"
    path.write_text(_config_block(), encoding="utf-8")
    cfg = load_config(path)
    check_games(path, cfg)
    (game,) = cfg.games()
    assert Path(game.ruleset) == (trial / "classic_8_trial.toml").resolve()  # the page's copy
    assert Path(cfg.run.simulate_accounts or "") == (trial / "forum" / "accounts.json").resolve()
    assert cfg.database.url == f"sqlite:///{(trial / 'tianshen.db').resolve().as_posix()}"
    accounts = [p.name for p in game.players] + [p.forum_name for p in game.players] + game.substitutes + [
        game.gm_contact]
    assert len(game.players) == 8 and sorted(accounts) == sorted(_accounts_made())  # the page makes them all
    assert cfg.forum.password_env == "TIANSHEN_FORUM_PASSWORD" and cfg.forum.password is None
    # the line the page gives for `start`
    line = next(b for b in _blocks("sh") if "isoformat" in b).strip().split(" ", 1)[1]
    out = subprocess.run([sys.executable, *shlex.split(line)], capture_output=True, text=True, check=True).stdout
    assert datetime.fromisoformat(out.strip()).tzinfo is not None


def test_the_trial_variant_is_classic_8_in_minutes() -> None:
    from tianshen.specs import load_spec

    trial, base = load_spec(str(TRIAL)), load_spec("classic_8")
    assert trial.id == "classic_8_trial" and trial.roles == base.roles and trial.options == base.options
    for key, hours in base.timing.model_dump().items():
        assert trial.timing.hours(key) == pytest.approx(hours / 720, rel=0.01), key




def _env(**extra: str) -> dict[str, str]:
    env = dict(os.environ, **extra)
    env["PYTHONPATH"] = os.pathsep.join([str(SRC), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    return env


def _tianshen(args: list[str], cwd: Path, env: dict[str, str], **kwargs: object) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tianshen.cli", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, **kwargs)  # type: ignore[call-overload]


def _wait_for(url: str, proc: subprocess.Popen, log: Path, timeout: float) -> None:
    give_up = time.monotonic() + timeout
    while time.monotonic() < give_up:
        if proc.poll() is not None:
            break
        try:
            with urllib.request.urlopen(url, timeout=2) as resp:
                if resp.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.2)
    reason = f"`tianshen forum spirit-local` did not serve {url}: {log.read_text(encoding='utf-8')[-2000:]}"
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(reason, pytrace=False)
    pytest.skip(reason)


def _stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def test_spirit_local_keeps_its_forum_and_adds_accounts(tmp_path: Path) -> None:
    """A second `spirit-local` on the same directory serves the same forum: the accounts it
    had keep their passwords (not printed again), new ones are added, the GM's password
    follows $TIANSHEN_FORUM_PASSWORD."""
    from tianshen.forum.spirit_local import LocalForum, SpiritSetupError, ensure_venv

    try:
        ensure_venv()
    except SpiritSetupError as exc:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(str(exc), pytrace=False)
        pytest.skip(str(exc))
    where = tmp_path / "forum"
    first = _tianshen(["forum", "spirit-local", "--dir", str(where), "--accounts", "白狐,青竹", "--no-serve"],
                      tmp_path, _env(TIANSHEN_FORUM_PASSWORD=""))
    assert first.returncode == 0, first.stdout + first.stderr
    forum = LocalForum.load(where)
    assert list(forum.accounts) == ["神的使者", "白狐", "青竹"] and forum.port == 8000
    assert f"GM account 神的使者: password {forum.gm_password}  (generated)" in first.stdout
    again = _tianshen(["forum", "spirit-local", "--dir", str(where), "--accounts", "白狐，夜莺", "--port", "8123",
                       "--no-serve"], tmp_path, _env(TIANSHEN_FORUM_PASSWORD="a-new-gm-password"))
    assert again.returncode == 0, again.stdout + again.stderr
    assert "account 夜莺: password" in again.stdout and "白狐" not in again.stdout
    later = LocalForum.load(where)
    assert later.port == 8123 and later.gm_password == "a-new-gm-password"
    assert later.accounts["白狐"] == forum.accounts["白狐"] and "夜莺" in later.accounts
    checked = later.shell("from django.contrib.auth import get_user_model\n"
                          "u = get_user_model().objects.get(username='神的使者')\n"
                          "print(u.check_password('a-new-gm-password'), u.st.is_administrator)")
    assert checked.strip().splitlines()[-1].split() == ["True", "True"]
    missing = _tianshen(["forum", "spirit-account", "小雨", "--dir", str(tmp_path / "nothing")], tmp_path, _env())
    assert missing.returncode == 2 and "no local forum in" in missing.stdout


def test_simulated_players_on_spirit_need_the_accounts_file(tmp_path: Path) -> None:
    from tianshen.config import ForumConfig
    from tianshen.forum.factory import make_forum
    from tianshen.service.daemon import Daemon
    from tianshen.sim import DaemonPlayers

    config = tmp_path / "c.toml"
    base = (f'[database]\nurl = "sqlite:///{(tmp_path / "d.db").as_posix()}"\n[forum]\nkind = "spirit"\n'
            f'base_url = "http://127.0.0.1:9/"\npassword = "x"\n[run]\nsimulate = true\n')
    config.write_text(base, encoding="utf-8")
    with pytest.raises(ValueError, match=r"\[run\] simulate: .* simulate_accounts"):
        load_config(config)
    result = CliRunner().invoke(app, ["run", "--config", str(config)])  # refused before the forum is asked
    assert result.exit_code == 2 and "simulate_accounts" in result.output, result.output
    (tmp_path / "forum").mkdir()
    (tmp_path / "forum" / "accounts.json").write_text('{"神的使者": "gm", "白狐": "p1", "青竹": "p2"}', encoding="utf-8")
    config.write_text(base + 'simulate_accounts = "forum/accounts.json"\n', encoding="utf-8")
    cfg = load_config(config)
    assert cfg.run.simulate_accounts == str(tmp_path / "forum" / "accounts.json")  # beside the config
    forum, _ = make_forum(ForumConfig(kind="memory"), lambda: datetime.now(UTC))
    daemon = Daemon(cfg, forum=forum, players=DaemonPlayers())
    assert list(daemon.players_side.names) == ["白狐", "青竹"]  # type: ignore[union-attr]  (never the GM)
    daemon.store.close()


def test_spirit_local_serves_its_css_and_js(tmp_path: Path) -> None:
    """Issue 32 item 10: a seat played by hand in a browser gets the forum's stylesheet and
    scripts (waitress serves no files; they were 404 and the pages bare HTML)."""
    from tianshen.forum.spirit_local import SpiritSetupError, ensure_venv, free_port

    try:
        ensure_venv()
    except SpiritSetupError as exc:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(str(exc), pytrace=False)
        pytest.skip(str(exc))
    port = free_port()
    log = tmp_path / "spirit-local.log"
    with open(log, "w", encoding="utf-8") as out:
        proc = subprocess.Popen([sys.executable, "-m", "tianshen.cli", "forum", "spirit-local", "--dir",
                                 str(tmp_path / "forum"), "--port", str(port), "--accounts", "白狐"],
                                cwd=tmp_path, env=_env(TIANSHEN_FORUM_PASSWORD="a-gm-password"), stdout=out,
                                stderr=subprocess.STDOUT)
    try:
        _wait_for(f"http://127.0.0.1:{port}/", proc, log, timeout=600)
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=10) as resp:
            page = resp.read().decode("utf-8")
        links = re.findall(r'(?:href|src)="(/static/[^"]+\.(?:css|js))"', page)
        assert any(u.endswith(".css") for u in links) and any(u.endswith(".js") for u in links), page[:2000]
        for url in links:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}{url}", timeout=10) as resp:
                assert resp.status == 200 and resp.read(), url
    finally:
        _stop(proc)


def test_the_trial_stays_out_of_the_clone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 32 item 10: the forum (every account's password), the config, the database and
    the exports go to ~/tianshen-trial/, never into the clone; `trial/` is ignored by git
    all the same; the web token's minimum length is on the page."""
    clone, trial = _trial_dir(tmp_path, monkeypatch)
    for args in _commands():
        for option in ("--dir", "--config", "--json", "--report"):
            if option in args:
                where = Path(args[args.index(option) + 1])
                assert where.is_absolute() and trial in where.parents, (args, where)
    assert (trial / "classic_8_trial.toml").is_file() and not (clone / "trial").exists()
    ignored = subprocess.run(["git", "check-ignore", "-q", "trial/forum/accounts.json"], cwd=ROOT)
    assert ignored.returncode == 0, "git does not ignore trial/"
    assert "at least 16 characters" in DOC.read_text(encoding="utf-8")
