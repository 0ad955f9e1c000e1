"""Compare's Numbers tab: how each tokenizer splits the integers 0-9999, as a heatmap of token counts
(rows: the hundreds, columns: the last two digits; hover shows the pieces), the grouping rule read
from long digit runs, and the shapes of the four-digit numbers (:mod:`tokenizer_core.analysis.numbers`).

>>> grid_of([1, 2, 3, 4], start=0, width=2)
[[1, 2], [3, 4]]
"""

from __future__ import annotations

from collections.abc import Sequence

import plotly.graph_objects as go
import streamlit as st

from tokenizer_core.analysis.numbers import NumberSplits, number_splits
from ui import cache
from ui.compare import PREFIX
from ui.compare.choices import Compared
from ui.widgets.export import plotly_chart
from ui.widgets.text import escape_markdown

NUMBERS = "numbers"  # the probe set, second part of a PROBES key
WIDTH = 100
RULES = {"from the left": "digits in groups of up to 3, counted from the left (1234 is 123 + 4: the thousands "
                          "do not line up with place value)",
         "from the right": "digits in groups of up to 3, counted from the right (1234 is 1 + 234: groups line up "
                           "with place value)",
         "single digits": "every digit a token of its own (a number costs as many tokens as it has digits)",
         "learned (no rule)": "whatever digit strings its training corpus had: neighbouring numbers split differently",
         "unknown": "most numbers hold an unknown token: the vocabulary lacks their digits, and the model cannot read them"}


def grid_of(values: Sequence, *, start: int, width: int = WIDTH) -> list[list]:
    """``values`` (of start, start + 1, ...) as rows of ``width``."""
    return [list(values[i:i + width]) for i in range(0, len(values), width)]


def splits(c: Compared) -> NumberSplits:
    """``c``'s splits of 0-9999 (once per digest)."""
    return cache.PROBES.get_or_make((c.digest, NUMBERS), lambda: number_splits(c.tokenizer, start=0, stop=10_000),
                                    spinner=f"Splitting 0-9999 with {c.name}…")


def _figure(s: NumberSplits, name: str) -> go.Figure:
    pieces = ["|".join(p or "▁" for p in ps) for ps in s.pieces]
    fig = go.Figure(go.Heatmap(
        z=grid_of(s.counts, start=s.start), customdata=grid_of(pieces, start=s.start),
        x=list(range(WIDTH)), y=[s.start + i * WIDTH for i in range(len(s.pieces) // WIDTH)],
        colorscale="Viridis", colorbar={"title": "tokens", "dtick": 1}, zmin=1,
        hovertemplate="%{y} + %{x}: %{customdata} (%{z} tokens)<extra></extra>"))
    fig.update_layout(height=420, margin={"l": 50, "r": 10, "t": 30, "b": 40}, title=None,
                      xaxis_title="last two digits", yaxis_title="hundreds", yaxis={"autorange": "reversed"})
    return fig


def render_numbers(chosen: Sequence[Compared]) -> None:
    st.markdown("How each tokenizer splits the numbers 0 to 9999 (each number alone). Hover a cell for its pieces.")
    for i, c in enumerate(chosen):
        s = splits(c)
        st.markdown(f"**{escape_markdown(c.name)}** · {escape_markdown(RULES[s.grouping])}")
        shapes = ", ".join(f"{shape} ({n:,})" for shape, n in s.shape_share(4)[:4])
        st.caption(escape_markdown(f"Four-digit numbers split as {shapes}; 0-9999 cost {sum(s.counts):,} tokens."))
        plotly_chart(_figure(s, c.name), key=f"{PREFIX}numbers_{i}", name="numbers-heatmap")
