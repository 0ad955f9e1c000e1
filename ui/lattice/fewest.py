"""The Lattice page's "Fewest tokens" tab: PathPiece's minimum-token path beside Viterbi's for the
piece on show, the ties between shortest paths, and a measurement on the active corpus of what
fewer tokens cost in likelihood (:mod:`tokenizer_core.min_tokens`).

>>> course_counts()[:2]
[('pun', 12), ('hug', 10)]
"""

from __future__ import annotations

import math
import random

import pandas as pd
import streamlit as st

from tokenizer_core.min_tokens import (
    FewestReport,
    compare_on_pieces,
    corpus_pieces,
    fewest_count,
    fewest_tokens,
    longest_match,
)
from tokenizer_core.unigram.explain import COURSE_WORDS
from tokenizer_core.unigram.lattice import Lattice, Segmentation
from ui import session as state
from ui import url_state
from ui.lattice import PREFIX
from ui.lattice.choices import Chosen
from ui.widgets import export
from ui.widgets.safe_html import render_html
from ui.widgets.text import escape_markdown
from ui.widgets.tokens import chips_html, visible_whitespace

SEED = PREFIX + "fewest_seed"
FEWEST_PARAMS = (url_state.integer(SEED, SEED, default=0, lo=0, hi=10**6),)
_MEASURED = PREFIX + "fewest_measured"  # {(model label, corpus digest): FewestReport}
MAX_CHARS = 200_000  # of the corpus, pre-tokenized for the measurement
TOP = 3000  # distinct pieces measured, commonest first
FINDING = ("PathPiece (Schmidt et al., 2024) segments every text into the fewest tokens its vocabulary "
           "allows. The authors trained 64 language models and found that fewer tokens did not make better "
           "models: how the vocabulary is built and how text is pre-tokenized mattered more.")


def course_counts() -> list[tuple[str, int]]:
    """The course corpus' words with their counts, commonest first."""
    return sorted(COURSE_WORDS.items(), key=lambda kv: (-kv[1], kv[0]))


def path_chips_html(path: Segmentation) -> str:
    """A path's pieces as escaped token chips (an unknown piece has no id, so no id colour)."""
    return chips_html((None if e.unknown else e.id, e.piece) for e in path.edges)


def _row(title: str, path: Segmentation) -> None:
    st.markdown(f"**{title}**: {len(path.edges)} tokens · score {path.log_prob:.4f} "
                f"(P = {math.exp(path.log_prob):.3g})")
    render_html(path_chips_html(path))


def render_fewest(lattice: Lattice, chosen: Chosen) -> None:
    """The tab's body for ``lattice`` (the piece on show) and the model it came from."""
    st.caption(escape_markdown(FINDING))
    best = lattice.viterbi()
    fewest = fewest_tokens(lattice)
    _row("Viterbi: the most likely path", best)
    _row("Fewest tokens (PathPiece; on ties, the longest last token)", fewest)
    count = fewest_count(lattice)
    seed = int(st.number_input("Seed for a random tie-break (PathPieceR)", min_value=0, max_value=10**6, key=SEED,
                               help="Walking back from the end, one of the tied last tokens is drawn."))
    _row("Fewest tokens, ties drawn at random", fewest_tokens(lattice, tie="random", rng=random.Random(seed)))
    _row("Greedy longest match (not always the fewest)", longest_match(lattice))
    st.markdown(escape_markdown(
        f"{count.paths:,} different segmentation{'s' if count.paths != 1 else ''} of this piece use "
        f"the fewest, {count.tokens:,} token{'s' if count.tokens != 1 else ''}. "
        + ("Viterbi's path is one of them." if len(best.edges) == count.tokens
           else f"Viterbi's path takes {len(best.edges) - count.tokens:,} more: the model finds it "
                f"{math.exp(best.log_prob - fewest.log_prob):,.3g} times likelier.")))
    _render_corpus(chosen)


def _measure(chosen: Chosen) -> FewestReport:
    if chosen.tokenizer is None:
        return compare_on_pieces(chosen.model, course_counts())
    tok = chosen.tokenizer
    counted = corpus_pieces(state.active_corpus().lines(), normalizer=tok.normalizer, pre_tokenizer=tok.pre_tokenizer,
                            max_chars=MAX_CHARS, top=TOP)
    return compare_on_pieces(chosen.model, counted)


def _render_corpus(chosen: Chosen) -> None:
    st.subheader("On the corpus", anchor=False)
    where = "the course corpus" if chosen.tokenizer is None else (
        f"the active corpus' first {MAX_CHARS:,} characters (its {TOP:,} commonest pieces)")
    key = (chosen.label, "course" if chosen.tokenizer is None else state.active_corpus_key())
    measured = st.session_state.setdefault(_MEASURED, {})
    if key not in measured:
        if chosen.tokenizer is not None and not st.button("Measure on the corpus", key=PREFIX + "fewest_measure",
                                                          help=f"Segment {where} both ways"):
            return
        measured.clear()  # one measurement kept per session
        with st.spinner(f"Segmenting {where} both ways…"):  # a quarter of a second on 200,000 characters
            measured[key] = _measure(chosen)
    report: FewestReport = measured[key]
    if not report.viterbi_tokens:
        st.info("The corpus gave this model no pieces to measure.")
        return
    lost = report.viterbi_log_prob - report.fewest_log_prob
    c1, c2, c3 = st.columns(3)
    c1.metric("Tokens saved", f"{report.tokens_saved:.2%}",
              help=f"{report.viterbi_tokens:,} tokens with Viterbi, {report.fewest_tokens:,} with the fewest-token paths")
    c2.metric("Pieces segmented differently", f"{report.occurrences_differing / report.occurrences:.2%}",
              help=f"{report.occurrences_differing:,} of {report.occurrences:,} occurrences "
                   f"({report.pieces_differing:,} of {report.pieces:,} distinct pieces)")
    c3.metric("Log-likelihood given up", f"{lost:,.1f} nats",
              help="Summed over the occurrences: how much less likely the model finds the fewest-token paths")
    st.markdown(escape_markdown(
        f"Measured on {where}: the fewest-token paths save {report.tokens_saved:.2%} of the tokens and give up "
        f"{lost:,.1f} nats of log-likelihood, {report.nats_per_token_saved:,.2f} nats per token saved."))
    if report.examples:
        frame = pd.DataFrame({
            "piece": [visible_whitespace(d.piece) for d in report.examples],
            "count": [d.count for d in report.examples],
            "Viterbi": [" | ".join(visible_whitespace(p) for p in d.viterbi) for d in report.examples],
            "fewest tokens": [" | ".join(visible_whitespace(p) for p in d.fewest) for d in report.examples],
            "nats given up": [d.viterbi_log_prob - d.fewest_log_prob for d in report.examples],
        })
        export.table(frame, key=PREFIX + "fewest_table", name="fewest tokens vs viterbi", hide_index=True,
                     column_config={"nats given up": st.column_config.NumberColumn(format="%.3f")})
