"""Rendering of a corpus: statistics, top words, Zipf plot, character inventory, preview.

Everything that comes from the corpus (words, characters, names) reaches the
browser as plain text: in data frames, chart data, ``st.code`` or markdown
escaped with :func:`escape_markdown`, never as HTML.
"""

from __future__ import annotations

import math

import altair as alt
import pandas as pd
import streamlit as st

from tokenizer_core.corpus.default import cache_dir
from tokenizer_core.corpus.loading import Corpus
from tokenizer_core.corpus.stats import CATEGORY_NAMES, CharInfo, CorpusStats, corpus_stats
from tokenizer_core.corpus.stats_cache import sample_stats
from ui.widgets.text import escape_markdown, format_bytes, format_count, sample_name

PREVIEW_CHARS = 3000
TOP_WORDS = 200

_VISIBLE = {" ": "·", "\n": "⏎", "\t": "⇥", "\r": "␍"}


def visible_char(info: CharInfo) -> str:
    """How a character is shown in a table: invisible ones get a picture or their code point."""
    char = info.char
    if char in _VISIBLE:
        return _VISIBLE[char]
    if info.category in ("Mn", "Me", "Mc"):
        return "◌" + char  # a combining mark needs a base to be seen
    if info.category in ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp") or (info.category == "Zs"):
        return f"⟨{info.codepoint}⟩"
    return char


@st.cache_data(max_entries=16, show_spinner="Counting words and characters…")
def cached_stats(key: str, _corpus: Corpus) -> CorpusStats:
    """Statistics of the corpus identified by ``key`` (from :func:`ui.state.active_corpus_key`); a
    bundled sample's come from the disk cache after the first count (a fresh server's first page)."""
    if sample_name(_corpus) is not None:
        return sample_stats(_corpus, folder=cache_dir())
    return corpus_stats(_corpus)


def top_words_frame(stats: CorpusStats, n: int = TOP_WORDS) -> pd.DataFrame:
    """The ``n`` most frequent words with rank, count and share of all words (in %)."""
    rows = stats.top_words(n)
    total = max(stats.words, 1)
    return pd.DataFrame(
        {
            "rank": range(1, len(rows) + 1),
            "word": [w for w, _ in rows],
            "count": [c for _, c in rows],
            "share %": [100 * c / total for _, c in rows],
        }
    )


def zipf_frame(stats: CorpusStats, *, dense_ranks: int = 200, points: int = 200) -> pd.DataFrame:
    """Rank/count points for a log-log plot: every rank up to ``dense_ranks``,
    then about ``points`` log-spaced ranks (keeps the chart light for big corpora)."""
    freq = stats.word_freq
    n = len(freq)
    ranks = list(range(1, min(n, dense_ranks) + 1))
    if n > dense_ranks:
        step = (math.log(n) - math.log(dense_ranks)) / points
        extra = {round(math.exp(math.log(dense_ranks) + step * i)) for i in range(1, points + 1)}
        ranks += sorted(r for r in extra if dense_ranks < r <= n)
        if ranks[-1] != n:
            ranks.append(n)
    top = freq[0][1] if freq else 0
    return pd.DataFrame(
        {
            "rank": ranks,
            "count": [freq[r - 1][1] for r in ranks],
            "word": [freq[r - 1][0] for r in ranks],
            "ideal Zipf (top count / rank)": [top / r for r in ranks],
        }
    )


def zipf_chart(stats: CorpusStats) -> alt.Chart:
    """Word count against frequency rank on log-log axes, with the ideal 1/rank line."""
    data = zipf_frame(stats)
    x = alt.X("rank:Q", scale=alt.Scale(type="log"), title="rank (log scale)")
    observed = (
        alt.Chart(data)
        .mark_line(point=alt.OverlayMarkDef(size=18))
        .encode(
            x=x,
            y=alt.Y("count:Q", scale=alt.Scale(type="log"), title="word count (log scale)"),
            tooltip=["rank:Q", "word:N", "count:Q"],
        )
    )
    # Below one occurrence the ideal line only stretches the axis, so cut it there.
    ideal = (
        alt.Chart(data[data["ideal Zipf (top count / rank)"] >= 1])
        .mark_line(strokeDash=[4, 4], color="#999999")
        .encode(x=x, y="ideal Zipf (top count / rank):Q")
    )
    return (observed + ideal).properties(height=320)


def inventory_frame(stats: CorpusStats) -> pd.DataFrame:
    """The character inventory as a table, invisible characters made visible."""
    total = max(sum(row.count for row in stats.char_inventory), 1)
    return pd.DataFrame(
        {
            "char": [visible_char(r) for r in stats.char_inventory],
            "code point": [r.codepoint for r in stats.char_inventory],
            "name": [r.name for r in stats.char_inventory],
            "category": [f"{r.category} ({CATEGORY_NAMES.get(r.category, '?')})" for r in stats.char_inventory],
            "script": [r.script for r in stats.char_inventory],
            "count": [r.count for r in stats.char_inventory],
            "share %": [100 * r.count / total for r in stats.char_inventory],
        }
    )


def scripts_frame(stats: CorpusStats) -> pd.DataFrame:
    """Characters per script (occurrences and distinct characters), most frequent first."""
    counts: dict[str, list[int]] = {}
    for row in stats.char_inventory:
        entry = counts.setdefault(row.script, [0, 0])
        entry[0] += row.count
        entry[1] += 1
    ordered = sorted(counts.items(), key=lambda kv: (-kv[1][0], kv[0]))
    return pd.DataFrame(
        {
            "script": [s for s, _ in ordered],
            "characters": [c[0] for _, c in ordered],
            "distinct": [c[1] for _, c in ordered],
        }
    )


def render_summary(corpus: Corpus, stats: CorpusStats) -> None:
    """Headline numbers of the corpus."""
    cols = st.columns(3) + st.columns(3)  # two rows: six numbers do not fit a 1024-pixel screen in one
    cols[0].metric("Documents", format_count(stats.documents), help="Files, rows or records.")
    cols[1].metric("Lines", format_count(stats.lines))
    cols[2].metric("Characters", format_count(stats.chars), help="Unicode code points.")
    cols[3].metric("Bytes (UTF-8)", format_bytes(stats.bytes), help=f"{format_count(stats.bytes)} bytes")
    cols[4].metric("Words", format_count(stats.words), help="Runs of letters, marks, digits and _ (don't = 1 word).")
    cols[5].metric(
        "Distinct words",
        format_count(stats.unique_words),
        help=f"{format_count(stats.hapax)} of them occur only once.",
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


def render_words(stats: CorpusStats) -> None:
    """Top words table beside the rank-frequency (Zipf) plot."""
    left, right = st.columns([2, 3])
    with left:
        st.subheader("Top words")
        if not stats.word_freq:
            st.info("This corpus has no words (only punctuation, symbols or emoji).")
        else:
            st.dataframe(
                top_words_frame(stats),
                hide_index=True,
                height=320,
                column_config={"share %": st.column_config.NumberColumn(format="%.2f")},
            )
    with right:
        st.subheader("Rank–frequency (Zipf) plot")
        if len(stats.word_freq) < 3:
            st.info("Too few distinct words for a rank–frequency plot; try a larger corpus.")
        else:
            st.altair_chart(zipf_chart(stats), width="stretch")
            st.caption(
                "Each point is a word: its count against its rank, both on log scales. Natural "
                "text falls close to the dashed line (count ∝ 1/rank, Zipf's law): a few words "
                "are very common and most are rare — the long tail subword tokenizers exist for."
            )


def render_characters(stats: CorpusStats) -> None:
    """The character inventory with Unicode category and script, plus a per-script summary."""
    st.subheader("Character inventory")
    st.caption(
        f"{format_count(len(stats.char_inventory))} distinct characters. Invisible ones are shown "
        "by a symbol or code point; combining marks on a dotted circle ◌."
    )
    left, right = st.columns([3, 1])
    with left:
        st.dataframe(
            inventory_frame(stats),
            hide_index=True,
            height=360,
            column_config={"share %": st.column_config.NumberColumn(format="%.3f")},
        )
    with right:
        scripts = scripts_frame(stats)
        st.dataframe(scripts, hide_index=True, height=min(360, 38 + 35 * len(scripts)))


def render_preview(corpus: Corpus) -> None:
    """The beginning of the corpus as plain text."""
    shown = corpus.head(PREVIEW_CHARS)
    total = corpus.num_chars
    label = "Preview" if total <= PREVIEW_CHARS else (
        f"Preview (first {format_count(PREVIEW_CHARS)} of {format_count(total)} characters)"
    )
    st.subheader(label)
    st.code(shown, language=None, wrap_lines=True, height=260 if len(shown) > 800 else "content")
