"""The game store: one transaction per engine step, an outbox, dedup of forum input.

`commit_step` is the heart: it writes the input (deduplicated by the forum's id), the event
the engine folded, the new state, the denormalised players and phases, and the messages to
send, all or nothing.  A sender then drains `pending_outbox` and calls `mark_sent`.
"""

from __future__ import annotations

import json
import re
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from functools import cached_property
from operator import itemgetter
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from sqlalchemy import (
    Boolean,
    Connection,
    DateTime,
    Engine,
    Insert,
    Integer,
    String,
    bindparam,
    case,
    column,
    create_engine,
    delete,
    event,
    func,
    insert,
    literal_column,
    null,
    select,
    type_coerce,
    union_all,
    update,
)
from sqlalchemy.exc import (
    DisconnectionError,
    IntegrityError,
    InterfaceError,
    OperationalError,
    ProgrammingError,
)
from sqlalchemy.orm import Session, sessionmaker
from sqlalchemy.pool import StaticPool
from sqlalchemy.sql.elements import BindParameter
from sqlalchemy.sql.visitors import replacement_traverse

if TYPE_CHECKING:
    from alembic.config import Config

from tianshen.store.models import (
    Base,
    EventRow,
    Game,
    InboundRow,
    LeaseRow,
    MarkRow,
    OutboxRow,
    PhaseRow,
    PlayerRow,
    RevokedSessionRow,
    ThreadRow,
    UTCDateTime,
    utcnow,
)

MIGRATIONS = Path(__file__).resolve().parent / "migrations"
BOARD_STATUS = "board"  # the row that holds a board's own inbound and outbox (PMs from no game's player)


_G = Game.__table__
_GAME_STEP = (
    update(_G)
    .where(_G.c.id == bindparam("gid"), _G.c.step_seq == bindparam("newest"))
    .values(phase_label=bindparam("b_phase"), state_json=bindparam("b_state"), status=bindparam("b_status"),
            deadline_at=bindparam("b_deadline"), winner=bindparam("b_winner"), step_seq=bindparam("b_seq"),
            updated_at=bindparam("b_updated"), state_seq=None)
)
# a step whose state is not written (a rehearsal's, now and then: `Step.state_json` None):
# the stored state stays, and the seq it is the state after with it (`caught_up_state`)
_GAME_STEP_BEHIND = (
    update(_G)
    .where(_G.c.id == bindparam("gid"), _G.c.step_seq == bindparam("newest"))
    .values(phase_label=bindparam("b_phase"), status=bindparam("b_status"),
            deadline_at=bindparam("b_deadline"), winner=bindparam("b_winner"), step_seq=bindparam("b_seq"),
            updated_at=bindparam("b_updated"), state_seq=func.coalesce(_G.c.state_seq, bindparam("newest")))
)


_O, _I, _T, _M, _P = (OutboxRow.__table__, InboundRow.__table__, ThreadRow.__table__, MarkRow.__table__,
                      PhaseRow.__table__)
_E, _PL = EventRow.__table__, PlayerRow.__table__


def events_query(game_id: Any, after: Any = None, upto: Any = None) -> Any:
    """A game's events in seq order (seq, kind, phase_label, payload_json, created_at): the
    `events` rows and the inputs' own (an inbound row with a payload, migration 0007); only
    those after seq `after` up to `upto` when given (values or bind parameters)."""
    def seqs(seq: Any) -> list[Any]:
        return [c for c in (seq > after if after is not None else None, seq <= upto if upto is not None else None)
                if c is not None]

    said = [c.label(c.name) for c in (_I.c.forum_id, _I.c.sender, _I.c.text, _I.c.thread_key, _I.c.edited)]
    rows = select(_E.c.seq, _E.c.kind, _E.c.phase_label, _E.c.payload_json, _E.c.created_at,
                  *(type_coerce(null(), c.type).label(c.name) for c in said)).where(
        _E.c.game_id == game_id, *seqs(_E.c.seq))
    inputs = select(_I.c.event_seq.label("seq"), _I.c.source.label("kind"), _I.c.phase_label,
                    _I.c.payload_json, _I.c.sent_at.label("created_at"), *said).where(
        _I.c.game_id == game_id, _I.c.payload_json.is_not(None), *seqs(_I.c.event_seq))
    both = union_all(rows, inputs).subquery()
    return select(both).order_by(both.c.seq)


# ---- an input stored once (issue 37, migration 0009) ----------------------------------
# An input's event is its inbound row (0007); when the row says all of the input (a PM, a
# post without a first version, a deadline, at a UTC time) its payload is '' and its JSON
# is made from the row when read (`stored_payload`), not made and stored with each step.


def row_says(event: Any, row: InboundRecord) -> bool:
    """Whether the inbound `row` says all of the input `event`: the input `row_input` makes
    from it writes the same JSON (every field the same; its time UTC, as read back)."""
    at = event.at
    # (`tzinfo is UTC` first: `utcoffset()` calls the zone's method by name, about a microsecond)
    if (type(at) is not datetime or (at.tzinfo is not UTC and at.utcoffset() != _ZERO) or at != row.sent_at
            or event.id != row.forum_id):
        return False
    kind = event.type
    if kind == "pm":
        return row.source == "pm" and event.sender == row.sender and event.text == row.text
    if kind == "post":
        return (row.source == "post" and event.original_text is None and event.author == row.sender
                and event.text == row.text and event.thread == row.thread_key and event.edited == row.edited)
    return kind == "deadline" and row.source == "deadline" and event.kind == row.text and row.sender == ""


_ZERO = timedelta(0)


def row_input(kind: str, forum_id: str, sender: str, sent_at: datetime, text: str, thread_key: str | None,
              edited: bool) -> Any:
    """The input an inbound row says all of (`row_says`), its strings as stored (not
    cleaned again: they were cleaned when it came in)."""
    from tianshen.core.model import DeadlineIn, PmIn, PostIn

    if kind == "pm":
        made: Any = PmIn.__new__(PmIn)
        made.id, made.sender, made.at, made.text = forum_id, sender, sent_at, text
    elif kind == "post":
        made = PostIn.__new__(PostIn)
        made.id, made.thread, made.author, made.at, made.text = forum_id, thread_key, sender, sent_at, text
        made.edited, made.original_text = bool(edited), None
    elif kind == "deadline":
        made = DeadlineIn.__new__(DeadlineIn)
        made.id, made.at, made.kind = forum_id, sent_at, text
    else:
        raise ValueError(f"an inbound row of source {kind!r} says no input")
    return made


def stored_payload(row: Any) -> str:
    """The payload of an `events_query` row: its own, or, an input whose inbound row says
    all of it (''), the input's JSON made from the row."""
    if row.payload_json:
        return str(row.payload_json)
    return str(row_input(row.kind, row.forum_id, row.sender, row.created_at, row.text, row.thread_key,
                         row.edited).model_dump_json())


def event_records(rows: Any) -> list[EventRecord]:
    """`events_query` rows as records (each input's payload as `stored_payload` makes it)."""
    return [EventRecord(seq=r.seq, kind=r.kind, phase_label=r.phase_label, payload_json=stored_payload(r),
                        created_at=r.created_at) for r in rows]

# The hot statements, built once: building a statement costs more than running it on SQLite.
_GID = bindparam("gid")
_HEAD = select(_G.c.name, _G.c.phase_label, _G.c.step_seq).where(_G.c.id == _GID)
_SEQ = select(_G.c.step_seq).where(_G.c.id == _GID)
_GAME = select(_G).where(_G.c.id == _GID)
_HEADS = (select(_G.c.id, _G.c.name, _G.c.ruleset, _G.c.seed, _G.c.status, _G.c.phase_label, _G.c.deadline_at,
                 _G.c.winner, _G.c.board, _G.c.step_seq)
          .where(_G.c.board.in_(bindparam("boards", expanding=True)), _G.c.status != BOARD_STATUS).order_by(_G.c.id))
# a step's outbox rows take the seqs after the game's newest, read in the step's transaction
# (the game's row is locked by then); the INSERT answers each row's id (one statement)
_OUT_SEQ = select(func.coalesce(func.max(_O.c.seq), 0)).where(_O.c.game_id == _GID)
# "pending" written in the statement, not bound: the partial index of the pending rows
# (`ix_outbox_pending`, migration 0010) is one a plan can use only for the value it names
_IS_PENDING = _O.c.status == literal_column("'pending'", String)
_PENDING = select(_O).where(_O.c.game_id == _GID, _IS_PENDING).order_by(_O.c.seq)
_WINDOW = select(_O).where(_O.c.game_id == _GID, _O.c.kind == "post",
                           func.substr(_O.c.key, 1, bindparam("n")) == bindparam("prefix")).order_by(_O.c.seq)
_PENDING_OF = (select(_O).where(_O.c.game_id.in_(bindparam("gids", expanding=True)), _IS_PENDING)
               .order_by(_O.c.id))
_DONE = bindparam("b_done", type_=Boolean)
# one part recorded (a row's first forum ref stays); the last part sends the row
_RECORDED = dict(
    parts_done=bindparam("b_parts"), attempt_part=None, attempt_since=None,
    forum_ref=func.coalesce(func.nullif(_O.c.forum_ref, ""), func.nullif(bindparam("b_ref", type_=String), ""),
                            _O.c.forum_ref),
    board_at=func.coalesce(_O.c.board_at, bindparam("b_board", type_=_O.c.board_at.type)),
    status=case((_DONE, "sent"), else_=_O.c.status), sent_at=case((_DONE, bindparam("b_sent", type_=_O.c.sent_at.type)), else_=_O.c.sent_at),
    claimed_by=case((_DONE, None), else_=_O.c.claimed_by),
    claimed_until=case((_DONE, None), else_=_O.c.claimed_until))
_RECORD_PART = update(_O).where(_O.c.id == bindparam("oid")).values(_RECORDED)
# SQLite: the parts recorded alike one after the other on rows of consecutive ids (a flush's
# PMs) as one statement over their ids' range (one row's parameters, not one set a row)
_RECORD_RANGE = update(_O).where(_O.c.id.between(bindparam("lo"), bindparam("hi"))).values(_RECORDED)
_MARKS = select(_M.c.name, _M.c.value).where(_M.c.game_id == _GID)
_THREAD = select(_T.c.forum_thread_id).where(_T.c.game_id == _GID, _T.c.key == bindparam("tkey"))
_THREADS = select(_T.c.forum_thread_id, _T.c.key).where(_T.c.game_id == _GID)
_DROP_PLAYERS = delete(_PL).where(_PL.c.game_id == _GID)
# the seats a step changed, each by its name (a game's seats keep their names)
_SET_PLAYER = update(_PL).where(_PL.c.game_id == _GID, _PL.c.name == bindparam("b_name")).values(
    forum_name=bindparam("b_forum_name"), seat=bindparam("b_seat"), role=bindparam("b_role"),
    faction=bindparam("b_faction"), alive=bindparam("b_alive", type_=Boolean))


# ---- the hot statements through the DBAPI cursor (issue 37) ---------------------------
# SQLAlchemy's Python side (the compiled cache's key, the execution context, the type layer
# per parameter) cost several times what sqlite3 itself takes for a step's few statements.
# Each hot statement is compiled once per dialect here and run on the cursor of the
# transaction's own connection: the same transaction, the engine's cursor events fired
# (the benches count them, the tests fail writes through them), the errors wrapped as
# SQLAlchemy wraps them (IntegrityError, a lost connection invalidated).


@dataclass(frozen=True)
class _Fast:
    """A statement compiled for one dialect: its SQL and how to make its parameters."""

    sql: str
    positional: bool
    # (name, taken from the row, constant value, bind processor) per placeholder
    binds: tuple[tuple[str, bool, Any, Callable[[Any], Any] | None], ...]

    @cached_property
    def params(self) -> Callable[[dict[str, Any]], Any]:
        """A row's parameters (a tuple in the binds' order, or a dict by name): a function
        made for this statement (`_params_of`)."""
        return _params_of(self.binds, self.positional)


def _params_of(binds: tuple[tuple[str, bool, Any, Callable[[Any], Any] | None], ...],
               positional: bool) -> Callable[[dict[str, Any]], Any]:
    """One expression a bind, in one function (issue 37: about 300 rows a classic_10
    rehearsal; a loop over the binds, or a getter then a loop over the processors, cost
    twice this): each name taken from the row once, through its processor when it has one
    (a flush's record binds its `done` four times), the constants processed here."""
    env: dict[str, Any] = {}
    lines: list[str] = []
    taken: dict[str, str] = {}
    uses = [name for name, from_row, _, _ in binds if from_row]
    out = []
    for name, from_row, const, proc in binds:
        if not from_row:
            out.append(f"c{len(out)}")
            env[out[-1]] = proc(const) if proc else const
            continue
        if name not in taken:
            n, value = len(taken), f"row[{name!r}]"
            if proc in _TEXTS_FIRST:
                env[f"t{n}"], env[f"p{n}"] = _UTC_TEXTS.get, proc
                lines.append(f"    r{n} = {value}")
                value = f"(t{n}(r{n}) or p{n}(r{n}))"
            elif proc is not None:
                env[f"p{n}"] = proc
                value = f"p{n}({value})"
            taken[name] = value
            if uses.count(name) > 1:  # made once
                lines.append(f"    v{n} = {value}")
                taken[name] = f"v{n}"
        out.append(taken[name])
    names = [name for name, _, _, _ in binds]
    body = f"({''.join(v + ', ' for v in out)})" if positional else \
        f"{{{', '.join(f'{n!r}: {v}' for n, v in zip(names, out, strict=True))}}}"
    code = "def params(row):\n" + "".join(line + "\n" for line in lines) + f"    return {body}\n"
    exec(code, env)  # noqa: S102 - made from the statement's own bind names
    made: Callable[[dict[str, Any]], Any] = env["params"]
    return made


_FAST: dict[tuple[str, Any], _Fast] = {}


def _fast(conn: Connection, key: Any, build: Callable[[], Any]) -> _Fast:
    """The statement `build` makes, compiled once for the connection's dialect (by `key`)."""
    dialect = conn.dialect
    found = _FAST.get((dialect.name, key))
    if found is None:
        compiled = build().compile(dialect=dialect)
        if compiled.insert_prefetch or compiled.update_prefetch or compiled.literal_execute_params:
            raise RuntimeError(f"not a plain statement: {compiled.string}")  # a default to compute: give it
        by_name = {name: bind for bind, name in compiled.bind_names.items()}
        names = compiled.positiontup if compiled.positional else list(by_name)
        procs = {n: _quick(by_name[n].type, dialect.name, proc) for n, proc in compiled._bind_processors.items()}
        binds = tuple((n, by_name[n].required, None if by_name[n].required else by_name[n].effective_value,
                       procs.get(n)) for n in names)
        found = _FAST[(dialect.name, key)] = _Fast(compiled.string, compiled.positional, binds)
    return found


_SAMPLE = datetime(2026, 12, 6, 13, 1, 2, 345678, tzinfo=UTC)
# SQLite's texts of the UTC times bound lately, shared by every hot statement: a step's time
# is bound by several (its input's row, its phases, the records of its posts), each its own
# processor; cleared when full
_UTC_TEXTS: dict[datetime, str] = {}
_UTC_TEXTS_MAX = 4096


def _quick(type_: Any, dialect: str, proc: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """A bind processor as a hot statement runs it; a time's in one call (issue 37: it was
    three nested ones, about 300 times a classic_10 rehearsal):
    - a None that stays None answered at once (a step's outbox rows' `sent_at`, an open
      phase's end: not through the type layer);
    - the value it last had answered again without the work (a step's or a flush's rows
      share their times, `now`; the type's processor takes about 6 µs);
    - on SQLite a UTC time (every time the store writes) its text at once, not through
      `UTCDateTime` and SQLAlchemy's format (3.7 -> 1.8 µs), when that gives SQLAlchemy's
      text; another value the type's processor.
    Any other type's processor (a boolean's, in C) as it is."""
    if not isinstance(type_, UTCDateTime):
        return proc
    sample = _SAMPLE.replace(year=999, microsecond=0)
    # (a UTC time's own text less its "+00:00", not a naive copy's: `replace` parses its
    # keywords, about a third of the text's cost)
    short = dialect == "sqlite" and all(
        proc(v) == v.isoformat(" ", "microseconds")[:-6] for v in (_SAMPLE, sample))
    none_stays = proc(None) is None
    last: tuple[Any, Any] = (None, None)

    def process(value: Any) -> Any:
        nonlocal last
        if value is None and none_stays:
            return None
        seen, out = last  # one tuple, replaced whole: threads may share it
        if value is seen and value is not None:
            return out
        if short and value is not None and value.tzinfo is UTC:
            out = _UTC_TEXTS.get(value)
            if out is None:
                if len(_UTC_TEXTS) >= _UTC_TEXTS_MAX:
                    _UTC_TEXTS.clear()
                out = _UTC_TEXTS[value] = value.isoformat(" ", "microseconds")[:-6]
        else:
            out = proc(value)
        last = (value, out)
        return out

    if short:
        _TEXTS_FIRST.add(process)
    return process


# the SQLite time processors whose value is looked up in `_UTC_TEXTS` first (`_params_of`:
# a dict's look-up in C, the processor called only when it is not there; an equal time in
# another zone has the same text)
_TEXTS_FIRST: set[Callable[[Any], Any]] = set()


def _run(conn: Connection, fast: _Fast, rows: list[dict[str, Any]], returning: bool = False,
         one_by_one: bool = False) -> Any:
    """Run `fast` once per row (an executemany when there are several) on the transaction's
    cursor; the cursor (its rowcount, its RETURNING rows, its `lastrowid`; `returning`: an
    executemany's RETURNING rows kept, psycopg's, read with `_returning_rows`; `one_by_one`:
    an execute a row, their RETURNING rows kept: SQLite's executemany returns none)."""
    many, params = len(rows) > 1, None
    cursor = conn.connection.dbapi_connection.cursor()  # (the pool's proxy's `cursor()` is this, a call more)
    events = conn._has_events or conn.engine._has_events
    try:  # a value the type layer refuses (a naive datetime) is a StatementError too
        params = list(map(fast.params, rows)) if many else fast.params(rows[0])
        if events:  # the engine's listeners see it as any statement
            conn.dispatch.before_cursor_execute(conn, cursor, fast.sql, params, None, many)
        result = cursor
        if many and (one_by_one or (len(rows) < _PIPELINE_ROWS and conn.dialect.driver == "psycopg")):
            result = _one_by_one(cursor, fast.sql, params, returning)
        elif many and returning:
            cursor.executemany(fast.sql, params, returning=True)
        elif many:
            cursor.executemany(fast.sql, params)
        else:
            cursor.execute(fast.sql, params)
        if events:
            conn.dispatch.after_cursor_execute(conn, cursor, fast.sql, params, None, many)
    except Exception as e:  # noqa: BLE001 - wrapped and raised as SQLAlchemy raises it
        conn._handle_dbapi_exception(e, fast.sql, params, cursor, None)
    return result


# psycopg's executemany runs in a pipeline, whose entry and exit cost about 45 µs of client
# CPU: below this many rows an execute a row costs less (a step's marks, phases and players,
# often its inputs: 2 or 3 rows)
_PIPELINE_ROWS = 5


@dataclass
class _Executed:
    """What `_run` answers for rows executed one by one: their rowcount summed, their
    RETURNING rows in order (read as `_returning_rows` reads a cursor)."""

    rowcount: int
    rows: list[Any]

    def fetchall(self) -> list[Any]:
        rows, self.rows = self.rows, []
        return rows

    def nextset(self) -> None:
        return None


def _one_by_one(cursor: Any, sql: str, params: list[Any], returning: bool) -> _Executed:
    done = _Executed(0, [])
    for p in params:
        cursor.execute(sql, p)
        done.rowcount += cursor.rowcount
        if returning:
            done.rows += cursor.fetchall()
    return done


def _values(table: Any, keys: tuple[str, ...], count: int) -> list[dict[str, Any]]:
    """A VALUES list of `count` rows of `keys`, each row's parameters named `key__n`."""
    return [{k: bindparam(f"{k}__{n}", type_=table.c[k].type) for k in keys} for n in range(count)]


def _flat(rows: list[dict[str, Any]]) -> dict[str, Any]:
    return {f"{k}__{n}": v for n, row in enumerate(rows) for k, v in row.items()}


@dataclass(frozen=True)
class _JsonRows:
    """PostgreSQL: rows of one table inserted by one statement with one parameter, the rows
    as a JSON array (`json_populate_recordset`, in their order), each row's values made by
    the row statement `each` (its types' processors: a naive time refused as before).
    psycopg's client CPU goes mostly to each parameter set of an executemany (its dump,
    its prepared-statement bookkeeping); one JSON text, made in C, costs a few µs."""

    sql: str
    each: _Fast

    def params(self, rows: list[dict[str, Any]]) -> dict[str, str]:
        return {"rows": _JSON_ROWS([self.each.params(r) for r in rows])}


_JSON_ROWS = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), check_circular=False,
                              default=lambda v: v.isoformat()).encode  # (times: aware, as processed)
_JSONS: dict[Any, _JsonRows] = {}


def _json_rows(conn: Connection, table: Any, rows: list[dict[str, Any]], returned: tuple[str, ...] = (),
               conflict: tuple[tuple[str, ...], str] | None = None) -> Any:
    """INSERT `rows` on PostgreSQL as one statement of one parameter (`_JsonRows`); the
    cursor (its RETURNING rows: the `returned` columns).  `conflict`: (the unique keys, the
    column set again) an upsert's, whose rows' keys must differ (`_upsert_rows`)."""
    keys = tuple(rows[0])
    found = _JSONS.get((table.name, keys, returned, conflict))
    if found is None:
        each = _fast(conn, (table.name, keys), lambda: insert(table).inline().values(
            {k: bindparam(k, type_=table.c[k].type) for k in keys}))  # (`_insert`'s)
        q = conn.dialect.identifier_preparer.quote  # (as SQLAlchemy writes them: quoted when it must)
        name, cols = q(table.name), ", ".join(map(q, keys))
        sql = (f"INSERT INTO {name} ({cols}) SELECT {cols} FROM json_populate_recordset("
               f"NULL::{name}, %(rows)s::json) WITH ORDINALITY AS r ORDER BY r.ordinality")
        if conflict:
            sql += f" ON CONFLICT ({', '.join(map(q, conflict[0]))}) DO UPDATE SET {q(conflict[1])} = " \
                   f"excluded.{q(conflict[1])}"
        if returned:
            sql += " RETURNING " + ", ".join(map(q, returned))
        found = _JSONS[(table.name, keys, returned, conflict)] = _JsonRows(sql, each)
    return _run(conn, found, [rows])  # type: ignore[arg-type]


def _insert(conn: Connection, table: Any, rows: list[dict[str, Any]], same: dict[str, Any] | None = None) -> Any:
    """INSERT rows that all give the same columns (no RETURNING, no defaults computed); the
    cursor (None: no rows).  `same`: columns every row holds with these values (strings,
    numbers, None), written into SQLite's statement rather than bound a row (issue 37: a
    bound value costs sqlite3 a call, a NULL an adapter's look-up); other drivers bind them."""
    if len(rows) > 1 and conn.dialect.driver == "psycopg":
        return _json_rows(conn, table, rows)
    if not rows:
        return None
    if same is None or conn.dialect.name != "sqlite":
        keys = tuple(rows[0])
        return _run(conn, _fast(conn, (table.name, keys), lambda: insert(table).inline().values(
            {k: bindparam(k, type_=table.c[k].type) for k in keys})), rows)
    bound = tuple(k for k in rows[0] if k not in same)
    return _run(conn, _fast(conn, (table.name, bound, tuple(same.items())), lambda: insert(table).inline().values(
        {**{k: bindparam(k, type_=table.c[k].type) for k in bound}, **{k: _sql_constant(v) for k, v in same.items()}})),
                rows)


def _sql_constant(value: str | int | None) -> Any:
    """A constant as SQL text (`_insert`'s `same`)."""
    if value is None:
        return null()
    if isinstance(value, bool) or not isinstance(value, str | int) or "'" in str(value):
        raise ValueError(f"not a plain constant: {value!r}")
    return literal_column(f"'{value}'" if isinstance(value, str) else str(value))


def _returning_rows(cursor: Any) -> list[Any]:
    """The RETURNING rows of each statement of a psycopg executemany."""
    rows = []
    while True:
        rows += cursor.fetchall()
        if not cursor.nextset():
            return rows


def _insert_returning(conn: Connection, table: Any, rows: list[dict[str, Any]], *returned: str,
                      same: dict[str, Any] | None = None) -> list[Any]:
    """INSERT rows in one statement (one VALUES list a row; with psycopg an executemany that
    keeps each row's RETURNING: a third less CPU than a VALUES list of as many rows), the
    `returned` columns of each in no particular order.  On SQLite one row a statement, the
    same statement for any number of rows (a VALUES list of each new count was compiled
    anew: about 1.7 ms, 7 of them in the first 10 classic_10 rehearsals of a process), the
    other columns the row's own, each row's `id` set in it: the first row's its rowid (its
    `id` bound NULL: the cursor's `lastrowid`, no RETURNING row to make and read), the
    others' the ones after it, bound (one executemany, not an execute a row: the first
    INSERT holds SQLite's write lock until the commit, so no other process adds a row
    between; a row with the largest rowid there is would make SQLite choose them at random,
    and the next one bound then may fail as a duplicate, never be another row's).  `same`:
    as `_insert`'s (SQLite)."""
    keys = tuple(rows[0])
    if conn.dialect.name == "sqlite" and returned[:1] == ("id",) and set(returned[1:]) <= set(keys):
        for row in rows:
            row["id"] = None
        first = _insert(conn, table, rows[:1], same).lastrowid
        for n, row in enumerate(rows, start=first):
            row["id"] = n
        _insert(conn, table, rows[1:], same)
        if len(returned) == 1:
            return [(row["id"],) for row in rows]
        return list(map(itemgetter(*returned), rows))  # (each row's tuple made in C)
    psycopg = conn.dialect.driver == "psycopg"
    if psycopg and len(rows) > 1:
        return _json_rows(conn, table, rows, returned).fetchall()
    if (psycopg and len(rows) >= _PIPELINE_ROWS) or (not psycopg and len(rows) > 1):
        fast = _fast(conn, (table.name, keys, returned), lambda: insert(table).values(
            {k: bindparam(k, type_=table.c[k].type) for k in keys}).returning(*(table.c[c] for c in returned)))
        if psycopg:
            return _returning_rows(_run(conn, fast, rows, returning=True))
        return _run(conn, fast, rows, returning=True, one_by_one=True).fetchall()
    fast = _fast(conn, (table.name, keys, len(rows), returned), lambda: insert(table).values(
        _values(table, keys, len(rows))).returning(*(table.c[c] for c in returned)))
    return _run(conn, fast, [_flat(rows)]).fetchall()


def _upsert(dialect: str, table: Any, keys: tuple[str, ...], column: str, columns: tuple[str, ...]) -> Insert:
    """INSERT … ON CONFLICT (keys) DO UPDATE SET column (SQLite and PostgreSQL alike): one
    statement where an UPDATE and, when it found nothing, an INSERT were two."""
    if dialect == "postgresql":  # imported only here: a daemon on SQLite starts without it
        from sqlalchemy.dialects.postgresql import insert as dialect_insert
    else:
        from sqlalchemy.dialects.sqlite import insert as dialect_insert
    stmt = dialect_insert(table).inline().values(
        {c: bindparam(c, type_=table.c[c].type) for c in columns})
    return stmt.on_conflict_do_update(index_elements=list(keys), set_={column: getattr(stmt.excluded, column)})


_UPSERTS = {
    "marks": (_M, ("game_id", "name"), "value", ("game_id", "name", "value")),
    "threads": (_T, ("game_id", "key"), "forum_thread_id", ("game_id", "key", "forum_thread_id")),
    # a label seen before (unusual) is reopened rather than duplicated
    "phases": (_P, ("game_id", "label"), "ended_at", ("game_id", "label", "started_at", "ended_at")),
}


def _upserted(conn: Connection, table: str) -> _Fast:
    return _fast(conn, ("upsert", table), lambda: _upsert(conn.dialect.name, *_UPSERTS[table]))


def _upsert_rows(conn: Connection, name: str, rows: list[dict[str, Any]]) -> None:
    """The upsert `name` of `_UPSERTS` for each row, in order: on PostgreSQL rows whose keys
    all differ as one statement of one JSON parameter (one round trip; a key twice in one
    statement is refused there, so such rows go one by one, the later winning as before)."""
    table, keys, column, columns = _UPSERTS[name]
    if len(rows) > 1 and conn.dialect.driver == "psycopg" and len(
            {tuple(r[k] for k in keys) for r in rows}) == len(rows):  # one JSON parameter (`_JsonRows`)
        _json_rows(conn, table, rows, conflict=(keys, column))
    elif rows:
        _run(conn, _upserted(conn, name), rows)


def _set_marks(conn: Connection, game_id: int, marks: dict[str, str]) -> None:
    _upsert_rows(conn, "marks", [{"game_id": game_id, "name": k, "value": v} for k, v in marks.items()])


def _set_threads(conn: Connection, threads: list[tuple[int, str, str]]) -> None:
    _upsert_rows(conn, "threads", [dict(game_id=g, key=k, forum_thread_id=t) for g, k, t in threads])


def _record(conn: Connection, parts: list[tuple[SentPart, datetime]]) -> int:
    """The parts sent (each with the time it was sent) and the threads they opened; how
    many rows were found (all of them, as far as the database driver can tell)."""
    _set_threads(conn, [(p.game_id, *p.thread) for p, _ in parts if p.thread is not None])
    if conn.dialect.name == "sqlite":
        done = _run(conn, _fast(conn, "record_range", lambda: _RECORD_RANGE), _ranges(parts))
        return done.rowcount
    rows = _record_values(parts)
    # one statement only when each row is recorded once: a row's parts, one after the
    # other, must run in order (one UPDATE sets a row once)
    if conn.dialect.name == "postgresql" and len(rows) > 1 and _pg_records_fit(parts):
        done = _run(conn, _PgStep(_pg_record_sql(conn), lambda: {"records": _pg_records(conn, rows)}), [{}])
        return done.rowcount
    done = _run(conn, _fast(conn, "record_part", lambda: _RECORD_PART), rows)
    return done.rowcount if conn.dialect.supports_sane_multi_rowcount else len(parts)


def _ranges(parts: list[tuple[SentPart, datetime]]) -> list[dict[str, Any]]:
    """The records in order, each next one recorded alike on the next id joined to the one
    before it as a range of ids (`lo`, `hi`): the order of the parts of one row is kept.
    (Each record's values compared as one tuple: issue 37, about 1,100 records a classic_10
    rehearsal.)"""
    runs: list[dict[str, Any]] = []
    last: tuple[Any, ...] | None = None
    hi = 0
    for p, at in parts:
        values = (p.parts_done, p.forum_ref, p.done, at, p.board_at)
        if last is not None and hi + 1 == p.outbox_id and values == last:
            hi = runs[-1]["hi"] = p.outbox_id
            continue
        last, hi = values, p.outbox_id
        runs.append(dict(zip(_RECORD_BINDS, values, strict=True), lo=hi, hi=hi))
    return runs


_RECORD_BINDS = ("b_parts", "b_ref", "b_done", "b_sent", "b_board")


def _record_values(parts: list[tuple[SentPart, datetime]]) -> list[dict[str, Any]]:
    return [dict(oid=p.outbox_id, b_parts=p.parts_done, b_ref=p.forum_ref, b_done=p.done, b_sent=at,
                 b_board=p.board_at) for p, at in parts]


# ---- PostgreSQL: a flush's records as one statement (issue 37) -------------------------
# `_RECORDED` with each bound value taken from a row of one JSON parameter: every record of a
# flush one UPDATE (they were one statement for each set of alike values: 1–3 a flush), and
# in a step's transaction a part of the step's own statement (`_pg_step`).

_PG_RECORD: list[str] = []  # (built once)


def _pg_record_sql(conn: Connection) -> str:
    """The UPDATE of the records, each row's values from `%(records)s` (`_pg_records`)."""
    if not _PG_RECORD:
        json_rows = literal_column("%(records)s::json")
        r = func.json_to_recordset(json_rows).table_valued(
            column("oid", Integer), column("b_parts", Integer), column("b_ref", String), column("b_done", Boolean),
            column("b_sent", DateTime(timezone=True)), column("b_board", DateTime(timezone=True)),
        ).render_derived(name="r", with_types=True)

        def from_row(e: Any) -> Any:
            return r.c[e.key] if isinstance(e, BindParameter) and e.key in r.c else None

        values = {k: v if v is None else replacement_traverse(v, {}, from_row) for k, v in _RECORDED.items()}
        sql = update(_O).where(_O.c.id == r.c.oid).values(values).compile(
            dialect=conn.dialect, compile_kwargs={"literal_binds": True}).string
        _PG_RECORD.append(sql.replace("%%(records)s", "%(records)s"))
    return _PG_RECORD[0]


def _pg_records_fit(parts: list[tuple[SentPart, datetime]]) -> bool:
    """Each row recorded once and each thread opened once (one statement sets a row once)."""
    threads = [(p.game_id, p.thread[0]) for p, _ in parts if p.thread is not None]
    return len({p.outbox_id for p, _ in parts}) == len(parts) and len(set(threads)) == len(threads)


def _pg_records(conn: Connection, rows: list[dict[str, Any]]) -> str:
    """The records as `_pg_record_sql`'s JSON parameter (a naive time refused, as bound)."""
    utc = UTCDateTime().process_bind_param
    return _JSON_ROWS([{**r, "b_sent": utc(r["b_sent"], conn.dialect), "b_board": utc(r["b_board"], conn.dialect)}
                       for r in rows])


def _players_written(steps: list[Step]) -> tuple[list[dict[str, Any]] | None, set[str] | None]:
    """The players' rows as the steps left them (None: no step changed them) and the names
    of the seats changed (None: a step changed which seats there are: all written again)."""
    players: list[dict[str, Any]] | None = None
    changed: set[str] | None = set()
    for step in steps:
        if step.players is not None:
            players = step.players  # every row, as that step left them
            if changed is not None and step.players_changed is not None:
                changed.update(step.players_changed)
            else:
                changed = None
    return players, changed


def _write_players(conn: Connection, game_id: int, steps: list[Step]) -> None:
    """The players' rows as the steps left them: the changed seats' rows updated (one
    statement), or all of them written again when a step changed which seats there are."""
    players, changed = _players_written(steps)
    if players is None:
        return
    if changed is not None:
        rows = [_player_values(game_id, p) for p in players if p["name"] in changed]
        if rows:
            done = _run(conn, _fast(conn, "set_player", lambda: _SET_PLAYER), [
                dict(gid=game_id, b_name=r["name"], b_forum_name=r["forum_name"], b_seat=r["seat"], b_role=r["role"],
                     b_faction=r["faction"], b_alive=r["alive"]) for r in rows])
        if not rows or not conn.dialect.supports_sane_multi_rowcount or done.rowcount == len(rows):
            return
    _run(conn, _fast(conn, "drop_players", lambda: _DROP_PLAYERS), [dict(gid=game_id)])  # a seat not stored
    _insert(conn, _PL, [_player_values(game_id, p) for p in players])


def _next_phases(conn: Connection, game_id: int, changes: list[tuple[str, str, datetime]]) -> None:
    """Each (phase ended, phase begun, at): the phase ended gets its end and the phase begun
    its row, in one statement (the upsert, one row for each: the ended phase's row is there
    already, so its `ended_at` is what is set; a label seen before is reopened)."""
    _upsert_rows(conn, "phases", [{"game_id": game_id, "label": label, "started_at": at, "ended_at": end}
                                  for ended, begun, at in changes for label, end in ((ended, at), (begun, None))])


# ---- PostgreSQL: a step's statements as one (issue 37) -------------------------------
# Each statement costs psycopg's client about as much again as its rows (the query sent, its
# result read, the prepared-statement bookkeeping, a cursor): on PostgreSQL a step's UPDATE
# of the game, its inputs, events, marks, changed seats, phases and outbox rows go as one
# statement of data-modifying CTEs, each table's rows one JSON parameter ('[]' for none: one
# statement for every step).  The rows are written only when the game's UPDATE found the seq
# it expects (`EXISTS (SELECT FROM g)`): nothing else otherwise (`StaleState`); a duplicate
# input fails the whole statement (IntegrityError), as its own INSERT did.

_STEP_ROWS = {  # table: the columns of its rows, as `Store._steps` makes them
    "inbound": ("game_id", "source", "forum_id", "thread_key", "sender", "sent_at", "text", "edited", "phase_label",
                "event_seq", "received_at", "payload_json"),
    "events": ("game_id", "seq", "phase_label", "kind", "payload_json", "created_at"),
    "marks": ("game_id", "name", "value"),
    "players": ("game_id", "name", "forum_name", "seat", "role", "faction", "alive"),
    "phases": ("game_id", "label", "started_at", "ended_at"),
    "outbox": ("game_id", "kind", "target", "title", "subject", "body", "key", "status", "created_at", "sent_at",
               "forum_ref", "parts_done", "seq"),
    "threads": ("game_id", "key", "forum_thread_id"),  # (opened by the parts recorded with the step)
}
# what every outbox row a step writes holds when new (`_steps`' rows; `_insert`'s `same` on SQLite)
_NEW_OUTBOX = {"status": "pending", "sent_at": None, "forum_ref": None, "parts_done": 0}
_STEP_UPSERTS = {"marks": (("game_id", "name"), "value"), "phases": (("game_id", "label"), "ended_at"),
                 "threads": (("game_id", "key"), "forum_thread_id")}


@dataclass(frozen=True)
class _PgStep:
    """The step's statement, as `_run` runs it: its parameters made there (`make`), so a
    value refused (a naive time) is a StatementError as any statement's."""

    sql: str
    make: Callable[[], dict[str, Any]] | None = None

    def params(self, _row: Any) -> dict[str, Any]:
        assert self.make is not None
        return self.make()


_PG_STEP: list[_PgStep] = []  # (built once)


def _pg_step_statement(conn: Connection) -> _PgStep:
    if _PG_STEP:
        return _PG_STEP[0]
    q = conn.dialect.identifier_preparer.quote
    parts = [
        "g AS (UPDATE games SET phase_label = %(b_phase)s, state_json = COALESCE(%(b_state)s::text, state_json),"
        " status = %(b_status)s, deadline_at = %(b_deadline)s::timestamptz, winner = %(b_winner)s,"
        " step_seq = %(b_seq)s, updated_at = %(b_updated)s::timestamptz,"
        " state_seq = CASE WHEN %(b_state)s::text IS NULL THEN COALESCE(state_seq, %(newest)s::integer) END"
        " WHERE id = %(gid)s AND step_seq = %(newest)s::integer RETURNING id)"]
    for table, columns in _STEP_ROWS.items():
        cols = ", ".join(map(q, columns))
        rows = f"json_populate_recordset(NULL::{table}, %({table})s::json) WITH ORDINALITY AS r"
        if table == "players":  # the changed seats, each by its name
            sets = ", ".join(f"{q(c)} = r.{q(c)}" for c in columns if c not in ("game_id", "name"))
            parts.append(f"w_players AS (UPDATE players SET {sets} FROM {rows} WHERE players.game_id = r.game_id"
                         " AND players.name = r.name AND EXISTS (SELECT FROM g) RETURNING 1)")
            continue
        sql = f"INSERT INTO {table} ({cols}) SELECT {cols} FROM {rows} WHERE EXISTS (SELECT FROM g) ORDER BY r.ordinality"
        if table in _STEP_UPSERTS:
            keys, updated = _STEP_UPSERTS[table]
            sql += f" ON CONFLICT ({', '.join(map(q, keys))}) DO UPDATE SET {q(updated)} = excluded.{q(updated)}"
        if table == "outbox":
            sql += f" RETURNING id, {q('key')}"
        parts.append(f"w_{table} AS ({sql})")
    parts.append(f"w_records AS ({_pg_record_sql(conn)})")  # the parts sent before, recorded
    sql = ("WITH " + ", ".join(parts) + " SELECT (SELECT count(*) FROM g), (SELECT count(*) FROM w_players),"
           f" (SELECT json_agg(json_build_array(id, {q('key')})) FROM w_outbox)")
    _PG_STEP.append(_PgStep(sql))
    return _PG_STEP[0]


def _pg_step_fits(phases: list[tuple[str, str, datetime]]) -> bool:
    """The phases' rows all differ in label (one upsert may not touch a row twice): else
    the step goes statement by statement."""
    labels = [label for ended, begun, _ in phases for label in (ended, begun)]
    return len(labels) == len(set(labels))


def _pg_rows(conn: Connection, table: str, rows: list[dict[str, Any]]) -> str:
    """`rows` of `table` as the JSON parameter (each row's values made by its INSERT's types,
    as `_JsonRows` makes them: a naive time refused)."""
    if not rows:
        return "[]"
    t, keys = Base.metadata.tables[table], _STEP_ROWS[table]
    each = _fast(conn, (table, keys), lambda: insert(t).inline().values(
        {k: bindparam(k, type_=t.c[k].type) for k in keys}))  # (`_insert`'s)
    return _JSON_ROWS([each.params(r) for r in rows])


def _not_moved(conn: Connection, game_id: int, name: str, newest: int) -> NoReturn:
    """The game's step UPDATE found no row at seq `newest`: the game is gone (KeyError), or
    another step committed first (`StaleState`: the state is read again, the input folded again)."""
    if conn.scalar(_SEQ, dict(gid=game_id)) is None:
        raise KeyError(game_id)
    raise StaleState(f"game {name}: another step committed seq {newest + 1} first")


def _pg_step(conn: Connection, game_id: int, name: str, newest: int, values: dict[str, Any], steps: list[Step],
             inbound: list[dict[str, Any]], events: list[dict[str, Any]], marks: dict[str, str],
             phases: list[tuple[str, str, datetime]], outbox: list[dict[str, Any]], out_seq: int,
             records: list[tuple[SentPart, datetime]]) -> list[OutboxRecord]:
    """`Store._steps`' writes on PostgreSQL as one statement (`_pg_step_statement`), with
    the parts sent before it recorded (`records`, as `_record` does: they fit,
    `_pg_records_fit`); the outbox rows as written.  Seats not all found by name (or a step that changed which
    seats there are) are written again whole after it, as `_write_players` does."""
    for n, row in enumerate(outbox, start=out_seq + 1):
        row["seq"] = n
    players, changed = _players_written(steps)
    seats = [] if players is None or changed is None else [
        _player_values(game_id, p) for p in players if p["name"] in changed]
    utc = UTCDateTime().process_bind_param  # (a naive time refused, as the UPDATE's own)

    def make() -> dict[str, Any]:
        return {
            **values, "b_state": steps[-1].state_json, "b_deadline": utc(values["b_deadline"], conn.dialect),
            "b_updated": utc(values["b_updated"], conn.dialect),
            "inbound": _pg_rows(conn, "inbound", inbound), "events": _pg_rows(conn, "events", events),
            "marks": _pg_rows(conn, "marks", [{"game_id": game_id, "name": k, "value": v} for k, v in marks.items()]),
            "players": _pg_rows(conn, "players", seats),
            "phases": _pg_rows(conn, "phases", [{"game_id": game_id, "label": label, "started_at": at, "ended_at": end}
                                                for ended, begun, at in phases
                                                for label, end in ((ended, at), (begun, None))]),
            "outbox": _pg_rows(conn, "outbox", outbox),
            "threads": _pg_rows(conn, "threads", [dict(game_id=p.game_id, key=p.thread[0], forum_thread_id=p.thread[1])
                                                  for p, _ in records if p.thread is not None]),
            "records": _pg_records(conn, _record_values(records))}

    moved, seated, ids = _run(conn, replace(_pg_step_statement(conn), make=make), [{}]).fetchone()
    if moved != 1:
        _not_moved(conn, game_id, name, newest)
    if players is not None and (changed is None or seated != len(seats)):
        _run(conn, _fast(conn, "drop_players", lambda: _DROP_PLAYERS), [dict(gid=game_id)])  # a seat not stored
        _insert(conn, _PL, [_player_values(game_id, p) for p in players])
    by_key = {key: oid for oid, key in ids or []}
    return [_new_record(by_key[r["key"]], r) for r in outbox]


@dataclass
class Step:
    """One engine step to write (`Store.commit_step`'s `then`): what `commit_step` takes."""

    inbound: InboundRecord | None
    event_kind: str
    event_payload: str | None  # None: the inbound row says all of the input (`row_says`)
    phase_label: str
    state_json: str | None  # None: not written (`commit_step`)
    status: str
    deadline_at: datetime | None
    winner: str | None
    players: list[dict[str, Any]] | None
    outbox: list[OutboxItem]
    at: datetime
    marks: dict[str, str] = field(default_factory=dict)
    # the names of the seats whose rows changed, when `players` holds the same seats as the
    # stored rows (only those rows are written); None: every row written again
    players_changed: list[str] | None = None


class StaleState(Exception):
    """The state a step folded is no longer the newest: another process or a GM command
    committed first.  Nothing was written; read the state again and fold again."""


@dataclass
class InboundRecord:
    """A PM ("pm") or thread post ("post") as received from the forum."""

    source: str
    forum_id: str
    sender: str
    sent_at: datetime
    text: str
    thread_key: str | None = None
    edited: bool = False
    event_seq: int | None = None  # the event it became (None: not folded)


@dataclass
class OutboxItem:
    """A message to queue: kind "pm" (target = recipient) or "post" (target = thread key)."""

    kind: str
    target: str
    body: str
    title: str | None = None
    subject: str | None = None
    key: str = ""


@dataclass
class OutboxRecord:
    id: int
    game_id: int
    seq: int
    kind: str
    target: str
    title: str | None
    subject: str | None
    body: str
    key: str
    status: str
    forum_ref: str | None
    created_at: datetime
    sent_at: datetime | None
    parts_done: int = 0
    attempt_part: int | None = None
    attempt_since: datetime | None = None
    error: str | None = None  # status "failed": why the board refused it for good
    board_at: datetime | None = None  # the board's time of the post (its first part)


@dataclass
class SentPart:
    """What one flush wrote for one outbox row: parts done, and the thread it opened."""

    outbox_id: int
    parts_done: int
    done: bool
    forum_ref: str | None = None
    thread: tuple[str, str] | None = None  # (thread key, forum thread id) opened by this row
    game_id: int = 0  # the row's game (the thread's)
    board_at: datetime | None = None  # the forum's clock right after the write


@dataclass
class EventRecord:
    seq: int
    kind: str
    phase_label: str
    payload_json: str
    created_at: datetime


@dataclass
class PhaseRecord:
    label: str
    started_at: datetime
    ended_at: datetime | None


@dataclass
class GameRecord:
    id: int
    name: str
    ruleset: str
    seed: int
    status: str
    phase_label: str
    deadline_at: datetime | None
    winner: str | None
    state_json: str
    config: dict[str, Any]
    board: str = ""
    step_seq: int = 0


def caught_up_state(conn: Connection, game_id: int, ruleset: str, config: str | dict[str, Any], state_json: str,
                    state_seq: int) -> str:
    """The newest state of a game whose stored state is the one after seq `state_seq`: the
    events after it folded on it (core.fold: the state the steps made, byte for byte)."""
    from tianshen.core.fold import steps
    from tianshen.core.model import GameState
    from tianshen.rules import game_ruleset

    rules = game_ruleset(ruleset, json.loads(config) if isinstance(config, str) else config)
    state = GameState.model_validate_json(state_json)
    for step in steps(rules, event_records(conn.execute(events_query(game_id, after=state_seq))), state=state):
        state = step.outcome.state
    return state.model_dump_json()


def _game_record(g: Any, conn: Connection | Session | None = None) -> GameRecord:
    """A game's ORM object or row as a record; its state caught up with its events when it
    trails them (`state_seq`, read on `conn`)."""
    state_json = g.state_json
    if g.state_seq is not None and g.state_seq < g.step_seq:
        assert conn is not None, "a game's state behind its events is read with a connection"
        state_json = caught_up_state(conn.connection() if isinstance(conn, Session) else conn, g.id, g.ruleset,
                                     g.config_json, state_json, g.state_seq)
    return GameRecord(
        id=g.id,
        name=g.name,
        ruleset=g.ruleset,
        seed=g.seed,
        status=g.status,
        phase_label=g.phase_label,
        deadline_at=g.deadline_at,
        winner=g.winner,
        state_json=state_json,
        config=json.loads(g.config_json),
        board=g.board,
        step_seq=g.step_seq,
    )


def _outbox_record(o: OutboxRow) -> OutboxRecord:
    return OutboxRecord(
        id=o.id,
        game_id=o.game_id,
        seq=o.seq,
        kind=o.kind,
        target=o.target,
        title=o.title,
        subject=o.subject,
        body=o.body,
        key=o.key,
        status=o.status,
        forum_ref=o.forum_ref,
        created_at=o.created_at,
        sent_at=o.sent_at,
        parts_done=o.parts_done,
        attempt_part=o.attempt_part,
        attempt_since=o.attempt_since,
        error=o.error,
        board_at=o.board_at,
    )


def _new_record(oid: int, r: dict[str, Any]) -> OutboxRecord:
    """A step's new outbox row `r` (`_steps`'), inserted as `oid`, as a record: its instance
    dict made whole (issue 37: the dataclass's `__init__` of 18 fields by keyword cost about
    5,000 instructions a row, 60 rows a classic_10 rehearsal)."""
    made = OutboxRecord.__new__(OutboxRecord)
    made.__dict__ = {
        "id": oid, "game_id": r["game_id"], "seq": r["seq"], "kind": r["kind"], "target": r["target"],
        "title": r["title"], "subject": r["subject"], "body": r["body"], "key": r["key"], "status": r["status"],
        "forum_ref": r["forum_ref"], "created_at": r["created_at"], "sent_at": r["sent_at"],
        "parts_done": r["parts_done"], "attempt_part": None, "attempt_since": None, "error": None, "board_at": None}
    return made


def _player_values(game_id: int, p: dict[str, Any]) -> dict[str, Any]:
    return {"game_id": game_id, "name": p["name"], "forum_name": p["forum_name"], "seat": int(p["seat"]),
            "role": p.get("role") or "", "faction": p.get("faction") or "", "alive": bool(p.get("alive", True))}


def _enable_sqlite_fks(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()


def _sqlite_wal(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.close()


_CANNOT_WRITE = ("full", "no space", "readonly", "read-only", "read only", "disk i/o", "quota")


class _Changed(Exception):
    """Rows changed under a transaction that needs them as read: it is rolled back."""


def unusable(exc: BaseException) -> tuple[str, str] | None:
    """When `exc` says the database cannot be used at all (issue 32 items 5 and 6): ("write",
    what it said) when it cannot be written (a full disk, a read-only file), ("connection",
    what it said) when it cannot be reached (a restarted PostgreSQL, a lock held too long);
    None for any other error (a game's own)."""
    if not isinstance(exc, OperationalError | InterfaceError):
        return None
    text = str(getattr(exc, "orig", None) or exc).strip()
    said = text.splitlines()[0] if text else type(exc).__name__
    kind = "write" if any(word in said.lower() for word in _CANNOT_WRITE) else "connection"
    return kind, said


def _bind_none_at_once() -> None:
    """sqlite3 (Python 3.11) binds a None through its adapter protocol: no adapter found, it
    asks `PrepareProtocol.__adapt__`, whose AttributeError message is formatted and dropped
    (about 850 instructions a None; a classic_10 rehearsal binds about 1,000). An adapter of
    None that answers None, in C, is found in the registry first: the same NULL is bound."""
    sqlite3.register_adapter(type(None), _NONE)


_NONE = {}.get  # any value -> None (called with None only)


def make_engine(url: str, durable: bool = True) -> Engine:
    """An engine for `url`; SQLite gets foreign keys on, and in-memory SQLite one shared connection.

    `durable=False` (rehearsals, simulations): SQLite in WAL mode without an fsync per commit —
    a killed process loses nothing, a power cut may lose the last commits."""
    if url.startswith("sqlite"):
        kwargs: dict[str, Any] = {}
        memory = ":memory:" in url or url.rstrip("/") == "sqlite:"
        if memory:
            kwargs = {"poolclass": StaticPool, "connect_args": {"check_same_thread": False}}
        engine = create_engine(url, **kwargs)
        _bind_none_at_once()
        event.listen(engine, "connect", _enable_sqlite_fks)
        if not durable and not memory:
            event.listen(engine, "connect", _sqlite_wal)
        return engine
    engine = create_engine(url)
    event.listen(engine, "checkin", _returned)
    event.listen(engine, "checkout", _ping_when_idle)
    return engine


# A pooled PostgreSQL connection is tried (SELECT 1) before use only when it lay idle in the
# pool longer than this: a restarted server is noticed at the next tick as with SQLAlchemy's
# pool_pre_ping, without a round trip before each of a busy tick's or rehearsal's
# transactions (30 a classic_10 rehearsal: about a tenth of its CPU on PostgreSQL).
IDLE_PING_S = 1.0


def _returned(_dbapi_connection: Any, record: Any) -> None:
    record.info["idle_since"] = time.monotonic()


def _ping_when_idle(dbapi_connection: Any, record: Any, _proxy: Any) -> None:
    """A connection idle too long that no longer answers is replaced (the pool tries a new
    one); a fresh or recently used one is taken as it is."""
    since = record.info.get("idle_since")
    if since is None or time.monotonic() - since <= IDLE_PING_S:
        return
    try:
        _ping(dbapi_connection)
    except Exception as e:  # noqa: BLE001 - any failure: a dead connection, try another
        raise DisconnectionError(f"a pooled connection no longer answers: {e}") from e


def _ping(dbapi_connection: Any) -> None:
    cursor = dbapi_connection.cursor()
    try:
        cursor.execute("SELECT 1")
    finally:
        cursor.close()


@contextmanager
def ddl_transaction(conn: Connection) -> Iterator[None]:
    """One transaction on `conn` that holds DDL too, committed at the end.

    PostgreSQL does this by itself.  pysqlite does not: it opens a transaction only before
    INSERT/UPDATE/DELETE, so each CREATE or ALTER before the first of those commits on its own,
    and a process killed half-way left tables without their alembic_version row.  For the
    migration only, the connection is put in driver autocommit and the transaction begun by hand
    (SQLAlchemy's "pysqlite serializable" recipe); IMMEDIATE makes a second process that
    upgrades at the same time wait for this one instead of failing."""
    if conn.dialect.name != "sqlite":
        with conn.begin():
            yield
        return
    raw = conn.connection.driver_connection
    saved = raw.isolation_level
    raw.isolation_level = None
    try:
        with conn.begin():
            conn.exec_driver_sql("BEGIN IMMEDIATE")
            yield
    finally:
        raw.isolation_level = saved


def alembic_config(url: str) -> Config:
    """An Alembic config for the packaged migrations, independent of the working directory."""
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    cfg.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return cfg


_REVISION = re.compile(r'^(down_revision|revision)\b[^=]*=\s*["\']?(\w+)', re.M)


def head_revision() -> str | None:
    """The newest packaged migration's revision, read from the files (as Alembic would find it,
    without importing Alembic), or None if there is not exactly one head."""
    revisions, downs = set(), set()
    for path in (MIGRATIONS / "versions").glob("*.py"):
        found = dict(_REVISION.findall(path.read_text(encoding="utf-8")))
        if "revision" in found:
            revisions.add(found["revision"])
            downs.add(found.get("down_revision"))
    heads = revisions - downs
    return heads.pop() if len(heads) == 1 else None


class Store:
    """All database access of tianshen goes through here."""

    def __init__(self, url: str, durable: bool = True) -> None:
        self.url = url
        self.engine = make_engine(url, durable)
        self._sessions = sessionmaker(self.engine, expire_on_commit=False)
        self._configs: dict[int, dict[str, Any]] = {}  # a game's config never changes: read once
        # game id -> its pending outbox rows by id, as this process last read or wrote them
        # (`queued`); the same objects are updated as the rows are claimed, sent or failed
        self._queues: dict[int, dict[int, OutboxRecord]] = {}
        self._out_seqs: dict[int, int] = {}  # game id -> its newest outbox seq, as this process wrote it
        # the leases' clock: None is the database's own (PostgreSQL's, one for every host; SQLite,
        # one process on one host, has none: the host's); a test sets a virtual one
        self.lease_clock: Callable[[], datetime] | None = None
        # parts sent on a board that remembers keys, recorded with the next transaction this
        # store opens (`record_parts(later=True)`), each with the time it was sent
        self._unrecorded: list[tuple[SentPart, datetime]] = []
        # a rehearsal's store (not durable): one connection kept between the hot transactions
        # (`_begin`), by one thread at a time, with the pool it came from (a pool disposed:
        # not kept further) and when it was last used.  Not a daemon's nor the web's: their
        # readers in many threads stay within the pool's size
        self._keeps = not durable and self.engine.dialect.name in ("sqlite", "postgresql") and not isinstance(
            self.engine.pool, StaticPool)
        self._keeping = threading.Lock()
        self._kept: tuple[Connection, Any] | None = None
        self._kept_at = 0.0  # (time.monotonic)

    def close(self) -> None:
        """Record what is still unrecorded, and release every pooled connection."""
        try:
            if self._unrecorded:
                with self._conn():
                    pass
        finally:
            with self._keeping:
                self._let_go()
            self.engine.dispose()

    def upgrade(self) -> None:
        """Build or migrate the schema: `alembic upgrade head` on this store's database, in one
        transaction (a process killed half-way leaves the schema as it was)."""
        if self._at_head():
            return  # a daemon restart: Alembic is not even imported (a quarter of a second)
        from alembic import command

        cfg = alembic_config(self.url)
        with self.engine.connect() as conn, ddl_transaction(conn):
            cfg.attributes["connection"] = conn
            command.upgrade(cfg, "head")

    def _at_head(self) -> bool:
        """The schema is at the newest packaged migration (alembic_version says so)."""
        try:
            with self.engine.connect() as conn:
                versions = [row[0] for row in conn.exec_driver_sql("SELECT version_num FROM alembic_version")]
        except (OperationalError, ProgrammingError):  # no such table: a new database
            return False
        return versions == [head_revision()]

    @contextmanager
    def _tx(self) -> Iterator[Session]:
        """One transaction through an ORM session (the sent parts not yet recorded go first)."""
        with self._unrecorded_first() as parts, self._sessions() as session, session.begin():
            if parts:
                _record(session.connection(), parts)
            yield session

    @contextmanager
    def _conn(self) -> Iterator[Connection]:
        """One transaction of Core statements, no ORM session: the driver's hot paths.  The
        sent parts not yet recorded (`record_parts(later=True)`) are written first in it, so
        whatever this store reads or writes next sees them."""
        with self._unrecorded_first() as parts, self._begin() as conn:
            if parts:
                _record(conn, parts)
            yield conn

    @contextmanager
    def _step_conn(self) -> Iterator[tuple[Connection, list[tuple[SentPart, datetime]]]]:
        """`_conn` for a step: on PostgreSQL the sent parts not yet recorded are handed to the
        step, which records them in its own statement (`_pg_step`; issue 37)."""
        with self._unrecorded_first() as parts, self._begin() as conn:
            if parts and conn.dialect.driver != "psycopg":
                _record(conn, parts)
                parts = []
            yield conn, parts

    @contextmanager
    def _unrecorded_first(self) -> Iterator[list[tuple[SentPart, datetime]]]:
        """The sent parts not yet recorded, taken by the transaction about to open (which
        writes them first); a transaction rolled back puts them back for the next one."""
        parts, self._unrecorded = self._unrecorded, []
        try:
            yield parts
        except BaseException:
            self._unrecorded[:0] = parts
            raise

    @contextmanager
    def _begin(self) -> Iterator[Connection]:
        """`engine.begin()`; for a rehearsal through the connection this store keeps between
        its transactions (taking one from the pool and giving it back cost about a third of an
        empty transaction on SQLite, 60 µs of client CPU on PostgreSQL), when no other thread
        or outer transaction has it.  A transaction that fails gives the connection back to
        the pool, and a disposed pool's connection is closed, not used again (a database healed
        by `engine.dispose()` is used afresh); on PostgreSQL one that lay idle over
        `IDLE_PING_S` is tried first, as the pool tries its own (a restarted server)."""
        if not self._keeps or not self._keeping.acquire(blocking=False):
            with self.engine.begin() as conn:
                yield conn
            return
        try:
            if self._kept is not None and (self._kept[1] is not self.engine.pool or self._kept[0].invalidated
                                           or not self._answers()):
                self._let_go()
            if self._kept is None:
                self._kept = (self.engine.connect(), self.engine.pool)
            conn = self._kept[0]
            try:
                with conn.begin():
                    yield conn
            except BaseException:
                self._let_go()
                raise
            self._kept_at = time.monotonic()
        finally:
            self._keeping.release()

    def _answers(self) -> bool:
        """The kept connection, if it lay idle too long on PostgreSQL, still answers (else
        it is closed: the next one comes from the pool)."""
        assert self._kept is not None
        if self._kept[0].dialect.name != "postgresql" or time.monotonic() - self._kept_at <= IDLE_PING_S:
            return True
        try:
            _ping(self._kept[0].connection.dbapi_connection)
            return True
        except Exception:  # noqa: BLE001 - any failure: a dead connection, take another
            self._kept[0].invalidate()
            return False

    def _let_go(self) -> None:
        """The kept connection back to its pool (closed when that pool was disposed)."""
        kept, self._kept = self._kept, None
        if kept is None:
            return
        conn, pool = kept
        if pool is not self.engine.pool and not conn.invalidated:
            conn.invalidate()  # its pool is gone: closed, not returned to it
        conn.close()

    # ---- games ------------------------------------------------------------------------

    def create_game(
        self,
        name: str,
        ruleset: str,
        seed: int,
        config: dict[str, Any],
        state_json: str,
        phase_label: str,
        deadline_at: datetime | None,
        players: list[dict[str, Any]],
        at: datetime | None = None,
        status: str = "running",
        board: str = "",
        deal: Callable[[int], Step] | None = None,
    ) -> int:
        """Insert a game with its players and its first phase; returns the game id.

        `at` is when the first phase started (default: now).  A game signed up but not yet
        dealt has status "new", no players and the phase "setup".  `deal`: the first step
        of the game (given its id), written in the same transaction as `commit_step` writes
        one on the game's row as inserted (issue 37: a sign-up and its deal, one commit).
        """
        now = utcnow()
        written: list[OutboxRecord] = []
        game_id = None
        try:
            with self._conn() as conn:  # the statements compiled once (`_fast`), as a step's
                ((game_id,),) = _insert_returning(conn, _G, [dict(
                    name=name, board=board, ruleset=ruleset, seed=seed, status=status, phase_label=phase_label,
                    deadline_at=deadline_at, winner=None, state_json=state_json,
                    config_json=json.dumps(config, ensure_ascii=False, sort_keys=True), created_at=now,
                    updated_at=now, step_seq=0)], "id")
                if players:
                    _insert(conn, _PL, [_player_values(game_id, p) for p in players])
                _insert(conn, _P, [dict(game_id=game_id, label=phase_label, started_at=at or now, ended_at=None)])
                if deal is not None:
                    self._out_seqs[game_id] = 0  # a new game's outbox is empty
                    self._steps(conn, game_id, [deal(game_id)], 0, (name, phase_label), written)
        except BaseException:
            if game_id is not None:
                self._out_seqs.pop(game_id, None)
            raise
        self._queues[game_id], self._out_seqs[game_id] = {}, 0  # a new game has nothing to send
        if written:
            self._out_seqs[game_id] = written[-1].seq
        self._queue(game_id, written)
        return game_id

    def game_id(self, name: str) -> int | None:
        with self._tx() as s:
            return s.scalar(select(Game.id).where(Game.name == name))

    def load_game(self, game_id: int) -> GameRecord:
        """The game row; KeyError if there is none."""
        with self._conn() as conn:
            game = conn.execute(_GAME, dict(gid=game_id)).one_or_none()
            if game is not None:  # (a state behind its events folded in the same transaction)
                return _game_record(game, conn)
        raise KeyError(game_id)

    def list_games(self, board: str | None = None) -> list[GameRecord]:
        """Every game (on one board when `board` is given), oldest first."""
        q = select(Game).where(Game.status != BOARD_STATUS).order_by(Game.id)
        if board is not None:
            q = q.where(Game.board == board)
        with self._tx() as s:
            return [_game_record(g, s) for g in s.scalars(q)]

    def heads(self, boards: tuple[str, ...]) -> list[GameRecord]:
        """The games of these boards (not the boards' own rows), oldest first, in one light
        query: everything but the state (`state_json` is "").  A daemon's tick: which games
        there are, and whose step moved since it last looked."""
        with self._conn() as conn:
            rows = conn.execute(_HEADS, dict(boards=list(boards))).all()
            self._read_configs(conn, [r.id for r in rows])
        return [GameRecord(id=r.id, name=r.name, ruleset=r.ruleset, seed=r.seed, status=r.status,
                           phase_label=r.phase_label, deadline_at=r.deadline_at, winner=r.winner, state_json="",
                           config=self._configs[r.id], board=r.board, step_seq=r.step_seq) for r in rows]

    def _read_configs(self, conn: Connection, game_ids: list[int]) -> None:
        """The configs of these games not read yet (a config never changes)."""
        missing = [gid for gid in game_ids if gid not in self._configs]
        if missing:
            self._configs.update((gid, json.loads(config)) for gid, config in conn.execute(
                select(_G.c.id, _G.c.config_json).where(_G.c.id.in_(missing))))

    def step_seq(self, game_id: int) -> int:
        """The seq of the game's newest event (0 before the first)."""
        with self._conn() as conn:
            seq = conn.scalar(_SEQ, dict(gid=game_id))
            if seq is None:
                raise KeyError(game_id)
            return seq

    def set_board(self, game_id: int, board: str) -> None:
        with self._tx() as s:
            s.execute(update(Game).where(Game.id == game_id).values(board=board))

    def board_game(self, board: str) -> int:
        """The row that holds a board's own inbound and outbox (created on first use)."""
        name = f"@board:{board}"[:200]
        with self._tx() as s:
            found = s.scalar(select(Game.id).where(Game.name == name))
        if found is not None:
            return found
        try:
            return self.create_game(name=name, ruleset="board", seed=0, config={}, state_json="{}",
                                    phase_label="board", deadline_at=None, players=[], status=BOARD_STATUS,
                                    board=board)
        except IntegrityError:  # another process made it first
            with self._tx() as s:
                return s.scalars(select(Game.id).where(Game.name == name)).one()

    # ---- the step ---------------------------------------------------------------------

    def commit_step(
        self,
        game_id: int,
        *,
        inbound: InboundRecord | None,
        event_kind: str,
        event_payload: str | None,
        phase_label: str,
        state_json: str | None,
        status: str,
        deadline_at: datetime | None,
        winner: str | None,
        players: list[dict[str, Any]] | None,
        outbox: list[OutboxItem],
        at: datetime | None = None,
        expected_seq: int | None = None,
        marks: dict[str, str] | None = None,
        head: tuple[str, str] | None = None,
        then: list[Step] | None = None,
        players_changed: list[str] | None = None,
    ) -> int | None:
        """Write one engine step in one transaction; returns the event seq.

        Returns None, writing nothing, when `inbound` was already stored (same game, source
        and forum id).  Raises `StaleState`, writing nothing, when `expected_seq` is given and
        the game's newest event is no longer that one.  Any other failure (e.g. a reused
        outbox key) raises and writes nothing.  `at` is the time of the event (default: the
        inbound's `sent_at`, else now); it stamps the event and the phase boundary when
        `phase_label` changes.  `marks` are high-water marks stored with the step.
        `state_json` None (of the last step): the state is not written, the stored one stays
        with the seq it is the state after (`load_game` folds the events after it).

        A caller that knows the head it folded on (`expected_seq`, and `head`: the game's name
        and the phase of that state) saves reading it: the step's UPDATE checks the seq all the same.

        `players_changed`: the names of the seats whose rows changed, when `players` holds
        the same seats as the stored rows: only those rows are written.

        `then`: steps folded one after the other on this one's state, written in the same
        transaction (a few statements, each an executemany); the last seq is returned.  All or
        nothing: an input among them stored already raises IntegrityError (the caller writes
        them one by one then).
        """
        if at is None:
            at = inbound.sent_at if inbound is not None else utcnow()
        step = Step(inbound=inbound, event_kind=event_kind, event_payload=event_payload, phase_label=phase_label,
                    state_json=state_json, status=status, deadline_at=deadline_at, winner=winner, players=players,
                    outbox=outbox, at=at, marks=marks or {}, players_changed=players_changed)
        written: list[OutboxRecord] = []
        try:
            with self._step_conn() as (conn, records):
                seq = self._steps(conn, game_id, [step, *(then or [])], expected_seq, head, written, records)
        except IntegrityError:
            self._out_seqs.pop(game_id, None)  # read again next time
            if not then and inbound is not None and self.has_inbound(game_id, inbound.source, inbound.forum_id):
                return None
            raise
        if written:
            self._out_seqs[game_id] = written[-1].seq
        self._queue(game_id, written)
        return seq

    def _steps(self, conn: Connection, game_id: int, steps: list[Step], expected_seq: int | None,
               head: tuple[str, str] | None, written: list[OutboxRecord],
               records: list[tuple[SentPart, datetime]] | None = None) -> int:
        """Core statements on the connection, not the ORM: one update of the game, and an
        insert per table (an executemany where there are several rows); on PostgreSQL all of
        them one statement (`_pg_step`)."""
        if expected_seq is not None and head is not None:
            (name, phase), newest = head, expected_seq  # what the caller folded on: not read again
        else:
            row = conn.execute(_HEAD, dict(gid=game_id)).one_or_none()
            if row is None:
                raise KeyError(game_id)
            name, phase, newest = row
            if expected_seq is not None and newest != expected_seq:
                raise StaleState(f"game {name}: folded seq {expected_seq}, newest is {newest}")
        last = steps[-1]
        # The optimistic check and the row lock in one statement: it changes nothing when
        # another process committed this seq first (PostgreSQL waits for that one's commit).
        now = utcnow()  # (one time a step: its rows share its text, `_quick`)
        values = dict(gid=game_id, newest=newest, b_phase=last.phase_label, b_status=last.status,
                      b_deadline=last.deadline_at, b_winner=last.winner, b_seq=newest + len(steps), b_updated=now)
        inbound, events, outbox, phases, marks = [], [], [], [], {}
        for n, step in enumerate(steps, start=newest + 1):
            i = step.inbound
            # an input's event is its inbound row's (issue 37: stored once) when the row says
            # all the event does (its kind and time); else an events row, as the setup's
            once = i is not None and i.source == step.event_kind and i.sent_at == step.at
            payload = step.event_payload  # None: the inbound row says all of the input (`row_says`)
            if payload is None:
                if not once:
                    raise ValueError(f"the {step.event_kind} event of seq {n} needs its payload")
                payload = ""
            if i is not None:
                inbound.append({"game_id": game_id, "source": i.source, "forum_id": i.forum_id,
                                "thread_key": i.thread_key, "sender": i.sender, "sent_at": i.sent_at, "text": i.text,
                                "edited": i.edited, "phase_label": phase, "event_seq": n, "received_at": now,
                                "payload_json": payload if once else None})
            if not once:
                events.append({"game_id": game_id, "seq": n, "phase_label": phase, "kind": step.event_kind,
                               "payload_json": payload, "created_at": step.at})
            outbox += [{"game_id": game_id, "kind": item.kind, "target": item.target, "title": item.title,
                        "subject": item.subject, "body": item.body, "key": item.key or f"{name}:{n}:{k}",
                        "created_at": now, **_NEW_OUTBOX}
                       for k, item in enumerate(step.outbox)]
            if step.phase_label != phase:
                phases.append((phase, step.phase_label, step.at))
            phase = step.phase_label
            marks.update(step.marks)
        records = records or []
        fits = conn.dialect.driver == "psycopg" and _pg_step_fits(phases)
        if records and not (fits and _pg_records_fit(records)):
            _record(conn, records)  # (statements of their own, first)
            records = []
        if fits:
            known = self._out_seqs.get(game_id) if expected_seq is not None else None
            if outbox and known is None:
                known = conn.scalar(_OUT_SEQ, dict(gid=game_id))
            written.extend(_pg_step(conn, game_id, name, newest, values, steps, inbound, events, marks, phases,
                                    outbox, known or 0, records))
            return newest + len(steps)
        if last.state_json is None:  # the stored state stays: its seq is kept beside it
            moved = _run(conn, _fast(conn, "game_step_behind", lambda: _GAME_STEP_BEHIND), [values])
        else:
            moved = _run(conn, _fast(conn, "game_step", lambda: _GAME_STEP), [{**values, "b_state": last.state_json}])
        if moved.rowcount != 1:
            _not_moved(conn, game_id, name, newest)
        if inbound:  # a duplicate fails here, before anything else is written
            _insert(conn, _I, inbound)
        _insert(conn, _E, events)  # (none when every step is an input)
        _set_marks(conn, game_id, marks)
        _write_players(conn, game_id, steps)
        _next_phases(conn, game_id, phases)
        if outbox:
            # the newest seq as this process wrote it holds while no other step came between
            # (the seq check above); a row another process added meanwhile fails the unique seq
            known = self._out_seqs.get(game_id) if expected_seq is not None else None
            written.extend(self._add_outbox(conn, game_id, outbox, known))
        return newest + len(steps)

    @staticmethod
    def _add_outbox(conn: Connection, game_id: int, rows: list[dict[str, Any]],
                    newest: int | None) -> list[OutboxRecord]:
        """Insert a step's outbox rows after the game's newest seq (read when not given);
        the rows as written."""
        first = (conn.scalar(_OUT_SEQ, dict(gid=game_id)) if newest is None else newest) + 1
        for n, row in enumerate(rows):
            row["seq"] = first + n
        ids = {key: oid for oid, key in _insert_returning(conn, _O, rows, "id", "key", same=_NEW_OUTBOX)}
        return [_new_record(ids[r["key"]], r) for r in rows]

    # ---- inbound and events -----------------------------------------------------------

    def has_inbound(self, game_id: int, source: str, forum_id: str) -> bool:
        with self._tx() as s:
            found = s.scalar(
                select(InboundRow.id).where(
                    InboundRow.game_id == game_id,
                    InboundRow.source == source,
                    InboundRow.forum_id == forum_id,
                )
            )
            return found is not None

    def inbound(self, game_id: int, phase_label: str | None = None) -> list[InboundRecord]:
        """Stored input in arrival order, optionally only what arrived during one phase."""
        q = select(InboundRow).where(InboundRow.game_id == game_id)
        if phase_label is not None:
            q = q.where(InboundRow.phase_label == phase_label)
        with self._tx() as s:
            return [
                InboundRecord(
                    source=r.source,
                    forum_id=r.forum_id,
                    sender=r.sender,
                    sent_at=r.sent_at,
                    text=r.text,
                    thread_key=r.thread_key,
                    edited=r.edited,
                    event_seq=r.event_seq,
                )
                for r in s.scalars(q.order_by(InboundRow.id))
            ]

    def events(self, game_id: int, limit: int | None = None) -> list[EventRecord]:
        """Every event of the game in seq order (phase_label = the phase it arrived in); the
        first `limit` only when given.  An input's event is its inbound row (`events_query`)."""
        q = events_query(game_id)
        with self._conn() as conn:
            return event_records(conn.execute(q.limit(limit) if limit is not None else q))

    def phases(self, game_id: int) -> list[PhaseRecord]:
        """The game's phases in the order they started (the open one has ended_at None)."""
        with self._tx() as s:
            rows = s.scalars(select(PhaseRow).where(PhaseRow.game_id == game_id).order_by(PhaseRow.id))
            return [PhaseRecord(label=r.label, started_at=r.started_at, ended_at=r.ended_at) for r in rows]

    # ---- outbox -----------------------------------------------------------------------

    def pending_outbox(self, game_id: int) -> list[OutboxRecord]:
        """The game's pending rows as the database has them now, in seq order."""
        with self._conn() as conn:
            rows = [_outbox_record(r) for r in conn.execute(_PENDING, dict(gid=game_id))]
        return self._known(game_id, rows)

    # ---- the queue this process knows (issue 37: no re-read of what it just wrote) ------

    def queued(self, game_id: int) -> list[OutboxRecord]:
        """The game's pending rows, in seq order, as this process last read or wrote them
        (read once): for the process that holds the game's lease, which alone writes its
        outbox.  `forget_queue` when another process may have written it."""
        known = self._queues.get(game_id)
        if known is None:
            return self.pending_outbox(game_id)
        return sorted(known.values(), key=lambda r: r.seq)

    def forget_queue(self, game_id: int) -> None:
        """The game's queue (and its newest seq) is read again when next needed."""
        self._queues.pop(game_id, None)
        self._out_seqs.pop(game_id, None)

    def _known(self, game_id: int, rows: list[OutboxRecord]) -> list[OutboxRecord]:
        """The game's pending rows as just read (returned as they are) become its known queue
        (copies); a row known already keeps its object, brought up to date, so whoever holds
        it from `queued` sees what happens to it."""
        old = self._queues.get(game_id, {})
        queue: dict[int, OutboxRecord] = {}
        for row in rows:
            kept = old.get(row.id)
            if kept is not None:
                kept.__dict__.update(row.__dict__)
            queue[row.id] = kept or replace(row)
        self._queues[game_id] = queue
        return rows

    def _queue(self, game_id: int, rows: list[OutboxRecord]) -> None:
        """Pending rows this process just wrote, into the game's queue when it is known."""
        known = self._queues.get(game_id)
        if known is not None:
            known.update((row.id, row) for row in rows)

    def _row(self, outbox_id: int, game_id: int = 0) -> OutboxRecord | None:
        """A known pending row."""
        queue = self._queues.get(game_id)
        if queue is not None and outbox_id in queue:
            return queue[outbox_id]
        return next((q[outbox_id] for q in self._queues.values() if outbox_id in q), None)

    def _unqueue(self, outbox_id: int, game_id: int = 0) -> OutboxRecord | None:
        """A row no longer pending leaves its game's queue."""
        row = self._row(outbox_id, game_id)
        if row is not None:
            self._queues.get(row.game_id, {}).pop(outbox_id, None)
        return row

    def outbox(self, game_id: int) -> list[OutboxRecord]:
        with self._tx() as s:
            rows = s.scalars(select(OutboxRow).where(OutboxRow.game_id == game_id).order_by(OutboxRow.seq))
            return [_outbox_record(r) for r in rows]

    def outbox_rows(self, game_id: int, ids: list[int]) -> list[OutboxRecord]:
        """These rows of the game's outbox, in seq order."""
        with self._conn() as conn:
            rows = conn.execute(select(_O).where(_O.c.game_id == game_id, _O.c.id.in_(ids)).order_by(_O.c.seq))
            return [_outbox_record(r) for r in rows]

    def window_posts(self, game_id: int, prefix: str) -> list[OutboxRecord]:
        """The game's posts whose key starts with `prefix` (one step's: `name:seq:`), in seq order."""
        with self._conn() as conn:
            rows = conn.execute(_WINDOW, dict(gid=game_id, prefix=prefix, n=len(prefix)))
            return [_outbox_record(r) for r in rows]

    def pending_for_games(self, game_ids: list[int]) -> list[OutboxRecord]:
        """The pending rows of several games (one board's write queue), oldest first."""
        if not game_ids:
            return []
        with self._conn() as conn:
            rows = [_outbox_record(r) for r in conn.execute(_PENDING_OF, dict(gids=game_ids))]
        for game_id in game_ids:  # each game's queue as read now
            self._known(game_id, [r for r in rows if r.game_id == game_id])
        return rows

    def count_sent_like(self, row: OutboxRecord, since: datetime) -> int:
        """Other rows of the game with the same kind, target, subject and text sent since
        `since` (local clock): copies a forum may hold that are not this row's write."""
        with self._tx() as s:
            return s.scalar(select(func.count(OutboxRow.id)).where(
                OutboxRow.game_id == row.game_id, OutboxRow.id != row.id, OutboxRow.kind == row.kind,
                OutboxRow.target == row.target, OutboxRow.body == row.body, OutboxRow.status == "sent",
                OutboxRow.sent_at >= since)) or 0

    def add_outbox(self, game_id: int, items: list[OutboxItem]) -> None:
        """Messages outside any step (the daemon telling the GM a game failed)."""
        with self._tx() as s:
            out_seq = s.scalar(select(func.max(OutboxRow.seq)).where(OutboxRow.game_id == game_id)) or 0
            rows = []
            for item in items:
                out_seq += 1
                rows.append(OutboxRow(game_id=game_id, seq=out_seq, kind=item.kind, target=item.target,
                                      title=item.title, subject=item.subject, body=item.body,
                                      key=f"{game_id}:extra:{utcnow().timestamp()}:{out_seq}", status="pending",
                                      created_at=utcnow()))
            s.add_all(rows)
            s.flush()
            written = [_outbox_record(r) for r in rows]
        self._queue(game_id, written)
        self._out_seqs[game_id] = out_seq

    def merge_outbox(self, game_id: int, ids: list[int], item: OutboxItem, key: str) -> OutboxRecord | None:
        """Issue 32 item 2: pending rows (a burst of replies to one player) folded into one
        new row, in one transaction: the rows become "merged" (never sent; `forum_ref` names
        the new row's key), the new row is pending.  None, and nothing changed, when one of
        them was claimed, tried or sent meanwhile (it is then sent as it is)."""
        try:
            with self._tx() as s:
                now = self.lease_now(s)  # the claims' clock
                free = (OutboxRow.claimed_by.is_(None) | OutboxRow.claimed_until.is_(None)
                        | (OutboxRow.claimed_until <= now))
                merged = s.execute(update(OutboxRow).where(
                    OutboxRow.id.in_(ids), OutboxRow.game_id == game_id, OutboxRow.status == "pending",
                    OutboxRow.parts_done == 0, OutboxRow.attempt_part.is_(None), free,
                ).values(status="merged", forum_ref=key[:100]).execution_options(synchronize_session=False))
                if merged.rowcount != len(ids):
                    raise _Changed
                out_seq = (s.scalar(select(func.max(OutboxRow.seq)).where(OutboxRow.game_id == game_id)) or 0) + 1
                row = OutboxRow(game_id=game_id, seq=out_seq, kind=item.kind, target=item.target, title=item.title,
                                subject=item.subject, body=item.body, key=key, status="pending", created_at=now)
                s.add(row)
                s.flush()
                written = _outbox_record(row)
        except _Changed:
            return None
        for oid in ids:
            self._unqueue(oid, game_id)
        self._queue(game_id, [written])
        self._out_seqs[game_id] = written.seq
        return replace(written)

    def fail_outbox(self, outbox_id: int, error: str) -> None:
        """The board refused this row for good: it is no longer sent (and no longer holds up
        the rows after it) until `requeue_failed`."""
        with self._tx() as s:
            s.execute(update(OutboxRow).where(OutboxRow.id == outbox_id, OutboxRow.status == "pending")
                      .values(status="failed", error=error[:2000], claimed_by=None, claimed_until=None,
                              attempt_part=None, attempt_since=None))
        row = self._unqueue(outbox_id)
        if row is not None:
            row.status, row.error, row.attempt_part, row.attempt_since = "failed", error[:2000], None, None

    def failed_outbox(self, game_id: int) -> list[OutboxRecord]:
        """The game's rows the board refused for good, oldest first."""
        with self._tx() as s:
            rows = s.scalars(select(OutboxRow).where(OutboxRow.game_id == game_id, OutboxRow.status == "failed")
                             .order_by(OutboxRow.seq))
            return [_outbox_record(r) for r in rows]

    def has_failed(self, game_id: int, kind: str, target: str, other_than: int) -> bool:
        """Another row of the game to the same target failed for good and waits for a resend."""
        with self._tx() as s:
            return s.scalar(select(func.count(OutboxRow.id)).where(
                OutboxRow.game_id == game_id, OutboxRow.kind == kind, OutboxRow.target == target,
                OutboxRow.status == "failed", OutboxRow.id != other_than)) > 0

    def requeue_failed(self, game_id: int, ids: list[int] | None = None) -> list[OutboxRecord]:
        """The game's failed rows (or those of `ids`) pending again; the rows requeued."""
        with self._tx() as s:
            query = select(OutboxRow).where(OutboxRow.game_id == game_id, OutboxRow.status == "failed")
            if ids is not None:
                query = query.where(OutboxRow.id.in_(ids))
            rows = list(s.scalars(query.order_by(OutboxRow.seq)))
            for row in rows:
                row.status, row.error = "pending", None
            s.flush()
            requeued = [_outbox_record(r) for r in rows]
        self._queue(game_id, requeued)
        return [replace(r) for r in requeued]

    def last_sent_at(self, game_ids: list[int]) -> datetime | None:
        """When the newest of these games' writes went out (local clock)."""
        if not game_ids:
            return None
        with self._tx() as s:
            return s.scalar(select(func.max(OutboxRow.sent_at)).where(OutboxRow.game_id.in_(game_ids)))

    def mark_sent(self, outbox_id: int, forum_ref: str | None) -> None:
        """Record that an outbox row went out; KeyError if there is no such row."""
        with self._tx() as s:
            row = s.get(OutboxRow, outbox_id)
            if row is None:
                raise KeyError(outbox_id)
            row.status = "sent"
            row.forum_ref = forum_ref
            row.sent_at = utcnow()
        known = self._unqueue(outbox_id)
        if known is not None:
            known.status, known.forum_ref, known.sent_at = "sent", forum_ref, row.sent_at

    def claim(self, outbox_id: int, owner: str, until: datetime | float, part: int | None = None,
              since: datetime | None = None) -> bool:
        """Take a pending row for sending (no other process sends it while the claim holds):
        until a time, or for so many seconds on the leases' clock (`lease_now`).

        With `part`, also record that this part is about to be written, first tried at
        `since` (forum time), unless an earlier try of the same part is recorded already."""
        with self._tx() as s:
            now = self.lease_now(s)
            if not isinstance(until, datetime):
                until = now + timedelta(seconds=until)
            row = s.scalars(select(OutboxRow).where(OutboxRow.id == outbox_id).with_for_update()).one_or_none()
            if row is None or row.status != "pending":
                return False
            if row.claimed_by not in (None, owner) and row.claimed_until is not None and row.claimed_until > now:
                return False
            row.claimed_by, row.claimed_until = owner, until
            if part is not None and row.attempt_part != part:
                row.attempt_part, row.attempt_since = part, since
            claimed = (row.attempt_part, row.attempt_since)
        known = self._row(outbox_id)
        if known is not None:
            known.attempt_part, known.attempt_since = claimed
        return True

    def release_claims(self, game_id: int, owner: str) -> None:
        """Claims of other processes on the game's rows end (it took the game's lease over)."""
        with self._tx() as s:
            s.execute(update(OutboxRow).where(OutboxRow.game_id == game_id, OutboxRow.status == "pending",
                                              OutboxRow.claimed_by.is_not(None), OutboxRow.claimed_by != owner)
                      .values(claimed_by=None, claimed_until=None))
        self.forget_queue(game_id)  # the other process may have written it

    def record_parts(self, parts: list[SentPart], game_id: int | None = None, later: bool = False) -> None:
        """What a flush wrote, in one transaction: parts done, threads opened, rows sent (one
        statement each for every part and every thread, not a read and a write a part).

        `later`: written first in the next transaction this store opens (a rehearsal's next
        step: issue 37), the known rows brought up to date now.  Only for a board that drops a
        repeated key by itself (the memory board): a crash before that transaction leaves the
        rows pending, and sending them again changes nothing on the board."""
        if not parts:
            return
        now = utcnow()
        if later:
            self._unrecorded += [(p, now) for p in parts]
        else:
            with self._conn() as conn:
                if _record(conn, [(p, now) for p in parts]) < len(parts):
                    raise KeyError([p.outbox_id for p in parts])  # a row that is not there: nothing recorded
        for p in parts:  # the known rows as the statement left them
            row = self._unqueue(p.outbox_id, p.game_id) if p.done else self._row(p.outbox_id, p.game_id)
            if row is None:
                continue
            row.parts_done, row.attempt_part, row.attempt_since = p.parts_done, None, None
            row.forum_ref = row.forum_ref or p.forum_ref or row.forum_ref
            row.board_at = row.board_at or p.board_at
            if p.done:
                row.status, row.sent_at = "sent", now

    # ---- leases (one process moderates a game at a time) -------------------------------

    def lease_now(self, conn: Connection | Session | None = None) -> datetime:
        """The time the leases are taken and compared at: the database's clock, so a host
        clock that jumps (an NTP step, a VM resumed) neither lets two processes hold one game
        nor makes one drop its games (`lease_clock`)."""
        if self.lease_clock is not None:
            return self.lease_clock()
        if self.engine.dialect.name != "postgresql":
            return datetime.now(UTC)
        if conn is None:
            with self._conn() as c:
                return self.lease_now(c)
        return conn.execute(select(func.now())).scalar_one().astimezone(UTC)

    def acquire_lease(self, game_id: int, owner: str, now: datetime | None, period_s: float,
                      dead_owner: str | None = None) -> bool:
        """Take or renew the game's lease until now + period (now None: `lease_now`); False
        while another holds it (unless it is `dead_owner`, known to be gone)."""
        try:
            with self._tx() as s:
                now = self.lease_now(s) if now is None else now
                until = now + timedelta(seconds=period_s)
                row = s.scalars(select(LeaseRow).where(LeaseRow.game_id == game_id).with_for_update()).one_or_none()
                if row is None:
                    s.add(LeaseRow(game_id=game_id, owner=owner, expires_at=until))
                    s.flush()
                    return True
                if row.owner not in (owner, dead_owner) and row.expires_at > now:
                    return False
                row.owner, row.expires_at = owner, until
                return True
        except IntegrityError:  # another process inserted the first lease at the same moment
            return False

    def renew_leases(self, game_ids: list[int], owner: str, period_s: float, now: datetime | None = None) -> set[int]:
        """The leases of these games that `owner` holds, renewed until now + period (now
        None: `lease_now`) in one statement; the games renewed (the others are another's
        now, or were never taken)."""
        lease = LeaseRow.__table__
        with self._conn() as conn:
            until = (self.lease_now(conn) if now is None else now) + timedelta(seconds=period_s)
            rows = conn.execute(update(lease).where(lease.c.owner == owner, lease.c.game_id.in_(game_ids))
                                .values(expires_at=until).returning(lease.c.game_id))
            return {game_id for (game_id,) in rows}

    def lease(self, game_id: int) -> tuple[str, datetime] | None:
        with self._tx() as s:
            row = s.scalar(select(LeaseRow).where(LeaseRow.game_id == game_id))
            return (row.owner, row.expires_at) if row else None

    def release_lease(self, game_id: int, owner: str) -> None:
        with self._tx() as s:
            s.execute(delete(LeaseRow).where(LeaseRow.game_id == game_id, LeaseRow.owner == owner))

    def inbound_keys(self, game_id: int) -> set[tuple[str, str]]:
        """(source, forum id) of every stored input: what a driver need not fold again."""
        with self._conn() as conn:
            return {(src, fid) for src, fid in conn.execute(
                select(_I.c.source, _I.c.forum_id).where(_I.c.game_id == game_id))}

    def inbound_texts(self, game_id: int, source: str = "post") -> dict[str, str]:
        """forum id -> text of the stored inputs of one source (to notice edits)."""
        with self._conn() as conn:
            return {fid: text for fid, text in conn.execute(
                select(_I.c.forum_id, _I.c.text).where(_I.c.game_id == game_id, _I.c.source == source))}

    # ---- threads and marks ------------------------------------------------------------

    def thread_id(self, game_id: int, key: str) -> str | None:
        with self._conn() as conn:
            return conn.scalar(_THREAD, dict(gid=game_id, tkey=key))

    def threads(self, game_id: int) -> dict[str, str]:
        """Every thread the game opened: forum thread id -> logical key."""
        with self._conn() as conn:
            return dict(conn.execute(_THREADS, dict(gid=game_id)).all())

    def revoke_session(self, sid: str, expires_at: datetime) -> None:
        """A GM login ended by its logout (`tianshen web`); the expired ones are dropped."""
        with self._tx() as s:
            s.execute(delete(RevokedSessionRow).where(RevokedSessionRow.expires_at < utcnow()))
            if s.get(RevokedSessionRow, sid) is None:
                s.add(RevokedSessionRow(sid=sid, expires_at=expires_at))

    def is_revoked(self, sid: str) -> bool:
        with self._tx() as s:
            return s.get(RevokedSessionRow, sid) is not None

    def board_threads(self, board: str) -> dict[str, int]:
        """Every thread the board's games opened (over ones too): forum thread id -> game id."""
        with self._conn() as conn:
            rows = conn.execute(select(_T.c.forum_thread_id, _T.c.game_id).join(_G, _G.c.id == _T.c.game_id)
                                .where(_G.c.board == board))
            return {forum_id: game_id for forum_id, game_id in rows}

    def set_thread_id(self, game_id: int, key: str, forum_thread_id: str) -> None:
        with self._conn() as conn:
            _set_threads(conn, [(game_id, key, forum_thread_id)])

    def mark(self, game_id: int, name: str) -> str | None:
        with self._tx() as s:
            return s.scalar(select(MarkRow.value).where(MarkRow.game_id == game_id, MarkRow.name == name))

    def set_mark(self, game_id: int, name: str, value: str) -> None:
        self.set_marks(game_id, {name: value})

    def set_marks(self, game_id: int, marks: dict[str, str]) -> None:
        with self._conn() as conn:
            _set_marks(conn, game_id, marks)

    def marks(self, game_id: int) -> dict[str, str]:
        with self._conn() as conn:
            return dict(conn.execute(_MARKS, dict(gid=game_id)).all())

    def live_configs(self, board: str) -> list[tuple[int, str, dict[str, Any]]]:
        """(id, name, config) of the board's games that are signed up or running (not the
        state: a light read, for who else plays where)."""
        with self._conn() as conn:
            rows = conn.execute(select(_G.c.id, _G.c.name).where(
                _G.c.board == board, _G.c.status.not_in(("over", BOARD_STATUS))).order_by(_G.c.id)).all()
            self._read_configs(conn, [gid for gid, _ in rows])
        return [(gid, name, self._configs[gid]) for gid, name in rows]
