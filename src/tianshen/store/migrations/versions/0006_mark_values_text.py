"""A mark's value is text of any length: the daemon keeps the GM's private-topic read
positions as one mark (`pm_topics`, a JSON object a topic), which outgrows 200 characters
after a dozen topics (PostgreSQL refused it; SQLite never checked).

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-06
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("marks") as t:
        t.alter_column("value", type_=sa.Text(), existing_type=sa.String(200), existing_nullable=False)


def downgrade() -> None:
    with op.batch_alter_table("marks") as t:
        t.alter_column("value", type_=sa.String(200), existing_type=sa.Text(), existing_nullable=False)
