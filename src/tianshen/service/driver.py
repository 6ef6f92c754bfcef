"""The phase driver: the one game loop, the same in `run` (real time) and in rehearsal.

One step = one input (a PM, a post, a deadline, a GM command): load the state, fold the
input through the ruleset, commit the new state, the event and the outbox in one
transaction, then send.  A PM or post seen twice is stored once (the store refuses the
duplicate, so nothing runs twice).  A crash after the commit leaves the messages pending in
the outbox; the next `flush` sends them, each with its idempotency key.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import NoReturn

from tianshen.core.model import DeadlineIn, GameState, GmIn, Input, Outcome, PmIn, PostIn
from tianshen.core.ruleset import Deadline, GameSetup, Ruleset
from tianshen.forum.base import Forum, ForumError
from tianshen.forum.render import render_parts
from tianshen.rules import load_ruleset
from tianshen.store import InboundRecord, OutboxItem, Store

log = logging.getLogger(__name__)

StepHook = Callable[[str, Input | GameSetup, Outcome], None]


class GameDriver:
    def __init__(self, store: Store, forum: Forum, game_id: int, on_step: StepHook | None = None) -> None:
        self.store, self.forum, self.game_id = store, forum, game_id
        record = store.load_game(game_id)
        self.name = record.name
        self._game_start = datetime.fromisoformat(record.config["setup"]["start"])
        self.gm_contact: str | None = record.config["setup"].get("gm_contact")
        events = store.events(game_id)[:1]
        if events and events[0].kind == "setup":  # started, perhaps earlier than planned
            self._game_start = GameSetup.model_validate_json(events[0].payload_json).start
        self.ruleset: Ruleset = load_ruleset(record.config.get("ruleset_file") or record.ruleset)  # see register
        options = self.ruleset.spec.options
        self.watch_board = bool(options.get("analysis_quota") or options.get("watch_board"))
        self.on_step = on_step
        self.after_commit: Callable[[], None] | None = None  # test hook: a crash right after commit
        self.outage_extension_after = timedelta(minutes=30)
        self.pm_settle_time = timedelta(minutes=10)
        self._clock_hint: datetime | None = None  # `now` of the current advance

    # ---- creating a game ------------------------------------------------------------

    @classmethod
    def create(cls, store: Store, forum: Forum, name: str, variant: str, setup: GameSetup,
               on_step: StepHook | None = None) -> GameDriver:
        """Sign the game up and start it at once."""
        driver = cls(store, forum, cls.register(store, name, variant, setup), on_step)
        driver.start()
        return driver

    @staticmethod
    def register(store: Store, name: str, variant: str, setup: GameSetup) -> int:
        """A game signed up, to be dealt at `setup.start` (`tianshen admin new-game`).  The
        setup is tried once here, so a bad role list is refused now, not at the start.  A
        setup without a salt gets a secret random one (core.rng: the seed commitment).
        `variant` is an id or a .toml file; the record keeps the id."""
        from tianshen.core.rng import new_salt
        from tianshen.core.spec import game_file

        if setup.salt is None:
            setup = setup.model_copy(update={"salt": new_salt()})
        ruleset = load_ruleset(variant)  # `variant`: an id or a .toml file
        ruleset.setup(setup)
        config: dict[str, object] = {"setup": setup.model_dump(mode="json")}
        if file := game_file(variant):
            config["ruleset_file"] = file  # reloaded from this file, not by id (GameDriver.__init__)
        return store.create_game(
            name=name, ruleset=ruleset.spec.id, seed=setup.seed, config=config,
            state_json="{}", phase_label="setup", deadline_at=setup.start, players=[], at=setup.start,
            status="new",
        )

    def is_started(self) -> bool:
        return self.store.load_game(self.game_id).status != "new"

    def start(self, at: datetime | None = None) -> Outcome:
        """Deal: role PMs, the player list; night 1 begins (at `at`, default the set start)."""
        record = self.store.load_game(self.game_id)
        if record.status != "new":
            raise ValueError(f"game {record.name} has already started")
        setup = GameSetup.model_validate(record.config["setup"])
        if at is not None:
            setup = setup.model_copy(update={"start": at})
        self._skip_old_pms()
        outcome = self.ruleset.setup(setup)
        state = outcome.state
        dl = self.ruleset.next_deadline(state)
        self.store.commit_step(
            self.game_id, inbound=None, event_kind="setup", event_payload=setup.model_dump_json(),
            phase_label=state.phase.label, state_json=state.model_dump_json(), status="running",
            deadline_at=dl.at if dl else None, winner=None, players=_player_rows(state), outbox=_outbox(outcome),
            at=setup.start,
        )
        self._game_start = setup.start
        log.info("game=%s started seed=%s players=%d", self.name, setup.seed, len(state.players))
        if self.on_step:
            self.on_step("setup", setup, outcome)
        self.flush()
        return outcome

    def _skip_old_pms(self) -> None:
        """PMs the GM account had before the game are not the game's (nor, when the ruleset
        reads the whole board, its older posts: read once here, so later reads stop early)."""
        try:
            newest = max((pm.id for pm in self.forum.fetch_pms(None)), default=None)
            if self.watch_board:
                last = max((post.id for post in self.forum.board_posts(None)), default=None)
                if last is not None:
                    self.store.set_mark(self.game_id, "board", str(last))
        except ForumError as exc:
            log.warning("game=%s could not read the forum before the start: %s", self.name, exc)
            return
        if newest is not None:
            self.store.set_mark(self.game_id, "pm", str(newest))

    # ---- reading ----------------------------------------------------------------------

    def state(self) -> GameState:
        return GameState.model_validate_json(self.store.load_game(self.game_id).state_json)

    def is_over(self) -> bool:
        return self.state().phase.kind == "over"

    # ---- one step -----------------------------------------------------------------------

    def handle(self, event: Input) -> bool:
        """Fold one input and commit it; False when it was a duplicate (nothing done)."""
        return self.step(event) is not None

    def gm(self, command: str, reason: str, at: datetime, **args: object) -> Outcome:
        """A GM override, folded and logged like any input (the replay shows it)."""
        event = GmIn(id=f"gm:{uuid.uuid4().hex}", at=at, command=command, args=dict(args), reason=reason)
        outcome = self.step(event)
        assert outcome is not None  # GM inputs are never duplicates
        return outcome

    def _notes(self, outcome: Outcome) -> list[OutboxItem]:
        """What the human GM should know goes to his forum account by PM (and to the log)."""
        for note in outcome.notes:
            log.info("game=%s note for the GM: %s", self.name, note)
        if not self.gm_contact:
            return []
        return [OutboxItem(kind="pm", target=self.gm_contact, subject="天神通报", body=note) for note in outcome.notes]

    def last_seen(self) -> dict[str, str]:
        """When each seat last sent a PM or a post, by forum time (for 交替期 ordering)."""
        seen: dict[str, str] = {}
        for record in self.store.inbound(self.game_id):
            seen[record.sender] = max(seen.get(record.sender, ""), record.sent_at.isoformat())
        return seen

    def preview(self) -> tuple[Deadline, Outcome] | None:
        """What the next deadline would do now, without committing anything."""
        state = self.state()
        if self.ruleset.next_deadline(state) is None:
            return None
        due = self.ruleset.phase_end(state)  # past any reminder: preview what ends the phase
        assert due is not None
        return due, self.ruleset.apply(state, DeadlineIn(id="preview", at=due.at, kind=due.kind))

    def step(self, event: Input) -> Outcome | None:
        """Fold one input, commit, send; the outcome, or None for a duplicate."""
        inbound = _inbound(event)
        if inbound and self.store.has_inbound(self.game_id, inbound.source, inbound.forum_id):
            return None  # read again (the marks trail the newest input): already folded
        state = self.state()
        outcome = self.ruleset.apply(state, event)
        new = outcome.state
        dl = self.ruleset.next_deadline(new)
        seq = self.store.commit_step(
            self.game_id, inbound=inbound, event_kind=event.type,
            event_payload=event.model_dump_json(), phase_label=new.phase.label,
            state_json=new.model_dump_json(), status="over" if new.phase.kind == "over" else "running",
            deadline_at=dl.at if dl else None, winner=new.winner, players=_player_rows(new),
            outbox=_outbox(outcome) + self._notes(outcome), at=event.at,
        )
        if seq is None:
            log.info("duplicate input %s ignored", getattr(event, "id", "?"))
            return None
        log.info("game=%s seq=%s input=%s id=%s phase=%s->%s posts=%d pms=%d refusals=%d", self.name, seq,
                 event.type, getattr(event, "id", ""), state.phase.label, new.phase.label, len(outcome.posts),
                 len(outcome.pms), len(outcome.refusals))
        if self.on_step:
            self.on_step(state.phase.label, event, outcome)
        if self.after_commit:
            self.after_commit()
        self.flush()
        return outcome

    # ---- the loop body ----------------------------------------------------------------

    def advance(self, now: datetime) -> int:
        """Take every new PM and post, and fire every deadline due by `now`, in time order.

        Inputs are judged by forum server time: those stamped before a deadline are folded
        before it fires.  Returns the number of steps taken.
        """
        steps = 0
        self._clock_hint = now
        self.flush()
        # High-water marks move in memory while reading and are stored only once every input
        # read has been committed: a crash in between re-reads them (the store dedupes).
        marks: dict[str, str] = {}
        pending, reachable = self._collect(marks)
        if not self._forum_reachable(reachable, now):
            return steps  # deadlines wait: nobody could post while the board was down
        while True:
            dl = self.ruleset.next_deadline(self.state())
            due = dl is not None and dl.at <= now
            while pending and (not due or pending[0].at <= dl.at):  # type: ignore[union-attr]
                steps += self.handle(pending.pop(0))
                dl = self.ruleset.next_deadline(self.state())
                due = dl is not None and dl.at <= now
            if not due or dl is None:
                for name, value in marks.items():
                    self.store.set_mark(self.game_id, name, value)
                return steps
            steps += self.handle(DeadlineIn(id=f"{dl.kind}@{dl.at.isoformat()}", at=dl.at, kind=dl.kind))
            more, _ = self._collect(marks)
            pending = sorted(pending + more, key=lambda e: e.at)

    def _forum_reachable(self, reachable: bool, now: datetime) -> bool:
        """003 §12.4: when the board was unreachable longer than `outage_extension_after`,
        the current phase is extended by the outage, as a logged GM override."""
        down = self.store.mark(self.game_id, "forum_down_since")
        if not reachable:
            if not down:
                self.store.set_mark(self.game_id, "forum_down_since", now.isoformat())
            log.warning("game=%s forum unreachable since %s; deadlines held", self.name, down or now.isoformat())
            return False
        if down:
            self.store.set_mark(self.game_id, "forum_down_since", "")
            outage = now - datetime.fromisoformat(down)
            if outage >= self.outage_extension_after and self.ruleset.next_deadline(self.state()) is not None:
                hours = round(outage.total_seconds() / 3600, 2)
                reason = f"论坛无法访问约{hours:g}小时（003 §12.4：时段顺延）"
                log.warning("game=%s forum back after %s: phase extended by %s h", self.name, outage, hours)
                self.gm("extend", reason, now, hours=hours)
        return True

    def _collect(self, marks: dict[str, str]) -> tuple[list[PmIn | PostIn], bool]:
        """New PMs to the GM and new posts in the threads the ruleset watches.

        `marks` holds the high-water marks read so far in this round (ahead of the store's)."""
        found: list[PmIn | PostIn] = []
        try:
            after = marks.get("pm") or self.store.mark(self.game_id, "pm")
            settled = self.forum_time_settled()
            for pm in self.forum.fetch_pms(int(after) if after else None):
                if pm.sent_at >= self._game_start - timedelta(minutes=2):  # older ones are not the game's
                    found.append(PmIn(id=str(pm.id), sender=pm.sender, at=pm.sent_at, text=pm.text))
                if pm.sent_at <= settled:
                    # The mark trails the newest PMs: a forum that files PMs per conversation can
                    # show a lower id after a higher one; what is read twice the store drops.
                    marks["pm"] = str(max(pm.id, int(marks.get("pm") or after or 0)))
            for key in self._watched():
                thread_id = self.store.thread_id(self.game_id, key)
                if thread_id is None:
                    continue
                name = f"thread:{key}"
                after = marks.get(name) or self.store.mark(self.game_id, name)
                for post in self.forum.read_thread(thread_id, int(after) if after else None):
                    marks[name] = str(post.id)
                    if post.author == self.forum.account:
                        continue  # the GM's own posts
                    found.append(PostIn(id=str(post.id), thread=key, author=post.author, at=post.posted_at,
                                        text=post.text, edited=post.edited, original_text=post.original_text))
            if self.watch_board:
                found += self._board_posts(marks)
        except ForumError as exc:
            log.warning("game=%s reading the forum failed, will retry: %s", self.name, exc)
            return sorted(found, key=lambda e: e.at), False
        return sorted(found, key=lambda e: e.at), True

    def forum_time_settled(self) -> datetime:
        """PMs older than this are assumed all visible (see `_collect`)."""
        newest = self._clock_hint or datetime.max.replace(tzinfo=UTC)
        return newest - self.pm_settle_time

    def _board_posts(self, marks: dict[str, str]) -> list[PmIn | PostIn]:
        """Every post on the game board (activity rules, 诈尸).  A post in one of the game's
        own threads keeps that thread's key, so a vote read here is still a vote (and the
        store folds it once, whichever way it came)."""
        keys = self.store.threads(self.game_id)
        after = marks.get("board") or self.store.mark(self.game_id, "board")
        found: list[PmIn | PostIn] = []
        for post in self.forum.board_posts(int(after) if after else None):
            marks["board"] = str(post.id)
            if post.author == self.forum.account or post.posted_at < self._game_start:
                continue
            found.append(PostIn(id=str(post.id), thread=keys.get(post.thread_id, f"board:{post.thread_id}"),
                                author=post.author, at=post.posted_at, text=post.text, edited=post.edited,
                                original_text=post.original_text))
        return found

    def _watched(self) -> list[str]:
        """Today's vote thread; at night the last one, so a late vote still gets its refusal."""
        state = self.state()
        watched = ["main"] if state.data.get("checkin") else []  # 签到: replies to the player list
        if state.phase.kind == "day":
            return watched + [f"vote:{state.phase.number}"]
        if state.phase.kind == "night" and state.phase.number > 1:
            return watched + [f"vote:{state.phase.number - 1}"]
        return watched

    # ---- sending --------------------------------------------------------------------

    def flush(self) -> int:
        """Send what the outbox holds, in order; stop at the first forum failure."""
        sent = 0
        for item in self.store.pending_outbox(self.game_id):
            try:
                ref = self._send(item.kind, item.target, item.title, item.subject, item.body, item.key)
            except ForumError as exc:
                log.warning("sending %s failed, will retry: %s", item.key, exc)
                break
            self.store.mark_sent(item.id, ref)
            sent += 1
        return sent

    def _send(self, kind: str, target: str, title: str | None, subject: str | None, body: str, key: str) -> str:
        """Render for this forum and send, in several parts if the forum caps a post's size;
        each part has its own key, so a retry after a partial send sends only the rest."""
        parts = render_parts(body, self.forum.markup, self.forum.max_post_chars)
        keys = [key] + [f"{key}#{i}" for i in range(2, len(parts) + 1)]
        if kind == "pm":
            for i, (text, k) in enumerate(zip(parts, keys, strict=True)):
                part_subject = subject or ""
                if len(parts) > 1:
                    part_subject += f"（{i + 1}/{len(parts)}）"
                self.forum.send_pm(target, part_subject, text, k)
            return ""
        thread_id = self.store.thread_id(self.game_id, target)
        first = ""
        if thread_id is None:
            thread_id = self.forum.create_thread(title or target, parts[0], keys[0])
            self.store.set_thread_id(self.game_id, target, thread_id)
            first = thread_id
            parts, keys = parts[1:], keys[1:]
        for text, k in zip(parts, keys, strict=True):
            ref = str(self.forum.reply(thread_id, text, k))
            first = first or ref
        return first


def _inbound(event: Input) -> InboundRecord | None:
    if isinstance(event, PmIn):
        return InboundRecord(source="pm", forum_id=event.id, sender=event.sender, sent_at=event.at, text=event.text)
    if isinstance(event, PostIn):
        return InboundRecord(source="post", forum_id=event.id, sender=event.author, sent_at=event.at,
                             text=event.text, thread_key=event.thread, edited=event.edited)
    return None


def _outbox(outcome: Outcome) -> list[OutboxItem]:
    items = [OutboxItem(kind="post", target=p.thread, body=p.body, title=p.title) for p in outcome.posts]
    items += [OutboxItem(kind="pm", target=m.to, body=m.body, subject=m.subject) for m in outcome.pms]
    return items


def _player_rows(state: GameState) -> list[dict]:
    return [dict(name=p.name, forum_name=p.forum_name, seat=p.seat, role=p.role, faction=p.faction, alive=p.alive)
            for p in state.players]


class OfflineForum:
    """For `tianshen admin` beside a running daemon: commits go to the store, and the
    daemon's next tick sends what they put in the outbox."""

    markup = "plain"
    max_post_chars = None

    def __init__(self, account: str = "神的使者") -> None:
        self.account = account

    def _offline(self, *_: object) -> NoReturn:
        raise ForumError("no forum connection here: the running daemon sends it")

    login = now = fetch_pms = read_thread = board_posts = create_thread = reply = send_pm = _offline
