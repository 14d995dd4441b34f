"""Text for people: one place that turns the store's numbers into words, for the CLI, the app
and the Markdown report alike (so "on 1 day" is written once)."""

from __future__ import annotations

import unicodedata
from datetime import UTC, date, timedelta
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from infracards.records import Stats, SyncReport
from infracards.scheduler import GRADE_MEANINGS
from infracards.scheduler.sm2 import PASSING_GRADE
from infracards.store.stats import (
    DAILY_DAYS,
    FORECAST_DAYS,
    HEATMAP_DAYS,
    count_quartiles,
    shade_level,
)
from infracards.terminal_text import echo, quoted

if TYPE_CHECKING:
    from infracards.services.keypoints import MissedPoint
    from infracards.services.mock_history import MockReport, QuestionResult
    from infracards.services.plan import CardOutlook, Readiness
    from infracards.services.review import SessionSummary
    from infracards.services.statistics import PracticeStats
    from infracards.store.practice_reads import LeechCard


def plural(count: int, noun: str) -> str:
    """``1 day``, ``2 days`` (every count the statistics print goes through this)."""
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


KEY_POINTS_HEADINGS = {"zh": "要点", "ja": "要点"}
"""The key points' heading by deck language (its primary subtag); English for any other."""


def key_points_heading(language: str) -> str:
    """What the key points under an answer are called, in the deck's own language."""
    return KEY_POINTS_HEADINGS.get(language.split("-")[0].lower(), "Key points")


def percent(reviews: int, passed: int) -> str:
    """A pass rate as a whole percentage, or an en dash when nothing was graded."""
    return f"{round(100 * passed / reviews)}%" if reviews else "–"


def ef_text(easiness: Decimal | None) -> str:
    return f"{easiness:.2f}" if easiness is not None else "–"


def short_date(day: date) -> str:
    return f"{day:%b} {day.day}"


def cells(text: str) -> int:
    """Terminal columns ``text`` takes (CJK characters take two)."""
    return sum(2 if unicodedata.east_asian_width(char) in "WF" else 1 for char in text)


def clip(text: str, width: int) -> str:
    """Cut and pad to ``width`` terminal columns (CJK characters take two)."""
    out, used = "", 0
    for char in text:
        size = cells(char)
        if used + size > width:
            break
        out, used = out + char, used + size
    return out + " " * (width - used)


def ellipsize(text: str, width: int) -> str:
    """``text`` in at most ``width`` columns: whole if it fits, else cut right before a "…"
    (no gap where a CJK character did not fit, as Rich leaves: "是什 …")."""
    if cells(text) <= width:
        return text
    return clip(text, max(0, width - 1)).rstrip() + "…"


def sync_text(report: SyncReport) -> str:
    """Tell the user what a deck load changed."""
    deck = echo(report.deck_id)
    if report.created:
        return f"Loaded deck {deck} v{report.version}: {plural(len(report.added), 'card')}."
    if not report.changed:
        return f"Deck {deck} v{report.version} is already up to date; nothing changed."
    parts = [f"title {quoted(report.new_title)}"] if report.new_title is not None else []
    parts += [
        f"{label} {len(ids)} ({', '.join(map(echo, ids[:8]))}{', …' if len(ids) > 8 else ''})"
        for label, ids in (
            ("added", report.added),
            ("updated", report.updated),
            ("retired", report.retired),
            ("restored", report.restored),
        )
        if ids
    ]
    before = report.previous_version
    same_release = before in (None, report.version)
    release = f"v{report.version}" if same_release else f"v{before} → v{report.version}"
    # A new release always comes with its own key slots; the same release with new ones
    # means card keys issued since open it now.
    slots = " New key slots: card keys issued for this release open it." * (
        report.keyslots_changed and same_release
    )
    if not parts and slots:
        return f"Updated deck {deck} {release}.{slots} Progress kept."
    changes = "; ".join(parts) or "release number only"
    return f"Updated deck {deck} {release}: {changes}.{slots} Progress kept."


def progress_counts(*, done: int, remaining: int, drills: int) -> str:
    """A review's counts; the drills are among the cards to go, not on top of them."""
    among = f", {drills} of them {'a drill' if drills == 1 else 'drills'}" if drills else ""
    return f"{done} answered · {remaining} to go{among}"


# --- statistics: the headings the app and `infracards stats` share ------------------------------


def totals_line(stats: Stats) -> str:
    totals = stats.totals
    return (
        f"{plural(totals.cards, 'card')} ({totals.reviewed_cards} reviewed) · "
        f"{plural(totals.reviews, 'review')} · average EF {ef_text(totals.average_ef)}"
    )


def streak_line(stats: Stats) -> str:
    return (
        f"Streak {plural(stats.current_streak, 'day')} · "
        f"longest {plural(stats.longest_streak, 'day')}"
    )


def heatmap_title(stats: Stats) -> str:
    year = sum(count for _, count in stats.heatmap)
    return (
        f"Reviews per day: {year} in the last {HEATMAP_DAYS} days, "
        f"on {plural(len(stats.heatmap), 'day')}"
    )


def forecast_title(stats: Stats) -> str:
    due = [count for _, count in stats.forecast]
    return f"Due in the next {FORECAST_DAYS} days: {sum(due)} ({due[0]} today, overdue included)"


def retention_title(stats: Stats) -> str:
    reviews = sum(n for _, n, _ in stats.retention_daily)
    passed = sum(p for _, _, p in stats.retention_daily)
    return (
        f"Retention by week, grade ≥ {PASSING_GRADE} without drills "
        f"(last {DAILY_DAYS} days: {percent(reviews, passed)} of {reviews})"
    )


def topics_title(stats: Stats) -> str:
    return (
        f"Topics: retention since {short_date(stats.tags_since)} and average EF of the cards seen"
    )


def studied_weeks(stats: Stats) -> tuple[tuple[date, int, int], ...]:
    """The weekly retention from the learner's first week on: the weeks before their first
    review are not weeks without reviews (empty for a learner with none yet)."""
    first = stats.first_day
    if first is None:
        return ()
    return tuple(week for week in stats.retention_weekly if week[0] + timedelta(days=6) >= first)


def heatmap_first_day(stats: Stats) -> date:
    """The oldest day the review calendar shows."""
    return stats.today - timedelta(days=HEATMAP_DAYS - 1)


def heatmap_levels(stats: Stats) -> dict[date, int]:
    """Each studied day's shade, 1–4 by quartile of the days studied."""
    quartiles = count_quartiles(count for _, count in stats.heatmap)
    return {day: shade_level(count, quartiles) for day, count in stats.heatmap}


def _rate(reviews: int, passed: int) -> float | None:
    return round(passed / reviews, 4) if reviews else None


def _ef(value: Decimal | None) -> float | None:
    return float(value) if value is not None else None


def stats_document(stats: Stats) -> dict[str, Any]:
    """The statistics as JSON-ready data: ISO dates, rates as floats rounded to 4 places."""
    totals = stats.totals
    return {
        "today": stats.today.isoformat(),
        "deck": stats.deck_id,
        "totals": {
            "cards": totals.cards,
            "reviewed_cards": totals.reviewed_cards,
            "reviews": totals.reviews,
            "average_ef": _ef(totals.average_ef),
        },
        "streak": {"current": stats.current_streak, "longest": stats.longest_streak},
        "heatmap": [{"day": day.isoformat(), "reviews": n} for day, n in stats.heatmap],
        "forecast": [{"day": day.isoformat(), "due": n} for day, n in stats.forecast],
        "retention": {
            "passing_grade": PASSING_GRADE,
            "daily": [
                {"day": day.isoformat(), "reviews": n, "passed": p, "rate": _rate(n, p)}
                for day, n, p in stats.retention_daily
            ],
            "weekly": [
                {"week": monday.isoformat(), "reviews": n, "passed": p, "rate": _rate(n, p)}
                for monday, n, p in stats.retention_weekly
            ],
        },
        "tags": {
            "reviews_since": stats.tags_since.isoformat(),
            "topics": [
                {
                    "tag": tag.tag,
                    "cards": tag.cards,
                    "reviewed_cards": tag.reviewed_cards,
                    "reviews": tag.reviews,
                    "passed": tag.passed,
                    "rate": _rate(tag.reviews, tag.passed),
                    "average_ef": _ef(tag.average_ef),
                }
                for tag in stats.by_tag
            ],
        },
    }


_SHADES = "·░▒▓█"
_WEEKDAYS = ("Mon", "", "Wed", "", "Fri", "", "Sun")
_BAR = 20


def _aligned_percent(reviews: int, passed: int) -> str:
    return f"{percent(reviews, passed):>4}"


def _bar(share: float, width: int = _BAR) -> str:
    filled = round(share * width)
    return "█" * filled + "░" * (width - filled)


def stats_report(stats: Stats) -> str:
    """The statistics as plain text for a terminal, at most 80 columns wide."""
    totals = stats.totals
    scope = f"deck {stats.deck_id}" if stats.deck_id else "all decks"
    year = sum(n for _, n in stats.heatmap)
    lines = [
        f"Study statistics · {echo(scope)} · study day {stats.today.isoformat()}",
        "",
        f"Cards      {totals.cards} active, {totals.reviewed_cards} reviewed,"
        f" average EF {ef_text(totals.average_ef)}",
        f"Reviews    {totals.reviews} in all, {year} in the last {HEATMAP_DAYS} days"
        f" on {plural(len(stats.heatmap), 'day')}",
        f"Streak     {plural(stats.current_streak, 'day')} (longest {stats.longest_streak})",
        "",
        f"Reviews per day, last {HEATMAP_DAYS} days ({_SHADES[1:]} by quartile)",
        *_calendar(stats),
        "",
    ]
    counts = [n for _, n in stats.forecast]
    lines += [
        f"Due in the next {FORECAST_DAYS} days: {sum(counts)}"
        f" (today {counts[0]}, max {max(counts)})",
        *_forecast_chart(stats),
        "",
    ]
    month = [(n, p) for _, n, p in stats.retention_daily]
    reviews, passed = sum(n for n, _ in month), sum(p for _, p in month)
    weeks = studied_weeks(stats)
    lines += [
        f"Retention by week, grade ≥ {PASSING_GRADE} without drills"
        f" (last {DAILY_DAYS} days: {_aligned_percent(reviews, passed).strip()} of {reviews})",
        *(
            f"  {monday:%Y-%m-%d}  {_bar(p / n)} {_aligned_percent(n, p)} of {n}"
            if n
            else f"  {monday:%Y-%m-%d}  {'':{_BAR}}   no reviews"
            for monday, n, p in weeks
        ),
        *([] if weeks else ["  No reviews yet."]),
        "",
        f"Topics (reviews since {stats.tags_since.isoformat()}; EF: average of the cards seen)",
        f"  {'tag':<20} {'cards':>5} {'seen':>5} {'reviews':>7} {'kept':>5} {'EF':>5}",
    ]
    for tag in stats.by_tag:
        lines.append(
            f"  {clip(echo(tag.tag), 20)} {tag.cards:>5} {tag.reviewed_cards:>5} {tag.reviews:>7}"
            f" {_aligned_percent(tag.reviews, tag.passed):>5} {ef_text(tag.average_ef):>5}"
        )
    return "\n".join(lines)


_CHART_ROWS = 4
_EIGHTHS = " ▁▂▃▄▅▆▇█"


def _forecast_chart(stats: Stats) -> list[str]:
    """One column per day, ``_CHART_ROWS`` rows of eighths tall, on a scale from 0 to the
    busiest day, with the first, middle and last day written under it."""
    counts = [n for _, n in stats.forecast]
    peak = max(counts)
    digits = len(str(peak))
    eighths = [max(1, round(n * _CHART_ROWS * 8 / peak)) if n > 0 else 0 for n in counts]
    rows = []
    for row in range(_CHART_ROWS, 0, -1):
        tick = f"{peak:>{digits}} ┤" if row == _CHART_ROWS else " " * digits + " │"
        cells = "".join(_EIGHTHS[min(8, max(0, h - (row - 1) * 8))] for h in eighths)
        rows.append(f"  {tick}{cells}".rstrip())
    rows.append(f"  {0:>{digits}} └" + "─" * len(counts))
    margin = " " * (digits + 4)
    middle = len(counts) // 2 - 1
    labels = f"{stats.forecast[0][0]:%m-%d}".ljust(middle) + f"{stats.forecast[middle][0]:%m-%d}"
    last = f"{stats.forecast[-1][0]:%m-%d}"
    return [*rows, margin + labels.ljust(len(counts) - len(last)) + last]


def _calendar(stats: Stats) -> list[str]:
    """Month labels, then seven rows (Mon–Sun) by 53 weeks, the current week last."""
    counts = dict(stats.heatmap)
    quartiles = count_quartiles(counts.values())
    weeks = HEATMAP_DAYS // 7 + 1
    first = stats.today - timedelta(days=stats.today.weekday() + 7 * (weeks - 1))
    oldest = stats.today - timedelta(days=HEATMAP_DAYS - 1)
    mondays = [first + timedelta(weeks=week) for week in range(weeks)]
    months = ""
    for week, monday in enumerate(mondays):
        if week == 0 or monday.month != mondays[week - 1].month:
            months = months.ljust(week) + (f"{monday:%b}" if len(months) <= week else "")
    rows = [f"      {months}".rstrip()]
    for weekday, label in enumerate(_WEEKDAYS):
        cells = []
        for monday in mondays:
            day = monday + timedelta(days=weekday)
            inside = oldest <= day <= stats.today
            cells.append(_SHADES[shade_level(counts.get(day, 0), quartiles)] if inside else " ")
        rows.append(f"  {label:<4}{''.join(cells)}".rstrip())
    return rows


def summary_text(summary: SessionSummary) -> str:
    """The end-of-session summary: counts, grades, the next due cards, what is left."""
    minutes, seconds = divmod(round(summary.seconds), 60)
    answers = (
        f"{summary.answers} (practice: {OUTSIDE_SCHEDULE})"
        if summary.practice
        else f"{summary.answers} ({summary.drills} same-day drills)"
    )
    lines = [
        f"Cards reviewed   {summary.cards}",
        f"Answers given    {answers}",
        f"Time             {minutes} min {seconds:02d} s",
        "",
        "Grades",
    ]
    for quality in range(5, -1, -1):
        count = summary.grades.get(quality, 0)
        lines.append(f"  {quality} {GRADE_MEANINGS[quality]:<36} {'█' * count} {count}")
    if summary.next_due:
        first = min(summary.next_due.values())
        soonest = sorted(card for card, due in summary.next_due.items() if due == first)
        lines += ["", f"Next due         {first.isoformat()}: {', '.join(soonest)}"]
    if summary.left:
        again = (
            "p on the home screen for more practice"
            if summary.practice
            else ("run the review again to continue")
        )
        lines += ["", f"Left for later   {plural(summary.left, 'card')} ({again})"]
    if summary.practice:
        lines += ["", f"Practice         {summary.practice}"]
    if summary.leeches:
        lines += [
            "",
            f"Leeches          {', '.join(summary.leeches)} (suspended: rewrite, then"
            " unsuspend in Browse)",
        ]
    for card_id, how in summary.hidden:
        lines.append(f"{how.capitalize():<17}{card_id}")
    if summary.can_undo:
        lines += ["", "A wrong last grade? u takes it back and shows that card again."]
    return "\n".join(lines)


# --- key-point self-check -----------------------------------------------------------------------

NO_CHECKLIST = (
    "No key-point checklist: this card's answer is sealed, so it is studied question-only."
    " Grade yourself from memory."
)


def key_range(keys: str, count: int) -> str:
    """``a–e``: the keys that tick ``count`` points (``a`` for one)."""
    shown = keys[: min(count, len(keys))]
    return shown if len(shown) < 2 else f"{shown[0]}–{shown[-1]}"


def checklist_title(heading: str, points: int, keys: str, recognised_key: str) -> str:
    """The checklist's first line: the key points' ``heading`` and how to tick them."""
    return (
        f"{heading} · tick what you said: {key_range(keys, points)} or click"
        f" · {recognised_key} none, but recognised"
    )


def suggestion_line(points: int, said: int, recognised: bool, grade: int) -> str:
    """Under the checklist: the coverage and the grade it suggests."""
    coverage = f"{said} of {points} said" + (", recognised" if recognised and not said else "")
    return f"{coverage} → suggested grade {grade} ({GRADE_MEANINGS[grade]}) · enter confirms"


# --- study controls -----------------------------------------------------------------------------

NOTHING_TO_REVIEW = (
    "Nothing to review in this deck today. Press p on the home screen for extra study"
    " (study ahead, more new cards, cram)."
)
OUTSIDE_SCHEDULE = "outside the schedule: logged, intervals unchanged"


def practice_caption(title: str | None) -> str:
    """The card's caption in extra practice (empty in a normal review)."""
    return f"{title} · {OUTSIDE_SCHEDULE}" if title else ""


def leech_notice(card_id: str) -> str:
    return (
        f"{card_id} is a leech: it lapsed too often, so it is suspended. Rewrite or split it,"
        f" then unsuspend it in Browse (@) or with `infracards unsuspend {card_id}`."
    )


# --- mock interviews ----------------------------------------------------------------------------


def clock_text(seconds: float) -> str:
    """A countdown as m:ss (rounded up, so 0:00 means the time is really up)."""
    whole = max(0, -int(-seconds // 1))
    return f"{whole // 60}:{whole % 60:02d}"


def score_text(score: float | None) -> str:
    return "–" if score is None else f"{round(100 * score)}%"


def question_line(number: int, result: QuestionResult, seconds_per_question: int) -> str:
    """One question of a mock report: card, points covered, time used."""
    points = (
        f"{result.recalled.covered}/{result.recalled.points} points"
        if result.recalled is not None
        else "question only"
    )
    used = f"{clock_text(result.seconds_used)} of {clock_text(seconds_per_question)}"
    timed_out = ", time up" if result.timed_out else ""
    counted = " · counted as a review" if result.counted else ""
    return (
        f"{number:>2}. {result.card_id:<6} {clip(result.topic, 16)} {points:<13}"
        f" {used}{timed_out}{counted}"
    )


def mock_report_text(report: MockReport) -> str:
    """The end-of-interview report (the app's report screen and `mock --report`)."""
    lines = [
        f"Mock interview · {report.deck_id} · {report.study_day.isoformat()}"
        + (f" · topic {report.topic}" if report.topic else ""),
        f"Score {score_text(report.score)} ({report.covered} of {report.points} key points)"
        f" · {plural(len(report.questions), 'question')} in {clock_text(report.seconds_used)}",
        "",
        *(
            question_line(n, q, report.seconds_per_question)
            for n, q in enumerate(report.questions, start=1)
        ),
    ]
    if report.weakest_topics:
        weakest = ", ".join(f"{t} {score_text(share)}" for t, share in report.weakest_topics[:3])
        lines += ["", f"Weakest topics   {weakest}"]
    if report.missed:
        lines += ["", f"Missed points    {', '.join(report.missed)}"]
    return "\n".join(lines)


def mock_history_text(reports: list[MockReport]) -> str:
    """Past mock interviews, one line each, oldest first."""
    if not reports:
        return "No mock interview yet: run `infracards mock` (or press m on the home screen)."
    lines = [f"{'when':<16} {'deck':<10} {'questions':>9} {'points':>9} {'score':>6}  missed"]
    for report in reports:
        lines.append(
            f"{report.started_at.astimezone():%Y-%m-%d %H:%M} {clip(report.deck_id, 10)}"
            f" {len(report.questions):>9} {f'{report.covered}/{report.points}':>9}"
            f" {score_text(report.score):>6}  {', '.join(report.missed) or '–'}"
        )
    return "\n".join(lines)


def mock_document(reports: list[MockReport]) -> list[dict[str, Any]]:
    """`mock --report --json`: each past session with its questions (a stable contract)."""
    return [
        {
            "id": report.mock_id,
            "deck": report.deck_id,
            "started_at": report.started_at.astimezone(UTC).isoformat().replace("+00:00", "Z"),
            "study_day": report.study_day.isoformat(),
            "topic": report.topic,
            "seconds_per_question": report.seconds_per_question,
            "questions": len(report.questions),
            "points": report.points,
            "points_covered": report.covered,
            "score": round(report.score, 4) if report.score is not None else None,
            "seconds_used": report.seconds_used,
            "weakest_topics": [t for t, _ in report.weakest_topics],
            "missed": list(report.missed),
            "asked": [
                {
                    "card_id": q.card_id,
                    "topic": q.topic,
                    "points": q.recalled.points if q.recalled else None,
                    "points_covered": q.recalled.covered if q.recalled else None,
                    "recalled": sorted(q.recalled.recalled) if q.recalled else None,
                    "seconds_used": q.seconds_used,
                    "timed_out": q.timed_out,
                    "counted_as_review": q.counted,
                    "notes": q.notes,
                }
                for q in report.questions
            ],
        }
        for report in reports
    ]


# --- interview practice in the statistics -------------------------------------------------------

MISSED_SHOWN = 8


def missed_points_title(stats: PracticeStats) -> str:
    points = stats.key_points
    older = (
        f" ({plural(points.older_checks, 'check')} of earlier key points not counted)"
        if points.older_checks
        else ""
    )
    return (
        f"Key points missed most, by topic ({plural(points.cards_checked, 'card')} checked){older}"
    )


def missed_point_line(point: MissedPoint, width: int = 40) -> str:
    """``q05 point 3/5 missed 4 of 6: <the point>`` (its text where it may be shown)."""
    text = f": {clip(point.text, width).rstrip()}" if point.text is not None else ""
    return (
        f"{point.card_id} point {point.index + 1}/{point.points}"
        f" missed {point.misses} of {point.checks}{text}"
    )


def mock_scores_title(stats: PracticeStats) -> str:
    scored = [m.score for m in stats.mocks if m.score is not None]
    mean = sum(scored) / len(scored) if scored else None
    return (
        f"Mock interviews: score over time ({plural(len(stats.mocks), 'session')},"
        f" average {score_text(mean)})"
    )


def leeches_title(stats: PracticeStats) -> str:
    return f"Leeches: cards that lapsed too often ({len(stats.leeches)})"


def leech_line(leech: LeechCard, width: int = 50) -> str:
    state = "suspended" if leech.suspended else "unsuspended"
    prompt = clip(leech.prompt, width).rstrip()
    return f"{leech.card_id} {plural(leech.lapses, 'lapse')}, {state}: {prompt}"


def practice_report(stats: PracticeStats) -> str:
    """The practice statistics as plain text (after `infracards stats`' own)."""
    points = stats.key_points
    lines = [missed_points_title(stats)]
    if not points.topics:
        lines.append("  No key-point check yet: tick the 要点 you said after revealing an answer.")
    for topic in points.topics:
        lines.append(
            f"  {clip(topic.topic, 20)} {_bar(topic.rate)} {score_text(topic.rate):>4} missed"
        )
    lines += [f"  {missed_point_line(point)}" for point in points.points[:MISSED_SHOWN]]
    lines += ["", mock_scores_title(stats)]
    if not stats.mocks:
        lines.append("  No mock interview yet: `infracards mock`.")
    for mock in stats.mocks:
        share = mock.score or 0.0
        lines.append(
            f"  {mock.started_at.astimezone():%Y-%m-%d %H:%M}  {_bar(share)}"
            f" {score_text(mock.score):>4} of {plural(len(mock.questions), 'question')}"
        )
    lines += ["", leeches_title(stats)]
    lines += [f"  {leech_line(leech)}" for leech in stats.leeches] or ["  None."]
    return "\n".join(lines)


def practice_document(stats: PracticeStats) -> dict[str, Any]:
    """The practice statistics as JSON-ready data (indexes; text only where it is free)."""
    return {
        "key_points": {
            "cards_checked": stats.key_points.cards_checked,
            "older_checks": stats.key_points.older_checks,
            "topics": [
                {"topic": t.topic, "checks": t.checks, "misses": t.misses, "rate": round(t.rate, 4)}
                for t in stats.key_points.topics
            ],
            "most_missed": [
                {
                    "deck": p.deck_id,
                    "card_id": p.card_id,
                    "index": p.index,
                    "points": p.points,
                    "checks": p.checks,
                    "misses": p.misses,
                }
                for p in stats.key_points.points
            ],
        },
        "mock_scores": [
            {
                "started_at": m.started_at.astimezone(UTC).isoformat().replace("+00:00", "Z"),
                "questions": len(m.questions),
                "score": round(m.score, 4) if m.score is not None else None,
            }
            for m in stats.mocks
        ],
        "leeches": [
            {
                "deck": lc.deck_id,
                "card_id": lc.card_id,
                "lapses": lc.lapses,
                "suspended": lc.suspended,
            }
            for lc in stats.leeches
        ],
    }


# --- interview date, readiness, the plan ---------------------------------------------------------


def countdown_text(outlook: Readiness) -> str:
    days = outlook.days_left
    when = outlook.interview.isoformat()
    if days < 0:
        return f"Interview on {when} has passed (infracards config interview-date none)"
    if days == 0:
        return f"Interview today ({when})"
    return f"Interview in {plural(days, 'day')} ({when})"


def plan_text(outlook: Readiness) -> str:
    plan = outlook.plan
    per_day = plan.new_per_day
    if per_day == 0:
        return "every card is started"
    if per_day is None:
        return (
            f"too late to review the {plan.new_cards} new cards {plan.reviews_each}× each:"
            " study them now, then the final pass"
        )
    return f"{per_day} new/day (all {plan.new_cards} new cards {plan.reviews_each}× by then)"


def readiness_line(outlook: Readiness) -> str:
    """`status` and Home: the countdown, readiness and the plan on one line."""
    plan = "plan " if outlook.plan.new_per_day else ""
    return (
        f"{countdown_text(outlook)} · ready {score_text(outlook.overall)} · {plan}"
        f"{plan_text(outlook)}"
    )


def drag_reason(outlook: CardOutlook) -> str:
    """Why a card scores low on the interview day."""
    if outlook.new:
        return "never studied"
    parts = [f"{score_text(outlook.recall)} recall"]
    if outlook.overdue_days:
        parts.append(f"{plural(outlook.overdue_days, 'day')} overdue")
    if outlook.coverage is not None and outlook.coverage < 1:
        parts.append(f"{score_text(outlook.coverage)} of its key points said")
    return ", ".join(parts)


def readiness_report(outlook: Readiness) -> str:
    """`infracards plan`: readiness per topic, the cards dragging it down, and the plan."""
    lines = [
        f"{outlook.deck_id}: {countdown_text(outlook)}",
        f"Readiness {score_text(outlook.overall)} (recall on the day × key points said;"
        f" your recall after one interval: {score_text(outlook.retention)})",
        "",
        "By topic (least ready first)",
        *(
            f"  {clip(topic, 20)} {_bar(value)} {score_text(value):>4} of {plural(n, 'card')}"
            for topic, value, n in outlook.topics
        ),
        "",
        "Dragging it down",
        *(f"  {card_id:<6} {drag_reason(o)}" for card_id, o in outlook.dragging),
        "",
        f"Plan: {plan_text(outlook)}"
        f" (start the last ones by {outlook.plan.last_start.isoformat()})",
    ]
    if outlook.final_pass_open:
        lines.append("Final pass open: extra practice over every card not reviewed lately.")
    return "\n".join(lines)


NO_INTERVIEW_DATE = (
    "No interview date yet: press i to set one, and Home shows the countdown, your readiness"
    " per topic and a plan for the days left."
)
WORKING_OUT_READINESS = "Working out your readiness for the interview date…"
TOPICS_SHOWN = 4


def home_plan_text(outlook: Readiness, *, new_per_day: int) -> str:
    """Home, under the decks: the selected deck's countdown, readiness and plan (and whether
    ``a`` would change today's ``new_per_day``)."""
    per_day = outlook.plan.new_per_day
    accept = " · a accepts" if per_day and per_day != new_per_day else ""
    lines = [readiness_line(outlook) + accept]
    if outlook.topics:
        least = " · ".join(
            f"{topic} {score_text(value)}" for topic, value, _ in outlook.topics[:TOPICS_SHOWN]
        )
        lines.append(f"Least ready: {least}")
    if outlook.dragging:
        lines.append(
            "Dragging it down: "
            + " · ".join(f"{card_id} {drag_reason(o)}" for card_id, o in outlook.dragging[:3])
        )
    if outlook.final_pass_open:
        lines.append("Final pass open: p → extra practice over the cards not reviewed lately.")
    return "\n".join(lines)
