"""A card: id, topic and prompt, then its key points (a checklist in a review), then the answer
or a notice.

Answers are long (10–20 KB of Markdown with tables and code), and laying them out takes
30–60 ms, so the screen renders the answer ahead of time (``render_answer``, in a worker
thread) while the learner is still thinking; revealing it then only swaps in finished lines.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, RenderResult
from rich.style import Style
from rich.table import Table
from rich.text import Text
from textual import events, work
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.geometry import Size
from textual.selection import Selection
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import Static

from infracards.records import Answer
from infracards.terminal_text import terminal_safe
from infracards.tui.text import literal
from infracards.tui.widgets.checklist import KeyPointList

if TYPE_CHECKING:
    from rich.markdown import Markdown

CODE_THEME = "monokai"


@dataclass(frozen=True, slots=True)
class RenderedLines:
    """An answer laid out for one width, as strips ready to draw (and what to lay out again
    when the width changes)."""

    strips: tuple[Strip, ...]
    width: int
    answer: Answer | None


def render_answer(answer: Answer, *, width: int) -> RenderedLines:
    """Lay out an answer's Markdown for a given width (thread-safe, pure). Its key points are
    not part of it: ``KeyPointList`` shows them first, above the answer."""
    console = Console(
        width=width, color_system="truecolor", force_terminal=True, legacy_windows=False
    )
    markdown = terminal_safe(answer.markdown)
    body = _markdown_class()(markdown, code_theme=CODE_THEME, hyperlinks=False)
    lines = console.render_lines(body, console.options, pad=False)
    return RenderedLines(tuple(Strip(line) for line in lines), width, answer)


@cache
def _markdown_class() -> type[Markdown]:
    """Rich's Markdown, with table cells that wrap a word too long for a narrow column onto
    the next line where Rich would cut it off with an ellipsis, and code blocks that wrap with
    a continuation mark and a hanging indent (``code_block``)."""
    from rich.markdown import Markdown, TableElement  # 22 ms with Pygments: not before paint

    from infracards.tui.widgets.code_block import WrappingCodeBlock

    class FoldingTable(TableElement):
        def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
            for table in super().__rich_console__(console, options):
                assert isinstance(table, Table)
                for column in table.columns:
                    column.overflow = "fold"
                yield table

    return type(
        "AnswerMarkdown",
        (Markdown,),
        {
            "elements": {
                **Markdown.elements,
                "table_open": FoldingTable,
                "fence": WrappingCodeBlock,
                "code_block": WrappingCodeBlock,
            }
        },
    )


class AnswerLines(Widget):
    """Draws pre-rendered lines; only the rows in view are ever drawn (Textual's line API).

    The mouse selects its text as in any Textual widget: each drawn line carries the text
    offsets that selection maps the pointer to, and ``get_selection`` gives the lines' text.
    """

    DEFAULT_CSS = "AnswerLines { height: auto; }"

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.rendered = RenderedLines((), 0, None)

    def show(self, rendered: RenderedLines) -> None:
        self.rendered = rendered
        self.refresh(layout=True)

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self.rendered.strips)

    def render_line(self, y: int) -> Strip:
        strips = self.rendered.strips
        if y >= len(strips):
            return Strip.blank(self.size.width, self.rich_style)
        # Lines were rendered without a background: lay them on the widget's own colours.
        line = strips[y].apply_style(self.rich_style)
        selection = self.text_selection
        span = selection.get_span(y) if selection is not None else None
        if span is not None:
            line = _highlighted(
                line, span, self.screen.get_component_rich_style("screen--selection")
            )
        return line.apply_offsets(0, y)

    def get_selection(self, selection: Selection) -> tuple[str, str] | None:
        """The selected part of the answer's text, as laid out (one line per drawn line)."""
        text = "\n".join(strip.text.rstrip() for strip in self.rendered.strips)
        return selection.extract(text), "\n"

    def selection_updated(self, selection: Selection | None) -> None:
        self.refresh()


def _highlighted(line: Strip, span: tuple[int, int], style: Style) -> Strip:
    """``line`` with the characters ``span`` covers (end -1: to the end) in ``style``.
    Spans count characters and strips cells, which differ for CJK text (two cells each)."""
    text = line.text
    start, end = span
    end = len(text) if end == -1 else min(end, len(text))
    if start >= end:
        return line
    first, last = cell_len(text[:start]), cell_len(text[:end])
    before, chosen, after = line.divide([first, last, line.cell_length])
    return Strip.join([before, chosen.apply_style(style), after])


class PromptLine(Static):
    """The card's prompt; a click shows it whole, or one line again.

    Collapsed by setting its own two styles, not by a class: a class change restyles the
    line through the stylesheet (~1 ms here), on every card and every reveal."""

    collapsed = False

    def on_click(self) -> None:
        self.collapse(not self.collapsed)

    def collapse(self, collapsed: bool) -> None:
        """One line, cut with an ellipsis, or (False) the whole prompt."""
        if collapsed != self.collapsed:
            self.collapsed = collapsed
            if collapsed:
                self.styles.text_wrap = "nowrap"
                self.styles.text_overflow = "ellipsis"
            else:  # back to the stylesheet's
                self.styles.clear_rule("text_wrap")
                self.styles.clear_rule("text_overflow")
            self.refresh(layout=True)  # the height follows the wrapping, which CSS alone keeps


def card_meta(card_id: str, tags: tuple[str, ...], caption: str = "") -> Text:
    """The line above a prompt: the card's id, its tags and a caption (deck text, literal)."""
    return Text.assemble(
        literal(card_id, one_line=True, style="bold"),
        "  ",
        literal(" ".join(tags), one_line=True, style="italic"),
        "  ",
        literal(caption, one_line=True, style="dim"),
    )


class CardView(Vertical):
    """Shows one card; the screen decides what to show and when to reveal.

    The id, tags and prompt stay in view above the answer, which scrolls on its own: on an
    80×24 terminal the prompt scrolled away with the first lines of the answer. Shown in full
    while it is the question; once the answer is out, one line (``expand_prompt`` shows it
    all again, as does a click on it).
    """

    def compose(self) -> ComposeResult:
        yield Static(id="card-meta")
        yield PromptLine(id="card-prompt")
        with VerticalScroll(id="card-body"):
            yield Static(id="card-notice")
            yield KeyPointList(id="card-points")
            yield AnswerLines(id="card-answer")

    @property
    def body(self) -> VerticalScroll:
        """The scrolling area under the prompt: key points and answer."""
        return self.query_one("#card-body", VerticalScroll)

    @property
    def answer_width(self) -> int:
        """Cells available to the answer: the view less padding and its always-shown scrollbar."""
        return max(20, self.body.scrollable_content_region.width)

    @property
    def prompt_collapsed(self) -> bool:
        return self.query_one(PromptLine).collapsed

    @property
    def prompt_is_long(self) -> bool:
        """Whether the prompt takes more than one line: only then is there more to show."""
        line = self.query_one(PromptLine)
        return cell_len(str(line.render())) > line.content_region.width

    def show_card(
        self, *, card_id: str, tags: tuple[str, ...], prompt: str, caption: str = ""
    ) -> None:
        """Show the question side; deck text is shown literally, never as markup."""
        self.query_one("#card-meta", Static).update(card_meta(card_id, tags, caption))
        self.query_one("#card-prompt", Static).update(literal(prompt))
        self.expand_prompt(True)
        self.hide_answer()
        self.body.scroll_home(animate=False)

    def expand_prompt(self, expanded: bool) -> None:
        """The whole prompt, or (False) its first line, cut with an ellipsis."""
        self.query_one(PromptLine).collapse(not expanded)

    def hide_answer(self) -> None:
        for widget_id in ("#card-notice", "#card-points", "#card-answer"):
            self.query_one(widget_id).display = False

    @property
    def key_points(self) -> KeyPointList:
        return self.query_one(KeyPointList)

    def reveal(self, rendered: RenderedLines | None, *, notice: str) -> None:
        """Show the rendered answer, or ``notice`` when there is none (sealed, or damaged);
        the prompt shrinks to one line to leave the answer the room.

        The key points go above it, in ``key_points``, drawn by the screen: a checklist in a
        review, a plain list on the card screen."""
        self.expand_prompt(False)
        if rendered is None:
            notice_widget = self.query_one("#card-notice", Static)
            notice_widget.update(literal(notice))
            notice_widget.display = True
            return
        answer = self.query_one(AnswerLines)
        answer.show(rendered)
        answer.display = True

    def on_resize(self, _event: events.Resize) -> None:
        """A shown answer is laid out again for the new width: narrower would cut its lines off."""
        shown = self.query_one(AnswerLines)
        source = shown.rendered.answer
        if shown.display and source is not None and shown.rendered.width != self.answer_width:
            self.lay_out_again(source, self.answer_width)

    @work(thread=True, exclusive=True, group="answer-layout")
    def lay_out_again(self, source: Answer, width: int) -> None:
        """In a thread (a long answer takes ~50 ms), so dragging a window edge stays smooth."""
        rendered = render_answer(source, width=width)
        self.app.call_from_thread(self._laid_out_again, rendered)

    def _laid_out_again(self, rendered: RenderedLines) -> None:
        shown = self.query_one(AnswerLines)
        # Only if the same answer is still shown and the width has not changed again since.
        if shown.rendered.answer is rendered.answer and rendered.width == self.answer_width:
            shown.show(rendered)


def lines_text(rendered: RenderedLines) -> Iterator[str]:
    """Plain text of rendered lines (for tests and for searching what is on screen)."""
    for strip in rendered.strips:
        yield strip.text
