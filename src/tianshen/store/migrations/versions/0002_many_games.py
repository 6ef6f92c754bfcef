"""Many games in one service, several processes on one database, exactly-once sending.

- `games.board`: the board (forum) a game is played on; `games.step_seq`: the seq of the
  newest event, checked by every commit (optimistic concurrency).
- `leases`: which process owns a game, until when.
- `outbox`: parts already written, the part being written and since when (so a restart asks
  the forum whether that write arrived before writing it again), and a claim.

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-03
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("games") as t:
        t.add_column(sa.Column("board", sa.String(300), nullable=False, server_default=""))
        t.add_column(sa.Column("step_seq", sa.Integer(), nullable=False, server_default="0"))
    op.execute("UPDATE games SET step_seq = COALESCE((SELECT MAX(seq) FROM events WHERE events.game_id = games.id), 0)")
    with op.batch_alter_table("outbox") as t:
        t.add_column(sa.Column("parts_done", sa.Integer(), nullable=False, server_default="0"))
        t.add_column(sa.Column("attempt_part", sa.Integer(), nullable=True))
        t.add_column(sa.Column("attempt_since", sa.DateTime(timezone=True), nullable=True))
        t.add_column(sa.Column("claimed_by", sa.String(200), nullable=True))
        t.add_column(sa.Column("claimed_until", sa.DateTime(timezone=True), nullable=True))
    op.create_table(
        "leases",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(),
                  sa.ForeignKey("games.id", ondelete="CASCADE", name="fk_leases_game_id_games"), nullable=False),
        sa.Column("owner", sa.String(200), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_leases"),
        sa.UniqueConstraint("game_id", name="uq_leases_game_id"),
    )


def downgrade() -> None:
    op.drop_table("leases")
    with op.batch_alter_table("outbox") as t:
        for name in ("claimed_until", "claimed_by", "attempt_since", "attempt_part", "parts_done"):
            t.drop_column(name)
    with op.batch_alter_table("games") as t:
        t.drop_column("step_seq")
        t.drop_column("board")
