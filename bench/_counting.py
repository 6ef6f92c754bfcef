"""Counting what the store asks of the database: statements (an executemany is one),
transactions (every commit and rollback of every connection) and the rows each kind of
statement writes, for the benchmarks."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from sqlalchemy import event
from sqlalchemy.engine import Engine

_WRITE = re.compile(r"^\s*(INSERT INTO|UPDATE|DELETE FROM)\s+\"?(\w+)", re.I)


@dataclass
class Counts:
    statements: int = 0
    transactions: int = 0
    rows: Counter[str] = field(default_factory=Counter)  # "INSERT INTO events" -> rows written
    writes: Counter[str] = field(default_factory=Counter)  # the same -> statements

    def reset(self) -> None:
        self.statements = self.transactions = 0
        self.rows.clear()
        self.writes.clear()

    @contextmanager
    def paused(self) -> Iterator[None]:
        """Nothing counted, and the listeners off: the store's statements run without the
        engine's cursor events (they cost about a twentieth of a rehearsal's CPU)."""
        listeners = [(Engine, "before_cursor_execute", _statement), (Engine, "commit", _transaction),
                     (Engine, "rollback", _transaction)]
        for args in listeners:
            event.remove(*args)
        try:
            yield
        finally:
            for args in listeners:
                event.listen(*args)


counts = Counts()


@event.listens_for(Engine, "before_cursor_execute")
def _statement(_conn: object, _cursor: object, sql: str, params: object, _ctx: object, many: bool) -> None:
    counts.statements += 1
    found = _WRITE.match(sql)
    if found:
        what = f"{found[1].upper()} {found[2]}"
        counts.writes[what] += 1
        # an executemany writes a row a parameter set; a multi-row VALUES list a row a group
        counts.rows[what] += len(params) if many else max(1, sql.count("), (") + 1)  # type: ignore[arg-type]


@event.listens_for(Engine, "commit")
@event.listens_for(Engine, "rollback")  # a read-only transaction ends in a rollback: counted too
def _transaction(_conn: object) -> None:
    counts.transactions += 1
