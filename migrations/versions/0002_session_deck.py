"""Sessions remember which deck was reviewed

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-29
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel.sql.sqltypes
from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # Batch mode rebuilds the table; the app migrates with foreign keys off, so dropping the
    # old table does not fire ON DELETE SET NULL on the reviews that point at sessions.
    with op.batch_alter_table("session", schema=None) as batch_op:
        batch_op.add_column(sa.Column("deck_id", sqlmodel.sql.sqltypes.AutoString(), nullable=True))
        batch_op.create_foreign_key(
            batch_op.f("fk_session_deck_id_deck"), "deck", ["deck_id"], ["id"], ondelete="SET NULL"
        )


def downgrade() -> None:
    with op.batch_alter_table("session", schema=None) as batch_op:
        batch_op.drop_constraint(batch_op.f("fk_session_deck_id_deck"), type_="foreignkey")
        batch_op.drop_column("deck_id")
