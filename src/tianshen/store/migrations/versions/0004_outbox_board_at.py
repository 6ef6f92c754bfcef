"""Issue 38 item 1: an announcement is stamped with the board's time, not ours.

- `outbox.board_at`: the forum's clock right after the row's first part was written (its
  `Date`, corrected by the measured offset; the rehearsal's game clock on the memory board).
  Rows sent before this revision keep NULL and the pages fall back to `sent_at`.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-06
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("outbox") as t:
        t.add_column(sa.Column("board_at", sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("outbox") as t:
        t.drop_column("board_at")
