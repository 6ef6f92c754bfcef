"""A local django-spirit 0.14.3 forum on 127.0.0.1: for a GM's trial game, and for the tests.

django-spirit is not a dependency of tianshen: it is installed (with waitress) from PyPI into
its own cached virtual environment, never into tianshen's.  The cache is
`~/.cache/tianshen/spirit-0.14.3/` (`TIANSHEN_SPIRIT_CACHE` overrides); it is built once,
marked complete, and reused; a lock file makes two processes that race wait for one another.
Beside it, `template-KEY/` holds a project made and migrated once (`migrated_template`); each
new forum is a copy of it (a second, not Django's migrate each time).  Building a new template
removes the others not used for two weeks (`prune_stale_templates`).

A forum lives in a directory of its own (`tianshen forum spirit-local --dir DIR`):

* `DIR/mafiaforum/`  the Django project (`spirit startproject`, our settings as `settings/ci.py`,
  `spiritinstall`), its SQLite database `db.sqlite3`;
* `DIR/forum.json`   its settings (port, rate limits, date format, GM account, game category);
* `DIR/accounts.json` (mode 0600) every account's password, GM included: throwaway local
  accounts, read by `[run] simulate_accounts` when simulated players play a trial game;
* `DIR/waitress.log` the web server's log.

`create_forum` makes (or, with `fresh=False`, reuses) the forum and seeds the GM (a superuser),
the accounts and the game category; `LocalForum.serve()` starts waitress; `start_spirit_server`
does both on a fresh forum in a temporary directory for the tests, copied from a project
seeded once with the same accounts (`seeded_template`, `seeded-KEY/` in the cache).
"""

from __future__ import annotations

import atexit
import contextlib
import fcntl
import hashlib
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
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

SPIRIT_VERSION = "0.14.3"
WAITRESS_VERSION = "3.0.2"
PROJECT = "mafiaforum"
GM_USERNAME = "神的使者"
GAME_CATEGORY = "杀人游戏"
DEFAULT_PLAYERS = tuple("白狐 青竹 夜莺 孤舟 寒梅 石榴 墨鱼 飞燕 老槐 山雀 灯笼 雨伞 铜铃 纸鸢 松鼠 茶壶".split()) + (
    "alice", "bob")
FORMATS = 'DATETIME_FORMAT = "c"  # ISO 8601 with microseconds and offset\n'

# copied into the project as `settings/ci.py`
SETTINGS = '''"""Django settings of a local django-spirit 0.14.3 forum (tianshen.forum.spirit_local).

Built on the project that `spirit startproject` generates (its `settings/dev.py`: SQLite,
LocMem caches, console email, MD5 password hasher).  Toggles, all by environment:

* SPIRIT_PORT          the port the forum is served on (site URL in links and emails)
* SPIRIT_DB            the SQLite file (default BASE_DIR/db.sqlite3)
* SPIRIT_RATELIMIT     "1": Spirit's own rate limits (1 post/10 s, 5 logins/5 min per IP); default off
* SPIRIT_DOUBLE_POST_MIN  the silent duplicate-post window in minutes (Spirit's default 30)
* SPIRIT_ISO_DATES     "1" (default): ISO 8601 timestamps (microseconds + offset) in `title=`; "0":
                       Spirit's default "Dec. 2, 2026, 1:45 p.m." at minute precision
* SPIRIT_DEBUG         "1" (default): Django tracebacks on 500s
"""

# ruff: noqa: F403, F405
import os

from .dev import *

SPIRIT_PORT = os.getenv("SPIRIT_PORT", "8000")
DEBUG = os.getenv("SPIRIT_DEBUG", "1") == "1"
ALLOWED_HOSTS = ["127.0.0.1", "localhost"]
ST_SITE_URL = f"http://127.0.0.1:{SPIRIT_PORT}/"
DATABASES["default"]["NAME"] = os.getenv("SPIRIT_DB", os.path.join(BASE_DIR, "db.sqlite3"))
ST_RATELIMIT_ENABLE = os.getenv("SPIRIT_RATELIMIT", "0") == "1"
ST_DOUBLE_POST_THRESHOLD_MINUTES = int(os.getenv("SPIRIT_DOUBLE_POST_MIN", "30"))
LOGGING["loggers"][""]["level"] = "WARNING"
if os.getenv("SPIRIT_ISO_DATES", "1") == "1":
    FORMAT_MODULE_PATH = ["mafiaforum.formats"]  # formats/en/formats.py: DATETIME_FORMAT = "c"
# waitress serves no files: the CSS, JS and images that `spiritinstall` collected into
# STATIC_ROOT are served by Django itself (local_urls.py), so a seat played by hand in a
# browser looks like the forum it is
ROOT_URLCONF = "mafiaforum.local_urls"
'''

# copied into the project as `local_urls.py`: Spirit's URLs, and /static/ from STATIC_ROOT
URLS = '''"""URLs of the local forum: the project's own, and its static files (tianshen.forum.spirit_local)."""

from django.conf import settings
from django.urls import re_path
from django.views.static import serve

from mafiaforum.urls import urlpatterns as project_urls

urlpatterns = [
    re_path(r"^static/(?P<path>.*)$", serve, {"document_root": settings.STATIC_ROOT}),
    *project_urls,
]
'''


class SpiritSetupError(RuntimeError):
    """The forum could not be installed, made or started (the message says which step and why)."""


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

if spec.get("gm"):
    make(spec["gm"], spec["gm_password"], superuser=True)
for name, password in spec["players"].items():
    make(name, password)
out = {"users": {u.st.nickname: u.username for u in User.objects.all()}}
if spec.get("category"):
    category, _ = Category.objects.get_or_create(title=spec["category"], defaults={"description": "Mafia"})
    out["category_id"] = category.pk
if spec.get("comments_per_page"):
    Config.objects.update_or_create(key="comments_per_page", defaults={"value": json.dumps(spec["comments_per_page"])})
print(json.dumps(out, ensure_ascii=False))
"""


def new_password() -> str:
    return secrets.token_urlsafe(9)


@dataclass
class LocalForum:
    """A forum made in `root` (see the module text); `accounts` holds every password, GM's included."""

    root: Path
    port: int
    gm: str = GM_USERNAME
    category: str = GAME_CATEGORY
    category_id: int = 0
    ratelimit: bool = False
    iso_dates: bool = True
    double_post_minutes: int = 30
    accounts: dict[str, str] = field(default_factory=dict)
    bin_dir: Path | None = None

    @property
    def project_dir(self) -> Path:
        return self.root / PROJECT

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def gm_password(self) -> str:
        return self.accounts[self.gm]

    @property
    def players(self) -> dict[str, str]:
        """The accounts other than the GM's, with their passwords."""
        return {name: pw for name, pw in self.accounts.items() if name != self.gm}

    def env(self) -> dict[str, str]:
        bin_dir = self.bin_dir or ensure_venv()
        env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "SPIRIT_", "VIRTUAL_ENV"))}
        env.update(
            PATH=f"{bin_dir}{os.pathsep}{env.get('PATH', '')}",  # `spirit startproject` runs django-admin from PATH
            DJANGO_SETTINGS_MODULE=f"{PROJECT}.settings.ci",
            SPIRIT_PORT=str(self.port),
            SPIRIT_DB=str(self.project_dir / "db.sqlite3"),
            SPIRIT_RATELIMIT="1" if self.ratelimit else "0",
            SPIRIT_ISO_DATES="1" if self.iso_dates else "0",
            SPIRIT_DOUBLE_POST_MIN=str(self.double_post_minutes),
            PYTHONDONTWRITEBYTECODE="1",
            PYTHONIOENCODING="utf-8",
        )
        return env

    def manage(self, *args: str, input_env: dict[str, str] | None = None, timeout: float = 120) -> str:
        """Run `manage.py ARGS` on this forum's project; returns its stdout."""
        bin_dir = self.bin_dir or ensure_venv()
        env = dict(self.env(), **(input_env or {}))
        return _run([str(bin_dir / "python"), "manage.py", *args], step=f"manage.py {args[0]}",
                    cwd=self.project_dir, env=env, timeout=timeout)

    def shell(self, code: str, **env: str) -> str:
        """Run Python code in this forum's Django shell (`manage.py shell -c`); returns its stdout."""
        return self.manage("shell", "-c", code, input_env=env)

    def seed(self, spec: dict) -> dict:
        out = self.shell(_SEED, SPIRIT_SEED=json.dumps(spec))
        try:
            return json.loads(out.strip().splitlines()[-1])
        except (ValueError, IndexError) as exc:
            raise SpiritSetupError(f"seeding the forum: unreadable answer {out[-500:]!r}") from exc

    def add_accounts(self, names: Iterable[str], passwords: Mapping[str, str] | None = None) -> dict[str, str]:
        """Make (or reset the password of) each account; returns {name: password} of those."""
        made = {name: (passwords or {}).get(name) or new_password() for name in names}
        if made:
            self.seed({"players": made})
            self.accounts.update(made)
            self.save()
        return made

    # ---- DIR/forum.json and DIR/accounts.json ----------------------------------------------

    def save(self) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        settings = {"port": self.port, "gm": self.gm, "category": self.category, "category_id": self.category_id,
                    "ratelimit": self.ratelimit, "iso_dates": self.iso_dates,
                    "double_post_minutes": self.double_post_minutes, "spirit": SPIRIT_VERSION}
        (self.root / "forum.json").write_text(json.dumps(settings, ensure_ascii=False, indent=1) + "\n",
                                              encoding="utf-8")
        path = self.root / "accounts.json"
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(json.dumps(self.accounts, ensure_ascii=False, indent=1) + "\n")
        os.chmod(path, 0o600)

    @classmethod
    def load(cls, root: Path | str) -> LocalForum:
        """The forum made in `root` before; SpiritSetupError when there is none."""
        root = Path(root).expanduser().resolve()
        try:
            settings = json.loads((root / "forum.json").read_text(encoding="utf-8"))
            accounts = json.loads((root / "accounts.json").read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise SpiritSetupError(f"no local forum in {root} ({exc}); make one with "
                                   f"`tianshen forum spirit-local --dir {root}`") from None
        if not (root / PROJECT / "manage.py").exists():
            raise SpiritSetupError(f"{root}/{PROJECT} is missing: make the forum again")
        settings.pop("spirit", None)
        return cls(root=root, accounts=accounts, **settings)

    @staticmethod
    def exists(root: Path | str) -> bool:
        root = Path(root).expanduser()
        return (root / "forum.json").exists() and (root / PROJECT / "manage.py").exists()

    # ---- serving ------------------------------------------------------------------------------

    def serve(self, *, threads: int = 4, timeout: float = 30) -> subprocess.Popen:
        """Start waitress on 127.0.0.1:port and wait for the front page (HTTP 200)."""
        bin_dir = self.bin_dir or ensure_venv()
        _project_files(self.project_dir / PROJECT)
        log = self.root / "waitress.log"
        with open(log, "wb") as fh:
            proc = subprocess.Popen(
                [str(bin_dir / "waitress-serve"), f"--listen=127.0.0.1:{self.port}", f"--threads={threads}",
                 f"{PROJECT}.wsgi:application"],
                cwd=self.project_dir, env=self.env(), stdout=fh, stderr=subprocess.STDOUT)
        try:
            _wait_up(self.base_url + "/", proc, log, timeout)
        except BaseException:
            _stop(proc)
            raise
        return proc


# a cached template of another key (an older Spirit, waitress or version of this module), or a
# seeded one, not used for this long is removed when a new one is built
STALE_DAYS = 14


def _used(root: Path) -> Path:
    """`root`, a cached template, marked as used now (its `complete` marker's time)."""
    with contextlib.suppress(OSError):
        os.utime(root / "complete")
    return root


def prune_stale_templates(cache: Path, keep: Path, now: float | None = None, days: float = STALE_DAYS) -> list[Path]:
    """Remove the cached templates (`template-*`, `seeded-*`) but `keep` whose marker says
    they were not used for `days` (or that were never completed as long ago); returns them.
    Each use marks a template (`_used`), so one in use is never old enough."""
    cutoff = (time.time() if now is None else now) - days * 86400
    removed = []
    for root in sorted(cache.glob("template-*")) + sorted(cache.glob("seeded-*")):
        if root == keep or not root.is_dir():
            continue
        marker = root / "complete"
        try:
            last = (marker if marker.exists() else root).stat().st_mtime
        except OSError:
            continue
        if last < cutoff:
            shutil.rmtree(root, ignore_errors=True)
            removed.append(root)
    return removed


def _template_key() -> str:
    """Changes with the installed versions and with this module (the settings, the steps)."""
    made = hashlib.sha256(f"{SPIRIT_VERSION} {WAITRESS_VERSION} {sys.version_info[:2]}".encode())
    made.update(Path(__file__).read_bytes())
    return made.hexdigest()[:12]


def migrated_template(timings: dict[str, float] | None = None) -> Path:
    """A project made and migrated once (`spirit startproject`, our settings, `spiritinstall`:
    Django's migrate and collectstatic), kept in the cache beside the virtualenv under a key of
    the installed versions; every new forum is a copy of it, with its own database file.
    Returns the project directory."""
    bin_dir = ensure_venv(timings)
    root = cache_dir() / f"template-{_template_key()}"
    marker = root / "complete"
    if marker.exists():
        return _used(root) / PROJECT
    t0 = time.monotonic()
    with _locked(cache_dir() / ".template.lock"):
        if marker.exists():  # another process built it meanwhile
            return _used(root) / PROJECT
        if root.exists():
            shutil.rmtree(root)  # a half-built one
        prune_stale_templates(cache_dir(), root)
        root.mkdir(parents=True)
        forum = LocalForum(root=root, port=8000, bin_dir=bin_dir)
        startenv = {k: v for k, v in forum.env().items() if k != "DJANGO_SETTINGS_MODULE"}
        _run([str(bin_dir / "spirit"), "startproject", PROJECT], step="spirit startproject", cwd=root,
             env=startenv)
        pkg = forum.project_dir / PROJECT
        _project_files(pkg)
        (pkg / "formats" / "en").mkdir(parents=True, exist_ok=True)
        (pkg / "formats" / "__init__.py").write_text("")
        (pkg / "formats" / "en" / "__init__.py").write_text("")
        (pkg / "formats" / "en" / "formats.py").write_text(FORMATS)
        forum.manage("spiritinstall", timeout=600)
        marker.write_text(f"django-spirit=={SPIRIT_VERSION} waitress=={WAITRESS_VERSION}\n")
    if timings is not None:
        timings["template"] = time.monotonic() - t0
    return root / PROJECT


def create_forum(root: Path | str, accounts: Iterable[str] = (), *, port: int | None = None, gm: str = GM_USERNAME,
                 gm_password: str | None = None, passwords: Mapping[str, str] | None = None,
                 category: str = GAME_CATEGORY, comments_per_page: int | None = None, ratelimit: bool = False,
                 iso_dates: bool = True, double_post_minutes: int = 30,
                 timings: dict[str, float] | None = None, reuse_seeded: bool = False) -> LocalForum:
    """Install (cached) and make a new forum in `root` (a forum already there is replaced),
    seeded with the GM (superuser), `accounts` and the game category.  Passwords not given
    are generated; all are saved in `root/accounts.json` (mode 0600).  `reuse_seeded` (the
    tests' forums; no password given): a copy of `seeded_template`, whose passwords every
    forum copied from it shares — a GM's forum gets passwords of its own."""
    timings = {} if timings is None else timings
    bin_dir = ensure_venv(timings)
    root = Path(root).expanduser().resolve()
    root.mkdir(parents=True, exist_ok=True)
    forum = LocalForum(root=root, port=port or free_port(), gm=gm, category=category, ratelimit=ratelimit,
                       iso_dates=iso_dates, double_post_minutes=double_post_minutes, bin_dir=bin_dir)
    given = dict(passwords or {})
    names = [name for name in accounts if name != gm]
    seeded_dir = None
    if reuse_seeded and not given and gm_password is None:
        seeded_dir = seeded_template(gm, names, category, comments_per_page, timings)
    t0 = time.monotonic()
    template = migrated_template(timings) if seeded_dir is None else seeded_dir / PROJECT
    if forum.project_dir.exists():
        shutil.rmtree(forum.project_dir)
    shutil.copytree(template, forum.project_dir, ignore=shutil.ignore_patterns("django.log", "__pycache__"))
    timings["copy"] = time.monotonic() - t0
    if seeded_dir is not None:
        made = json.loads((seeded_dir / "seeded.json").read_text(encoding="utf-8"))
        forum.accounts = made["accounts"]
        forum.category_id = int(made["category_id"])
        forum.save()
        return forum

    t0 = time.monotonic()
    forum.accounts = {gm: gm_password or given.get(gm) or secrets.token_urlsafe(12)}
    players = {name: given.get(name) or new_password() for name in names}
    forum.category_id = _seed_new(forum, gm, players, category, comments_per_page)
    forum.save()
    timings["seed"] = time.monotonic() - t0
    return forum


def _seed_new(forum: LocalForum, gm: str, players: dict[str, str], category: str,
              comments_per_page: int | None) -> int:
    """Seed the GM, `players` and the category into the forum's database; returns the category's id."""
    spec = {"gm": gm, "gm_password": forum.accounts[gm], "players": players, "category": category,
            "comments_per_page": comments_per_page}
    seeded = forum.seed(spec)
    forum.accounts.update(players)
    return int(seeded["category_id"])


def seeded_template(gm: str, players: list[str], category: str, comments_per_page: int | None,
                    timings: dict[str, float] | None = None) -> Path:
    """A copy of the migrated template seeded once with these accounts (passwords generated
    then, kept in its `seeded.json`) and this category, kept in the cache under a key of the
    migrated template and of what was seeded: the tests' forums are copies of it, so a new
    forum starts no Django process before waitress.  Returns its directory."""
    what = json.dumps([gm, players, category, comments_per_page], ensure_ascii=False)
    key = hashlib.sha256(what.encode()).hexdigest()[:12]
    root = cache_dir() / f"seeded-{_template_key()}-{key}"
    marker = root / "complete"
    if marker.exists():
        return _used(root)
    template = migrated_template(timings)
    t0 = time.monotonic()
    with _locked(cache_dir() / ".template.lock"):
        if marker.exists():  # another process built it meanwhile
            return _used(root)
        if root.exists():
            shutil.rmtree(root)  # a half-built one
        prune_stale_templates(cache_dir(), template.parent)
        shutil.copytree(template, root / PROJECT, ignore=shutil.ignore_patterns("django.log", "__pycache__"))
        forum = LocalForum(root=root, port=8000, gm=gm, category=category, bin_dir=ensure_venv())
        forum.accounts = {gm: secrets.token_urlsafe(12)}
        category_id = _seed_new(forum, gm, {name: new_password() for name in players}, category, comments_per_page)
        made = {"accounts": forum.accounts, "category_id": category_id}
        fd = os.open(root / "seeded.json", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(json.dumps(made, ensure_ascii=False) + "\n")
        marker.write_text(what + "\n", encoding="utf-8")
    if timings is not None:
        timings["seeded-template"] = time.monotonic() - t0
    return root


def _project_files(pkg: Path) -> None:
    """Our settings and URLs in the project's package (written again before each serve, so a
    forum made by an older tianshen gets them too)."""
    (pkg / "settings" / "ci.py").write_text(SETTINGS, encoding="utf-8")
    (pkg / "local_urls.py").write_text(URLS, encoding="utf-8")


def _stop(proc: subprocess.Popen | None) -> None:
    if proc is None or proc.poll() is not None:
        return
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=10)


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


# ---- the tests' forum: fresh, in a temporary directory ---------------------------------------


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
    forum: LocalForum | None = None

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
        _stop(proc)

    def __enter__(self) -> SpiritServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def start_spirit_server(tmp_dir: Path | str, *, ratelimit: bool = False, comments_per_page: int = 5,
                        players: Iterable[str] = DEFAULT_PLAYERS, iso_dates: bool = True,
                        double_post_minutes: int = 30, port: int | None = None) -> SpiritServer:
    """Install (cached), create, seed and serve a fresh Spirit forum under `tmp_dir`."""
    timings: dict[str, float] = {}
    t_all = time.monotonic()
    forum = create_forum(tmp_dir, players, port=port, comments_per_page=comments_per_page, ratelimit=ratelimit,
                         iso_dates=iso_dates, double_post_minutes=double_post_minutes, timings=timings,
                         reuse_seeded=True)
    t0 = time.monotonic()
    proc = forum.serve()
    server = SpiritServer(base_url=forum.base_url, gm_username=forum.gm, gm_password=forum.gm_password,
                          players=forum.players, category_id=forum.category_id, category=forum.category,
                          project_dir=forum.project_dir, env=forum.env(), bin_dir=forum.bin_dir or ensure_venv(),
                          process=proc, timings=timings, forum=forum)
    atexit.register(server.stop)  # should the caller never get to stop it
    timings["start"] = time.monotonic() - t0
    timings["total"] = time.monotonic() - t_all
    return server
