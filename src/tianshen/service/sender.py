"""Sending the outbox exactly once.

A message is rendered for the forum and split into parts; each part is one forum write with
its own idempotency key.  Before a part is written, the row is claimed and the try is
recorded (part number, forum time); after it, the part is recorded as done.  A crash between
the write and its recording leaves the try on record, and the next flush asks the forum
whether that write arrived (`Forum.find_written`) before it writes again: nothing is lost,
nothing is doubled, on any forum.  The memory board drops a repeated key by itself
(`remembers_keys`), so there the tries are not recorded and one flush is recorded at once
(in a rehearsal with its next step: `send(later=True)`).

A message the board refuses for good (`Undeliverable`: the recipient is no account, or takes
no PMs from the GM) fails alone (issue 23 item 4): its row is marked failed with the board's
reason, the game's gm_contact is PMed once per recipient, and the rows after it go on.
`tianshen admin status` lists it and `tianshen admin resend` queues it again.  Any other
forum failure stops the round: the row is tried again at the next poll.
"""

from __future__ import annotations

import logging
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from functools import lru_cache
from typing import Literal, NamedTuple

from tianshen.forum.base import Forum, ForumError, LoginRefused, Undeliverable, Write, look_back_from
from tianshen.forum.render import render_parts
from tianshen.service import crash
from tianshen.store import OutboxItem, OutboxRecord, SentPart, Store

log = logging.getLogger(__name__)

CLAIM_SECONDS = 300.0  # a claim outlives a slow write; a dead process's claim lapses after it
SINCE_MARGIN = timedelta(minutes=1)


def is_reply(row: OutboxRecord) -> bool:
    """A reply to a player's PM (a receipt or a refusal): it may wait behind the posts, and
    a burst of them to one player goes out as one PM (issue 32 item 2).  Role PMs, results
    and notices are not replies."""
    return row.kind == "pm" and "回复" in (row.subject or "")


def in_queue_order(rows: Sequence[OutboxRecord]) -> list[OutboxRecord]:
    """The order of the write queue (issue 32 item 2): the PMs in the order they were made
    (each player's inbox reads the same however the rows are split between flushes), and
    the posts before the first reply to a player's PM: a flood of replies never holds back
    a deadline's posts, and role PMs still reach the board before the player list."""
    pms = sorted((r for r in rows if r.kind != "post"), key=lambda r: r.id)
    posts = sorted((r for r in rows if r.kind == "post"), key=lambda r: r.id)
    cut = next((i for i, r in enumerate(pms) if is_reply(r)), len(pms))
    return pms[:cut] + posts + pms[cut:]


class _Part(NamedTuple):
    """One forum write of a row's part: a PM (`where` its recipient, `heading` its subject),
    a new thread (`heading` its title) or a reply (`where` the thread's id).  A tuple, not a
    `Write` (issue 37: a frozen dataclass of nine fields costs about 17,000 instructions to
    make, a row's own write on the memory board about as much); `write()` for `find_written`."""

    kind: Literal["thread", "reply", "pm"]
    key: str
    body: str
    where: str = ""
    heading: str = ""

    def write(self) -> Write:
        if self.kind == "pm":
            return Write(kind="pm", key=self.key, body=self.body, to=self.where, subject=self.heading)
        if self.kind == "thread":
            return Write(kind="thread", key=self.key, body=self.body, title=self.heading)
        return Write(kind="reply", key=self.key, body=self.body, thread_id=self.where)


@lru_cache(maxsize=512)
def _rendered(body: str, markup: str, max_chars: int | None) -> tuple[str, ...]:
    """`render_parts`, once per text: receipts repeat (the same 已收到 to several players,
    night after night), and rendering is pure."""
    return tuple(render_parts(body, markup, max_chars))


class OutboxSender:
    """Sends pending outbox rows of one or more games through one forum session."""

    def __init__(self, store: Store, forum: Forum, owner: str, claim_seconds: float = CLAIM_SECONDS,
                 monotonic: Callable[[], float] = time.monotonic) -> None:
        self.store, self.forum, self.owner = store, forum, owner
        self.claim_seconds = claim_seconds
        self.monotonic = monotonic
        self.clock_hint: datetime | None = None  # forum time of the current round, when known
        self._threads: dict[tuple[int, str], str] = {}
        # games whose threads were all read: one not known is not opened, as only this sender
        # opens a game's threads while its process holds the game's lease (`forget` when the
        # game comes back from elsewhere)
        self._read: set[int] = set()

    def send(self, rows: Sequence[OutboxRecord], budget_s: float | None = None, later: bool = False) -> int:
        """Send `rows` in the order given; stop at the first forum failure, or when the
        time budget is spent (a row the board refuses for good fails alone: the others go
        on).  Returns how many rows went out whole.  `later`: on a board that remembers
        keys, what went out is recorded with the store's next transaction (a rehearsal's
        next step), not in one of its own."""
        if getattr(self.forum, "offline", False):
            return 0  # `tianshen admin` beside the daemon: the daemon sends (and claims) them
        remembers = bool(getattr(self.forum, "remembers_keys", False))
        batch: list[SentPart] = []
        sent = 0
        give_up = None if budget_s is None else self.monotonic() + budget_s
        try:
            for row in rows:
                if give_up is not None and sent and self.monotonic() > give_up:
                    break
                try:
                    done = self._send_row(row, remembers, batch)
                except LoginRefused:
                    raise  # not "will retry": the daemon holds the clocks and stops (issue 22)
                except Undeliverable as exc:
                    self._failed(row, str(exc))
                    continue
                except ForumError as exc:
                    log.warning("game_id=%s sending %s failed, will retry: %s", row.game_id, row.key, exc)
                    break
                sent += done
                if done and log.isEnabledFor(logging.INFO):  # (its values made only for a line written)
                    log.info("game_id=%s sent %s %s to %s", row.game_id, row.kind, row.key, row.target)
        finally:  # a crash (SIGKILL) records nothing: the board drops the repeated keys
            if not sys.exc_info()[0] or issubclass(sys.exc_info()[0], Exception):
                self.store.record_parts(batch, later=later and remembers)
        return sent

    def _failed(self, row: OutboxRecord, reason: str) -> None:
        """Issue 23 item 4: the board refused `row` for good.  It is marked failed (the rows
        after it go on), and the game's gm_contact is told, once per recipient until a resend."""
        log.warning("game_id=%s %s %s to %s refused for good, not sent: %s; fix the account, then "
                    "`tianshen admin resend`", row.game_id, row.kind, row.key, row.target, reason)
        told_already = self.store.has_failed(row.game_id, row.kind, row.target, other_than=row.id)
        self.store.fail_outbox(row.id, reason)
        if told_already:
            return
        record = self.store.load_game(row.game_id)
        contact = (record.config.get("setup") or {}).get("gm_contact")
        if not contact or contact == row.target:
            return
        subject = f"（{row.subject}）" if row.subject else ""
        what = f"发给论坛账号“{row.target}”的短消息{subject}" if row.kind == "pm" \
            else f"要发的帖子（{row.title or row.target}）"
        body = (f"【{record.name}】天神{what}被论坛拒绝，没有送达。论坛的原因：{reason}\n"
                f"其余消息照常发出。请确认这个账号在论坛上存在并能接收短消息（或改正它），然后运行 "
                f"tianshen admin resend --game {record.name}，没有送达的消息会重新发出。")
        self.store.add_outbox(row.game_id, [OutboxItem(kind="pm", target=contact, subject="天神通报：消息未送达",
                                                       body=body)])

    def _send_row(self, row: OutboxRecord, remembers: bool, batch: list[SentPart]) -> bool:
        parts = _rendered(row.body, self.forum.markup, self.forum.max_post_chars)
        ref = row.forum_ref or ""
        for i in range(row.parts_done, len(parts)):
            part = self._to_write(row, i, parts, f"{row.key}#{i + 1}" if i else row.key)  # each part's own key
            if remembers:
                result = self._do(part)
                crash.point("after-write")  # written, not yet recorded
                self._note_thread(row, part, result)
                ref = ref or result
                batch.append(self._part(row, i, len(parts), result, part))
                continue
            retry = row.attempt_part == i
            since = row.attempt_since if retry and row.attempt_since else self._now() - SINCE_MARGIN
            if not self.store.claim(row.id, self.owner, self.claim_seconds, part=i, since=since):
                log.info("game_id=%s outbox %s is claimed by another process", row.game_id, row.key)
                return False
            found = self.forum.find_written(self._asked(row, part.write(), since)) if retry else None
            if found is not None:
                log.info("game_id=%s %s part %d had arrived before the restart", row.game_id, row.key, i + 1)
                result = found
            else:
                crash.point("before-write")
                result = self._do(part)
                crash.point("after-write")  # written, not yet recorded
            self._note_thread(row, part, result)
            ref = ref or result
            self.store.record_parts([self._part(row, i, len(parts), result, part)])
            crash.point("after-record")
            row.attempt_part = None
        return True

    def _asked(self, row: OutboxRecord, write: Write, since: datetime | None) -> Write:
        """The question for `find_written`: since when, and how many copies of the same text
        the forum already holds from other writes (a receipt is often the same twice) in the
        window the adapter looks at, `look_back_from(since)`, on our clock.  (A copy written
        just before the window's start and recorded just after it is counted and not found:
        the gap is one write's answer, seconds.)"""
        forum_now, local_now = self._fresh_now(), datetime.now(UTC)
        start = look_back_from(since or forum_now) - (forum_now - local_now)
        return replace(write, since=since, known=self.store.count_sent_like(row, start))

    def _fresh_now(self) -> datetime:
        """The forum's clock now (a retry after a crash is rare: worth asking), not the round's."""
        try:
            return self.forum.now()
        except ForumError:
            return self._now()

    def _part(self, row: OutboxRecord, i: int, total: int, result: str, part: _Part) -> SentPart:
        thread = (row.target, result) if part.kind == "thread" else None
        board_at = self._board_now() if i == 0 and row.kind == "post" else None
        # (outbox_id, parts_done, done, forum_ref, thread, game_id, board_at) by position: half the keywords' cost
        return SentPart(row.id, i + 1, i + 1 == total, result or None, thread, row.game_id, board_at)

    def _board_now(self) -> datetime | None:
        """The board's time of a post just written (issue 38 item 1): the forum's clock, which
        the write's own answer has just set (its Date; the memory board's game clock); None
        when it cannot be read (the pages fall back to our send time)."""
        try:
            return self.forum.now()
        except ForumError:
            return None

    def _to_write(self, row: OutboxRecord, i: int, parts: Sequence[str], key: str) -> _Part:
        if row.kind == "pm":
            subject = row.subject or ""
            if len(parts) > 1:
                subject += f"（{i + 1}/{len(parts)}）"
            return _Part("pm", key, parts[i], row.target, subject)
        thread_id = self.thread_id(row.game_id, row.target)
        if thread_id is None:
            if i != 0:  # cannot happen: a thread and its first part are recorded together
                raise ForumError(f"{row.key}: part {i + 1} of a thread that was never opened")
            return _Part("thread", key, parts[0], "", row.title or row.target)
        return _Part("reply", key, parts[i], thread_id)

    def _do(self, part: _Part) -> str:
        if part.kind == "pm":
            self.forum.send_pm(part.where, part.heading, part.body, part.key)
            return ""
        if part.kind == "thread":
            return str(self.forum.create_thread(part.heading, part.body, part.key))
        return str(self.forum.reply(part.where, part.body, part.key))

    def _note_thread(self, row: OutboxRecord, part: _Part, result: str) -> None:
        if part.kind == "thread":
            self._threads[(row.game_id, row.target)] = result

    def thread_id(self, game_id: int, key: str) -> str | None:
        found = self._threads.get((game_id, key))
        if found is None and game_id not in self._read:
            self._threads.update(((game_id, k), t) for t, k in self.store.threads(game_id).items())
            self._read.add(game_id)
            found = self._threads.get((game_id, key))
        return found

    def none_opened(self, game_id: int) -> None:
        """The game has no threads yet (just signed up here): they are not read."""
        self._read.add(game_id)

    def forget(self, game_id: int) -> None:
        """The game's threads and its outbox queue are read again (another process may have
        opened some, or written the outbox)."""
        self._read.discard(game_id)
        self.store.forget_queue(game_id)

    def _now(self) -> datetime:
        if self.clock_hint is not None:
            return self.clock_hint
        try:
            return self.forum.now()
        except ForumError:
            return datetime.now(UTC)
