"""Decks carry a notation page; cards name the calculators that fit them

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel.sql.sqltypes
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # Plain ADD COLUMN (no table rebuild): the running-count triggers on card stay as they are.
    op.add_column("deck", sa.Column("notation", sqlmodel.sql.sqltypes.AutoString(), nullable=True))
    op.add_column(
        "card",
        sa.Column(
            "calculators", sqlmodel.sql.sqltypes.AutoString(), nullable=False, server_default="[]"
        ),
    )


def downgrade() -> None:
    # SQLite's own DROP COLUMN (3.35+), not a batch rebuild: dropping and recreating card would
    # break the triggers of schema 0003 that name it.
    op.drop_column("card", "calculators")
    op.drop_column("deck", "notation")
