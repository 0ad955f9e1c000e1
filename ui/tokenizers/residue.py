"""The Tokenizers page's "Residue & glitch tokens" tab: which tokens the active corpus leaves standing,
which it only makes on the way to longer tokens (LiteToken's residues), which can never come back, and
GPT-2's known glitch tokens, as a table with a CSV download (:mod:`tokenizer_core.analysis.residue`).

>>> residue_frame([]).columns.tolist()[:4]
['id', 'token', 'final', 'intermediate']
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd
import streamlit as st

from tokenizer_core.analysis.residue import ResidueRow, residue_rows
from tokenizer_core.analysis.vocabulary import DEFAULT_USAGE_CHARS
from tokenizer_core.corpus.loading import Corpus
from tokenizer_core.errors import TokenizerError
from ui import cache
from ui.corpus.counts import is_counts
from ui.widgets.export import table
from ui.widgets.shelf_picker import Picked
from ui.widgets.text import escape_markdown
from ui.widgets.tokens import Scheme, display_text, scheme_for, shorten

EXPLAIN = (
    "**final**: times encoding the corpus sample leaves the token standing. **intermediate**: times a merge "
    "makes it and a later merge swallows it. **residue**: intermediate / (final + intermediate); near 1, the "
    "token mostly exists on the way to longer ones (the LiteToken paper finds 5–10 % of today's vocabularies "
    "so). **reachable**: the model outputs the token for its own text (no: no merge order builds it). "
    "**round trip**: encode(decode([id])) gives the id back through the whole pipeline. **glitch**: one of "
    "GPT-2's tokens known to derail its models (“SolidGoldMagikarp” and kin), listed first."
)


def residue_frame(rows: Sequence[ResidueRow], *, scheme: Scheme = "plain", translate: bool = True) -> pd.DataFrame:
    """The table's rows; token text converted for display (the grid shows it as text, never HTML)."""
    return pd.DataFrame({
        "id": [r.id for r in rows],
        "token": [shorten(display_text(r.token, scheme=scheme, translate=translate), 80) for r in rows],
        "final": [r.final for r in rows],
        "intermediate": [r.intermediate for r in rows],
        "residue": [round(r.residue, 3) for r in rows],
        "reachable": pd.array([r.reachable for r in rows], dtype="boolean"),
        "round_trip": [r.round_trips for r in rows],
        "glitch": [r.glitch for r in rows],
    })


def render_residue(held: Picked, corpus: Corpus, *, translate: bool) -> None:
    """The tab: summary figures, then every token ranked, with a CSV download."""
    if is_counts(corpus):
        st.info("The active corpus is a counts file (no running text to encode), so token uses cannot be "
                "counted. Pick a text corpus on the Corpus page.")
        return
    key = (held.digest, cache.corpus_digest(corpus), DEFAULT_USAGE_CHARS)
    try:
        rows = cache.RESIDUES.get_or_make(key, lambda: residue_rows(held.tokenizer, corpus.lines()),
                                    spinner="Encoding the corpus and tracing every token's merges…")
    except TokenizerError as err:
        st.error(escape_markdown(str(err)))
        return
    merged = [r for r in rows if r.final + r.intermediate]
    m = st.columns(4)
    m[0].metric("Residue tokens", f"{sum(r.residue >= 0.9 for r in merged):,}",
                help="Tokens seen on the corpus sample almost only as steps of merges (residue ≥ 0.9).")
    m[1].metric("Unused on the corpus", f"{sum(not r.final for r in rows):,}")
    m[2].metric("Unreachable by the merges", f"{sum(r.reachable is False for r in rows):,}")
    m[3].metric("No round trip", f"{sum(not r.round_trips for r in rows):,}")
    st.caption(EXPLAIN)
    frame = residue_frame(rows, scheme=scheme_for(held.tokenizer), translate=translate)
    table(frame, key="tokenizers_residue_table", name=f"residue tokens of {held.item.name}", hide_index=True,
          height=420)
