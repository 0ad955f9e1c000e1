"""The Lattice page's tables and charts: the Viterbi table, the n-best list and entropy, subword
regularization (sampled against exact), BPE-dropout, and how a Unigram model was trained.
Token text reaches the browser as dataframe cell text, plotly text escaped by hand, or chips."""

from __future__ import annotations

import html
import math
from typing import Optional

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from tokenizer_core.bpe.dropout import dropout_frequencies
from tokenizer_core.errors import TokenizerError
from tokenizer_core.pipeline import Tokenizer
from tokenizer_core.unigram.explain import (
    COURSE_WORDS,
    course_model,
    entropy,
    exact_distribution,
    pruning_losses,
    sample_frequencies,
    viterbi_table,
)
from tokenizer_core.unigram.lattice import Lattice
from tokenizer_core.unigram.model import Unigram
from ui import url_state
from ui.lattice import PREFIX
from ui.shelf import state as shelf
from ui.widgets import display, export, shelf_picker
from ui.widgets.export_theme import LIGHT, ChartStyle
from ui.widgets.safe_html import render_html
from ui.widgets.shelf_picker import Picked
from ui.widgets.text import escape_markdown
from ui.widgets.tokens import chips_html, scheme_for, visible_whitespace

MAX_DRAWS = 20_000


DROPOUT_REFERENCES = ("gpt2", "cl100k_base", "mistral_v1")
#: The tabs' inputs in the address (named by their widget keys, as older links name them).
URL_PARAMS = (
    url_state.integer(PREFIX + "nbest", PREFIX + "nbest", default=5, lo=1, hi=100),
    url_state.number(PREFIX + "alpha", PREFIX + "alpha", default=0.1, lo=0.0, hi=2.0),
    url_state.integer(PREFIX + "nbest_size", PREFIX + "nbest_size", default=-1, lo=-1, hi=64),
    url_state.integer(PREFIX + "draws", PREFIX + "draws", default=1000, lo=1, hi=MAX_DRAWS),
    url_state.integer(PREFIX + "seed", PREFIX + "seed", default=0, lo=0, hi=2**31 - 1),
    shelf_picker.param(PREFIX + "bpe", PREFIX + "bpe"),
    url_state.text(PREFIX + "dropout_word", PREFIX + "dropout_word", default="unrelated", what="the word", limit=60),
    url_state.number(PREFIX + "dropout_p", PREFIX + "dropout_p", default=0.1, lo=0.0, hi=1.0),
    url_state.integer(PREFIX + "dropout_draws", PREFIX + "dropout_draws", default=200, lo=1, hi=2000),
    url_state.integer(PREFIX + "dropout_seed", PREFIX + "dropout_seed", default=0, lo=0, hi=2**31 - 1),
    url_state.integer(PREFIX + "round", PREFIX + "round", default=None, lo=0, hi=10_000),
)


#: Under the Viterbi table and the n-best list: the two probabilities they show, and why they differ.
PROBABILITIES = ("Two probabilities: a path's own, P(path) = exp(score), the product of its pieces' probabilities "
                 "(small, since every piece costs), and its share of all segmentations, P(path | text) = P(path) / "
                 "Σ P over every way to split the text (the n-best list's last column). The same split has both.")


def _seg(pieces) -> str:  # noqa: ANN001
    return " | ".join(visible_whitespace(p) for p in pieces)


def render_viterbi(lattice: Lattice) -> None:
    rows = viterbi_table(lattice)
    frame = pd.DataFrame({
        "position": [r.position for r in rows],
        "character": [visible_whitespace(r.char) for r in rows],
        "candidates (start → piece: score)": ["; ".join(f"{c.start} → {visible_whitespace(c.piece)}: {c.score:.3f}"
                                                       for c in r.candidates) for r in rows],
        "best piece": [visible_whitespace(r.best_piece) for r in rows],
        "back-pointer": [r.best_start for r in rows],
        "best score": [r.best_score for r in rows],
    })
    export.table(frame, key=PREFIX + "viterbi_table", name="viterbi table", hide_index=True, column_config={
        "best score": st.column_config.NumberColumn(format="%.4f", help="log P of the best path to this position")})
    best = lattice.viterbi()
    share = math.exp(best.log_prob - lattice.log_partition())
    st.markdown(escape_markdown(
        f"Back from position {len(lattice.text)}: {_seg(best.pieces)} · score {best.log_prob:.4f} "
        f"(path probability {math.exp(best.log_prob):.3g}, share of all segmentations {share:.4f})."))
    st.caption(PROBABILITIES)


def render_nbest(lattice: Lattice, *, k: int) -> None:
    log_z = lattice.log_partition()
    paths = lattice.nbest(k)
    frame = pd.DataFrame({"rank": range(1, len(paths) + 1), "segmentation": [_seg(p.pieces) for p in paths],
                          "score": [p.log_prob for p in paths],
                          "path probability": [math.exp(p.log_prob) for p in paths],
                          "probability": [math.exp(p.log_prob - log_z) for p in paths]})
    export.table(frame, key=PREFIX + "nbest_table", name="n-best", hide_index=True, column_config={
        "score": st.column_config.NumberColumn("score (log P)", format="%.4f",
                                               help="Sum of the pieces' log-probabilities."),
        "path probability": st.column_config.NumberColumn("path probability P(path)", format="%.3g",
                                                          help="exp(score): the product of the pieces' probabilities."),
        "probability": st.column_config.NumberColumn("share P(path | text)", format="%.4f",
                                                     help="P(path) divided by the sum of P over every segmentation "
                                                          "of the text.")})
    st.caption(PROBABILITIES)
    h = entropy(lattice)
    c1, c2, c3 = st.columns(3)
    c1.metric("Entropy", f"{h:.3f} nats", help="Of the distribution over all segmentations of this piece.")
    c2.metric("In bits", f"{h / math.log(2):.3f}")
    c3.metric("Segmentations as likely as that", f"{math.exp(h):.2f}", help="exp(entropy): the perplexity.")


def sampling_figure(labels: list[str], exact: list[float], sampled: list[float], *, draws: int,
                    style: ChartStyle = LIGHT) -> go.Figure:
    """Exact probability against the share of ``draws`` samples, a pair of bars per segmentation
    (``labels``: token text, escaped here)."""
    escaped = [html.escape(lbl) for lbl in labels]
    fig = go.Figure([
        go.Bar(name="exact probability", x=escaped, y=exact, marker_color=style.blue),
        go.Bar(name=f"share of {draws:,} samples", x=escaped, y=sampled, marker_color=style.accent),
    ])
    fig.update_layout(barmode="group", height=style.size(360), margin=dict(l=10, r=10, t=style.size(30), b=10),
                      yaxis_tickformat=".0%", legend=dict(orientation="h", y=1.02, yanchor="bottom"))
    return fig


def training_figure(rounds, *, style: ChartStyle = LIGHT) -> go.Figure:  # noqa: ANN001 (the trainer's rounds)
    """Vocabulary size (log axis) and loss per word against the EM round."""
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=[r.round for r in rounds], y=[r.vocab_size for r in rounds], name="vocabulary size",
                             mode="lines+markers", line=dict(color=style.blue), marker=dict(color=style.blue)))
    fig.add_trace(go.Scatter(x=[r.round for r in rounds], y=[r.loss for r in rounds], name="loss per word",
                             mode="lines+markers", yaxis="y2", line=dict(color=style.accent),
                             marker=dict(color=style.accent)))
    fig.update_layout(height=style.size(320), margin=dict(l=10, r=10, t=style.size(30), b=10), xaxis_title="EM round",
                      yaxis=dict(title="vocabulary size", type="log"), legend=dict(orientation="h", y=1.1),
                      yaxis2=dict(title="loss per word", overlaying="y", side="right"))
    return fig


def render_sampling(lattice: Lattice) -> None:
    c1, c2, c3, c4 = st.columns(4)
    alpha = c1.slider("alpha", 0.0, 2.0, step=0.05, key=PREFIX + "alpha",
                      help="P(segmentation) ∝ P^alpha: 0 is uniform, large values approach Viterbi.")
    nbest_size = int(c2.number_input("nbest_size", min_value=-1, max_value=64, key=PREFIX + "nbest_size",
                                     help="-1: sample from every segmentation; 0 or 1: always Viterbi; "
                                          "k > 1: from the k best."))
    draws = int(c3.number_input("Samples", min_value=1, max_value=MAX_DRAWS, step=100, key=PREFIX + "draws"))
    seed = int(c4.number_input("Seed", min_value=0, max_value=2**31 - 1, key=PREFIX + "seed"))
    try:
        counts = sample_frequencies(lattice, draws=draws, seed=seed, alpha=alpha, nbest_size=nbest_size)
        exact = exact_distribution(lattice, alpha=alpha, nbest_size=nbest_size)
    except TokenizerError as err:
        st.error(escape_markdown(str(err)))
        return
    shown = exact[:15]
    labels = [_seg(p.pieces) for p in shown]
    sampled = [counts.get(p.pieces, 0) / draws for p in shown]
    export.plotly_chart(lambda style: sampling_figure(labels, [p.probability for p in shown], sampled, draws=draws,
                                                      style=style),
                        key=PREFIX + "sampling_chart", name="subword sampling")
    frame = pd.DataFrame({"segmentation": labels, "exact": [p.probability for p in shown], "sampled": sampled})
    export.table(frame, key=PREFIX + "sampling_table", name="subword sampling", hide_index=True, column_config={
        "exact": st.column_config.NumberColumn(format="%.4f"), "sampled": st.column_config.NumberColumn(format="%.4f")})
    if len(exact) > len(shown):
        st.caption(f"The {len(shown)} most likely of {len(exact):,}+ segmentations are shown.")


def _dropout_offered(item: shelf.ShelfItem) -> bool:
    # A few references are enough to pick from; loading each costs a second.
    return item.kind != shelf.Kind.REFERENCE or item.name in DROPOUT_REFERENCES


def render_dropout() -> None:
    c1, c2 = st.columns([2, 1])
    picked = shelf_picker.pick_one(key=PREFIX + "bpe", label="BPE tokenizer", prefer=("gpt2",),
                                   offer=_dropout_offered, where=c1)
    word = c2.text_input("Word", max_chars=60, key=PREFIX + "dropout_word")
    c3, c4, c5 = st.columns(3)
    p = c3.slider("Dropout p", 0.0, 1.0, step=0.05, key=PREFIX + "dropout_p",
                  help="Each merge is skipped with probability p at each step (BPE-dropout).")
    draws = int(c4.number_input("Draws", min_value=1, max_value=2000, key=PREFIX + "dropout_draws"))
    seed = int(c5.number_input("Seed", min_value=0, max_value=2**31 - 1, key=PREFIX + "dropout_seed"))
    if not isinstance(picked, Picked):
        return
    tok: Tokenizer = picked.tokenizer
    segment = getattr(tok.model, "segment", None)
    if segment is None or isinstance(tok.model, Unigram):
        st.info(f"BPE-dropout needs a BPE model; this one is {type(tok.model).__name__}.")
        return
    pieces = [pc.text for pc in tok.explain(word).pieces] or [word]
    # One generator for all the draws, seeded once: the seed reproduces the table, draws differ.
    counts = dropout_frequencies(tok.model, pieces, dropout=p, draws=draws, seed=seed)
    scheme = scheme_for(tok)
    st.markdown("Without dropout:")
    render_html(chips_html([(tok.token_to_id(t), t) for pc in pieces for t in segment(pc)], scheme=scheme,
                       translate=display.translate()))
    st.markdown(escape_markdown(f"{len(counts)} different segmentations in {draws} draws; the most frequent:"))
    for seg, n in sorted(counts.items(), key=lambda kv: -kv[1])[:8]:
        render_html(dropout_row_html(n / draws, [(tok.token_to_id(t), t) for t in seg], scheme=scheme,
                                     translate=display.translate()))


def dropout_row_html(share: float, tokens: list[tuple[Optional[int], str]], *, scheme: str, translate: bool) -> str:
    """One segmentation's row: its share of the draws, then its tokens as chips (escaped).

    >>> "&lt;b&gt;" in dropout_row_html(0.25, [(1, "<b>")], scheme="plain", translate=False)
    True
    >>> ">&lt;1%<" in dropout_row_html(1 / 200, [(1, "b")], scheme="plain", translate=False)
    True
    """
    shown = "&lt;1%" if 0 < share < 0.01 else f"{share:.0%}"  # one draw in 200 is not "0%"
    return (f'<div style="display:flex;gap:8px;align-items:center"><span style="width:4em;text-align:right">'
            f'{shown}</span>{chips_html(tokens, scheme=scheme, translate=translate)}</div>')


def render_training(model: Unigram, *, is_course: bool) -> None:
    if is_course:
        st.markdown("The course's pruning step: the corpus loss (Σ count × −log P of each word's best split) "
                    "with every piece, and what removing each piece longer than one character would add.")
        losses = pruning_losses(course_model(), COURSE_WORDS)
        st.metric("Loss with every piece", f"{losses[0].loss_with:.1f}")
        export.table(pd.DataFrame({"piece": [x.piece for x in losses], "loss without it": [x.loss_without for x in losses],
                                   "increase": [x.increase for x in losses],
                                   "words split differently": [", ".join(x.changed) for x in losses]}),
                     key=PREFIX + "pruning_table", name="course pruning", hide_index=True, column_config={
                         "loss without it": st.column_config.NumberColumn(format="%.2f"),
                         "increase": st.column_config.NumberColumn(format="%.2f")})
        st.caption("Pruning drops the pieces whose removal costs least first (here all but hug cost nothing: "
                   "another split scores the same).")
        return
    result = getattr(model, "training", None)
    if result is None:
        st.info("This model was not trained in this app, so its training trace is not known.")
        return
    rounds = result.rounds
    export.plotly_chart(lambda style: training_figure(rounds, style=style), key=PREFIX + "training_chart",
                        name="unigram training rounds")
    export.table(pd.DataFrame([{"round": r.round, "vocabulary": r.vocab_size, "log-likelihood": r.log_likelihood,
                                "loss per word": r.loss, "EM iterations": r.em_iterations, "tokens": r.num_tokens,
                                "pieces removed": len(r.removed)} for r in rounds]),
                 key=PREFIX + "rounds_table", name="unigram training rounds", hide_index=True,
                 column_config={"vocabulary": st.column_config.NumberColumn(format="localized"),
                                "log-likelihood": st.column_config.NumberColumn(format="%.1f"),
                                "loss per word": st.column_config.NumberColumn(format="%.4f"),
                                "tokens": st.column_config.NumberColumn(format="localized"),
                                "pieces removed": st.column_config.NumberColumn(format="localized")})
    if st.session_state.get(PREFIX + "round") not in [r.round for r in rounds]:
        st.session_state[PREFIX + "round"] = rounds[0].round  # another model's rounds, or a link's
    picked = st.selectbox("Pieces removed in round", [r.round for r in rounds], key=PREFIX + "round")
    removed = next(r.removed for r in rounds if r.round == picked)
    frame = pd.DataFrame([{"piece": visible_whitespace(x.piece), "reason": x.reason, "log-prob": x.log_prob,
                           "loss": x.loss} for x in removed])
    if frame.empty:
        st.caption("No piece was removed in this round.")
    else:
        export.table(frame.sort_values("loss", na_position="last").head(300), key=PREFIX + "removed_table",
                     name=f"pieces removed in round {picked}", hide_index=True,
                     column_config={"log-prob": st.column_config.NumberColumn(format="%.3f"),
                                    "loss": st.column_config.NumberColumn(format="%.6f")})
