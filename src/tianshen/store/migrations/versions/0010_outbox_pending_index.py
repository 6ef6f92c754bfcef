"""The pending outbox rows indexed by themselves (issue 37): `ix_outbox_pending`, a partial
index on `outbox (game_id, seq) WHERE status = 'pending'`.  A daemon's tick asks every game
of its board, over ones too, for its pending rows (`Store.pending_for_games`: an over game's
last posts still to send), and a driver its own (`Store.pending_outbox`); through the unique
`(game_id, seq)` index each read went over every row the games ever sent (a board of 347
over games: 18,679 rows read and dropped, 1,790 buffers, a tick).  With this index it reads
the pending rows only, whatever the games sent before.

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-07
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_PENDING = sa.text("status = 'pending'")


def upgrade() -> None:
    op.create_index("ix_outbox_pending", "outbox", ["game_id", "seq"], postgresql_where=_PENDING,
                    sqlite_where=_PENDING)


def downgrade() -> None:
    op.drop_index("ix_outbox_pending", table_name="outbox")
