"""Code lines wider than the answer wrap at their indent after ↪, whatever their indent."""

from __future__ import annotations

from hypothesis import example, given
from hypothesis import strategies as st
from rich.text import Text

from infracards.tui.widgets.code_block import CONTINUATION, wrap_code_line

MARK = Text(CONTINUATION)
CODE = st.text(alphabet="abc(){}[]+=,;/ 张量", min_size=1, max_size=120)


@given(indent=st.integers(0, 90), code=CODE, width=st.integers(12, 80))
@example(indent=11, code="张", width=12)  # a wide character with no room after the indent
def test_every_piece_fits_holds_code_and_rejoins_to_the_line(
    indent: int, code: str, width: int
) -> None:
    line = " " * indent + code.strip(" ") + "x"  # code after the indent, as a real line has
    pieces = [piece.plain for piece in wrap_code_line(Text(line), width, mark=MARK)]
    assert all(Text(piece).cell_len <= width for piece in pieces), pieces
    if indent + Text(line.lstrip(" ")[:1]).cell_len <= width:
        # an argument aligned under a parenthesis, with room for its first character after
        # the indent: no line of indent alone
        assert all(piece.strip() for piece in pieces), pieces
    rejoined = pieces[0] + "".join(piece.lstrip(" ")[len(CONTINUATION) :] for piece in pieces[1:])
    assert rejoined.replace(" ", "") == line.replace(" ", "")


def test_a_line_indented_past_the_hang_breaks_after_its_code() -> None:
    """q19 at 60 columns: the first cut fell inside the indent and left an empty line."""
    line = " " * 36 + "to_f32(theirs[off + i]));"
    pieces = [piece.plain for piece in wrap_code_line(Text(line), 52, mark=MARK)]
    assert pieces == [" " * 36 + "to_f32(theirs[of", " " * 26 + "↪ f + i]));"]
