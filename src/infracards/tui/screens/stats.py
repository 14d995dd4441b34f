"""Statistics: the review calendar, streaks, the due forecast, retention by week and by topic."""

from __future__ import annotations

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Header, Static

from infracards.records import Stats
from infracards.services.formatting import (
    ef_text,
    forecast_title,
    heatmap_first_day,
    heatmap_levels,
    heatmap_title,
    percent,
    retention_title,
    short_date,
    streak_line,
    studied_weeks,
    topics_title,
    totals_line,
)
from infracards.services.statistics import load_stats
from infracards.tui.context import AppContext
from infracards.tui.widgets.charts import BarChart, BarRow, Heatmap, RatioBars
from infracards.tui.widgets.footer import KeysFooter


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
            yield RatioBars(empty="No reviews yet.", id="stats-weekly")
            yield Static(id="stats-tags-title", classes="stats-title")
            yield RatioBars(empty="No tagged cards.", id="stats-tags")
        yield KeysFooter()

    def on_mount(self) -> None:
        self.query_one("#stats-summary", Static).update("Counting your reviews…")
        self.query_one("#stats-scroll").focus()
        self.load_stats()

    @work(thread=True, exclusive=True)
    def load_stats(self) -> None:
        """At 1M reviews the aggregates take ~175 ms: the screen opens at once and fills in."""
        stats = load_stats(self.context.engine, now=self.context.clock(), deck_id=self.deck_id)
        self.app.call_from_thread(self._loaded, stats)

    def _loaded(self, stats: Stats) -> None:
        self.stats = stats
        self.show(stats)

    def show(self, stats: Stats) -> None:
        """Hand each section its plain values."""
        self.sub_title = f"{stats.deck_id or 'all decks'} · {stats.today.isoformat()}"  # fits 60
        self._show_summary(stats)
        self._show_heatmap(stats)
        self._show_forecast(stats)
        self._show_retention(stats)
        self._show_topics(stats)

    def _title(self, section: str, text: str) -> None:
        self.query_one(f"#stats-{section}-title", Static).update(text)

    def _show_summary(self, stats: Stats) -> None:
        self.query_one("#stats-summary", Static).update(
            f"{totals_line(stats)}\n{streak_line(stats)} · study day {stats.today.isoformat()}"
        )

    def _show_heatmap(self, stats: Stats) -> None:
        self._title("heatmap", heatmap_title(stats))
        self.query_one(Heatmap).show(
            heatmap_levels(stats),
            first=heatmap_first_day(stats),
            last=stats.today,
        )

    def _show_forecast(self, stats: Stats) -> None:
        self._title("forecast", forecast_title(stats))
        self.query_one(BarChart).show([(short_date(day), n) for day, n in stats.forecast])

    def _show_retention(self, stats: Stats) -> None:
        self._title("weekly", retention_title(stats))
        self.query_one("#stats-weekly", RatioBars).show(
            BarRow(f"{monday:%b} {monday.day:>2}", p / n, f"{percent(n, p):>4} of {n}")
            if n
            else BarRow(f"{monday:%b} {monday.day:>2}", None, "no reviews")
            for monday, n, p in studied_weeks(stats)
        )

    def _show_topics(self, stats: Stats) -> None:
        self._title("tags", topics_title(stats))
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
