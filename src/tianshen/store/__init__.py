"""Persistence: games, the event log, deduplicated forum input and the outbox (SQLAlchemy + Alembic)."""

from tianshen.store.store import (
    EventRecord,
    GameRecord,
    InboundRecord,
    OutboxItem,
    OutboxRecord,
    PhaseRecord,
    SentPart,
    StaleState,
    Step,
    Store,
    unusable,
)

__all__ = ["EventRecord", "GameRecord", "InboundRecord", "OutboxItem", "OutboxRecord", "PhaseRecord", "SentPart",
           "StaleState", "Step", "Store", "unusable"]
