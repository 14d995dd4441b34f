"""Suspended, buried and leech cards; practice reviews outside the schedule

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-01

``cardstate`` gains ``suspended``, ``leech`` and ``buried_on`` (the study day a card was buried
on: it is hidden that day only); ``review`` gains ``practice`` (study ahead, cram, final pass:
logged like a drill, schedule unchanged). ``duecount`` buckets by the three new columns too,
so Home's due and new counts leave suspended and buried cards out while "cards" still counts
them; the queue index leads with ``suspended`` so today's queue stays one index range.

Columns are added with ``ALTER TABLE ADD COLUMN`` (no table rebuild); the three ``cardstate``
triggers of schema 0003 are replaced by versions that know the new columns.
"""

import importlib.util
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

import sqlalchemy as sa
import sqlmodel.sql.sqltypes
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_BUCKET = ("deck_id", "due", "locked", "suspended", "leech", "buried_on")
_NULLABLE = {"due", "buried_on"}


def _count_state(row: str, step: str) -> str:
    """Add ``step`` (+1/-1) to the duecount bucket of a cardstate row (OLD or NEW) if it counts."""
    bucket = " AND ".join(
        f"{column} {'IS' if column in _NULLABLE else '='} {row}.{column}" for column in _BUCKET
    )
    counts = f"{row}.deck_id IS NOT NULL AND NOT {row}.retired"
    columns = ", ".join(_BUCKET)
    values = ", ".join(f"{row}.{column}" for column in _BUCKET)
    return f"""
    INSERT INTO duecount ({columns}, cards)
        SELECT {values}, 0
        WHERE {counts} AND NOT EXISTS (SELECT 1 FROM duecount WHERE {bucket});
    UPDATE duecount SET cards = cards {step} WHERE {bucket} AND {counts};
    DELETE FROM duecount WHERE {bucket} AND cards <= 0;"""


_WATCHED = ("deck_id", "retired", *_BUCKET[1:])
_STATE_CHANGED = " OR ".join(f"OLD.{column} IS NOT NEW.{column}" for column in _WATCHED)

TRIGGERS = {
    "cardstate_insert": f"""
CREATE TRIGGER cardstate_insert AFTER INSERT ON cardstate
BEGIN{_count_state("NEW", "+ 1")}
    UPDATE cardstate SET (deck_id, position, retired, locked) =
        (SELECT deck_id, position, retired, answer IS NULL FROM card WHERE id = NEW.card)
        WHERE card = NEW.card AND (NEW.deck_id, NEW.position, NEW.retired, NEW.locked) IS NOT
            (SELECT deck_id, position, retired, answer IS NULL FROM card WHERE id = NEW.card);
END""",
    "cardstate_update": f"""
CREATE TRIGGER cardstate_update AFTER UPDATE OF {", ".join(_WATCHED)} ON cardstate
WHEN {_STATE_CHANGED}
BEGIN{_count_state("OLD", "- 1")}{_count_state("NEW", "+ 1")}
END""",
    "cardstate_delete": f"""
CREATE TRIGGER cardstate_delete AFTER DELETE ON cardstate
BEGIN{_count_state("OLD", "- 1")}
END""",
}

_QUEUE_INDEX = ["deck_id", "retired", "suspended", "due", "position", "card", "locked", "buried_on"]


def upgrade() -> None:
    practice = sa.Column("practice", sqlmodel.sql.sqltypes.AutoString(), nullable=True)
    op.add_column("review", practice)
    for table in ("cardstate", "duecount"):
        for flag in ("suspended", "leech"):
            op.add_column(
                table, sa.Column(flag, sa.Boolean(), nullable=False, server_default=sa.false())
            )
        op.add_column(table, sa.Column("buried_on", sa.Date(), nullable=True))
    op.drop_index("ix_cardstate_queue", table_name="cardstate")
    op.create_index("ix_cardstate_queue", "cardstate", _QUEUE_INDEX, unique=False)
    for name, ddl in TRIGGERS.items():
        op.execute(f"DROP TRIGGER IF EXISTS {name}")
        op.execute(ddl)


def _schema_0003() -> ModuleType:
    """Revision 0003, whose triggers a downgrade puts back."""
    [path] = Path(__file__).parent.glob("0003_*.py")
    spec = importlib.util.spec_from_file_location("schema_0003", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def downgrade() -> None:
    for name in TRIGGERS:
        op.execute(f"DROP TRIGGER IF EXISTS {name}")
    op.drop_index("ix_cardstate_queue", table_name="cardstate")
    op.create_index(
        "ix_cardstate_queue",
        "cardstate",
        ["deck_id", "retired", "due", "position", "card", "locked"],
        unique=False,
    )
    # Suspended and buried cards count as plain ones again: merge their buckets.
    op.execute(
        "CREATE TEMPORARY TABLE duecount_0003 AS SELECT deck_id, due, locked, sum(cards) AS cards"
        " FROM duecount GROUP BY deck_id, due, locked"
    )
    op.execute("DELETE FROM duecount")
    for table in ("cardstate", "duecount"):
        for column in ("buried_on", "leech", "suspended"):
            op.execute(f"ALTER TABLE {table} DROP COLUMN {column}")
    op.execute(
        "INSERT INTO duecount (deck_id, due, locked, cards)"
        " SELECT deck_id, due, locked, cards FROM duecount_0003"
    )
    op.execute("DROP TABLE duecount_0003")
    op.execute("ALTER TABLE review DROP COLUMN practice")
    old = _schema_0003().TRIGGERS
    for name in TRIGGERS:
        op.execute(old[name])
