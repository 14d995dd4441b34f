"""Drawing a key-point check (``services.keypoints.KeyPointCheck``) into a ``KeyPointList``:
shared by the review and the mock interview, which own the check and forward the keys."""

from __future__ import annotations

from infracards.services.formatting import NO_CHECKLIST, checklist_title, suggestion_line
from infracards.services.keypoints import POINT_KEYS, RECOGNISED_KEY, KeyPointCheck
from infracards.tui.widgets.checklist import KeyPointList


def show_check(
    points: KeyPointList, check: KeyPointCheck | None, *, locked: bool, heading: str
) -> None:
    """The checklist first, above the answer, under ``heading`` (the deck language's word for
    key points); a sealed card studied question-only says why it has none, and a card without
    key points shows nothing there."""
    if check is None:
        if locked:
            points.show_message(NO_CHECKLIST)
        else:
            points.display = False
        return
    points.show_points(
        check.key_points,
        keys=POINT_KEYS,
        checkable=check.points,
        title=checklist_title(heading, check.points, POINT_KEYS, RECOGNISED_KEY),
    )
    show_ticks(points, check)


def show_ticks(points: KeyPointList, check: KeyPointCheck) -> None:
    hint = suggestion_line(check.points, len(check.ticked), check.recognised, check.suggested)
    points.show_ticks(frozenset(check.ticked), hint)
