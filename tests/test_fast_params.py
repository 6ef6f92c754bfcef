"""Issue 37: a hot statement's parameters made by one function written for it
(`store._params_of`), not a loop over its binds.  They must be what the binds say, for every
statement a rehearsal compiles and for PostgreSQL's named parameters too."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from types import SimpleNamespace
from typing import Any

import pytest
from sqlalchemy import bindparam, insert
from sqlalchemy.dialects import postgresql, sqlite

from tianshen.sim.rehearsal import rehearse
from tianshen.store import Store
from tianshen.store import store as st

T0 = datetime(2026, 1, 1, 20, 0, 1, 250, tzinfo=UTC)
T1 = datetime(2026, 1, 2, 21, 0, tzinfo=UTC)
T0_EAST = T0.astimezone(timezone(timedelta(hours=8)))  # (the same time: the same text)


def _expected(fast: st._Fast, row: dict[str, Any]) -> Any:
    """Each bind's value, as the binds say it: the row's through its processor, or the constant's."""
    values = [(proc(row[name]) if proc else row[name]) if from_row else (proc(const) if proc else const)
              for name, from_row, const, proc in fast.binds]
    return tuple(values) if fast.positional else dict(zip([b[0] for b in fast.binds], values, strict=True))


def _typed(params: Any) -> list[tuple[Any, Any, type]]:
    """Each value with its type (True and 1 are equal, but not the same bound value)."""
    values = params.items() if isinstance(params, dict) else enumerate(params)
    return [(k, v, type(v)) for k, v in values]


def _rows(fast: st._Fast) -> list[dict[str, Any]]:
    """Rows of every kind of value a bind takes: times (the same, another, in another zone,
    None), strings, numbers, booleans, None."""
    names = [name for name, from_row, _, _ in fast.binds if from_row]
    kinds = [(T0, "甲", 3, True, None), (T1, "", 0, False, T0_EAST), (None, "乙", -1, True, T1)]
    rows = []
    for shift in range(3):
        row: dict[str, Any] = {}
        for n, name in enumerate(names):
            proc = next(p for b, f, _, p in fast.binds if b == name and f)
            choices = kinds[(n + shift) % 3]
            if proc is None:
                row[name] = choices[1 + (n + shift) % 2]  # a string or a number
            elif "Boolean" in getattr(proc, "__qualname__", ""):
                row[name] = choices[3]
            else:
                row[name] = choices[0 if (n + shift) % 2 else 4]  # a time, or None
        rows.append(row)
    return rows


def test_every_statement_of_a_rehearsal_binds_what_its_binds_say(tmp_path) -> None:  # type: ignore[no-untyped-def]
    url = f"sqlite:///{tmp_path}/r.db"
    store = Store(url, durable=False)
    store.upgrade()
    rehearse("classic_10", 3, url, store=store, name="binds")
    store.close()
    made = [fast for (dialect, _), fast in st._FAST.items() if dialect == "sqlite"]
    assert len(made) >= 10
    repeated = 0
    for fast in made:
        names = [b[0] for b in fast.binds if b[1]]
        repeated += len(names) != len(set(names))
        for row in _rows(fast):
            st._UTC_TEXTS.clear()  # (a time's text not kept yet: its processor's)
            assert _typed(fast.params(row)) == _typed(_expected(fast, row)), fast.sql
            assert _typed(fast.params(row)) == _typed(_expected(fast, row)), fast.sql  # (kept)
    assert repeated  # (a flush's record binds its `done` four times)


@pytest.mark.parametrize("dialect", [postgresql.psycopg.dialect(), sqlite.dialect()], ids=["postgresql", "sqlite"])
def test_a_records_named_and_repeated_binds(dialect: Any) -> None:
    """The flush's record (a name bound four times, constants, times) and a step's outbox row,
    compiled for PostgreSQL (named: a dict) and SQLite (a tuple in order)."""
    conn: Any = SimpleNamespace(dialect=dialect)
    outbox = tuple(st._STEP_ROWS["outbox"])
    for key, build in (("record_part", lambda: st._RECORD_PART), ("record_range", lambda: st._RECORD_RANGE),
                       (("outbox", outbox), lambda: insert(st._O).inline().values(
                           {k: bindparam(k, type_=st._O.c[k].type) for k in outbox}))):
        fast = st._fast(conn, ("test", key), build)
        assert fast.positional == (dialect.name == "sqlite")
        for row in _rows(fast):
            assert _typed(fast.params(row)) == _typed(_expected(fast, row))


def test_a_naive_time_is_refused_kept_texts_or_not() -> None:
    conn: Any = SimpleNamespace(dialect=sqlite.dialect())
    fast = st._fast(conn, ("test", "record_range"), lambda: st._RECORD_RANGE)
    row = {"b_parts": 1, "b_ref": "", "b_done": True, "b_sent": T0.replace(tzinfo=None), "b_board": None,
           "lo": 1, "hi": 1}
    st._UTC_TEXTS[T0] = "kept"
    with pytest.raises(ValueError, match="naive"):
        fast.params(row)
    st._UTC_TEXTS.clear()
