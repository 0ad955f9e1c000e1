"""What the Corpus page shows of a corpus, computed once per corpus content and shared.

:class:`CorpusOverview` holds the statistics and every table the page draws from them (top words,
Zipf points, character inventory, scripts, the number of words seen once). It is built once per
corpus digest and kept in :data:`ui.cache.CORPUS_STATS`: a rerun of the page (any click) reads the
same object back, with no counting, no copy of the word-frequency list (Streamlit's data cache unpickled
it on every rerun) and no table rebuilt. Nothing here is changed after it is built, since every
session showing that corpus reads the same object.

>>> from tokenizer_core.corpus.loading import corpus_from_text
>>> o = build_overview(corpus_from_text("the cat and the hat"))
>>> o.hapax, list(o.top_words["word"][:2])
(3, ['the', 'and'])
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Optional

import pandas as pd

from tokenizer_core.corpus.default import cache_dir
from tokenizer_core.corpus.loading import Corpus
from tokenizer_core.corpus.stats import CATEGORY_NAMES, CharInfo, CorpusStats, corpus_stats
from tokenizer_core.corpus.stats_cache import sample_stats
from tokenizer_core.types import ProgressCallback, no_progress
from ui import cache
from ui.widgets.text import sample_name

TOP_WORDS = 200

_VISIBLE = {" ": "·", "\n": "⏎", "\t": "⇥", "\r": "␍"}


@dataclass(frozen=True)
class CorpusOverview:
    """A corpus' statistics and the tables drawn from them (never changed: sessions share it)."""

    stats: CorpusStats
    hapax: int
    top_words: pd.DataFrame
    zipf: pd.DataFrame
    inventory: pd.DataFrame
    scripts: pd.DataFrame


def overview_of(corpus: Corpus, key: str) -> Optional[CorpusOverview]:
    """The overview of ``corpus``, whose content digest is ``key`` (:func:`ui.session.active_corpus_key`):
    from :data:`ui.cache.CORPUS_STATS`, or counted now under a progress bar with Cancel and stored;
    None when this session cancelled the count (the page then offers to start it again)."""
    return cache.CORPUS_STATS.get_or_run((key,), lambda progress: build_overview(corpus, progress=progress),
                                         job=f"stats:{key}", what="Counting words and characters")


def build_overview(corpus: Corpus, *, progress: ProgressCallback = no_progress) -> CorpusOverview:
    """Count ``corpus`` and build every table of the page (a bundled sample's statistics come from the
    disk cache after the first count, so a fresh server's first page does not count)."""
    if sample_name(corpus) is not None:
        stats = sample_stats(corpus, folder=cache_dir())
    else:
        stats = corpus_stats(corpus, progress=progress)
    return CorpusOverview(
        stats=stats,
        hapax=sum(1 for _, count in stats.word_freq if count == 1),
        top_words=top_words_frame(stats),
        zipf=zipf_frame(stats),
        inventory=inventory_frame(stats),
        scripts=scripts_frame(stats),
    )


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
    return zipf_points(stats.word_freq, dense_ranks=dense_ranks, points=points)


def zipf_points(freq: Sequence[tuple[str, int]], *, dense_ranks: int = 200, points: int = 200) -> pd.DataFrame:
    """:func:`zipf_frame` of any ``(word, count)`` list sorted by count, most frequent first (the
    pieces of a counts file too).

    >>> list(zipf_points([("a", 4), ("b", 2), ("c", 1)])["ideal Zipf (top count / rank)"])
    [4.0, 2.0, 1.3333333333333333]
    """
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


def inventory_frame(stats: CorpusStats) -> pd.DataFrame:
    """The character inventory as a table, invisible characters made visible."""
    rows = stats.char_inventory
    total = max(sum(row.count for row in rows), 1)
    return pd.DataFrame(
        {
            "char": [visible_char(r) for r in rows],
            "code point": [r.codepoint for r in rows],
            "name": [r.name for r in rows],
            "category": [f"{r.category} ({CATEGORY_NAMES.get(r.category, '?')})" for r in rows],
            "script": [r.script for r in rows],
            "count": [r.count for r in rows],
            "share %": [100 * r.count / total for r in rows],
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
