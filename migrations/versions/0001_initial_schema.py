"""initial schema

Revision ID: 0001
Revises:
Create Date: 2026-11-29
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel.sql.sqltypes
from alembic import op

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "deck",
        sa.Column("id", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("title", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("language", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("source", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("digest", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("lock_header", sqlmodel.sql.sqltypes.AutoString(), nullable=True),
        sa.Column("keyslots", sqlmodel.sql.sqltypes.AutoString(), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_deck")),
    )
    op.create_table(
        "session",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("started_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column("ended_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
        sa.Column("study_day", sa.Date(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_session")),
    )
    op.create_table(
        "setting",
        sa.Column("key", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("value", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.PrimaryKeyConstraint("key", name=op.f("pk_setting")),
    )
    op.create_table(
        "card",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("deck_id", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("card_id", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("prompt", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("tags", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("key_points", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("answer", sqlmodel.sql.sqltypes.AutoString(), nullable=True),
        sa.Column("sealed", sqlmodel.sql.sqltypes.AutoString(), nullable=True),
        sa.Column("retired", sa.Boolean(), nullable=False),
        sa.ForeignKeyConstraint(
            ["deck_id"], ["deck.id"], name=op.f("fk_card_deck_id_deck"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_card")),
        sa.UniqueConstraint("deck_id", "card_id", name=op.f("uq_card_deck_id_card_id")),
    )
    op.create_table(
        "cardstate",
        sa.Column("card", sa.Integer(), nullable=False),
        sa.Column("easiness_centi", sa.Integer(), nullable=False),
        sa.Column("repetitions", sa.Integer(), nullable=False),
        sa.Column("interval", sa.Integer(), nullable=False),
        sa.Column("due", sa.Date(), nullable=True),
        sa.Column("last_review_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
        sa.ForeignKeyConstraint(
            ["card"], ["card.id"], name=op.f("fk_cardstate_card_card"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("card", name=op.f("pk_cardstate")),
    )
    with op.batch_alter_table("cardstate", schema=None) as batch_op:
        batch_op.create_index("ix_cardstate_due", ["due"], unique=False)

    op.create_table(
        "review",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("card", sa.Integer(), nullable=False),
        sa.Column("session", sa.Integer(), nullable=True),
        sa.Column("reviewed_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column("study_day", sa.Date(), nullable=False),
        sa.Column("grade", sa.Integer(), nullable=False),
        sa.Column("drill", sa.Boolean(), nullable=False),
        sa.Column("duration_ms", sa.Integer(), nullable=False),
        sa.Column("easiness_centi_before", sa.Integer(), nullable=False),
        sa.Column("repetitions_before", sa.Integer(), nullable=False),
        sa.Column("interval_before", sa.Integer(), nullable=False),
        sa.Column("due_before", sa.Date(), nullable=True),
        sa.Column("easiness_centi_after", sa.Integer(), nullable=False),
        sa.Column("repetitions_after", sa.Integer(), nullable=False),
        sa.Column("interval_after", sa.Integer(), nullable=False),
        sa.Column("due_after", sa.Date(), nullable=True),
        sa.ForeignKeyConstraint(
            ["card"], ["card.id"], name=op.f("fk_review_card_card"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["session"], ["session.id"], name=op.f("fk_review_session_session"), ondelete="SET NULL"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_review")),
    )
    with op.batch_alter_table("review", schema=None) as batch_op:
        batch_op.create_index("ix_review_card_reviewed_at", ["card", "reviewed_at"], unique=False)
        batch_op.create_index("ix_review_study_day", ["study_day"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("review", schema=None) as batch_op:
        batch_op.drop_index("ix_review_study_day")
        batch_op.drop_index("ix_review_card_reviewed_at")

    op.drop_table("review")
    with op.batch_alter_table("cardstate", schema=None) as batch_op:
        batch_op.drop_index("ix_cardstate_due")

    op.drop_table("cardstate")
    op.drop_table("card")
    op.drop_table("setting")
    op.drop_table("session")
    op.drop_table("deck")
