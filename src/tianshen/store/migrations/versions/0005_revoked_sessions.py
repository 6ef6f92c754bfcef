"""Issue 38 item 8: a GM's logout survives a restart of `tianshen web`.

- `revoked_sessions`: the session ids of the web pages' logins ended by a logout, each until
  it would have expired anyway.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-06
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table("revoked_sessions",
                    sa.Column("sid", sa.String(100), primary_key=True),
                    sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False))


def downgrade() -> None:
    op.drop_table("revoked_sessions")
