"""An input is stored once (issue 37): the event a PM, post or deadline became is its
`inbound` row's `payload_json` (its kind the row's `source`, its seq `event_seq`, its phase
and time the row's), not an `events` row beside it.  The events of inputs already stored
move into their inbound rows; the setup's and the GM commands' stay in `events`.
`Store.events` reads both tables in seq order.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-06
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# an inbound row and the event it became, when the event says nothing the row does not:
# the same kind, seq, phase and time (every event the driver wrote for an input)
_SAME = ("events.game_id = inbound.game_id AND events.seq = inbound.event_seq AND events.kind = inbound.source"
         " AND events.phase_label = inbound.phase_label AND events.created_at = inbound.sent_at")


def upgrade() -> None:
    with op.batch_alter_table("inbound") as t:
        t.add_column(sa.Column("payload_json", sa.Text(), nullable=True))
    op.execute(f"UPDATE inbound SET payload_json = (SELECT events.payload_json FROM events WHERE {_SAME})"
               " WHERE event_seq IS NOT NULL")
    op.execute(f"DELETE FROM events WHERE EXISTS (SELECT 1 FROM inbound WHERE {_SAME}"
               " AND inbound.payload_json IS NOT NULL)")


def downgrade() -> None:
    op.execute("INSERT INTO events (game_id, seq, phase_label, kind, payload_json, created_at)"
               " SELECT game_id, event_seq, phase_label, source, payload_json, sent_at FROM inbound"
               " WHERE payload_json IS NOT NULL")
    with op.batch_alter_table("inbound") as t:
        t.drop_column("payload_json")
