"""SQLAlchemy 2 models of the game store.

`games.state_json` (the state after `state_seq` when a rehearsal left it behind, else the
newest) plus the ordered `events` are the truth; `players` and `phases` are
denormalised copies kept for admin queries.  Every type here is portable between SQLite
and PostgreSQL; the Alembic baseline (store/migrations/versions/0001_baseline.py) creates
exactly these tables.
"""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import (
    BigInteger,
    Boolean,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Text,
    TypeDecorator,
    UniqueConstraint,
)
from sqlalchemy.engine import Dialect
from sqlalchemy.orm import DeclarativeBase, Mapped, MappedColumn, mapped_column

NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


def utcnow() -> datetime:
    """The current time, timezone-aware UTC."""
    return datetime.now(UTC)


class UTCDateTime(TypeDecorator[datetime]):
    """A timezone-aware datetime stored as UTC and always read back as aware UTC.

    SQLite keeps no time zone, so values are normalised to UTC before they are written and
    a naive value read back is taken to be UTC.  Naive values are refused on the way in.
    """

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None or value.utcoffset() is None:
            raise ValueError(f"naive datetime {value!r}: the store needs timezone-aware datetimes")
        value = value.astimezone(UTC)
        if dialect.name == "sqlite":
            return value.replace(tzinfo=None)
        return value

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            return value.replace(tzinfo=UTC)
        return value.astimezone(UTC)


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)


def _game_fk() -> MappedColumn[int]:
    return mapped_column(ForeignKey("games.id", ondelete="CASCADE"), nullable=False)


class Game(Base):
    __tablename__ = "games"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(200), unique=True)
    board: Mapped[str] = mapped_column(String(300), default="", server_default="")  # the forum it is played on
    ruleset: Mapped[str] = mapped_column(String(100))
    seed: Mapped[int] = mapped_column(BigInteger)
    status: Mapped[str] = mapped_column(String(20))  # running / paused / over
    phase_label: Mapped[str] = mapped_column(String(100))
    deadline_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    winner: Mapped[str | None] = mapped_column(String(100), nullable=True)
    state_json: Mapped[str] = mapped_column(Text)
    config_json: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow, onupdate=utcnow)
    step_seq: Mapped[int] = mapped_column(Integer, default=0, server_default="0")  # newest event's seq
    # the seq `state_json` is the state after, when older than `step_seq` (a rehearsal writes
    # its state now and then: `Store.load_game` folds the events after it); NULL: the newest
    state_seq: Mapped[int | None] = mapped_column(Integer, nullable=True)


class PlayerRow(Base):
    """One seat, copied from the state on every commit."""

    __tablename__ = "players"
    __table_args__ = (UniqueConstraint("game_id", "name"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[int] = _game_fk()
    name: Mapped[str] = mapped_column(String(200))  # 马甲
    forum_name: Mapped[str] = mapped_column(String(200))
    seat: Mapped[int] = mapped_column(Integer)
    role: Mapped[str] = mapped_column(String(100))
    faction: Mapped[str] = mapped_column(String(100))
    alive: Mapped[bool] = mapped_column(Boolean)


class PhaseRow(Base):
    __tablename__ = "phases"
    __table_args__ = (UniqueConstraint("game_id", "label"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[int] = _game_fk()
    label: Mapped[str] = mapped_column(String(100))
    started_at: Mapped[datetime] = mapped_column(UTCDateTime())
    ended_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)


class InboundRow(Base):
    """A PM or post as the forum delivered it; stored once per forum id."""

    __tablename__ = "inbound"
    __table_args__ = (UniqueConstraint("game_id", "source", "forum_id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[int] = _game_fk()
    source: Mapped[str] = mapped_column(String(10))  # pm / post
    forum_id: Mapped[str] = mapped_column(String(100))
    thread_key: Mapped[str | None] = mapped_column(String(100), nullable=True)
    sender: Mapped[str] = mapped_column(String(200))
    sent_at: Mapped[datetime] = mapped_column(UTCDateTime())
    text: Mapped[str] = mapped_column(Text)
    edited: Mapped[bool] = mapped_column(Boolean, default=False)
    # The phase the game was in when this arrived, and the event it became.
    phase_label: Mapped[str | None] = mapped_column(String(100), nullable=True)
    event_seq: Mapped[int | None] = mapped_column(Integer, nullable=True)
    received_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    # The event it became, stored here once (issue 37, migration 0007): its kind is `source`,
    # its seq `event_seq`, its phase `phase_label`, its time `sent_at`; no `events` row then.
    # None: not folded, or its event is an `events` row (a game older than 0007).  '': the
    # row says all of the input (0009, `store.row_says`): its JSON is made from the row when
    # read (`store.stored_payload`), not stored beside it.
    payload_json: Mapped[str | None] = mapped_column(Text, nullable=True)


class EventRow(Base):
    """One step the engine folded, in order (seq 1, 2, 3… per game), that is not an input's
    own row: the setup, a GM command (an input's event is its `inbound` row's `payload_json`;
    `Store.events` reads both in seq order)."""

    __tablename__ = "events"
    __table_args__ = (UniqueConstraint("game_id", "seq"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[int] = _game_fk()
    seq: Mapped[int] = mapped_column(Integer)
    phase_label: Mapped[str] = mapped_column(String(100))
    kind: Mapped[str] = mapped_column(String(50))
    payload_json: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


class OutboxRow(Base):
    """A PM or post to send; `key` makes sending idempotent."""

    __tablename__ = "outbox"
    __table_args__ = (
        UniqueConstraint("game_id", "seq"),
        # the pending rows by themselves: what a game still has to send is read without going
        # over every row it sent (a daemon asks its over games each tick).  Partial, `WHERE
        # status = 'pending'`, as migration 0010 makes it on both databases; not said here: a
        # dialect's keyword (`postgresql_where`) imports that dialect at every start (issue 33)
        Index("ix_outbox_pending", "game_id", "seq"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[int] = _game_fk()
    seq: Mapped[int] = mapped_column(Integer)
    kind: Mapped[str] = mapped_column(String(10))  # pm / post
    target: Mapped[str] = mapped_column(String(200))  # PM recipient or logical thread key
    title: Mapped[str | None] = mapped_column(String(500), nullable=True)
    subject: Mapped[str | None] = mapped_column(String(500), nullable=True)
    body: Mapped[str] = mapped_column(Text)
    key: Mapped[str] = mapped_column(String(200), unique=True)
    status: Mapped[str] = mapped_column(String(10), default="pending")  # pending / sent / failed
    forum_ref: Mapped[str | None] = mapped_column(String(100), nullable=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    sent_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)  # our clock
    # the board's clock when its first part was written (the forum's time after the write:
    # its Date, or the rehearsal's game clock): what the pages stamp the announcement with
    board_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    parts_done: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    # The part being written and the forum time before its first try: a restart that finds
    # them set asks the forum whether that write arrived before writing it again.
    attempt_part: Mapped[int | None] = mapped_column(Integer, nullable=True)
    attempt_since: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    claimed_by: Mapped[str | None] = mapped_column(String(200), nullable=True)
    claimed_until: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    # status "failed": the board refused it for good (why, as the adapter said); `admin resend` retries it
    error: Mapped[str | None] = mapped_column(Text, nullable=True)


class ThreadRow(Base):
    """Maps a logical thread key (e.g. "vote:1") to the forum's thread id."""

    __tablename__ = "threads"
    __table_args__ = (UniqueConstraint("game_id", "key"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[int] = _game_fk()
    key: Mapped[str] = mapped_column(String(100))
    forum_thread_id: Mapped[str] = mapped_column(String(100))


class MarkRow(Base):
    """A named high-water mark, e.g. the last PM id seen."""

    __tablename__ = "marks"
    __table_args__ = (UniqueConstraint("game_id", "name"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[int] = _game_fk()
    name: Mapped[str] = mapped_column(String(100))
    value: Mapped[str] = mapped_column(Text)  # any length: `pm_topics` holds a JSON object a topic


class RevokedSessionRow(Base):
    """A GM login ended by its logout (`tianshen web`): refused until it would have expired
    anyway, across restarts of the web process (issue 38 item 8)."""

    __tablename__ = "revoked_sessions"

    sid: Mapped[str] = mapped_column(String(100), primary_key=True)
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime())


class LeaseRow(Base):
    """Which process moderates a game, until when (renewed on every tick)."""

    __tablename__ = "leases"
    __table_args__ = (UniqueConstraint("game_id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[int] = _game_fk()
    owner: Mapped[str] = mapped_column(String(200))
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime())

