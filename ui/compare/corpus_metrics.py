"""The Compare page's metrics over the corpus: each tokenizer is measured once per corpus content
(``cache.COMPARE_ROWS``, keyed by the corpus digest and the tokenizer's digest, never by its name),
and the settings that only rescale a row (d_model, price, the attention baseline) are applied here,
so changing them costs no encoding.

>>> from tokenizer_core.analysis.compare import compare_rows, granularity_tokenizer
>>> char, byte = granularity_tokenizer("char", ["ab\\n"]), granularity_tokenizer("byte", [])
>>> raw = [("char", measure(char, ["ab", "é"])), ("byte", measure(byte, ["ab", "é"]))]
>>> settle(raw, d_model=8, price=1.0, baseline="char") == compare_rows(
...     [("char", char), ("byte", byte)], ["ab", "é"], d_model=8, price_per_1k=1.0, baseline="char")
True
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Optional

import streamlit as st

from tokenizer_core.analysis.compare import CompareRow, compare_rows
from tokenizer_core.analysis.metrics import ratio
from tokenizer_core.corpus.documents import Corpus
from tokenizer_core.pipeline import Tokenizer
from ui import cache
from ui.compare.choices import Compared
from ui.widgets.text import escape_markdown

#: How much of the corpus the corpus-wide metrics encode (characters, whole lines).
CORPUS_METRIC_CHARS = 200_000


def corpus_head(corpus: Corpus, *, max_chars: int = CORPUS_METRIC_CHARS) -> list[str]:
    """The corpus' first lines, up to ``max_chars`` characters (reading no further, however big it is).

    >>> corpus_head(Corpus("c", ("ab\\ncd\\nef",)), max_chars=4)
    ['ab\\n', 'cd\\n']
    """
    lines, size = [], 0
    for line in corpus.lines():
        if size >= max_chars:
            break
        lines.append(line)
        size += len(line)
    return lines


def measure(tok: Tokenizer, lines: Sequence[str]) -> CompareRow:
    """One tokenizer's row with nothing rescaled: d_model 1, no price, the absolute attention cost."""
    return compare_rows([("", tok)], lines, d_model=1, price_per_1k=0.0)[0]


def settle(measured: Sequence[tuple[str, CompareRow]], *, d_model: int, price: float,
           baseline: Optional[str]) -> list[CompareRow]:
    """Rows of :func:`measure` named and rescaled, equal to ``compare_rows`` with these settings."""
    unit = next((row.attention_cost for name, row in measured if name == baseline), None)
    return [replace(row, name=name, embedding_params=row.vocab_size * d_model, cost=row.tokens / 1000 * price,
                    attention_cost=row.attention_cost if baseline is None else ratio(row.attention_cost, unit or 0))
            for name, row in measured]


def _key(corpus_digest: str, c: Compared) -> cache.Key:
    return (corpus_digest, c.digest, CORPUS_METRIC_CHARS)


def corpus_rows(chosen: Sequence[Compared], corpus: Corpus, *, d_model: int, price: float,
                baseline: Optional[str]) -> list[CompareRow]:
    """Every chosen tokenizer measured on the corpus' head; those not measured yet are, with a progress bar."""
    digest = cache.corpus_digest(corpus)
    missing = [c for c in chosen if _key(digest, c) not in cache.COMPARE_ROWS]
    if missing:
        lines = corpus_head(corpus)
        bar = st.progress(0.0)
        for i, c in enumerate(missing):
            bar.progress(i / len(missing), text=escape_markdown(
                f"Measuring {c.name} on the corpus ({i + 1} of {len(missing)}; once per corpus and tokenizer)…"))
            cache.COMPARE_ROWS.put(_key(digest, c), measure(c.tokenizer, lines))
        bar.empty()
    measured = []
    for c in chosen:
        row = cache.COMPARE_ROWS.get(_key(digest, c))
        if row is None:  # dropped by another session's entries meanwhile: measure it again
            row = measure(c.tokenizer, corpus_head(corpus))
        measured.append((c.name, row))
    return settle(measured, d_model=d_model, price=price, baseline=baseline)
