"""The vocabulary explorer of the Tokenizers page: search and sort every token, see lengths,
which tokens the active corpus uses, merge trees of BPE tokens, and the special tokens.

Token text reaches the browser only as dataframe cells (plain text) or escaped chips.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd
import streamlit as st
from altair import SCHEMA_URL as VEGA_LITE_SCHEMA  # the Vega-Lite version Altair writes

from tokenizer_core.analysis.vocabulary import (
    DEFAULT_USAGE_CHARS,
    VocabEntry,
    added_token_rows,
    length_histogram,
    token_counts,
    utilization,
    vocabulary_entries,
)
from tokenizer_core.corpus.loading import Corpus
from tokenizer_core.pickybpe.model import PickyBPE
from tokenizer_core.pipeline import Tokenizer
from ui import cache, url_state
from ui.corpus.counts import is_counts
from ui.merges.html import tree_block_html
from ui.merges.run import MAX_TREE_NODES, TreeNode, bounded_tree
from ui.tokenizers import PREFIX
from ui.tokenizers.removed import render_removed
from ui.widgets.export import altair_chart, table
from ui.widgets.export_theme import LIGHT, ChartStyle
from ui.widgets.safe_html import render_html
from ui.widgets.shelf_picker import Picked
from ui.widgets.text import escape_markdown
from ui.widgets.tokens import Scheme, bytes_display, chips_html, display_text, scheme_for, shorten

SORTS = {
    "id": "id",
    "length": "length (longest first)",
    "merge_rank": "merge rank (BPE)",
    "score": "score (Unigram, most likely first)",
    "count": "frequency on the active corpus",
}
MAX_ROWS = 20_000  # rows sent to the browser at once; search narrows the rest
NO_TEXT = ("The active corpus is a counts file (pieces and counts, no running text), so token use on the "
           "corpus is not measured; pick a text corpus on the Corpus page for it.")


#: The explorer's inputs in the address (named by their widget keys).
URL_PARAMS = (
    url_state.text(PREFIX + "search", PREFIX + "search", what="the token search", limit=100),
    url_state.choice(PREFIX + "sort", PREFIX + "sort", SORTS, default="id"),
    url_state.flag(PREFIX + "unused", PREFIX + "unused", default=False),
    url_state.text(PREFIX + "tree_token", PREFIX + "tree_token", what="the merge-tree token", limit=200),
)


def _entries(held: Picked) -> list[VocabEntry]:
    return cache.VOCABULARY.get_or_make((held.digest,), lambda: vocabulary_entries(held.tokenizer),
                                        spinner="Reading the vocabulary…")


def _counts(held: Picked, corpus: Corpus) -> dict[int, int]:
    key = (held.digest, cache.corpus_digest(corpus), DEFAULT_USAGE_CHARS)
    return cache.TOKEN_COUNTS.get_or_make(
        key, lambda: dict(token_counts(held.tokenizer, corpus.lines(), max_chars=DEFAULT_USAGE_CHARS)),
        spinner="Encoding the active corpus to count tokens…")


def _make_frame(entries: list[VocabEntry], counts: dict[int, int], scheme: Scheme, translate: bool) -> pd.DataFrame:
    return pd.DataFrame({
        "id": [e.id for e in entries],
        "token": [shorten(display_text(e.token, scheme=scheme, translate=translate), 80) for e in entries],
        "bytes": [bytes_display(e.data) if e.data is not None else "" for e in entries],
        "length": [e.length for e in entries],
        "special": [e.special for e in entries],
        "merge_rank": pd.array([e.merge_rank for e in entries], dtype="Int64"),
        "score": [e.score for e in entries],
        "count": [counts.get(e.id, 0) for e in entries],
    })


def _frame(held: Picked, corpus: Corpus, scheme: Scheme, translate: bool, entries: list[VocabEntry],
           counts: dict[int, int]) -> pd.DataFrame:
    # Built once per tokenizer, corpus and markers setting: converting 100k tokens for display is the
    # slowest part of the page otherwise. Never mutated (filters and sorts make new frames).
    key = (held.digest, cache.corpus_digest(corpus), scheme, translate)
    return cache.VOCAB_FRAMES.get_or_make(key, lambda: _make_frame(entries, counts, scheme, translate))


def render_vocabulary(held: Picked, corpus: Corpus, *, translate: bool) -> None:
    tok = held.tokenizer
    entries = _entries(held)
    counts = _counts(held, corpus)
    scheme = scheme_for(tok)
    used = utilization(counts, tok)
    m = st.columns(4)
    m[0].metric("Vocabulary size", f"{tok.vocab_size:,}")
    m[1].metric("Special tokens", f"{sum(e.special for e in entries):,}")
    counted = is_counts(corpus)  # no running text to encode: usage is not measured
    m[2].metric("Corpus use", "—" if counted else f"{used:.1%}",
                help=NO_TEXT if counted else
                f"Share of the non-special tokens that occur when the first {DEFAULT_USAGE_CHARS:,} "
                "characters of the active corpus are encoded.")
    m[3].metric("Tokens for that text", "—" if counted else f"{sum(counts.values()):,}",
                help=NO_TEXT if counted else None)

    c1, c2, c3 = st.columns([2, 1.4, 1], vertical_alignment="bottom")
    query = c1.text_input("Search tokens", key=PREFIX + "search", placeholder="part of a token, e.g. ing", max_chars=100)
    sort = c2.selectbox("Sort by", list(SORTS), format_func=SORTS.get, key=PREFIX + "sort")
    unused_only = c3.checkbox("Unused only", key=PREFIX + "unused", disabled=counted,
                              help=NO_TEXT if counted else "Only the tokens that never occur in the corpus sample.")
    unused_only = unused_only and not counted
    frame = _frame(held, corpus, scheme, translate, entries, counts)
    if query:
        raw = pd.Series([e.token for e in entries])
        mask = raw.str.contains(query, regex=False) | frame["token"].str.contains(query, regex=False)
        frame = frame[mask.to_numpy()]
    if unused_only:
        frame = frame[(frame["count"] == 0) & ~frame["special"]]
    ascending = {"id": True, "length": False, "merge_rank": True, "score": False, "count": False}[sort]
    frame = frame.sort_values(sort, ascending=ascending, na_position="last", kind="stable")
    st.caption(f"{len(frame):,} tokens" + (f"; the first {MAX_ROWS:,} shown" if len(frame) > MAX_ROWS else ""))
    table(frame.head(MAX_ROWS), key=PREFIX + "vocab_table", name="vocabulary", hide_index=True, height=360,
          column_config={"score": st.column_config.NumberColumn(format="%.3f")})
    if isinstance(tok.model, PickyBPE):
        render_removed(tok.model, scheme=scheme, translate=translate)
    _length_chart(entries)


def _length_chart(entries: list[VocabEntry]) -> None:
    hist = length_histogram(entries)
    if not hist:
        return
    altair_chart(lambda style: length_chart(hist, style=style), key=PREFIX + "lengths_chart", name="token lengths")


def length_chart(hist: Mapping[int, int], *, style: ChartStyle = LIGHT) -> dict[str, Any]:
    """Bars of how many tokens have each length, as a Vega-Lite spec.

    A plain histogram: Vega-Lite draws it in the browser for a fraction of what plotly's first chart
    on a page costs (about 0.85 s of script on every load of the Tokenizers page).

    >>> spec = length_chart({1: 250, 2: 40})
    >>> spec["data"]["values"], spec["mark"]["type"]
    ([{'length': 1, 'tokens': 250}, {'length': 2, 'tokens': 40}], 'bar')
    """
    values = [{"length": int(k), "tokens": int(v)} for k, v in sorted(hist.items())]
    return {
        "$schema": VEGA_LITE_SCHEMA,
        "title": {"text": "Token lengths (characters; bytes for byte tokens)", "fontSize": style.size(14),
                  "anchor": "start"},
        "height": style.size(240),
        "data": {"values": values},
        "mark": {"type": "bar", "color": style.blue, "tooltip": True},
        "encoding": {
            "x": {"field": "length", "type": "ordinal", "title": "length", "axis": {"labelAngle": 0}},
            "y": {"field": "tokens", "type": "quantitative", "title": "tokens",
                  "axis": {"tickMinStep": 1, "format": ",d"}},
            "tooltip": [{"field": "length", "type": "ordinal"},
                        {"field": "tokens", "type": "quantitative", "format": ","}],
        },
    }


def render_specials(tok: Tokenizer) -> None:
    rows = added_token_rows(tok)
    if not rows:
        st.info("This tokenizer has no special or added tokens.")
        return
    frame = pd.DataFrame(rows).rename(columns={"content": "token", "in_model_vocab": "in model vocab"})
    # Shown through the dataframe widget, which renders cell text as text (never as HTML).
    table(frame, key=PREFIX + "added_table", name="added tokens", hide_index=True)
    st.caption(
        "Added tokens are matched whole in the raw text before the model runs. **special**: skipped "
        "when decoding with special tokens skipped; **single_word**: only matched as a whole word; "
        "**lstrip/rstrip**: swallow the whitespace on their left/right; **normalized**: matched after "
        "normalization rather than in the raw text; **in model vocab**: the model's own vocabulary "
        "holds the token (tokens a tokenizer.json adds past it do not)."
    )


def _tree(tok: Tokenizer, token: str) -> TreeNode:
    model = tok.model

    def parts(t):  # noqa: ANN001, ANN202
        if t.left is None or t.right is None or t.rank is None:
            return t.token, t.id, None, None, None
        return t.token, t.id, t.rank + 1, t.left, t.right

    return bounded_tree(model.merge_tree(token), parts, MAX_TREE_NODES)


def render_merge_tree(tok: Tokenizer, *, translate: bool) -> None:
    if not callable(getattr(tok.model, "merge_tree", None)):
        st.info("Merge trees belong to BPE tokenizers; this one is " + type(tok.model).__name__ + ".")
        return
    scheme = scheme_for(tok)
    token = st.text_input("Token (as stored, e.g. Ġthe or ing)", key=PREFIX + "tree_token", max_chars=200)
    if not token:
        longest = sorted(tok.get_vocab(), key=len, reverse=True)[:12]
        st.caption("Some long tokens to try:")
        render_html(chips_html([(tok.token_to_id(t), t) for t in longest], scheme=scheme, translate=translate))
        return
    if tok.token_to_id(token) is None:
        st.warning(escape_markdown(f"{token!r} is not in the vocabulary."))
        return
    render_html(tree_block_html(_tree(tok, token), scheme=scheme, translate=translate))
