"""Statistics: the review calendar, streaks, the due forecast, retention by week and by topic."""

from __future__ import annotations

from datetime import date, timedelta
from decimal import Decimal

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Header, Static

from infracards.scheduler.sm2 import PASSING_GRADE
from infracards.store.db import transaction
from infracards.store.stats import (
    DAILY_DAYS,
    FORECAST_DAYS,
    HEATMAP_DAYS,
    Stats,
    compute_stats,
    count_quartiles,
    plural,
    shade_level,
)
from infracards.tui.context import AppContext
from infracards.tui.widgets.charts import BarChart, BarRow, Heatmap, RatioBars


def percent(reviews: int, passed: int) -> str:
    return f"{round(100 * passed / reviews)}%" if reviews else "–"


def short_date(day: date) -> str:
    return f"{day:%b} {day.day}"


def ef_text(easiness: Decimal | None) -> str:
    return f"{easiness:.2f}" if easiness is not None else "–"


class StatsScreen(Screen[None]):
    """Read-only statistics for one deck or all decks, computed once when the screen opens."""

    BINDINGS = [Binding("escape,q", "back", "Back", id="back")]

    def __init__(self, context: AppContext, *, deck_id: str | None = None) -> None:
        super().__init__()
        self.context = context
        self.deck_id = deck_id
        self.stats: Stats | None = None

    def compose(self) -> ComposeResult:
        yield Header()
        with VerticalScroll(id="stats-scroll"):
            yield Static(id="stats-summary")
            yield Static(id="stats-heatmap-title", classes="stats-title")
            yield Heatmap(id="stats-heatmap")
            yield Static(id="stats-forecast-title", classes="stats-title")
            yield BarChart(id="stats-forecast")
            yield Static(id="stats-weekly-title", classes="stats-title")
            yield RatioBars(empty="No reviews in these weeks.", id="stats-weekly")
            yield Static(id="stats-tags-title", classes="stats-title")
            yield RatioBars(empty="No tagged cards.", id="stats-tags")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#stats-summary", Static).update("Counting your reviews…")
        self.query_one("#stats-scroll").focus()
        self.load_stats()

    @work(thread=True, exclusive=True)
    def load_stats(self) -> None:
        """At 1M reviews the aggregates take ~175 ms: the screen opens at once and fills in."""
        today = self.context.today()
        with transaction(self.context.engine) as session:
            stats = compute_stats(session, today=today, deck_id=self.deck_id)
        self.app.call_from_thread(self._loaded, stats)

    def _loaded(self, stats: Stats) -> None:
        self.stats = stats
        self.show(stats)

    def show(self, stats: Stats) -> None:
        """Hand each section its plain values."""
        self.sub_title = f"{stats.deck_id or 'all decks'} · study day {stats.today.isoformat()}"
        self._show_summary(stats)
        self._show_heatmap(stats)
        self._show_forecast(stats)
        self._show_retention(stats)
        self._show_topics(stats)

    def _title(self, section: str, text: str) -> None:
        self.query_one(f"#stats-{section}-title", Static).update(text)

    def _show_summary(self, stats: Stats) -> None:
        totals = stats.totals
        self.query_one("#stats-summary", Static).update(
            f"{plural(totals.cards, 'card')} ({totals.reviewed_cards} reviewed) · "
            f"{plural(totals.reviews, 'review')} · average EF {ef_text(totals.average_ef)}\n"
            f"Streak {plural(stats.current_streak, 'day')} · "
            f"longest {plural(stats.longest_streak, 'day')}"
        )

    def _show_heatmap(self, stats: Stats) -> None:
        year = sum(count for _, count in stats.heatmap)
        self._title(
            "heatmap",
            f"Reviews per day: {year} in the last {HEATMAP_DAYS} days, "
            f"on {plural(len(stats.heatmap), 'day')}",
        )
        quartiles = count_quartiles(count for _, count in stats.heatmap)
        self.query_one(Heatmap).show(
            {day: shade_level(count, quartiles) for day, count in stats.heatmap},
            first=stats.today - timedelta(days=HEATMAP_DAYS - 1),
            last=stats.today,
        )

    def _show_forecast(self, stats: Stats) -> None:
        due = [count for _, count in stats.forecast]
        self._title(
            "forecast",
            f"Due in the next {FORECAST_DAYS} days: {sum(due)} ({due[0]} today, overdue included)",
        )
        self.query_one(BarChart).show([(short_date(day), n) for day, n in stats.forecast])

    def _show_retention(self, stats: Stats) -> None:
        reviews = sum(n for _, n, _ in stats.retention_daily)
        passed = sum(p for _, _, p in stats.retention_daily)
        self._title(
            "weekly",
            f"Retention by week, grade ≥ {PASSING_GRADE} without drills "
            f"(last {DAILY_DAYS} days: {percent(reviews, passed)} of {reviews})",
        )
        self.query_one("#stats-weekly", RatioBars).show(
            BarRow(f"{monday:%b} {monday.day:>2}", p / n, f"{percent(n, p):>4} of {n}")
            if n
            else BarRow(f"{monday:%b} {monday.day:>2}", None, "no reviews")
            for monday, n, p in stats.retention_weekly
        )

    def _show_topics(self, stats: Stats) -> None:
        self._title(
            "tags", f"Topics: retention since {short_date(stats.tags_since)} and average EF"
        )
        self.query_one("#stats-tags", RatioBars).show(
            BarRow(
                tag.tag,
                tag.retention,
                f"{percent(tag.reviews, tag.passed):>4} of {tag.reviews:<5} "
                f"EF {ef_text(tag.average_ef)}",
            )
            for tag in stats.by_tag
        )

    def action_back(self) -> None:
        self.dismiss()
