"""The vocabulary-size sweep on the Compare page: settings, a run with progress and stop, and the
charts of held-out metrics against vocabulary size with the knee marked.

Stopping: a click on *Stop* (or on any other widget) makes Streamlit stop this run, which it does
by raising a control exception inside the next Streamlit call, here the progress bar's update, and
start the next run at once, in parallel. The progress callback catches that exception only to hold
it back: the sweep is told to stop, hands over the sizes it finished
(:class:`~tokenizer_core.analysis.sweep.SweepCancelled`), they are kept in the session (in a box it
already holds: :class:`SweepBox`), and the exception is raised again. The next run waits for that hand-over (an event in the session) before
it draws the result. No finished size is lost.

Keys in ``st.session_state`` owned here start with ``compare_sweep_``. A finished sweep is kept for
every session in ``cache.SWEEPS`` under the corpus digest and the settings.

>>> [p.name for p in URL_PARAMS][:2]
['compare_sweep_algorithm', 'compare_sweep_range']
"""

from __future__ import annotations

import html
import math
import threading
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import Optional

import pandas as pd
import plotly.graph_objects as go
import streamlit as st
from plotly.subplots import make_subplots
from streamlit.runtime.scriptrunner_utils.exceptions import ScriptControlException

from tokenizer_core.analysis.sweep import SweepCancelled, SweepRow, knee, log_sizes, split_lines, sweep
from tokenizer_core.corpus.documents import Corpus
from tokenizer_core.errors import TokenizerError
from ui import cache, url_state
from ui.compare import PREFIX
from ui.tokenizers.add import ALGORITHMS, Algorithm, TrainRequest
from ui.widgets.cancel import cancel_button
from ui.widgets.text import escape_markdown

SWEEP = PREFIX + "sweep_"  # the sweep panel's keys, inside the page's prefix
BOX = SWEEP + "box"  # a SweepBox: written to in place, never re-assigned (see _box)
#: How long a new run waits for a stopped sweep to hand over its finished sizes.
STOP_WAIT_S = 60
SIZE_CHOICES = [256, 500, 1000, 2000, 4000, 8000, 16000, 32000, 64000]
ALGORITHM, RANGE, POINTS, HELDOUT = SWEEP + "algorithm", SWEEP + "range", SWEEP + "points", SWEEP + "heldout"
DEFAULT_RANGE = (500, 16000)


def _size(raw: str) -> int:
    if raw not in {str(s) for s in SIZE_CHOICES}:
        raise ValueError(f"{raw[:20]!r} is not one of {', '.join(map(str, SIZE_CHOICES))}")
    return int(raw)


URL_PARAMS = (
    url_state.choice(ALGORITHM, ALGORITHM, [a.value for a in Algorithm], default=Algorithm.BPE_BYTES.value),
    # Two sizes, repeated in the address (``?compare_sweep_range=500&compare_sweep_range=16000``).
    url_state.UrlParam(RANGE, RANGE, DEFAULT_RANGE, _size, many=True, what="the sizes"),
    url_state.integer(POINTS, POINTS, default=6, lo=2, hi=12),
    url_state.number(HELDOUT, HELDOUT, default=0.1, lo=0.05, hi=0.5),
)


def after_seed() -> None:
    """The range slider takes a pair (a list from the address or the seed would be read as one size);
    call after seeding, every run, so the address' default check compares like with like."""
    value = st.session_state.get(RANGE)
    if isinstance(value, list):
        st.session_state[RANGE] = tuple(value) if len(value) == 2 else DEFAULT_RANGE
PANELS = (("chars_per_token", "characters per token", ".2f"), ("fertility", "tokens per word", ".2f"),
          ("unk_rate", "UNK rate", ".2%"), ("utilization", "vocabulary used", ".1%"))


@dataclass(frozen=True)
class SweepRequest:
    """The sweep's settings; hashable, so they key the cache and the stored result."""

    corpus_digest: str
    algorithm: Algorithm
    sizes: tuple[int, ...]
    heldout_fraction: float


@dataclass
class SweepBox:
    """The session's last sweep and whether a run is still working on one. A stopped run may no
    longer assign to ``st.session_state`` (an assignment is a yield point, where Streamlit raises its
    stop again), so it writes into this box, which the session already holds."""

    result: Optional["SweepResult"] = None
    running: Optional[threading.Event] = None


def _box() -> SweepBox:
    return st.session_state.setdefault(BOX, SweepBox())


@dataclass(frozen=True)
class SweepResult:
    request: SweepRequest
    rows: tuple[SweepRow, ...]
    cancelled: bool


def _run(request: SweepRequest, corpus: Corpus, progress: Callable, should_stop: Callable) -> list[SweepRow]:
    rows = cache.SWEEPS.get((request,))  # the request holds the corpus digest and every setting
    if rows is None:
        train, heldout = split_lines(list(corpus.lines()), heldout_fraction=request.heldout_fraction)
        options = TrainRequest(request.algorithm, request.sizes[-1]).options()
        rows = tuple(sweep(request.algorithm.trainer, train, heldout, sizes=list(request.sizes), options=options,
                           progress=progress, should_stop=should_stop))
        cache.SWEEPS.put((request,), rows)  # a cancelled sweep raised above and is not stored
    return list(rows)


HOW = {"bpe": "BPE trains once at the largest size and reads each smaller one off its merge list.",
       "wordpiece": "WordPiece trains once and cuts its vocabulary to each size.",
       "unigram": "Unigram trains once per size."}


def _settings(corpus: Corpus) -> SweepRequest:
    c1, c2, c3 = st.columns([2, 3, 1])
    algorithm = Algorithm(c1.selectbox("Algorithm", list(ALGORITHMS), format_func=ALGORITHMS.get, key=ALGORITHM))
    # value= only tells Streamlit it is a range slider (two handles); the session's pair wins.
    lo, hi = c2.select_slider("Vocabulary sizes", SIZE_CHOICES, value=DEFAULT_RANGE, key=RANGE)
    points = c3.number_input("Sizes", min_value=2, max_value=12, key=POINTS)
    fraction = st.slider("Held-out share of the corpus lines", 0.05, 0.5, step=0.05, key=HELDOUT, format="%.2f")
    sizes = tuple(log_sizes(int(lo), int(hi), int(points)))
    st.caption("Sizes: " + ", ".join(f"{s:,}" for s in sizes) + ". " + HOW[algorithm.trainer])
    return SweepRequest(cache.corpus_digest(corpus), algorithm, sizes, float(fraction))


def _execute(request: SweepRequest, corpus: Corpus) -> None:
    box = _box()
    done = box.running = threading.Event()
    try:
        _sweep_with_progress(request, corpus, box)
    finally:
        done.set()


def _wait_for_a_stopped_run() -> None:
    """With fast reruns, Streamlit starts the next run at once, while the stopped one is still
    finishing its current step; wait for it, so the sizes it finished are there to show."""
    running = _box().running
    if running is not None and not running.is_set():
        with st.spinner("Stopping the sweep after its current step…"):
            running.wait(timeout=STOP_WAIT_S)


def _sweep_with_progress(request: SweepRequest, corpus: Corpus, box: SweepBox) -> None:
    bar = st.progress(0.0, text="Starting the sweep…")
    held: list[BaseException] = []

    def progress(done: int, total: int, message: str) -> None:
        if held:
            return
        try:
            bar.progress(min(1.0, done / total) if total else 0.0, text=message or "training")
        except ScriptControlException as control:  # a click asked for a rerun: stop at the next check
            held.append(control)

    try:
        rows, cancelled = _run(request, corpus, progress, lambda: bool(held)), False
    except SweepCancelled as stop:
        rows, cancelled = stop.rows, True
    except TokenizerError as err:
        bar.empty()
        st.error(escape_markdown(str(err)))
        return
    box.result = SweepResult(request, tuple(rows), cancelled)
    if held:
        raise held[0]  # let the rerun the click asked for go ahead, now that the finished sizes are kept
    bar.empty()


def _short(size: int) -> str:
    """Axis label of a vocabulary size: 500, 1k, 2.5k, 32k."""
    return f"{size / 1000:g}k" if size >= 1000 else str(size)


def sweep_figure(rows: Sequence[SweepRow], *, title: str) -> go.Figure:
    """Four panels of held-out metrics against vocabulary size (log axis), the knee of characters
    per token marked in each."""
    fig = make_subplots(rows=2, cols=2, subplot_titles=[label for _, label, _ in PANELS], vertical_spacing=0.18)
    at = knee(rows)
    sizes = [r.vocab_size for r in rows]
    for i, (field, label, fmt) in enumerate(PANELS):
        r, c = divmod(i, 2)
        values = [getattr(row, field) for row in rows]
        fig.add_trace(go.Scatter(x=sizes, y=values, mode="lines+markers", name=label, showlegend=False,
                                 hovertemplate=f"vocabulary %{{x:,}}<br>{label} %{{y:{fmt}}}<extra></extra>"),
                      row=r + 1, col=c + 1)
        fig.update_xaxes(type="log", tickvals=sizes, ticktext=[_short(s) for s in sizes],
                         title_text="vocabulary size" if r == 1 else None, row=r + 1, col=c + 1)
        if fmt.endswith("%"):
            top = max([v for v in values if v is not None] + [0.0])
            fig.update_yaxes(tickformat=".0%" if top >= 0.1 else ".1%", range=[0, max(top * 1.15, 0.01)],
                             row=r + 1, col=c + 1)
        if at is not None:
            fig.add_vline(x=at, line_dash="dash", line_color="#d9480f", row=r + 1, col=c + 1)
    if at is not None:
        fig.add_annotation(x=math.log10(at), y=0.02, xref="x", yref="y domain", text=f" knee ≈ {at:,}",
                           showarrow=False, font=dict(color="#d9480f"), xanchor="left", yanchor="bottom")
    fig.update_layout(height=600, margin=dict(l=10, r=10, t=80, b=10), title=html.escape(title))
    fig.update_yaxes(rangemode="tozero")  # sizes and rates read from zero, never from a cut axis
    return fig


def _show(result: SweepResult) -> None:
    rows = list(result.rows)
    if result.cancelled:
        st.warning(f"The sweep was stopped; {len(rows)} of {len(result.request.sizes)} sizes had finished "
                   "and are shown.")
    if not rows:
        return
    name = result.request.algorithm.label
    st.plotly_chart(sweep_figure(rows, title=f"{name}, held-out {result.request.heldout_fraction:.0%} of the lines"),
                    width="stretch", config={"displayModeBar": False})
    at = knee(rows)
    if at is not None:
        st.markdown(f"**Knee at about {at:,} tokens:** past it, each doubling of the vocabulary buys less "
                    "compression on the held-out text, while the embedding table keeps growing linearly.")
    frame = pd.DataFrame([asdict(r) for r in rows]).drop(columns=["model"])
    st.dataframe(frame, hide_index=True, width="stretch", column_config={
        "vocab_size": st.column_config.NumberColumn("vocabulary", format="localized"),
        "requested_size": st.column_config.NumberColumn("asked for", format="localized"),
        "heldout_tokens": st.column_config.NumberColumn("held-out tokens", format="localized"),
        "chars_per_token": st.column_config.NumberColumn("chars/token", format="%.3f"),
        "fertility": st.column_config.NumberColumn("tokens/word", format="%.3f"),
        "unk_rate": st.column_config.NumberColumn("UNK rate", format="percent"),
        "utilization": st.column_config.NumberColumn("vocab used", format="percent"),
        "embedding_params": st.column_config.NumberColumn("embedding params (d=768)", format="localized"),
        "seconds": st.column_config.NumberColumn("training s", format="%.2f"),
        "derived": st.column_config.CheckboxColumn("read off a larger run"),
    })


def render_sweep(corpus: Corpus) -> None:
    request = _settings(corpus)
    c1, c2 = st.columns([1, 5])
    run = c1.button("Run the sweep", key=SWEEP + "run", type="primary", icon=":material/play_arrow:")
    if run:
        stop = c2.empty()
        with stop.container():  # the sizes already finished are kept (see the module's notes)
            cancel_button(key=SWEEP + "stop", what="The vocabulary-size sweep")
        _execute(request, corpus)
        stop.empty()
    else:
        _wait_for_a_stopped_run()
    result = _box().result
    if result is None:
        st.info("Pick the sizes and press **Run the sweep**: each size is trained on the corpus minus the "
                "held-out lines and scored on those.")
        return
    if result.request != request:
        st.caption("Showing the last sweep; its settings differ from the ones above.")
    _show(result)
