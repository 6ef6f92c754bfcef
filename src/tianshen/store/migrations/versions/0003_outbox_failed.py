"""Issue 23 item 4: a message the board refuses for good (unknown recipient, …) fails alone.

- `outbox.error`: why the board refused it; the row's status is then "failed" (no longer
  sent, listed by `tianshen admin status`, queued again by `tianshen admin resend`).

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-05
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("outbox") as t:
        t.add_column(sa.Column("error", sa.Text(), nullable=True))


def downgrade() -> None:
    op.execute("UPDATE outbox SET status = 'pending' WHERE status = 'failed'")
    with op.batch_alter_table("outbox") as t:
        t.drop_column("error")
