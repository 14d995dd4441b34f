"""The Markdown progress report (`infracards export --format md`): what to study next.

Built from aggregates only (statistics and a grouped query for the weakest cards); it holds
prompts, never answers.
"""

from __future__ import annotations

from datetime import date
from typing import IO

from sqlmodel import Session

from infracards.services.formatting import ef_text, percent, plural
from infracards.store.queries import weakest_cards
from infracards.store.stats import compute_stats
from infracards.terminal_text import terminal_safe


def _row(*cells: object) -> str:
    return "| " + " | ".join(map(str, cells)) + " |\n"


def _cell(text: str) -> str:
    """Deck text as one table cell: on one line, with nothing that could drive a terminal."""
    return terminal_safe(text.replace("\n", " "), one_line=True).replace("|", "\\|")


def write_report(
    session: Session, out: IO[str], *, today: date, deck_id: str | None = None
) -> None:
    stats = compute_stats(session, today=today, deck_id=deck_id)
    totals = stats.totals
    scope = f"deck {terminal_safe(deck_id, one_line=True)}" if deck_id else "all decks"
    out.write(f"# infracards progress, {today.isoformat()} ({scope})\n\n")
    reviewed = sum(count for _, count in stats.heatmap)
    out.write(
        f"- Cards: {totals.cards}, reviewed at least once: {totals.reviewed_cards}\n"
        f"- Reviews in the last year: {reviewed}\n"
        f"- Streak: {plural(stats.current_streak, 'day')} now,"
        f" longest {plural(stats.longest_streak, 'day')}\n"
        f"- Average EF: {ef_text(totals.average_ef)}\n\n"
    )
    out.write("## Mastery per topic\n\n")
    out.write(
        _row("Topic", "Cards", "Reviewed", "Retention", "Avg EF") + _row("---", *["---:"] * 4)
    )
    for tag in stats.by_tag:
        out.write(
            _row(
                _cell(tag.tag),
                tag.cards,
                tag.reviewed_cards,
                percent(tag.reviews, tag.passed),
                ef_text(tag.average_ef),
            )
        )
    out.write("\n## Weakest cards\n\n")
    weak = weakest_cards(session, deck_id=deck_id)
    if not weak:
        out.write("No card has been reviewed yet.\n")
    else:
        out.write(
            _row("Card", "Prompt", "EF", "Lapses", "Due")
            + _row("---", "---", "---:", "---:", "---")
        )
        for card in weak:
            due = card.due.isoformat() if card.due else "—"
            out.write(
                _row(
                    _cell(card.card_id),
                    _cell(card.prompt),
                    f"{card.easiness:.2f}",
                    card.lapses,
                    due,
                )
            )
    out.write("\n## Upcoming reviews (next 30 days)\n\n")
    upcoming = [(day, count) for day, count in stats.forecast if count]
    if not upcoming:
        out.write("Nothing scheduled.\n")
    for day, count in upcoming:
        label = "today (incl. overdue)" if day == today else day.isoformat()
        out.write(f"- {label}: {count}\n")
