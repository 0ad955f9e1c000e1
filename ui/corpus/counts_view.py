"""What the Corpus page shows of a counts file: its size, how it was counted (the header's facts),
the most frequent pieces and the rank-frequency (Zipf) plot.

The tables are built once per file content (:data:`ui.cache.CORPUS_STATS`, under the corpus digest,
which for a counts file is the digest of its canonical text) and never changed: sessions showing the
same file share them. Pieces come from users and may hold anything (HTML included): they reach the
browser only as dataframe cells and chart data, never as HTML or unescaped Markdown.

>>> from ui.corpus.counts import counts_from_text
>>> c = counts_from_text("c.tsv", "# tokenizer-playground counts 1\\n# model: bpe\\nthe\\t3\\na b\\t1\\nx\\t1\\n")
>>> o = build_counts_overview(c)
>>> o.hapax, list(o.top["piece"]), list(o.facts["fact"])[:1]
(2, ['the', 'a·b', 'x'], ['model'])
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd
import streamlit as st

from ui import cache
from ui.corpus import PREFIX
from ui.corpus.counts import FACT_LABELS, CountsCorpus, models_note
from ui.corpus.overview import TOP_WORDS, zipf_points
from ui.corpus.view import zipf_chart
from ui.widgets.export import altair_chart, table
from ui.widgets.text import escape_markdown, format_count

_VISIBLE = str.maketrans({" ": "·", "\n": "⏎", "\t": "⇥", "\r": "␍"})


@dataclass(frozen=True)
class CountsOverview:
    """A counts file's numbers and tables (never changed: sessions share it)."""

    distinct: int
    total: int
    hapax: int
    top: pd.DataFrame
    zipf: pd.DataFrame
    facts: pd.DataFrame


def visible_piece(piece: str) -> str:
    """A piece with its whitespace made visible (a space is ``·``, as the app shows tokens).

    >>> visible_piece("a b\\tc")
    'a·b⇥c'
    """
    return piece.translate(_VISIBLE)


def build_counts_overview(corpus: CountsCorpus) -> CountsOverview:
    data = corpus.counts
    # Most frequent first; equal counts keep the file's order (first appearance in the corpus).
    freq = sorted(data.counts.items(), key=lambda kv: -kv[1])
    total = max(sum(n for _, n in freq), 1)
    head = freq[:TOP_WORDS]
    top = pd.DataFrame({"rank": range(1, len(head) + 1), "piece": [visible_piece(p) for p, _ in head],
                        "count": [n for _, n in head], "share %": [100 * n / total for _, n in head]})
    if data.has_line_final:
        top["line-final"] = [data.line_final.get(p, 0) for p, _ in head]
    zipf = zipf_points(freq)
    zipf["word"] = zipf["word"].map(visible_piece)
    shown = [(label, data.facts[key]) for key, label in FACT_LABELS.items() if key in data.facts]
    shown += [(key, value) for key, value in data.facts.items()
              if key not in FACT_LABELS and key not in ("columns", "pieces", "total")]
    facts = pd.DataFrame({"fact": [k for k, _ in shown],
                          "value": [format_count(int(v)) if v.isascii() and v.isdigit() else v for _, v in shown]})
    return CountsOverview(distinct=len(freq), total=sum(n for _, n in freq), hapax=sum(1 for _, n in freq if n == 1),
                          top=top, zipf=zipf, facts=facts)


def counts_overview(corpus: CountsCorpus, key: str) -> CountsOverview:
    """The overview of ``corpus``, whose content digest is ``key``: stored, or built now."""
    return cache.CORPUS_STATS.get_or_make((key,), lambda: build_counts_overview(corpus),
                                          spinner="Sorting the pieces of the counts file…")


def _number(facts: dict[str, str], key: str) -> str:
    value = facts.get(key, "")
    return format_count(int(value)) if value.isdigit() else (value or "—")


def render_counts(corpus: CountsCorpus, overview: CountsOverview) -> None:
    """Everything the page shows of a counts file."""
    facts = corpus.counts.facts
    st.caption(escape_markdown(
        f"A counts file ({models_note(corpus)}): the pieces a trainer counted and how often, without the text "
        "they came from. The Tokenizers, BPE step-through and Lattice pages train from it; text views "
        "(Compare on corpus lines and metrics, Batch rows from the corpus) need a text corpus."))
    cols = st.columns(3) + st.columns(3)
    cols[0].metric("Distinct pieces", format_count(overview.distinct),
                   help="Pieces after the normalizer and pre-tokenizer the header names.")
    cols[1].metric("Total occurrences", format_count(overview.total), help="The sum of the counts.")
    cols[2].metric("Seen once", format_count(overview.hapax), help="Pieces with a count of 1.")
    cols[3].metric("Files counted", _number(facts, "files"))
    cols[4].metric("Lines counted", _number(facts, "lines"))
    cols[5].metric("Bytes counted", _number(facts, "bytes"))
    st.subheader("How it was counted")
    table(overview.facts, key=PREFIX + "counts_facts", name="counts file header", hide_index=True,
          height=min(320, 38 + 35 * len(overview.facts)))
    left, right = st.columns([2, 3])
    with left:
        st.subheader("Top pieces")
        table(overview.top, key=PREFIX + "counts_top", name="top pieces", hide_index=True, height=320,
              column_config={"share %": st.column_config.NumberColumn(format="%.2f")})
    with right:
        st.subheader("Rank–frequency (Zipf) plot")
        if overview.distinct < 3:
            st.info("Too few distinct pieces for a rank–frequency plot.")
        else:
            altair_chart(zipf_chart(overview.zipf, unit="piece"), key=PREFIX + "counts_zipf_chart",
                         name="zipf plot of the counts")
            st.caption("Each point is a piece: its count against its rank, both on log scales; the dashed line "
                       "is Zipf's law (count ∝ 1/rank).")
