"""Compare's Numbers tab: how each tokenizer splits numbers, as a heatmap of token counts per number
(hover shows the pieces): ten thousand integers from a chosen start (rows: the hundreds, columns: the
last two digits), the decimals 0.00-9.99, or every date of a year (rows: months, columns: days); the
grouping rule read from long digit runs and the shapes of the four-digit numbers
(:mod:`tokenizer_core.analysis.numbers`).

>>> grid_of([1, 2, 3, 4], start=0, width=2)
[[1, 2], [3, 4]]
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go
import streamlit as st

from tokenizer_core.analysis.numbers import (
    GRID_KINDS,
    MAX_START,
    NumberGrid,
    NumberSplits,
    grid_pieces,
    number_grid,
    number_splits,
)
from ui import cache, url_state
from ui.compare import PREFIX
from ui.compare.choices import Compared
from ui.widgets.export import plotly_chart
from ui.widgets.text import escape_markdown

NUMBERS = "numbers"  # the probe set, second part of a PROBES key
WIDTH = 100
KIND, START, YEAR = PREFIX + "numbers_kind", PREFIX + "numbers_start", PREFIX + "numbers_year"
KINDS = {"integers": "10,000 integers", "decimals": "decimals 0.00-9.99", "dates": "every date of a year"}
URL_PARAMS = (
    url_state.choice(KIND, KIND, GRID_KINDS, default="integers"),
    url_state.integer(START, START, default=0, lo=0, hi=MAX_START - 1),
    url_state.integer(YEAR, YEAR, default=2024, lo=1, hi=9999),
)
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


def grid_splits(c: Compared, grid: NumberGrid) -> tuple:
    """``c``'s pieces of every cell of ``grid`` (once per digest and grid)."""
    key = (c.digest, NUMBERS, grid.kind, grid.rows[0], grid.columns[0], grid.cells[0][0])
    return cache.PROBES.get_or_make(key, lambda: grid_pieces(c.tokenizer, grid),
                                    spinner=f"Splitting {len(grid.texts()):,} numbers with {c.name}…")


def _figure(grid: NumberGrid, pieces: tuple) -> go.Figure:
    counts = [[None if p is None else len(p) for p in row] for row in pieces]
    # The hover texts as one array of strings, not nested lists: plotly checks a list's 10,000 cells one
    # by one when the figure is built (1.2 s a chart, five charts a rerun); an array of strings at once.
    custom = np.array([[[t or "", "" if p is None else "|".join(x or "▁" for x in p)] for t, p in zip(tr, pr)]
                       for tr, pr in zip(grid.cells, pieces)], dtype=str)
    fig = go.Figure(go.Heatmap(
        z=counts, customdata=custom,
        x=list(grid.columns), y=list(grid.rows), colorscale="Viridis", colorbar={"title": "tokens", "dtick": 1},
        zmin=1, hovertemplate="%{customdata[0]}: %{customdata[1]} (%{z} tokens)<extra></extra>"))
    axes = {"integers": ("last two digits", "hundreds"), "decimals": ("hundredths", "units"),
            "dates": ("day", "month")}[grid.kind]
    fig.update_layout(height=420 if grid.kind == "integers" else 320, margin={"l": 80, "r": 10, "t": 30, "b": 40},
                      title=None, xaxis_title=axes[0], yaxis_title=axes[1],
                      xaxis={"type": "category"}, yaxis={"autorange": "reversed", "type": "category"})
    return fig


def _chosen_grid() -> NumberGrid:
    c1, c2 = st.columns([2, 1])
    kind = c1.radio("Numbers", GRID_KINDS, format_func=KINDS.get, key=KIND, horizontal=True)
    if kind == "integers":
        start = int(c2.number_input("From", min_value=0, max_value=MAX_START - 1, step=10_000, key=START,
                                    help="The first of 10,000 integers (e.g. 1990 for years, 1,000,000 for long numbers)."))
        return number_grid("integers", start=start)
    if kind == "dates":
        return number_grid("dates", year=int(c2.number_input("Year", min_value=1, max_value=9999, step=1, key=YEAR)))
    return number_grid("decimals")


def render_numbers(chosen: Sequence[Compared]) -> None:
    st.markdown("How each tokenizer splits numbers, each number alone. Hover a cell for its pieces.")
    grid = _chosen_grid()
    for i, c in enumerate(chosen):
        s = splits(c)
        pieces = grid_splits(c, grid)
        st.markdown(f"**{escape_markdown(c.name)}** · {escape_markdown(RULES[s.grouping])}")
        shapes = ", ".join(f"{shape} ({n:,})" for shape, n in s.shape_share(4)[:4])
        total = sum(len(p) for row in pieces for p in row if p is not None)
        st.caption(escape_markdown(f"Four-digit numbers split as {shapes}; these {len(grid.texts()):,} numbers cost "
                                   f"{total:,} tokens."))
        plotly_chart(_figure(grid, pieces), key=f"{PREFIX}numbers_{i}", name="numbers-heatmap")
