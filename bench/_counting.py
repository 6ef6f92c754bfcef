"""Counting what the store asks of the database: statements (an executemany is one) and
transactions (every commit and rollback of every connection), for the benchmarks."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import event
from sqlalchemy.engine import Engine


@dataclass
class Counts:
    statements: int = 0
    transactions: int = 0

    def reset(self) -> None:
        self.statements = self.transactions = 0


counts = Counts()


@event.listens_for(Engine, "before_cursor_execute")
def _statement(*_: object) -> None:
    counts.statements += 1


@event.listens_for(Engine, "commit")
@event.listens_for(Engine, "rollback")  # a read-only transaction ends in a rollback: counted too
def _transaction(_conn: object) -> None:
    counts.transactions += 1
