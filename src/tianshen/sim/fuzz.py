"""Fuzzed input (issue 22): whole games of every variant through the daemon, played by their
simulated players while the seated players and strangers also send PMs and vote posts full of
NULs, lone surrogates, control characters, \\r\\n, BBCode and odd spacing.

Counted: inputs sent, errors (an exception out of a tick or an ERROR log line), games that did
not end, PMs left unanswered, and answers that are not plain Chinese.  `bench/fuzz_inputs.py`
runs it at size; tests/test_fuzz_inputs.py runs it small on SQLite and PostgreSQL."""

from __future__ import annotations

import logging
import random
import re
import tempfile
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

from tianshen.config import load_config
from tianshen.forum.memory import MemoryBoard, MemoryForum, StoredPm
from tianshen.service.daemon import Daemon
from tianshen.sim import sims_for
from tianshen.sim.rehearsal import VirtualClock, default_seats
from tianshen.specs import available_variants, load_spec

VARIANTS = available_variants()  # every shipped variant: a new one is fuzzed without an edit here
START = datetime(2026, 1, 1, 12, tzinfo=UTC)
NOISE = ["\x00", "\ud800", "\udfff", "\x01", "\x07", "\x08", "\x1b", "\x7f", "\x85", "\r\n", "\r", "\n\n", "\t",
         "\u200b", "\u3000", "\ufeff", "\u202e", "\u00a0", "[b]", "[/quote]", "[url=x]", "> ", "<script>", "😀",
         "：", "，", "  "]
COMMANDS = ["投票 {n}", "投 {n}", "我投给{n}", "重新投票 {n}", "委托投票 {n}", "杀 {n}", "杀人 {n}", "祈祷 {n}",
            "庇佑 {n}", "占卜 {n}", "诅咒 {n}，他很可疑", "束魂 {n}", "宣言 {n}", "出牌 {n}", "移动 {n}", "签到",
            "{n}", "", "帮助", "5号 投票 {n}"]
STRANGERS = ["路人甲", "路人乙"]
_CJK = re.compile(r"[\u4e00-\u9fff]")
_NOT_FOR_PLAYERS = re.compile(r"Traceback|Exception|Error\b|\bNone\b|[\x00\ud800-\udfff]")


@dataclass
class Report:
    games: int = 0
    inputs: int = 0
    pms: int = 0
    posts: int = 0
    errors: list[str] = field(default_factory=list)
    stuck: list[str] = field(default_factory=list)
    unanswered: list[str] = field(default_factory=list)
    not_chinese: list[str] = field(default_factory=list)

    def problems(self) -> list[str]:
        return self.errors + self.stuck + self.unanswered + self.not_chinese

    def line(self) -> str:
        return (f"games {self.games}, inputs {self.inputs} ({self.pms} PMs, {self.posts} posts), "
                f"errors {len(self.errors)}, stuck {len(self.stuck)}, unanswered {len(self.unanswered)}, "
                f"answers not in Chinese {len(self.not_chinese)}")


def fuzz_text(rng: random.Random, names: list[str]) -> str:
    """A command, a name and noise in random places; now and then far too long."""
    name = rng.choice(names + ["某人", "x" * rng.randint(1, 30), ""])
    text = rng.choice(COMMANDS).format(n=name)
    for _ in range(rng.randint(0, 4)):
        at = rng.randint(0, len(text))
        text = text[:at] + rng.choice(NOISE) + text[at:]
    if rng.random() < 0.03:
        text *= rng.randint(20, 300)
    return text


class _Errors(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(f"{record.name}: {record.getMessage()[:300]}")


@contextmanager
def _caught_errors() -> Iterator[_Errors]:
    handler = _Errors()
    root = logging.getLogger("tianshen")
    root.addHandler(handler)
    try:
        yield handler
    finally:
        root.removeHandler(handler)


class _Clock:
    """The daemon's clock (GameClock's interface) on a virtual time."""

    def __init__(self, clock: VirtualClock) -> None:
        self.clock = clock

    def now(self) -> datetime:
        return self.clock.now()

    def real_at(self, game_time: datetime) -> datetime:
        return datetime.now(UTC) + (game_time - self.clock.now())


class FuzzGame:
    """One game of `variant` in a daemon of its own, on a board of its own."""

    def __init__(self, db_url: str, workdir: Path, variant: str, seed: int, per_phase: int) -> None:
        self.variant, self.rng, self.per_phase = variant, random.Random(seed), per_phase
        self.name = f"fz-{variant}-{seed}-{uuid.uuid4().hex[:6]}"
        self.clock = VirtualClock(START)
        self.board = MemoryBoard(self.clock.now)
        spec = load_spec(variant)
        self.seats = default_seats(spec.players)
        config = workdir / f"{self.name}.toml"
        config.write_text(self._config(db_url), encoding="utf-8")
        forum = MemoryForum(self.board)
        self.daemon = Daemon(load_config(config), forum=forum, clock=_Clock(self.clock))  # type: ignore[arg-type]
        self.sims = sims_for(spec.ruleset, self.board, forum.account, seed)
        self.acted = ""
        self.sent_pms = self.sent_posts = 0

    def _config(self, db_url: str) -> str:
        seats = "\n".join(f'[[game.players]]\nname = "{s.name}"\nforum_name = "{s.forum_name}"' for s in self.seats)
        return (f'[database]\nurl = "{db_url}"\n[forum]\nkind = "memory"\n'
                # a board of its own in the shared database (its PM marks are the board's)
                f'base_url = "memory://{self.name}"\n[game]\nname = "{self.name}"\n'
                f'ruleset = "{self.variant}"\nseed = {self.rng.randint(1, 10**6)}\nstart = "{START.isoformat()}"\n'
                f'{seats}\n')

    def play(self, max_steps: int = 400) -> bool:
        """Tick through the game; True when it ended."""
        self.daemon.tick()
        for _ in range(max_steps):
            driver = self.daemon.driver(self.name)
            state = driver.state()
            deadline = driver.ruleset.next_deadline(state)
            if deadline is None:
                self.daemon.tick()  # the last messages
                return state.phase.kind == "over" and not self.daemon.store.pending_outbox(driver.game_id)
            self._players_act(deadline.at)
            self.clock.set(max(self.clock.now(), deadline.at))
            self.daemon.tick()
        return False

    def _players_act(self, deadline_at: datetime) -> None:
        driver = self.daemon.driver(self.name)
        state = driver.state()
        point = f"{state.phase.label}:{state.phase.step}"
        span = deadline_at - self.clock.now()
        if point != self.acted and state.phase.kind != "over":
            self.acted = point
            self.clock.set(self.clock.now() + min(span / 4, timedelta(minutes=30)))
            self.sims.act(state, self.clock.now(), lambda key: driver.sender.thread_id(driver.game_id, key))
        self._noise(driver.sender.thread_id(driver.game_id, f"vote:{state.phase.number}"), deadline_at)
        self.clock.set(max(self.clock.now(), deadline_at - min(span / 4, timedelta(minutes=30))))
        self.daemon.tick()  # answered within the phase

    def _noise(self, vote_thread: str | None, deadline_at: datetime) -> None:
        names = [s.name for s in self.seats]
        senders = [s.forum_name or s.name for s in self.seats] + STRANGERS
        for _ in range(self.per_phase):
            text = fuzz_text(self.rng, names)
            who = self.rng.choice(senders)
            if vote_thread and self.rng.random() < 0.4 and who not in STRANGERS:
                self.board.post(who, vote_thread, text)
                self.sent_posts += 1
            else:
                self.board.pm(who, self.board.gm_account, text)
                self.sent_pms += 1

    def check(self, report: Report) -> None:
        """Every PM to the GM answered after it; every answer plain Chinese."""
        gm = self.board.gm_account
        pms = [item for item in self.board.activity() if isinstance(item, StoredPm)]
        for sender in {pm.sender for pm in pms if pm.recipient == gm}:
            replies = [pm for pm in pms if pm.sender == gm and pm.recipient == sender and "回复" in pm.subject]
            asked = [pm for pm in pms if pm.sender == sender and pm.recipient == gm]
            for reply in replies:
                if not _CJK.search(reply.text) or _NOT_FOR_PLAYERS.search(reply.text):
                    report.not_chinese.append(f"{self.name} to {sender}: {reply.text[:120]!r}")
            for pm in _unanswered(asked, replies):
                report.unanswered.append(f"{self.name}: PM {pm.id} from {pm.sender}: {pm.text[:40]!r}")

    def close(self) -> None:
        self.daemon.store.close()


_BURST = re.compile(r"收到你的(\d+)条短消息")


def _unanswered(asked: list[StoredPm], replies: list[StoredPm]) -> list[StoredPm]:
    """The PMs with no answer: each answer is matched to the oldest PM written before it."""
    waiting = sorted(asked, key=lambda pm: pm.id)
    for reply in sorted(replies, key=lambda pm: pm.id):
        burst = _BURST.search(reply.text)  # one answer to several PMs (the daemon's write queue)
        for _ in range(int(burst.group(1)) if burst else 1):
            earlier = [pm for pm in waiting if pm.id < reply.id]
            if earlier:
                waiting.remove(earlier[0])
    return waiting


def run(inputs: int, db_url: str | None = None, per_phase: int = 60, seed: int = 1,
        progress: Callable[[Report], None] | None = None) -> Report:
    """Games of every variant in turn until `inputs` fuzzed inputs were sent."""
    report = Report()
    with tempfile.TemporaryDirectory() as tmp, _caught_errors() as errors:
        url = db_url or f"sqlite:///{Path(tmp) / 'fuzz.db'}"
        while report.inputs < inputs:
            variant = VARIANTS[report.games % len(VARIANTS)]
            game = FuzzGame(url, Path(tmp), variant, seed * 1000 + report.games, per_phase)
            try:
                if not game.play():
                    report.stuck.append(f"{game.name}: the game did not end")
                game.check(report)
            except Exception as exc:  # counted, and the next game goes on
                report.errors.append(f"{game.name}: {type(exc).__name__}: {exc}"[:300])
            finally:
                game.close()
            report.games += 1
            report.pms += game.sent_pms
            report.posts += game.sent_posts
            report.inputs += game.sent_pms + game.sent_posts
            if progress:
                progress(report)
        report.errors += errors.lines
    return report
