"""Under Compare's aligned rows: the user-perceived characters (graphemes) each tokenizer cuts apart,
as a table of plain-text cells (:mod:`tokenizer_core.analysis.graphemes`).

>>> from tokenizer_core.analysis.graphemes import GraphemeCut
>>> examples([GraphemeCut(0, 2, "e\\u0301", 2), GraphemeCut(3, 5, "ab", 3)])
'e\\u0301 ×2 · ab ×3'
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd
import streamlit as st

from tokenizer_core.analysis.compare import Segment
from tokenizer_core.analysis.graphemes import GraphemeCut, cut_graphemes, graphemes
from ui.compare.choices import Compared
from ui.widgets.export import table

MAX_EXAMPLES = 8  # graphemes listed per row; the count says how many there are


def examples(cuts: Sequence[GraphemeCut]) -> str:
    """The first cut graphemes, each with the number of tokens it is cut into."""
    shown = " · ".join(f"{c.text} ×{c.tokens}" for c in cuts[:MAX_EXAMPLES])
    return shown + (f" · … {len(cuts) - MAX_EXAMPLES:,} more" if len(cuts) > MAX_EXAMPLES else "")


def render_graphemes(text: str, chosen: Sequence[Compared], rows: Sequence[Sequence[Segment]]) -> None:
    """One row per tokenizer: how many of the text's multi-code-point or multi-byte graphemes it cuts."""
    wide = [g for g in graphemes(text) if len(g.text.encode("utf-8")) > 1]
    if not wide:
        return
    cuts = [cut_graphemes(text, segs) for segs in rows]
    st.markdown("**Characters cut apart** — user-perceived characters (graphemes: an emoji family, a flag, a "
                "letter with its accents) that a tokenizer splits over several tokens")
    frame = pd.DataFrame({
        "tokenizer": [c.name for c in chosen],
        "cut": [len(found) for found in cuts],
        "of": [len(wide)] * len(chosen),
        "graphemes cut (× tokens)": [examples(found) for found in cuts],
    })
    table(frame, key="compare_graphemes", name="graphemes cut", hide_index=True)
