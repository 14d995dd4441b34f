"""Card states carry their card's deck and position; running counts of cards and reviews

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-30

At 100,000 cards and 1,000,000 reviews, Home's counts joined every card (a ~2 KB row: prompt and
answer) to its state, today's queue sorted every due card, and statistics read the review log.
Now ``cardstate`` copies the card's deck, position, retired flag and lock state, so the queue is
one index range in study order; ``duecount`` and ``daycount`` keep running counts, so Home and
the heatmap add up a few hundred rows. SQLite triggers keep all of it, whoever writes.
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel.sql.sqltypes
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _count_state(row: str, step: str) -> str:
    """Add ``step`` (+1/-1) to the duecount bucket of a cardstate row (OLD or NEW) if it counts."""
    bucket = f"deck_id = {row}.deck_id AND due IS {row}.due AND locked = {row}.locked"
    counts = f"{row}.deck_id IS NOT NULL AND NOT {row}.retired"
    return f"""
    INSERT INTO duecount (deck_id, due, locked, cards)
        SELECT {row}.deck_id, {row}.due, {row}.locked, 0
        WHERE {counts} AND NOT EXISTS (SELECT 1 FROM duecount WHERE {bucket});
    UPDATE duecount SET cards = cards {step} WHERE {bucket} AND {counts};
    DELETE FROM duecount WHERE {bucket} AND cards <= 0;"""


def _count_review(row: str, step: str) -> str:
    """Add a review row (OLD or NEW) to its deck and day in daycount, ``step`` being + or -."""
    deck = f"(SELECT deck_id FROM card WHERE id = {row}.card)"
    graded = f"(NOT {row}.drill)"
    passed = f"(NOT {row}.drill AND {row}.grade >= 3)"  # 3: scheduler.sm2.PASSING_GRADE
    if step == "+":
        return f"""
    INSERT INTO daycount (deck_id, study_day, reviews, graded, passed)
        VALUES ({deck}, {row}.study_day, 1, {graded}, {passed})
        ON CONFLICT (deck_id, study_day) DO UPDATE SET
            reviews = reviews + 1,
            graded = graded + excluded.graded,
            passed = passed + excluded.passed;"""
    day = f"deck_id = {deck} AND study_day = {row}.study_day"
    return f"""
    UPDATE daycount
        SET reviews = reviews - 1, graded = graded - {graded}, passed = passed - {passed}
        WHERE {day};
    DELETE FROM daycount WHERE {day} AND reviews <= 0;"""


_STATE_CHANGED = (
    "OLD.deck_id IS NOT NEW.deck_id OR OLD.retired IS NOT NEW.retired"
    " OR OLD.due IS NOT NEW.due OR OLD.locked IS NOT NEW.locked"
)
_REVIEW_CHANGED = (
    "OLD.card IS NOT NEW.card OR OLD.study_day IS NOT NEW.study_day"
    " OR OLD.grade IS NOT NEW.grade OR OLD.drill IS NOT NEW.drill"
)

TRIGGERS = {
    # A new state is counted, then takes its card's copies unless it came with them right
    # (that UPDATE moves the count). Deck sync inserts states with their copies: updating
    # 100,000 fresh rows one by one took 0.7 s of a deck load.
    "cardstate_insert": f"""
CREATE TRIGGER cardstate_insert AFTER INSERT ON cardstate
BEGIN{_count_state("NEW", "+ 1")}
    UPDATE cardstate SET (deck_id, position, retired, locked) =
        (SELECT deck_id, position, retired, answer IS NULL FROM card WHERE id = NEW.card)
        WHERE card = NEW.card AND (NEW.deck_id, NEW.position, NEW.retired, NEW.locked) IS NOT
            (SELECT deck_id, position, retired, answer IS NULL FROM card WHERE id = NEW.card);
END""",
    "cardstate_update": f"""
CREATE TRIGGER cardstate_update AFTER UPDATE OF deck_id, retired, due, locked ON cardstate
WHEN {_STATE_CHANGED}
BEGIN{_count_state("OLD", "- 1")}{_count_state("NEW", "+ 1")}
END""",
    "cardstate_delete": f"""
CREATE TRIGGER cardstate_delete AFTER DELETE ON cardstate
BEGIN{_count_state("OLD", "- 1")}
END""",
    "card_update": """
CREATE TRIGGER card_update AFTER UPDATE OF deck_id, position, retired, answer ON card
WHEN OLD.deck_id IS NOT NEW.deck_id OR OLD.position IS NOT NEW.position
    OR OLD.retired IS NOT NEW.retired OR (OLD.answer IS NULL) IS NOT (NEW.answer IS NULL)
BEGIN
    UPDATE cardstate SET deck_id = NEW.deck_id, position = NEW.position,
        retired = NEW.retired, locked = NEW.answer IS NULL
        WHERE card = NEW.id;
END""",
    # What ON DELETE CASCADE would remove, removed while the card (and its deck) can still be
    # looked up, so the review counts come off the right deck whatever order SQLite cascades in.
    "card_delete": """
CREATE TRIGGER card_delete BEFORE DELETE ON card
BEGIN
    DELETE FROM review WHERE card = OLD.id;
    DELETE FROM cardstate WHERE card = OLD.id;
END""",
    "review_insert": f"""
CREATE TRIGGER review_insert AFTER INSERT ON review
BEGIN{_count_review("NEW", "+")}
END""",
    "review_update": f"""
CREATE TRIGGER review_update AFTER UPDATE OF card, study_day, grade, drill ON review
WHEN {_REVIEW_CHANGED}
BEGIN{_count_review("OLD", "-")}{_count_review("NEW", "+")}
END""",
    "review_delete": f"""
CREATE TRIGGER review_delete AFTER DELETE ON review
BEGIN{_count_review("OLD", "-")}
END""",
}


def upgrade() -> None:
    with op.batch_alter_table("cardstate", schema=None) as batch_op:
        batch_op.add_column(sa.Column("deck_id", sqlmodel.sql.sqltypes.AutoString(), nullable=True))
        batch_op.add_column(sa.Column("position", sa.Integer(), nullable=True))
        batch_op.add_column(
            sa.Column("retired", sa.Boolean(), nullable=False, server_default=sa.false())
        )
        batch_op.add_column(
            sa.Column("locked", sa.Boolean(), nullable=False, server_default=sa.false())
        )
    op.execute(
        "UPDATE cardstate SET (deck_id, position, retired, locked) ="
        " (SELECT deck_id, position, retired, answer IS NULL FROM card WHERE id = cardstate.card)"
    )
    with op.batch_alter_table("cardstate", schema=None) as batch_op:
        batch_op.drop_index("ix_cardstate_due")
        batch_op.create_index(
            "ix_cardstate_queue",
            ["deck_id", "retired", "due", "position", "card", "locked"],
            unique=False,
        )
    with op.batch_alter_table("card", schema=None) as batch_op:
        batch_op.create_index(
            "ix_card_retired_tags_deck_id", ["retired", "tags", "deck_id"], unique=False
        )

    op.create_table(
        "duecount",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("deck_id", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("due", sa.Date(), nullable=True),
        sa.Column("locked", sa.Boolean(), nullable=False),
        sa.Column("cards", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_duecount")),
    )
    with op.batch_alter_table("duecount", schema=None) as batch_op:
        batch_op.create_index(
            "ix_duecount_deck_id_due_locked", ["deck_id", "due", "locked"], unique=False
        )
    op.create_table(
        "daycount",
        sa.Column("deck_id", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("study_day", sa.Date(), nullable=False),
        sa.Column("reviews", sa.Integer(), nullable=False),
        sa.Column("graded", sa.Integer(), nullable=False),
        sa.Column("passed", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("deck_id", "study_day", name=op.f("pk_daycount")),
    )
    op.execute(
        "INSERT INTO duecount (deck_id, due, locked, cards)"
        " SELECT deck_id, due, locked, count(*) FROM cardstate"
        " WHERE deck_id IS NOT NULL AND NOT retired GROUP BY deck_id, due, locked"
    )
    # Through the states' deck copies: reading 1M reviews' cards from ``card`` takes seconds.
    op.execute(
        "INSERT INTO daycount (deck_id, study_day, reviews, graded, passed)"
        " SELECT s.deck_id, r.study_day, count(*), sum(NOT r.drill),"
        " sum(NOT r.drill AND r.grade >= 3)"
        " FROM review r JOIN cardstate s ON s.card = r.card GROUP BY s.deck_id, r.study_day"
    )
    for ddl in TRIGGERS.values():
        op.execute(ddl)


def downgrade() -> None:
    for name in TRIGGERS:
        op.execute(f"DROP TRIGGER IF EXISTS {name}")
    op.drop_table("daycount")
    with op.batch_alter_table("duecount", schema=None) as batch_op:
        batch_op.drop_index("ix_duecount_deck_id_due_locked")
    op.drop_table("duecount")
    with op.batch_alter_table("card", schema=None) as batch_op:
        batch_op.drop_index("ix_card_retired_tags_deck_id")
    with op.batch_alter_table("cardstate", schema=None) as batch_op:
        batch_op.drop_index("ix_cardstate_queue")
        batch_op.create_index("ix_cardstate_due", ["due"], unique=False)
        batch_op.drop_column("locked")
        batch_op.drop_column("retired")
        batch_op.drop_column("position")
        batch_op.drop_column("deck_id")
