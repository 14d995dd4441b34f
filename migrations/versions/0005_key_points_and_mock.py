"""Key-point self-checks on reviews; mock interviews

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-01

A review may record which key points the learner said (``points``: how many were listed,
``recalled``: a bit mask by index, ``points_fp``: a fingerprint of the list), never their text.
Mock interviews get two tables: the session and its questions (time used, points covered, the
learner's notes, and the review a question was counted as).

``review`` gains its columns with ``ALTER TABLE ADD COLUMN``, not a batch rebuild, so its
triggers (schema 0003) stay in place.
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel.sql.sqltypes
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("review", sa.Column("points", sa.Integer(), nullable=True))
    op.add_column("review", sa.Column("recalled", sa.Integer(), nullable=True))
    op.add_column(
        "review", sa.Column("points_fp", sqlmodel.sql.sqltypes.AutoString(), nullable=True)
    )
    op.create_index(
        "ix_review_checked", "review", ["card"], sqlite_where=sa.text("points IS NOT NULL")
    )
    op.create_table(
        "mocksession",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("deck_id", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("started_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column("ended_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
        sa.Column("study_day", sa.Date(), nullable=False),
        sa.Column("questions", sa.Integer(), nullable=False),
        sa.Column("seconds_per_question", sa.Integer(), nullable=False),
        sa.Column("topic", sqlmodel.sql.sqltypes.AutoString(), nullable=True),
        sa.ForeignKeyConstraint(
            ["deck_id"], ["deck.id"], name=op.f("fk_mocksession_deck_id_deck"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_mocksession")),
    )
    op.create_table(
        "mockquestion",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("mock", sa.Integer(), nullable=False),
        sa.Column("card", sa.Integer(), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("seconds_used", sa.Integer(), nullable=False),
        sa.Column("timed_out", sa.Boolean(), nullable=False),
        sa.Column("points", sa.Integer(), nullable=True),
        sa.Column("recalled", sa.Integer(), nullable=True),
        sa.Column("points_fp", sqlmodel.sql.sqltypes.AutoString(), nullable=True),
        sa.Column("notes", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("review", sa.Integer(), nullable=True),
        sa.ForeignKeyConstraint(
            ["card"], ["card.id"], name=op.f("fk_mockquestion_card_card"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["mock"],
            ["mocksession.id"],
            name=op.f("fk_mockquestion_mock_mocksession"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["review"],
            ["review.id"],
            name=op.f("fk_mockquestion_review_review"),
            ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_mockquestion")),
        sa.UniqueConstraint("mock", "position", name=op.f("uq_mockquestion_mock_position")),
    )
    op.create_index("ix_mockquestion_card", "mockquestion", ["card"], unique=False)


def downgrade() -> None:
    op.drop_index("ix_mockquestion_card", table_name="mockquestion")
    op.drop_table("mockquestion")
    op.drop_table("mocksession")
    op.drop_index("ix_review_checked", table_name="review")
    # SQLite 3.35+ drops a column in place (no rebuild: the review triggers stay).
    for column in ("points_fp", "recalled", "points"):
        op.execute(f"ALTER TABLE review DROP COLUMN {column}")
