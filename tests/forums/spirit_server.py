"""A throwaway django-spirit 0.14.3 forum on 127.0.0.1 for the adapter and end-to-end tests.

django-spirit is a test-only dependency: it is installed (with waitress) into its own cached
virtual environment, never into the project's.  The cache is `~/.cache/tianshen/spirit-0.14.3/`
(`TIANSHEN_SPIRIT_CACHE` overrides); it is built once, marked complete, and reused; a lock file
makes two processes that race wait for one another.

`start_spirit_server(tmp_dir)` then makes a fresh forum project in `tmp_dir`
(`spirit startproject`, our settings module `spirit_settings.py` copied in as `settings/ci.py`,
`spiritinstall`), seeds it (the GM 神的使者 as superuser, the players, the game category,
`comments_per_page`), serves it with waitress on a free port and waits for HTTP 200.

Run it by hand to get a forum to click around in (Ctrl-C stops it):
    python tests/forums/spirit_server.py /tmp/f [--ratelimit]
"""

from __future__ import annotations

import atexit
import contextlib
import fcntl
import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

SPIRIT_VERSION = "0.14.3"
WAITRESS_VERSION = "3.0.2"
PROJECT = "mafiaforum"
GM_USERNAME = "神的使者"
GAME_CATEGORY = "杀人游戏"
DEFAULT_PLAYERS = tuple("白狐 青竹 夜莺 孤舟 寒梅 石榴 墨鱼 飞燕 老槐 山雀 灯笼 雨伞 铜铃 纸鸢 松鼠 茶壶".split()) + (
    "alice", "bob")
SETTINGS_FILE = Path(__file__).with_name("spirit_settings.py")
FORMATS = 'DATETIME_FORMAT = "c"  # ISO 8601 with microseconds and offset\n'


class SpiritSetupError(RuntimeError):
    """The test forum could not be installed or started (the message says which step and why)."""


def cache_dir() -> Path:
    env = os.environ.get("TIANSHEN_SPIRIT_CACHE")
    if env:
        return Path(env).expanduser()
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "tianshen" / f"spirit-{SPIRIT_VERSION}"


def _run(cmd: list[str], *, step: str, cwd: Path | None = None, env: dict[str, str] | None = None,
         timeout: float = 600) -> str:
    try:
        proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise SpiritSetupError(f"{step}: {exc}") from exc
    if proc.returncode != 0:
        tail = (proc.stderr or proc.stdout).strip()[-2000:]
        raise SpiritSetupError(f"{step} failed (exit {proc.returncode}): {tail}")
    return proc.stdout


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def ensure_venv(timings: dict[str, float] | None = None) -> Path:
    """The cached virtualenv with django-spirit and waitress; returns its bin directory."""
    root = cache_dir()
    venv = root / "venv"
    marker = root / "complete"
    bin_dir = venv / "bin"
    if marker.exists() and (bin_dir / "python").exists():
        return bin_dir
    t0 = time.monotonic()
    with _locked(root / ".lock"):
        if marker.exists() and (bin_dir / "python").exists():  # another process built it meanwhile
            return bin_dir
        if venv.exists():
            shutil.rmtree(venv)  # a half-built one
        _run([sys.executable, "-m", "venv", str(venv)], step="creating the django-spirit virtualenv")
        _run([str(bin_dir / "python"), "-m", "pip", "install", "--disable-pip-version-check", "-q",
              f"django-spirit=={SPIRIT_VERSION}", f"waitress=={WAITRESS_VERSION}"],
             step=f"pip install django-spirit=={SPIRIT_VERSION} waitress=={WAITRESS_VERSION}")
        marker.write_text(f"django-spirit=={SPIRIT_VERSION} waitress=={WAITRESS_VERSION}\n")
    if timings is not None:
        timings["venv"] = time.monotonic() - t0
    return bin_dir


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


_SEED = r"""
import json, os
from django.contrib.auth import get_user_model
from djconfig.models import Config
from spirit.category.models import Category
spec = json.loads(os.environ["SPIRIT_SEED"])
User = get_user_model()

def make(name, password, superuser=False):
    user = User.objects.filter(username=name.lower()).first()
    if user is None:
        make_user = User.objects.create_superuser if superuser else User.objects.create_user
        user = make_user(username=name, email=f"u{User.objects.count() + 1}@example.com", password=password)
    else:
        user.set_password(password)
        user.save()
    profile = user.st
    profile.nickname = name
    profile.is_verified = True
    if superuser:
        profile.is_administrator = True
        profile.is_moderator = True
    profile.save()
    return user

make(spec["gm"], spec["gm_password"], superuser=True)
for name, password in spec["players"].items():
    make(name, password)
category, _ = Category.objects.get_or_create(title=spec["category"], defaults={"description": "Mafia"})
Config.objects.update_or_create(key="comments_per_page", defaults={"value": json.dumps(spec["comments_per_page"])})
print(json.dumps({"category_id": category.pk,
                  "users": {u.st.nickname: u.username for u in User.objects.all()}}, ensure_ascii=False))
"""


@dataclass
class SpiritServer:
    base_url: str
    gm_username: str
    gm_password: str
    players: dict[str, str]
    category_id: int
    category: str
    project_dir: Path
    env: dict[str, str]
    bin_dir: Path
    process: subprocess.Popen | None = None
    timings: dict[str, float] = field(default_factory=dict)

    def manage(self, *args: str, input_env: dict[str, str] | None = None) -> str:
        """Run `manage.py ARGS` on this forum's project; returns its stdout."""
        env = dict(self.env, **(input_env or {}))
        return _run([str(self.bin_dir / "python"), "manage.py", *args], step=f"manage.py {args[0]}",
                    cwd=self.project_dir, env=env, timeout=120)

    def shell(self, code: str, **env: str) -> str:
        """Run Python code in this forum's Django shell (`manage.py shell -c`); returns its stdout."""
        return self.manage("shell", "-c", code, input_env=env)

    def stop(self) -> None:
        proc, self.process = self.process, None
        if proc is None or proc.poll() is not None:
            return
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)

    def __enter__(self) -> SpiritServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _wait_up(url: str, proc: subprocess.Popen, log: Path, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SpiritSetupError(f"waitress exited with {proc.returncode}: {log.read_text()[-2000:]}")
        try:
            with urllib.request.urlopen(url, timeout=2) as resp:
                if resp.status == 200:
                    return
        except (urllib.error.URLError, OSError):
            pass
        time.sleep(0.1)
    raise SpiritSetupError(f"the forum did not answer 200 at {url} within {timeout:.0f} s: "
                           f"{log.read_text()[-2000:]}")


def start_spirit_server(tmp_dir: Path | str, *, ratelimit: bool = False, comments_per_page: int = 5,
                        players: Iterable[str] = DEFAULT_PLAYERS, iso_dates: bool = True,
                        double_post_minutes: int = 30, port: int | None = None) -> SpiritServer:
    """Install (cached), create, seed and serve a fresh Spirit forum under `tmp_dir`."""
    timings: dict[str, float] = {}
    t_all = time.monotonic()
    bin_dir = ensure_venv(timings)
    tmp = Path(tmp_dir)
    tmp.mkdir(parents=True, exist_ok=True)
    project_dir = tmp / PROJECT
    port = port or free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "SPIRIT_", "VIRTUAL_ENV"))}
    env.update(
        PATH=f"{bin_dir}{os.pathsep}{env.get('PATH', '')}",  # `spirit startproject` runs django-admin from PATH
        DJANGO_SETTINGS_MODULE=f"{PROJECT}.settings.ci",
        SPIRIT_PORT=str(port),
        SPIRIT_DB=str(project_dir / "db.sqlite3"),
        SPIRIT_RATELIMIT="1" if ratelimit else "0",
        SPIRIT_ISO_DATES="1" if iso_dates else "0",
        SPIRIT_DOUBLE_POST_MIN=str(double_post_minutes),
        PYTHONDONTWRITEBYTECODE="1",
        PYTHONIOENCODING="utf-8",
    )
    t0 = time.monotonic()
    if project_dir.exists():
        shutil.rmtree(project_dir)
    startenv = {k: v for k, v in env.items() if k != "DJANGO_SETTINGS_MODULE"}
    _run([str(bin_dir / "spirit"), "startproject", PROJECT], step="spirit startproject", cwd=tmp, env=startenv)
    pkg = project_dir / PROJECT
    shutil.copyfile(SETTINGS_FILE, pkg / "settings" / "ci.py")
    (pkg / "formats" / "en").mkdir(parents=True, exist_ok=True)
    (pkg / "formats" / "__init__.py").write_text("")
    (pkg / "formats" / "en" / "__init__.py").write_text("")
    (pkg / "formats" / "en" / "formats.py").write_text(FORMATS)
    timings["startproject"] = time.monotonic() - t0

    t0 = time.monotonic()
    py = str(bin_dir / "python")
    _run([py, "manage.py", "spiritinstall"], step="manage.py spiritinstall", cwd=project_dir, env=env)
    timings["spiritinstall"] = time.monotonic() - t0

    t0 = time.monotonic()
    gm_password = secrets.token_urlsafe(12)
    player_pw = {name: secrets.token_urlsafe(9) for name in players}
    spec = {"gm": GM_USERNAME, "gm_password": gm_password, "players": player_pw, "category": GAME_CATEGORY,
            "comments_per_page": comments_per_page}
    out = _run([py, "manage.py", "shell", "-c", _SEED], step="seeding the forum", cwd=project_dir,
               env=dict(env, SPIRIT_SEED=json.dumps(spec)))
    seeded = json.loads(out.strip().splitlines()[-1])
    timings["seed"] = time.monotonic() - t0

    t0 = time.monotonic()
    log = tmp / "waitress.log"
    with open(log, "wb") as fh:
        proc = subprocess.Popen(
            [str(bin_dir / "waitress-serve"), f"--listen=127.0.0.1:{port}", "--threads=4",
             f"{PROJECT}.wsgi:application"],
            cwd=project_dir, env=env, stdout=fh, stderr=subprocess.STDOUT)
    server = SpiritServer(base_url=f"http://127.0.0.1:{port}", gm_username=GM_USERNAME, gm_password=gm_password,
                          players=player_pw, category_id=seeded["category_id"], category=GAME_CATEGORY,
                          project_dir=project_dir, env=env, bin_dir=bin_dir, process=proc, timings=timings)
    atexit.register(server.stop)  # should the caller never get to stop it
    try:
        _wait_up(server.base_url + "/", proc, log)
    except BaseException:
        server.stop()
        raise
    timings["start"] = time.monotonic() - t0
    timings["total"] = time.monotonic() - t_all
    return server


if __name__ == "__main__":
    where = Path(sys.argv[1] if len(sys.argv) > 1 else "/tmp/spirit-forum")
    srv = start_spirit_server(where, ratelimit="--ratelimit" in sys.argv)
    print(json.dumps({"base_url": srv.base_url, "gm": [srv.gm_username, srv.gm_password], "players": srv.players,
                      "category_id": srv.category_id, "pid": srv.process.pid if srv.process else None,
                      "timings": {k: round(v, 2) for k, v in srv.timings.items()}}, ensure_ascii=False, indent=1),
          flush=True)
    try:  # serve until interrupted
        if srv.process:
            srv.process.wait()
    except KeyboardInterrupt:
        srv.stop()
