"""A game's state may trail its events (issue 37): `games.state_seq`, the seq `state_json`
is the state after when a rehearsal did not write it with every step (NULL: the newest).
`Store.load_game` folds the events after it.  A downgrade folds them into `state_json`
first (the older code reads the column as the newest state).

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-06
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("games") as t:
        t.add_column(sa.Column("state_seq", sa.Integer(), nullable=True))


def downgrade() -> None:
    from tianshen.store.store import caught_up_state

    conn = op.get_bind()
    behind = conn.execute(sa.text("SELECT id, ruleset, config_json, state_json, state_seq FROM games"
                                  " WHERE state_seq IS NOT NULL")).all()
    for gid, ruleset, config, state_json, state_seq in behind:
        conn.execute(sa.text("UPDATE games SET state_json = :s WHERE id = :gid"),
                     dict(s=caught_up_state(conn, gid, ruleset, config, state_json, state_seq), gid=gid))
    # in place on both (SQLite 3.35+): a batch copy of `games` would drop the table its
    # rows cascade from (the foreign keys are on), and every event and input with it
    op.execute("ALTER TABLE games DROP COLUMN state_seq")
