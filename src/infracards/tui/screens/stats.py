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
    MISSED_SHOWN,
    ef_text,
    forecast_title,
    heatmap_first_day,
    heatmap_levels,
    heatmap_title,
    leech_line,
    leeches_title,
    missed_point_line,
    missed_points_title,
    mock_scores_title,
    percent,
    plural,
    retention_title,
    score_text,
    short_date,
    streak_line,
    studied_weeks,
    topics_title,
    totals_line,
)
from infracards.services.statistics import PracticeStats, load_practice_stats, load_stats
from infracards.tui.context import AppContext
from infracards.tui.text import literal, notice
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
        self.practice: PracticeStats | None = None

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
            yield Static(id="stats-points-title", classes="stats-title")
            yield RatioBars(empty="No key-point check yet.", id="stats-points")
            yield Static(id="stats-points-list")
            yield Static(id="stats-mocks-title", classes="stats-title")
            yield RatioBars(empty="No mock interview yet.", id="stats-mocks")
            yield Static(id="stats-leeches-title", classes="stats-title")
            yield Static(id="stats-leeches")
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
        practice = load_practice_stats(
            self.context.engine, self.context.answers, deck_id=self.deck_id
        )
        self.app.call_from_thread(self._practice_loaded, practice)

    def _loaded(self, stats: Stats) -> None:
        self.stats = stats
        self.show(stats)

    def _practice_loaded(self, practice: PracticeStats) -> None:
        self.practice = practice
        self.call_later(self._show_practice, practice)  # through this screen's queue, as Home

    def _show_practice(self, practice: PracticeStats) -> None:
        self._title("points", missed_points_title(practice))
        self.query_one("#stats-points", RatioBars).show(
            BarRow(
                notice(topic.topic),
                topic.rate,
                f"{score_text(topic.rate):>4} missed of {topic.checks}",
            )
            for topic in practice.key_points.topics
        )
        self.query_one("#stats-points-list", Static).update(
            literal(
                "\n".join(
                    missed_point_line(point) for point in practice.key_points.points[:MISSED_SHOWN]
                )
            )
        )
        self._title("mocks", mock_scores_title(practice))
        self.query_one("#stats-mocks", RatioBars).show(
            BarRow(
                f"{mock.started_at.astimezone():%b %d %H:%M}",
                mock.score,
                f"{score_text(mock.score):>4} · {plural(len(mock.questions), 'question')}",
            )
            for mock in practice.mocks
        )
        self._title("leeches", leeches_title(practice))
        self.query_one("#stats-leeches", Static).update(
            literal("\n".join(leech_line(leech) for leech in practice.leeches) or "None.")
        )

    def show(self, stats: Stats) -> None:
        """Hand each section its plain values."""
        deck = notice(stats.deck_id) if stats.deck_id else "all decks"
        self.sub_title = f"{deck} · {stats.today.isoformat()}"  # fits 60 columns
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
                notice(tag.tag),
                tag.retention,
                f"{percent(tag.reviews, tag.passed):>4} of {tag.reviews:<5} "
                f"EF {ef_text(tag.average_ef)}",
            )
            for tag in stats.by_tag
        )

    def action_back(self) -> None:
        self.dismiss()
