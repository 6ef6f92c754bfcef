"""The crash tests' tools: a fast ruleset, the daemon's config, `tianshen run` as a child
process that is killed and restarted, and what everyone saw on the forum, normalised so
two runs of one seed compare equal.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import TypeVar

from sqlalchemy.exc import OperationalError

from forums.spirit_server import SpiritServer
from tianshen.config import load_config
from tianshen.forum.base import ForumError, ForumPm, ForumPost
from tianshen.forum.spirit import SpiritForum, SpiritPlayers
from tianshen.sim.external import ExternalSims
from tianshen.store import Store

T = TypeVar("T")
RULESETS = Path(__file__).resolve().parents[2] / "rulesets"
PASSWORD_ENV = "TIANSHEN_TEST_GM_PASSWORD"
FAST = """
include = ["{base}"]
title = "经典杀人游戏（测试用快速时间）"

[timing]            # seconds instead of hours
night_hours = {night}
day_hours = {day}
vote_opens_hour = {vote}
ld_extension_hours = {ext}
ld_hours = {ld}
summon_round_hours = {summon}
"""
# The game moves by what the players do: they PM /done once they acted (ExternalSims(done=
# True)), so nights and votes end early, and the steps that have no early end (the discussion
# before the vote thread opens `vote` into the day, a tie's LD step, the summon rounds) are
# ended by the GM's `admin advance` once everyone acted (StepAdvancer).  The lengths are only
# the margin a daemon down for restarts on a loaded machine has.
TIMINGS_S = dict(night=600, day=900, vote=300, ext=600, ld=300, summon=150)
MAX_PHASES = 24  # classic_10 is over within six nights and days, LD and summon rounds included


def write_fast_ruleset(directory: Path, base: str = "classic_10", name: str = "crash_fast") -> str:
    """A variant of `base` with the timings in seconds; its id (TIANSHEN_RULESETS=directory)."""
    hours = {k: v / 3600 for k, v in TIMINGS_S.items()}
    (directory / f"{name}.toml").write_text(
        FAST.format(base=(RULESETS / f"{base}.toml").as_posix(), **hours), encoding="utf-8")
    return name


def toml_str(value: str) -> str:
    return json.dumps(value, ensure_ascii=False)  # a JSON string is a TOML basic string


@dataclass
class GameConfig:
    name: str
    ruleset: str
    seed: int
    start: datetime
    players: list[str]

    def toml(self) -> str:
        players = ", ".join(f"{{ name = {toml_str(p)} }}" for p in self.players)
        return (f"[[game]]\nname = {toml_str(self.name)}\nruleset = {toml_str(self.ruleset)}\n"
                f"seed = {self.seed}\nstart = {self.start.isoformat()}\nplayers = [{players}]\n")


def write_config(path: Path, server: SpiritServer, db_url: str, games: list[GameConfig], *,
                 poll_seconds: float = 1.0, run_extra: str = "") -> Path:
    """`tianshen run` config for `games` on `server`: one `[game]` table, or a `[[game]]`
    list when there are several."""
    body = "\n".join(g.toml() for g in games)
    if len(games) == 1:
        body = body.replace("[[game]]", "[game]", 1)
    path.write_text(
        f"[database]\nurl = {toml_str(db_url)}\n\n"
        f"[forum]\nkind = \"spirit\"\nbase_url = {toml_str(server.base_url)}\n"
        f"username = {toml_str(server.gm_username)}\npassword_env = \"{PASSWORD_ENV}\"\n"
        f"category = {toml_str(server.category)}\nflood_interval_s = 0\n\n"
        f"{body}\n[run]\npoll_seconds = {poll_seconds}\nstop_when_over = true\n{run_extra}",
        encoding="utf-8")
    return path


def pending_rows(store: Store, config: Path, game_ids: list[int]) -> list[str]:
    """What is still pending in the outbox of the games and of their board (refusals to
    strangers are the board's), as `target: body` lines."""
    board = store.game_id(f"@board:{load_config(config).board_key()}"[:200])
    rows = [r for g in game_ids + ([board] if board is not None else []) for r in store.pending_outbox(g)]
    return [f"{r.target}: {r.body[:80]}" for r in rows]


def game_start(server: SpiritServer, lead_seconds: float = 3) -> datetime:
    """A start time a few seconds ahead by the forum's clock."""
    forum = SpiritForum(server.base_url, server.gm_username, server.gm_password, min_write_interval_s=0)
    try:
        return (forum.now() + timedelta(seconds=lead_seconds)).replace(microsecond=0)
    finally:
        forum.close()


class DaemonDied(RuntimeError):
    """`tianshen run` exited in a way no crash point explains."""


# The forking starter of the crashed run's daemons: one Python process that has imported
# what `tianshen run` imports, and forks a child for each start, which sets its environment,
# working directory and log, and runs the CLI's `run` (the same code `python -m tianshen.cli
# run` runs).  A restart then costs the daemon's own start (login, first tick), not a second
# of interpreter start and imports: the crash test restarts it some forty times.
FORK_SERVER = r"""
import json, os, sys, threading
import tianshen.cli, tianshen.config, tianshen.forum.spirit, tianshen.service.daemon, tianshen.service.holders
import bs4  # the forum pages' CSS selectors compile their patterns on first use: once, here
bs4.BeautifulSoup("<div class='a'><a href='/x'>x</a></div>", "lxml").select_one(
    "div.a > a[href^='/'], li:not(.b) span#c, input[name=x], div.js-comment[data-pk]")
# what each start imported for itself (its first request, its store's engine): once, here
import httpcore, h11, sqlalchemy.dialects.sqlite  # noqa: F401
# the start's one full collection (cli's freeze_startup) walked everything imported above in
# every child: collected and frozen once here, a child finds it done (heap._frozen)
import tianshen.service.heap
tianshen.service.heap.freeze_startup()
out, lock = sys.stdout, threading.Lock()

def say(line):
    with lock:
        out.write(line + "\n")
        out.flush()

def reap(pid):
    say(f"exit {pid} {os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])}")

for line in sys.stdin:
    start = json.loads(line)
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            os.environ.clear()
            os.environ.update(start["env"])
            os.chdir(start["cwd"])
            log = os.open(start["log"], os.O_WRONLY | os.O_APPEND | os.O_CREAT)
            null = os.open(os.devnull, os.O_RDONLY)
            os.dup2(null, 0)
            os.dup2(log, 1)
            os.dup2(log, 2)
            sys.stdout = open(1, "w", encoding="utf-8", buffering=1, closefd=False)
            sys.stderr = open(2, "w", encoding="utf-8", buffering=1, closefd=False)
            tianshen.cli.app(start["argv"], prog_name="tianshen")
            code = 0
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        except BaseException:
            import traceback
            traceback.print_exc()
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(code)
    say(f"pid {pid}")
    threading.Thread(target=reap, args=(pid,), daemon=True).start()
"""


class ForkServer:
    """FORK_SERVER as a child process of the test: `start` forks a daemon, `exit_code` says
    whether (and how) it exited, `kill` kills it."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen([sys.executable, "-c", FORK_SERVER], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True, encoding="utf-8")
        self.exits: dict[int, int] = {}
        self._started: queue.Queue[int] = queue.Queue()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            word, pid, *code = line.split()
            if word == "pid":
                self._started.put(int(pid))
            elif word == "exit":
                self.exits[int(pid)] = int(code[0])

    def start(self, argv: list[str], env: dict[str, str], cwd: Path, log: Path) -> int:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(dict(argv=argv, env=env, cwd=str(cwd), log=str(log))) + "\n")
        self.proc.stdin.flush()
        try:
            return self._started.get(timeout=120)
        except queue.Empty:
            raise DaemonDied(f"the fork server started no daemon (it exited with {self.proc.poll()})") from None

    def exit_code(self, pid: int) -> int | None:
        return self.exits.get(pid)

    def kill(self, pid: int, timeout: float = 10) -> None:
        if pid in self.exits:
            return
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
        give_up = time.monotonic() + timeout
        while pid not in self.exits and time.monotonic() < give_up:
            time.sleep(0.05)

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=10)


@dataclass
class Daemon:
    """`tianshen run --config FILE` as a child process, restarted after each kill."""

    config: Path
    workdir: Path
    server: SpiritServer
    rulesets: Path
    env_extra: dict[str, str] = field(default_factory=dict)
    forks: ForkServer | None = None  # start by forking (the crashed run's many restarts), not by exec
    proc: subprocess.Popen | None = None
    pid: int | None = None  # the forked daemon's
    starts: int = 0
    crash_log: Path = field(init=False)

    def __post_init__(self) -> None:
        self.crash_log = self.workdir / "crash.log"
        self.log = self.workdir / "daemon.log"

    def env(self, crash_at: str | None, trace: Path | None) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("TIANSHEN_CRASH")}
        env.update(self.env_extra, TIANSHEN_RULESETS=str(self.rulesets), PYTHONUNBUFFERED="1",
                   TIANSHEN_CRASH_LOG=str(self.crash_log))
        env[PASSWORD_ENV] = self.server.gm_password
        if crash_at:
            env["TIANSHEN_CRASH_AT"] = crash_at
        if trace:
            env["TIANSHEN_CRASH_TRACE"] = str(trace)
        return env

    def start(self, crash_at: str | None = None, trace: Path | None = None) -> None:
        self.starts += 1
        with open(self.log, "a", encoding="utf-8") as fh:
            fh.write(f"==== start {self.starts} crash_at={crash_at} at {datetime.now():%H:%M:%S.%f}\n")
            fh.flush()
            if self.forks is not None:
                self.pid = self.forks.start(["run", "--config", str(self.config)], self.env(crash_at, trace),
                                            self.workdir, self.log)
                return
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "tianshen.cli", "run", "--config", str(self.config)],
                stdout=fh, stderr=subprocess.STDOUT, env=self.env(crash_at, trace), cwd=self.workdir)

    def exited(self) -> int | None:
        if self.forks is not None:
            return None if self.pid is None else self.forks.exit_code(self.pid)
        return None if self.proc is None else self.proc.poll()

    def stop(self) -> None:
        """SIGKILL if still running (the end of a test, or a failure)."""
        if self.forks is not None:
            if self.pid is not None:
                self.forks.kill(self.pid)
            return
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=10)

    def wait_exit(self, timeout: float = 60) -> int:
        if self.forks is not None:
            give_up = time.monotonic() + timeout
            while (rc := self.exited()) is None:
                if time.monotonic() > give_up:
                    raise DaemonDied(f"the daemon did not stop after the game was over: {self.tail()}")
                time.sleep(0.1)
            return rc
        assert self.proc is not None
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired as exc:
            raise DaemonDied(f"the daemon did not stop after the game was over: {self.tail()}") from exc

    def kills(self) -> list[str]:
        """`pid count name` of every kill the crash points logged."""
        if not self.crash_log.exists():
            return []
        return self.crash_log.read_text(encoding="utf-8").splitlines()

    def tail(self, chars: int = 3000) -> str:
        return self.log.read_text(encoding="utf-8")[-chars:] if self.log.exists() else ""


class RetryingPlayers:
    """A `PlayerSide` that tries again when the test forum answers 500: its SQLite database
    is locked now and then while the daemon (another process) writes.  Such a request
    failed whole (its transaction rolled back), so trying it again does it once."""

    def __init__(self, side: SpiritPlayers, tries: int = 6, pause: float = 0.5) -> None:
        self.side, self.tries, self.pause = side, tries, pause
        self.retries = 0
        self.sent: set[tuple[str, str]] = set()  # ("pm" | "post", forum id) of everything written

    @property
    def names(self) -> Iterable[str]:
        return self.side.names

    def _again(self, call: Callable[[], T]) -> T:
        for attempt in range(self.tries):
            try:
                return call()
            except ForumError as exc:
                if "HTTP 500" not in str(exc) or attempt == self.tries - 1:
                    raise
                self.retries += 1
                time.sleep(self.pause)
        raise AssertionError("unreachable")

    def pm(self, sender: str, to: str, text: str, subject: str = "") -> int:
        pk = self._again(lambda: self.side.pm(sender, to, text, subject))
        self.sent.add(("pm", str(pk)))
        return pk

    def post(self, author: str, thread_id: str, text: str) -> int:
        pk = self._again(lambda: self.side.post(author, thread_id, text))
        self.sent.add(("post", str(pk)))
        return pk

    def edit(self, post_id: int, author: str, new_text: str) -> None:
        self._again(lambda: self.side.edit(post_id, author, new_text))

    def inbox(self, user: str) -> list[ForumPm]:
        return self._again(lambda: self.side.inbox(user))

    def thread_posts(self, thread_id: str) -> list[ForumPost]:
        return self._again(lambda: self.side.thread_posts(thread_id))

    def close(self) -> None:
        self.side.close()


def read_trace(path: Path) -> list[str]:
    """The names of the crash points a run passed, in order (`N name` lines)."""
    if not path.exists():
        return []
    return [line.split(" ", 1)[1] for line in path.read_text(encoding="utf-8").splitlines() if " " in line]


# Every crash point tianshen has (`crash.point(name)` in src/tianshen/service), and about how
# many an uncrashed game of the crash test passes (447 at load 5; an idle tick passes two, so
# a slower run passes more).  The crashed run is planned from these, not from a trace of a
# whole game played first: the reference game runs beside it (the test checks both figures).
POINT_NAMES = ("after-commit", "after-read", "before-send", "before-write", "after-write", "after-record")
POINTS_PER_GAME = 450


class CrashPlan:
    """The TIANSHEN_CRASH_AT of each daemon start.  Numbers (the N-th point in that process)
    sized so `kills` of them cover a game's `points`, every other one replaced by the name
    of a point, every kind in `names` in turn (it kills at that point's first pass after the
    restart): so the first len(names) named starts kill at every kind once, in every run,
    whatever the numbers happen to hit.  A daemon that has fallen behind the game's clock (a
    deadline already past) gets a larger number, so it catches up before it dies: restarts
    cost game time, and players must not lose their window to them.  So does a daemon
    restarted in a phase that has had its share of kills (`quota`, by `phase`); neither takes
    a name's turn.  After `cap` kills in all it runs to the end: a loaded machine, whose idle
    ticks pass more points, gets no more restarts than an idle one."""

    def __init__(self, names: Iterable[str], points: int, kills: int, quota: int | None = None,
                 cap: int | None = None) -> None:
        self.names = list(dict.fromkeys(names))
        self.step = max(2, points // max(1, kills))
        self.quota, self.cap = quota, cap
        self.starts = 0
        self.named = 0  # names handed out: the next one is names[named % len(names)]
        self.kills_in: dict[str, int] = defaultdict(int)  # the kills seen, by the phase stored then

    def next(self, behind: bool = False, phase: str | None = None) -> str | None:
        self.starts += 1
        i = self.starts // 2
        if phase is not None:
            self.kills_in[phase] += 1
        if self.cap is not None and sum(self.kills_in.values()) >= self.cap:
            return None
        if behind or (self.quota is not None and phase is not None and self.kills_in[phase] >= self.quota):
            return str(self.step * 4)
        if self.starts % 2:
            return str(self.step // 2 + (i * 7) % self.step)  # uneven, so kills fall on every kind of point
        self.named += 1
        return self.names[(self.named - 1) % len(self.names)]


# ---- what everyone saw -------------------------------------------------------------------

_TIME = re.compile(r"\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}(:\d{2}(\.\d+)?)?([+-]\d{2}:?\d{2}| ?UTC|Z)?"
                   r"|(\d{4}年)?\d{1,2}月\d{1,2}日 \d{2}:\d{2}(:\d{2})?（[^）]*）")  # core.clock.show
_HEX = re.compile(r"\b[0-9a-f]{32,64}\b")  # the seed's salt and its commitment, new in every run


def normalise(text: str) -> str:
    """Without what differs between two runs of one seed: times (by the forum's clock), the
    seed's salt and the commitment to it."""
    return _HEX.sub("<hex>", _TIME.sub("<time>", text)).strip()


@dataclass
class Transcript:
    """What was on the forum: every thread of the game category (title, each author's posts
    in order), every PM the GM account received (by sender) and each player's inbox."""

    threads: list[tuple[str, dict[str, list[str]]]]
    gm_inbox: dict[str, list[str]]
    inboxes: dict[str, list[tuple[str, str]]]

    def gm_writes(self) -> list[str]:
        """Every post and PM the GM account wrote (for counting doubles)."""
        out = [f"{title} | {text}" for title, posts in self.threads for text in posts.get(GM_KEY, [])]
        out += [f"PM {name} | {subject} | {text}" for name, pms in self.inboxes.items() for subject, text in pms]
        return out

    def without_extensions(self) -> tuple[Transcript, list[str]]:
        """This transcript without the GM's extension notices (issue 22 item 7: a window
        that opened late on the board is extended), and those notices."""
        notices: list[str] = []
        threads = []
        for title, posts in self.threads:
            kept = dict(posts)
            if GM_KEY in posts:
                kept[GM_KEY] = [t for t in posts[GM_KEY] if not _is_extension(t)]
                notices += [t for t in posts[GM_KEY] if _is_extension(t)]
            threads.append((title, kept))
        return Transcript(threads, self.gm_inbox, self.inboxes), notices


GM_KEY = "<GM>"
EXTENSION_NOTICE = "天神决定将"  # gm_extended in rulesets/_forum_common.toml


def _is_extension(text: str) -> bool:
    return text.startswith(EXTENSION_NOTICE)


def read_transcript(server: SpiritServer, players: list[str]) -> Transcript:
    """Read it all back from the forum, as the GM and as each player."""
    gm = SpiritForum(server.base_url, server.gm_username, server.gm_password, min_write_interval_s=0)
    side = RetryingPlayers(SpiritPlayers(server.base_url, {p: server.players[p] for p in players},
                                         server.gm_username))
    try:
        gm.login()
        topics = sorted(gm._http.topic_list(f"/category/{server.category_id}/"), key=lambda t: t.id)
        threads = []
        for t in topics:
            by_author: dict[str, list[str]] = defaultdict(list)
            for post in gm.read_thread(str(t.id), None):
                who = GM_KEY if post.author == gm.account else post.author
                by_author[who].append(normalise(post.text))
            threads.append((normalise(t.title), dict(by_author)))
        gm_inbox: dict[str, list[str]] = defaultdict(list)
        for pm in gm.fetch_pms(None):
            gm_inbox[pm.sender].append(normalise(pm.text))
        inboxes = {p: [(normalise(pm.subject), normalise(pm.text)) for pm in side.inbox(p)
                       if pm.sender == gm.account] for p in players}
        return Transcript(threads, dict(gm_inbox), inboxes)
    finally:
        gm.close()
        side.close()




FIXED_STEPS = ("discussion", "ld", "summon")  # day steps with no early end
_CLI_LOCK = threading.Lock()


class StepAdvancer:
    """The GM's `admin advance`, as a GM would use it: a day step that has no early end (the
    discussion before the vote thread opens, a tie's LD step, a summon round) is ended once
    the players acted at it and the daemon has read everything they wrote.  So the game
    moves by events, and a daemon down for a restart makes no player miss a step."""

    def __init__(self, store: Store, sims: ExternalSims, players: RetryingPlayers, db_url: str,
                 rulesets: Path) -> None:
        self.store, self.sims, self.players, self.db_url = store, sims, players, db_url
        self.env = {"TIANSHEN_RULESETS": str(rulesets)}  # the fast variant, as the daemon has it
        self.refused = ""  # the last refusal, for a failure message
        self.advanced: list[str] = []  # the points ended this way

    def __call__(self) -> None:
        state = self.sims.settled_state()
        if state is None or state.phase.kind != "day" or state.phase.step not in FIXED_STEPS:
            return
        point = f"{state.phase.label}:{state.phase.step}"
        if self.sims.acted != point or point in self.advanced:
            return
        assert self.sims.game_id is not None
        try:
            if not self.players.sent <= self.store.inbound_keys(self.sims.game_id):
                return  # the daemon has not read all of it yet
        except OperationalError:
            return
        from typer.testing import CliRunner

        from tianshen.cli import app

        with _CLI_LOCK:  # CliRunner swaps sys.stdout and os.environ: one at a time (two games play at once)
            done = CliRunner().invoke(app, ["admin", "advance", "--reason", "全员已行动", "--game", self.sims.game,
                                            "--db", self.db_url], env=self.env)
        if done.exit_code == 0:
            self.advanced.append(point)
        else:  # the daemon stepped the game meanwhile (its optimistic lock): again on the next poll
            self.refused = f"{point}: {done.output[-500:]}{done.exception!r}"
