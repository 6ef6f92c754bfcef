"""Baseline: games, players, phases, inbound, events, outbox, threads, marks.

Revision ID: 0001
Revises:
Create Date: 2025-01-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _ts(name: str, nullable: bool = False) -> sa.Column:
    return sa.Column(name, sa.DateTime(timezone=True), nullable=nullable)


def _id() -> sa.Column:
    return sa.Column("id", sa.Integer(), nullable=False)


def _game_id(table: str) -> sa.Column:
    return sa.Column(
        "game_id",
        sa.Integer(),
        sa.ForeignKey("games.id", ondelete="CASCADE", name=f"fk_{table}_game_id_games"),
        nullable=False,
    )


def upgrade() -> None:
    op.create_table(
        "games",
        _id(),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("ruleset", sa.String(100), nullable=False),
        sa.Column("seed", sa.BigInteger(), nullable=False),
        sa.Column("status", sa.String(20), nullable=False),
        sa.Column("phase_label", sa.String(100), nullable=False),
        _ts("deadline_at", nullable=True),
        sa.Column("winner", sa.String(100), nullable=True),
        sa.Column("state_json", sa.Text(), nullable=False),
        sa.Column("config_json", sa.Text(), nullable=False),
        _ts("created_at"),
        _ts("updated_at"),
        sa.PrimaryKeyConstraint("id", name="pk_games"),
        sa.UniqueConstraint("name", name="uq_games_name"),
    )
    op.create_table(
        "players",
        _id(),
        _game_id("players"),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("forum_name", sa.String(200), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("role", sa.String(100), nullable=False),
        sa.Column("faction", sa.String(100), nullable=False),
        sa.Column("alive", sa.Boolean(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_players"),
        sa.UniqueConstraint("game_id", "name", name="uq_players_game_id_name"),
    )
    op.create_table(
        "phases",
        _id(),
        _game_id("phases"),
        sa.Column("label", sa.String(100), nullable=False),
        _ts("started_at"),
        _ts("ended_at", nullable=True),
        sa.PrimaryKeyConstraint("id", name="pk_phases"),
        sa.UniqueConstraint("game_id", "label", name="uq_phases_game_id_label"),
    )
    op.create_table(
        "inbound",
        _id(),
        _game_id("inbound"),
        sa.Column("source", sa.String(10), nullable=False),
        sa.Column("forum_id", sa.String(100), nullable=False),
        sa.Column("thread_key", sa.String(100), nullable=True),
        sa.Column("sender", sa.String(200), nullable=False),
        _ts("sent_at"),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("edited", sa.Boolean(), nullable=False),
        sa.Column("phase_label", sa.String(100), nullable=True),
        sa.Column("event_seq", sa.Integer(), nullable=True),
        _ts("received_at"),
        sa.PrimaryKeyConstraint("id", name="pk_inbound"),
        sa.UniqueConstraint("game_id", "source", "forum_id", name="uq_inbound_game_id_source_forum_id"),
    )
    op.create_table(
        "events",
        _id(),
        _game_id("events"),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("phase_label", sa.String(100), nullable=False),
        sa.Column("kind", sa.String(50), nullable=False),
        sa.Column("payload_json", sa.Text(), nullable=False),
        _ts("created_at"),
        sa.PrimaryKeyConstraint("id", name="pk_events"),
        sa.UniqueConstraint("game_id", "seq", name="uq_events_game_id_seq"),
    )
    op.create_table(
        "outbox",
        _id(),
        _game_id("outbox"),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(10), nullable=False),
        sa.Column("target", sa.String(200), nullable=False),
        sa.Column("title", sa.String(500), nullable=True),
        sa.Column("subject", sa.String(500), nullable=True),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("key", sa.String(200), nullable=False),
        sa.Column("status", sa.String(10), nullable=False),
        sa.Column("forum_ref", sa.String(100), nullable=True),
        _ts("created_at"),
        _ts("sent_at", nullable=True),
        sa.PrimaryKeyConstraint("id", name="pk_outbox"),
        sa.UniqueConstraint("key", name="uq_outbox_key"),
        sa.UniqueConstraint("game_id", "seq", name="uq_outbox_game_id_seq"),
    )
    op.create_table(
        "threads",
        _id(),
        _game_id("threads"),
        sa.Column("key", sa.String(100), nullable=False),
        sa.Column("forum_thread_id", sa.String(100), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_threads"),
        sa.UniqueConstraint("game_id", "key", name="uq_threads_game_id_key"),
    )
    op.create_table(
        "marks",
        _id(),
        _game_id("marks"),
        sa.Column("name", sa.String(100), nullable=False),
        sa.Column("value", sa.String(200), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_marks"),
        sa.UniqueConstraint("game_id", "name", name="uq_marks_game_id_name"),
    )


def downgrade() -> None:
    for table in ("marks", "threads", "outbox", "events", "inbound", "phases", "players", "games"):
        op.drop_table(table)
