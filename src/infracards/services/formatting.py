"""Text for people: one place that turns the store's numbers into words, for the CLI, the app
and the Markdown report alike (so "on 1 day" is written once)."""

from __future__ import annotations

import unicodedata
from datetime import date, timedelta
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

if TYPE_CHECKING:
    from infracards.services.review import SessionSummary


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
    if report.created:
        return (
            f"Loaded deck {report.deck_id} v{report.version}: {plural(len(report.added), 'card')}."
        )
    if not report.changed:
        return f"Deck {report.deck_id} v{report.version} is already up to date; nothing changed."
    parts = [f"title {report.new_title!r}"] if report.new_title is not None else []
    parts += [
        f"{label} {len(ids)} ({', '.join(ids[:8])}{', …' if len(ids) > 8 else ''})"
        for label, ids in (
            ("added", report.added),
            ("updated", report.updated),
            ("retired", report.retired),
            ("restored", report.restored),
        )
        if ids
    ]
    before = report.previous_version
    release = (
        f"v{report.version}"
        if before in (None, report.version)
        else f"v{before} → v{report.version}"
    )
    return (
        f"Updated deck {report.deck_id} {release}: "
        + ("; ".join(parts) or "release number only")
        + ". Progress kept."
    )


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
        f"Study statistics · {scope} · study day {stats.today.isoformat()}",
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
            f"  {clip(tag.tag, 20)} {tag.cards:>5} {tag.reviewed_cards:>5} {tag.reviews:>7}"
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
    lines = [
        f"Cards reviewed   {summary.cards}",
        f"Answers given    {summary.answers} ({summary.drills} same-day drills)",
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
        lines += [
            "",
            f"Left for later   {plural(summary.left, 'card')} (run the review again to continue)",
        ]
    return "\n".join(lines)
