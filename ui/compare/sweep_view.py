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

>>> [p.name for p in URL_PARAMS][:2], URL_PARAMS[-1].name, all(p.committed for p in URL_PARAMS)
(['compare_sweep_algorithm', 'compare_sweep_range'], 'compare_sweep', True)
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
from ui.corpus.counts import say_no_running_text
from ui.tokenizers.add import ALGORITHMS, Algorithm, TrainRequest
from ui.widgets import export
from ui.widgets.cancel import cancel_button
from ui.widgets.export_theme import LIGHT, ChartStyle, current
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


#: ``?compare_sweep=1``: a sweep is on show (read from a link into this key, for the panel to run).
LINKED = SWEEP + "linked"
#: The settings are a form acted on by *Run the sweep*: the address shows those of the sweep on
#: show (committed when it runs, with ``compare_sweep=1``), not the ones being edited. A link
#: carrying them runs that sweep again when its tab opens (see :func:`render_sweep`).
URL_PARAMS = url_state.form(
    url_state.choice(ALGORITHM, ALGORITHM, [a.value for a in Algorithm], default=Algorithm.BPE_BYTES.value),
    # Two sizes, repeated in the address (``?compare_sweep_range=500&compare_sweep_range=16000``).
    url_state.UrlParam(RANGE, RANGE, DEFAULT_RANGE, _size, many=True, what="the sizes"),
    url_state.integer(POINTS, POINTS, default=6, lo=2, hi=12),
    url_state.number(HELDOUT, HELDOUT, default=0.1, lo=0.05, hi=0.5),
    url_state.flag(PREFIX + "sweep", LINKED, default=False),
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


#: What "vocabulary used" means, where the number appears (panel, table, JSON).
USED_HELP = ("Vocabulary used: the share of the vocabulary's tokens that appear at least once when the "
             "held-out text is encoded. Low at large sizes: many tokens were learned for words the held-out "
             "text never uses, and their embedding rows would rarely be trained.")
#: The narrowest panel the tick labels must fit (half the page at 1024 px, less the margins).
MIN_PANEL_PX = 300


def size_label(size: int) -> str:
    """Axis and table label of a vocabulary size: the whole number, with thousands separators.

    >>> size_label(15028), size_label(500)
    ('15,028', '500')
    """
    return f"{size:,}"


def size_ticks(sizes: Sequence[int], *, font_px: float, panel_px: float = MIN_PANEL_PX,
               keep: Optional[int] = None) -> list[int]:
    """The sizes to label on a log axis ``panel_px`` wide: first and last always (and ``keep``, the
    knee, when given), then every other size whose label does not come within a gap of a
    labelled one (labels are about 0.62 ``font_px`` a character).

    >>> size_ticks([500, 1000, 2000, 4000, 8000, 16000], font_px=13)
    [500, 1000, 2000, 4000, 8000, 16000]
    >>> size_ticks([256, 330, 430, 560, 720, 930, 1200, 1600, 2000, 2600], font_px=19.5)
    [256, 430, 720, 2600]
    """
    sizes = sorted(set(sizes))
    if len(sizes) < 3:
        return sizes
    span = math.log(sizes[-1] / sizes[0]) or 1.0

    def px(s: int) -> float:
        return panel_px * math.log(s / sizes[0]) / span

    def half(s: int) -> float:
        return 0.62 * font_px * len(size_label(s)) / 2 + font_px / 2  # half a label and half a gap

    chosen = [sizes[0], sizes[-1]] + ([keep] if keep in sizes else [])
    for s in sizes[1:-1]:
        if all(abs(px(s) - px(t)) >= half(s) + half(t) for t in chosen):
            chosen.append(s)
    return sorted(set(chosen))


def sweep_figure(rows: Sequence[SweepRow], *, title: str, style: ChartStyle = LIGHT) -> go.Figure:
    """Four panels of held-out metrics against vocabulary size (log axis, whole-number labels that
    never overlap), the knee of characters per token marked in each: a dashed line, its point and
    its size."""
    fig = make_subplots(rows=2, cols=2, subplot_titles=[label for _, label, _ in PANELS], vertical_spacing=0.2,
                        horizontal_spacing=0.1)
    at = knee(rows)
    sizes = [r.vocab_size for r in rows]
    ticks = size_ticks(sizes, font_px=style.font, keep=at)
    for i, (field, label, fmt) in enumerate(PANELS):
        r, c = divmod(i, 2)
        values = [getattr(row, field) for row in rows]
        fig.add_trace(go.Scatter(x=sizes, y=values, mode="lines+markers", name=label, showlegend=False,
                                 line=dict(color=style.blue), marker=dict(color=style.blue, size=style.size(7)),
                                 customdata=[[size_label(row.requested_size), row.note or "as asked"] for row in rows],
                                 hovertemplate=f"vocabulary %{{x:,}} (asked %{{customdata[0]}}: %{{customdata[1]}})"
                                               f"<br>{label} %{{y:{fmt}}}<extra></extra>"),
                      row=r + 1, col=c + 1)
        fig.update_xaxes(type="log", tickvals=ticks, ticktext=[size_label(s) for s in ticks], tickangle=0,
                         title_text="vocabulary size" if r == 1 else None, row=r + 1, col=c + 1)
        if fmt.endswith("%"):
            top = max([v for v in values if v is not None] + [0.0])
            fig.update_yaxes(tickformat=".0%" if top >= 0.1 else ".1%", range=[0, max(top * 1.15, 0.01)],
                             row=r + 1, col=c + 1)
        if at is not None:
            y = next((v for row, v in zip(rows, values) if row.vocab_size == at), None)
            fig.add_vline(x=at, line_dash="dash", line_color=style.accent, row=r + 1, col=c + 1)
            if y is not None:
                fig.add_trace(go.Scatter(x=[at], y=[y], mode="markers", name="knee", showlegend=False,
                                         marker=dict(color=style.accent, size=style.size(12), symbol="diamond"),
                                         hovertemplate=f"knee ≈ {at:,}<extra></extra>"), row=r + 1, col=c + 1)
            fig.add_annotation(x=math.log10(at), y=1, yref=f"y{i + 1 if i else ''} domain", xref=f"x{i + 1 if i else ''}",
                               text=f" knee ≈ {at:,}", showarrow=False, font=dict(color=style.accent),
                               xanchor="left", yanchor="top")
    fig.update_layout(height=style.size(620), margin=dict(l=10, r=10, t=style.size(80), b=10), title=html.escape(title))
    fig.update_yaxes(rangemode="tozero")  # sizes and rates read from zero, never from a cut axis
    return fig


def shortfalls(rows: Sequence[SweepRow]) -> list[str]:
    """One line per size that is not the size asked for, saying why (the trainer's reason).

    >>> row = SweepRow("unigram", 8110, 16000, 1, 1.0, 1.0, 0.0, 0.5, 0, 0.0, False, note="the seed was small")
    >>> shortfalls([row])
    ['asked for 16,000, got 8,110: the seed was small']
    """
    return [f"asked for {size_label(r.requested_size)}, got {size_label(r.vocab_size)}: {r.note}"
            for r in rows if r.vocab_size != r.requested_size]


def sweep_frame(rows: Sequence[SweepRow]) -> pd.DataFrame:
    """The table of a sweep: a row per size, a knee mark, and why a size is not the one asked for."""
    at = knee(rows)
    frame = pd.DataFrame([asdict(r) for r in rows]).drop(columns=["model"])
    frame.insert(2, "knee", [r.vocab_size == at for r in rows])
    return frame


def sweep_json(result: SweepResult) -> dict:
    """The sweep's numbers and settings, as the JSON download holds them (``knee``: None when there is none)."""
    request = result.request
    return {"algorithm": request.algorithm.value, "algorithm_label": request.algorithm.label,
            "corpus_digest": request.corpus_digest, "sizes_asked": list(request.sizes),
            "heldout_fraction": request.heldout_fraction, "stopped_early": result.cancelled,
            "knee": knee(result.rows), "vocabulary_used": USED_HELP, "rows": [asdict(r) for r in result.rows]}


def _show(result: SweepResult) -> None:
    rows = list(result.rows)
    if result.cancelled:
        st.warning(f"The sweep was stopped; {len(rows)} of {len(result.request.sizes)} sizes had finished "
                   "and are shown.")
    if not rows:
        return
    name = result.request.algorithm.label
    title = f"{name}, held-out {result.request.heldout_fraction:.0%} of the lines"
    style = current()
    export.plotly_chart(sweep_figure(rows, title=title, style=style), key=SWEEP + "chart",
                        name=f"sweep {name}", style=style)
    for line in shortfalls(rows):
        st.caption(escape_markdown("⚠ " + line[:1].upper() + line[1:] + "."))
    at = knee(rows)
    if at is not None:
        st.markdown(f"**Knee at about {at:,} tokens** (◆ in every panel): past it, each doubling of the "
                    "vocabulary buys less compression on the held-out text, while the embedding table keeps "
                    "growing linearly.")
    st.caption(escape_markdown(USED_HELP))
    export.table(sweep_frame(rows), key=SWEEP + "table", name=f"sweep {name}", hide_index=True, column_config={
        "vocab_size": st.column_config.NumberColumn("vocabulary", format="localized",
                                                    help="The size the training reached (see “why”)"),
        "requested_size": st.column_config.NumberColumn("asked for", format="localized"),
        "knee": st.column_config.CheckboxColumn("knee", help="The knee of characters per token"),
        "heldout_tokens": st.column_config.NumberColumn("held-out tokens", format="localized"),
        "chars_per_token": st.column_config.NumberColumn("chars/token", format="%.3f"),
        "fertility": st.column_config.NumberColumn("tokens/word", format="%.3f"),
        "unk_rate": st.column_config.NumberColumn("UNK rate", format="percent"),
        "utilization": st.column_config.NumberColumn("vocabulary used", format="percent", help=USED_HELP),
        "embedding_params": st.column_config.NumberColumn("embedding params (d=768)", format="localized"),
        "seconds": st.column_config.NumberColumn("training s", format="%.2f"),
        "derived": st.column_config.CheckboxColumn("read off a larger run"),
        "note": st.column_config.TextColumn("why not the size asked for", width="large"),
    })
    export.json_button(sweep_json(result), key=SWEEP + "numbers", name=f"sweep {name}", label="Sweep as JSON")


#: Said above the progress bar when a link's sweep runs on opening.
LINKED_NOTE = ("This link names a sweep: it runs again here with the settings above (the same corpus and "
               "settings give the same numbers; one already run on this server shows at once).")


def _linked(request: SweepRequest) -> bool:
    """Whether the address names a sweep that is not on show (a link, a reload, Back or Forward):
    it is run again, like a press of *Run the sweep*. Back or Forward to a view without a sweep
    leaves none on show."""
    named = bool(st.session_state.pop(LINKED, False))
    box = _box()
    if not named and url_state.history_navigation():
        box.result = None
    return named and (box.result is None or box.result.request != request)


def render_sweep(corpus: Corpus) -> None:
    if say_no_running_text(corpus, "The vocabulary-size sweep (it scores held-out lines)"):
        return
    request = _settings(corpus)
    row = st.container(horizontal=True)  # buttons as wide as their labels, never cut
    run = row.button("Run the sweep", key=SWEEP + "run", type="primary", icon=":material/play_arrow:")
    if not run and _linked(request):
        st.caption(LINKED_NOTE)
        run = True
    if run:
        url_state.commit(URL_PARAMS, {LINKED: True})  # the address now names this sweep
        stop = row.empty()
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
