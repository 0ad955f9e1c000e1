"""Rendering of a corpus: statistics, top words, Zipf plot, character inventory, preview.

Everything that comes from the corpus (words, characters, names) reaches the
browser as plain text: in data frames, chart data, markdown escaped with
:func:`escape_markdown`, or HTML-escaped in the preview's text block, never as
markup. The numbers and tables come ready-made from a
:class:`~ui.corpus.overview.CorpusOverview` (built once per corpus).
"""

from __future__ import annotations

import altair as alt
import pandas as pd
import streamlit as st

from tokenizer_core.corpus.loading import Corpus
from ui.corpus import PREFIX
from ui.corpus.overview import CorpusOverview
from ui.widgets.export import altair_chart, table
from ui.widgets.safe_html import render_html
from ui.widgets.text import escape_markdown, format_bytes, format_count, text_block_html

PREVIEW_CHARS = 3000


def zipf_chart(data: pd.DataFrame, *, unit: str = "word") -> alt.Chart:
    """Count against frequency rank on log-log axes, with the ideal 1/rank line (``data``:
    :func:`~ui.corpus.overview.zipf_frame`; ``unit`` names what is counted, e.g. "piece")."""
    x = alt.X("rank:Q", scale=alt.Scale(type="log"), title="rank (log scale)")
    observed = (
        alt.Chart(data)
        .mark_line(point=alt.OverlayMarkDef(size=18))
        .encode(
            x=x,
            y=alt.Y("count:Q", scale=alt.Scale(type="log"), title=f"{unit} count (log scale)"),
            tooltip=["rank:Q", alt.Tooltip("word:N", title=unit), "count:Q"],
        )
    )
    # Below one occurrence the ideal line only stretches the axis, so cut it there.
    ideal = (
        alt.Chart(data[data["ideal Zipf (top count / rank)"] >= 1])
        .mark_line(strokeDash=[4, 4], color="#999999")
        .encode(x=x, y="ideal Zipf (top count / rank):Q")
    )
    return (ideal + observed).properties(height=320)  # the points on top: their tooltips win


def render_summary(corpus: Corpus, overview: CorpusOverview) -> None:
    """Headline numbers of the corpus."""
    stats = overview.stats
    cols = st.columns(3) + st.columns(3)  # two rows: six numbers do not fit a 1024-pixel screen in one
    cols[0].metric("Documents", format_count(stats.documents), help="Files, rows or records.")
    cols[1].metric("Lines", format_count(stats.lines))
    cols[2].metric("Characters", format_count(stats.chars), help="Unicode code points.")
    cols[3].metric("Bytes (UTF-8)", format_bytes(stats.bytes), help=f"{format_count(stats.bytes)} bytes")
    cols[4].metric("Words", format_count(stats.words), help="Runs of letters, marks, digits and _ (don't = 1 word).")
    cols[5].metric(
        "Distinct words",
        format_count(stats.unique_words),
        help=f"{format_count(overview.hapax)} of them occur only once.",
    )
    if corpus.source:
        st.caption("Source: " + escape_markdown(corpus.source))
    if corpus.replaced_bytes:
        st.warning(
            f"{format_count(corpus.replaced_bytes)} invalid byte(s) were replaced by U+FFFD (�) "
            "while reading this corpus."
        )
    if corpus.word_counts:
        counts = ", ".join(f"{w} ×{c}" for w, c in corpus.word_counts.items())
        st.caption("Defined by word counts: " + escape_markdown(counts))


def render_words(overview: CorpusOverview) -> None:
    """Top words table beside the rank-frequency (Zipf) plot."""
    stats = overview.stats
    left, right = st.columns([2, 3])
    with left:
        st.subheader("Top words")
        if not stats.word_freq:
            st.info("This corpus has no words (only punctuation, symbols or emoji).")
        else:
            table(
                overview.top_words,
                key=PREFIX + "top_words",
                name="top words",
                hide_index=True,
                height=320,
                column_config={"share %": st.column_config.NumberColumn(format="%.2f")},
            )
    with right:
        st.subheader("Rank–frequency (Zipf) plot")
        if len(stats.word_freq) < 3:
            st.info("Too few distinct words for a rank–frequency plot; try a larger corpus.")
        else:
            altair_chart(zipf_chart(overview.zipf), key="corpus_zipf_chart", name="zipf plot")
            st.caption(
                "Each point is a word: its count against its rank, both on log scales. Natural "
                "text falls close to the dashed line (count ∝ 1/rank, Zipf's law): a few words "
                "are very common and most are rare — the long tail subword tokenizers exist for."
            )


def render_characters(overview: CorpusOverview) -> None:
    """The character inventory with Unicode category and script, plus a per-script summary."""
    stats = overview.stats
    st.subheader("Character inventory")
    st.caption(
        f"{format_count(len(stats.char_inventory))} distinct characters. Invisible ones are shown "
        "by a symbol or code point; combining marks on a dotted circle ◌."
    )
    left, right = st.columns([3, 1])
    with left:
        table(
            overview.inventory,
            key=PREFIX + "inventory",
            name="character inventory",
            hide_index=True,
            height=360,
            column_config={"share %": st.column_config.NumberColumn(format="%.3f")},
        )
    with right:
        scripts = overview.scripts
        table(scripts, key=PREFIX + "scripts", name="scripts", hide_index=True,
              height=min(360, 38 + 35 * len(scripts)))


def render_preview(corpus: Corpus) -> None:
    """The beginning of the corpus as plain text."""
    shown = corpus.head(PREVIEW_CHARS)
    total = corpus.num_chars
    label = "Preview" if total <= PREVIEW_CHARS else (
        f"Preview (first {format_count(PREVIEW_CHARS)} of {format_count(total)} characters)"
    )
    st.subheader(label)
    render_html(text_block_html(shown, max_height=260 if len(shown) > 800 else None, css_class="tp-preview"))
