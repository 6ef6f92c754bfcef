"""An input is stored once, its row alone (issue 37): an inbound row that says all of the
input it became (a PM, a post without a first version, a deadline; `store.row_says`) keeps
'' as its `payload_json`, and the input's JSON is made from the row when read
(`store.stored_payload`), not made and stored beside it with every step.  No column
changes: the revision marks the rows' new meaning.  A downgrade (whose code reads
`payload_json` as the JSON itself) writes each such row's JSON first.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-07
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    pass  # the rows written before keep their JSON, which readers take as it is


def downgrade() -> None:
    from tianshen.store.models import InboundRow
    from tianshen.store.store import stored_payload

    inbound = InboundRow.__table__
    conn = op.get_bind()
    said = conn.execute(sa.select(inbound.c.id, inbound.c.source.label("kind"), inbound.c.payload_json,
                                  inbound.c.forum_id, inbound.c.sender, inbound.c.sent_at.label("created_at"),
                                  inbound.c.text, inbound.c.thread_key, inbound.c.edited)
                        .where(inbound.c.payload_json == "")).all()
    for row in said:
        conn.execute(sa.update(inbound).where(inbound.c.id == row.id).values(payload_json=stored_payload(row)))
