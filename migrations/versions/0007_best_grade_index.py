"""A covering index for each card's best grade

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-01

A mock interview weighs each candidate card by whether it was ever answered well: the best
grade of its graded (non-drill) reviews. Read from the review rows, that was one table page
per review, ~10 pages a card: at 1,000,000 reviews the draw of 150 candidates took 9-60 ms
(warm or cold cache), most of opening the mock screen. ``ix_review_best_grade`` answers it
from one index seek a card.
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_index("ix_review_best_grade", "review", ["card", "drill", "grade"], unique=False)


def downgrade() -> None:
    op.drop_index("ix_review_best_grade", table_name="review")
