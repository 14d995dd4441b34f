"""One per-card review index that also answers each card's best grade

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-01

A mock interview weighs each candidate card by whether it was ever answered well: the best
grade of its graded (non-drill) reviews. Through ``ix_review_card_reviewed_at`` that was one
table page per review, ~10 pages a card: at 1,000,000 reviews the draw of 150 candidates took
9-60 ms (warm or cold cache), most of opening the mock screen.

``ix_review_card_drill_grade_reviewed_at`` replaces it rather than joining it: a grade then
still writes one per-card index entry (a second one made a committed grade 1.3× slower), the
best grade is one seek, and what read the old index (a card's history, the times an import
compares with, "graded since the queue was read") reads this one, covered as before; only a
card's history is sorted by time after the seek.
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_NEW = "ix_review_card_drill_grade_reviewed_at"
_OLD = "ix_review_card_reviewed_at"


def upgrade() -> None:
    op.create_index(_NEW, "review", ["card", "drill", "grade", "reviewed_at"], unique=False)
    op.drop_index(_OLD, table_name="review")


def downgrade() -> None:
    op.create_index(_OLD, "review", ["card", "reviewed_at"], unique=False)
    op.drop_index(_NEW, table_name="review")
