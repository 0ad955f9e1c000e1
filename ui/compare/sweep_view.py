"""The vocabulary-size sweep on the Compare page: settings, a run with progress and stop, and the
charts of held-out metrics against vocabulary size with the knee marked.

Stopping: a click on *Stop* (or on any other widget) makes Streamlit stop this run, which it does
by raising a control exception inside the next Streamlit call, here the progress bar's update, and
start the next run at once, in parallel. The progress callback catches that exception only to hold
it back: the sweep is told to stop, hands over the sizes it finished
(:class:`~tokenizer_core.analysis.sweep.SweepCancelled`), they are kept in the session (in a box it
already holds: :class:`SweepBox`), and the exception is raised again. The next run waits for that hand-over (an event in the session) before
it draws the result. No finished size is lost.

Several algorithms on one chart: *Beside it* adds curves of other algorithms at the same sizes (SuperBPE
beside BPE on bytes: tokens per byte, the paper's measure). Each algorithm's sweep is run and kept on
its own, so adding a curve never runs the first one again. The chart and table are drawn by
:mod:`ui.compare.sweep_chart`.

Keys in ``st.session_state`` owned here start with ``compare_sweep_``. A finished sweep is kept for
every session in ``cache.SWEEPS`` under the corpus digest and the settings, one entry per algorithm.

>>> [p.name for p in URL_PARAMS][:2], URL_PARAMS[-1].name, all(p.committed for p in URL_PARAMS)
(['compare_sweep_algorithm', 'compare_sweep_range'], 'compare_sweep', True)
>>> SweepRequest("d", Algorithm.BPE_BYTES, (500,), 0.1, beside=(Algorithm.SUPERBPE,)).algorithms()
(<Algorithm.BPE_BYTES: 'bpe-bytes'>, <Algorithm.SUPERBPE: 'superbpe'>)
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace
from typing import Optional

import streamlit as st
from streamlit.runtime.scriptrunner_utils.exceptions import ScriptControlException

from tokenizer_core.analysis.sweep import SWEEP_MODELS, SweepCancelled, SweepRow, knee, log_sizes, split_lines, sweep
from tokenizer_core.corpus.documents import Corpus
from tokenizer_core.errors import TokenizerError
from ui import cache, url_state
from ui.compare import PREFIX
from ui.compare.sweep_chart import USED_HELP, change_line, shortfalls, sweep_figure, sweep_frame
from ui.corpus.counts import say_no_running_text
from ui.tokenizers.add import Algorithm, TrainRequest
from ui.widgets import export
from ui.widgets.cancel import cancel_button
from ui.widgets.export_theme import current
from ui.widgets.text import escape_markdown

SWEEP = PREFIX + "sweep_"  # the sweep panel's keys, inside the page's prefix
BOX = SWEEP + "box"  # a SweepBox: written to in place, never re-assigned (see _box)
#: How long a new run waits for a stopped sweep to hand over its finished sizes.
STOP_WAIT_S = 60
SIZE_CHOICES = [256, 500, 1000, 2000, 4000, 8000, 16000, 32000, 64000]
ALGORITHM, RANGE, POINTS, HELDOUT = SWEEP + "algorithm", SWEEP + "range", SWEEP + "points", SWEEP + "heldout"
BESIDE = SWEEP + "beside"  # other algorithms whose curves go on the same chart
DEFAULT_RANGE = (500, 16000)
#: The Train panel's algorithms the sweep trains (not every trainer has a sweep: SWEEP_MODELS says which).
SWEPT = tuple(a.value for a in Algorithm if a.trainer in SWEEP_MODELS)


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
    url_state.choice(ALGORITHM, ALGORITHM, SWEPT, default=Algorithm.BPE_BYTES.value),
    # Two sizes, repeated in the address (``?compare_sweep_range=500&compare_sweep_range=16000``).
    url_state.UrlParam(RANGE, RANGE, DEFAULT_RANGE, _size, many=True, what="the sizes"),
    url_state.integer(POINTS, POINTS, default=6, lo=2, hi=12),
    url_state.number(HELDOUT, HELDOUT, default=0.1, lo=0.05, hi=0.5),
    url_state.many(BESIDE, BESIDE, default=(), options=SWEPT, what="the curves beside it"),
    url_state.flag(PREFIX + "sweep", LINKED, default=False),
)


def after_seed() -> None:
    """The range slider takes a pair (a list from the address or the seed would be read as one size);
    call after seeding, every run, so the address' default check compares like with like."""
    value = st.session_state.get(RANGE)
    if isinstance(value, list):
        st.session_state[RANGE] = tuple(value) if len(value) == 2 else DEFAULT_RANGE


@dataclass(frozen=True)
class SweepRequest:
    """The sweep's settings; hashable, so they key the cache and the stored result."""

    corpus_digest: str
    algorithm: Algorithm
    sizes: tuple[int, ...]
    heldout_fraction: float
    #: Algorithms drawn beside ``algorithm`` at the same sizes (never ``algorithm`` itself, no repeats).
    beside: tuple[Algorithm, ...] = ()

    def algorithms(self) -> tuple[Algorithm, ...]:
        """Every algorithm swept, the first one's curve first."""
        return (self.algorithm, *self.beside)

    def of(self, algorithm: Algorithm) -> "SweepRequest":
        """The request of one algorithm's sweep alone (what the server keeps it under)."""
        return replace(self, algorithm=algorithm, beside=())


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
    """A sweep on show: ``rows`` of the request's first algorithm, ``beside`` the other curves (those
    finished, the last one cut short when the sweep was stopped in it)."""

    request: SweepRequest
    rows: tuple[SweepRow, ...]
    cancelled: bool
    beside: tuple[tuple[Algorithm, tuple[SweepRow, ...]], ...] = ()

    def curves(self) -> list[tuple[str, tuple[SweepRow, ...]]]:
        """The curves beside the first, named as the chart's legend names them."""
        return [(a.short, rows) for a, rows in self.beside]


def _run(request: SweepRequest, corpus: Corpus, progress: Callable, should_stop: Callable) -> list[SweepRow]:
    """The rows of ``request``'s first algorithm (``request.of(...)`` for the others)."""
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
       "unigram": "Unigram trains once per size.",
       "superbpe": "SuperBPE trains once per size, its second stage from 90% of each size (about two seconds "
                   "a size on 2 MB of text; add BPE on bytes beside it to see the tokens it saves)."}


def _settings(corpus: Corpus) -> SweepRequest:
    c1, c2, c3 = st.columns([2, 3, 1])
    algorithm = Algorithm(c1.selectbox("Algorithm", SWEPT, format_func=lambda v: Algorithm(v).label, key=ALGORITHM))
    # value= only tells Streamlit it is a range slider (two handles); the session's pair wins.
    lo, hi = c2.select_slider("Vocabulary sizes", SIZE_CHOICES, value=DEFAULT_RANGE, key=RANGE)
    points = c3.number_input("Sizes", min_value=2, max_value=12, key=POINTS)
    h1, h2 = st.columns([3, 2])
    fraction = h1.slider("Held-out share of the corpus lines", 0.05, 0.5, step=0.05, key=HELDOUT, format="%.2f")
    others = [v for v in SWEPT if v != algorithm.value]
    # The first choice is no curve beside itself: dropped from the picks before they are drawn (a
    # value outside the options would be refused), so the address never names it twice.
    picks = st.session_state.get(BESIDE) or []
    if algorithm.value in picks:
        st.session_state[BESIDE] = [v for v in picks if v in others]
    picked = h2.multiselect("Beside it, on the same chart", others, key=BESIDE, format_func=lambda v: Algorithm(v).short,
                            help="Other algorithms swept at the same sizes and drawn on the same chart: "
                                 "SuperBPE beside BPE on bytes shows the tokens its superwords save.")
    beside = tuple(dict.fromkeys(map(Algorithm, picked)))
    sizes = tuple(log_sizes(int(lo), int(hi), int(points)))
    how = " ".join(dict.fromkeys(HOW[a.trainer] for a in (algorithm, *beside)))
    st.caption("Sizes: " + ", ".join(f"{s:,}" for s in sizes) + ". " + how)
    return SweepRequest(cache.corpus_digest(corpus), algorithm, sizes, float(fraction), beside)


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
    now = {"name": ""}  # the algorithm being swept, named in the bar when there are several

    def progress(done: int, total: int, message: str) -> None:
        if held:
            return
        try:
            text = message or "training"
            bar.progress(min(1.0, done / total) if total else 0.0, text=f"{now['name']}{text}")
        except ScriptControlException as control:  # a click asked for a rerun: stop at the next check
            held.append(control)

    curves: list[tuple[SweepRow, ...]] = []
    cancelled = False
    for algorithm in request.algorithms():
        now["name"] = f"{algorithm.short}: " if request.beside else ""
        try:
            curves.append(tuple(_run(request.of(algorithm), corpus, progress, lambda: bool(held))))
        except SweepCancelled as stop:
            curves.append(tuple(stop.rows))
            cancelled = True
            break
        except TokenizerError as err:
            bar.empty()
            st.error(escape_markdown(f"{algorithm.label}: {err}"))
            return
    box.result = SweepResult(request, curves[0], cancelled, tuple(zip(request.beside, curves[1:])))
    if held:
        raise held[0]  # let the rerun the click asked for go ahead, now that the finished sizes are kept
    bar.empty()


def sweep_json(result: SweepResult) -> dict:
    """The sweep's numbers and settings, as the JSON download holds them (``knee``: None when there is
    none); ``beside``: the other curves, each with its algorithm, knee and rows."""
    request = result.request
    return {"algorithm": request.algorithm.value, "algorithm_label": request.algorithm.label,
            "corpus_digest": request.corpus_digest, "sizes_asked": list(request.sizes),
            "heldout_fraction": request.heldout_fraction, "stopped_early": result.cancelled,
            "knee": knee(result.rows), "vocabulary_used": USED_HELP, "rows": [asdict(r) for r in result.rows],
            "beside": [{"algorithm": a.value, "algorithm_label": a.label, "knee": knee(rows),
                        "rows": [asdict(r) for r in rows]} for a, rows in result.beside]}


def _stopped_note(result: SweepResult) -> str:
    """What a stopped sweep shows: how many sizes of which curve had finished."""
    total = len(result.request.sizes)
    if not result.beside:
        return f"The sweep was stopped; {len(result.rows)} of {total} sizes had finished and are shown."
    algorithm, rows = result.beside[-1]
    return (f"The sweep was stopped; {len(rows)} of {total} sizes of {algorithm.short} had finished and are shown "
            "(the curves before it are whole).")


def _show(result: SweepResult) -> None:
    rows = list(result.rows)
    if result.cancelled:
        st.warning(_stopped_note(result))
    if not rows:
        return
    request = result.request
    name = request.algorithm.label
    curves = result.curves()
    names = ", ".join(n for n, _ in curves)
    title = f"{name}{f' beside {names}' if curves else ''}, held-out {request.heldout_fraction:.0%} of the lines"
    style = current()
    short = request.algorithm.short
    export.plotly_chart(sweep_figure(rows, title=title, style=style, name=short, beside=curves), key=SWEEP + "chart",
                        name=f"sweep {name}", style=style)
    for other, curve in curves:
        line = change_line(other, short, rows, curve)
        if line:
            st.markdown(escape_markdown(line))
    for curve_name, curve in [(short, rows), *curves]:
        for line in shortfalls(curve):
            st.caption(escape_markdown("⚠ " + (f"{curve_name}: " if curves else "") + line[:1].upper() + line[1:]
                                       + "."))
    at = knee(rows)
    if at is not None:
        st.markdown(f"**Knee at about {at:,} tokens** (◆ in every panel): past it, each doubling of the "
                    "vocabulary buys less compression on the held-out text, while the embedding table keeps "
                    "growing linearly.")
    if curves:
        st.caption(f"The knee (◆) is that of {escape_markdown(short)}; the table marks each curve's own.")
    st.caption(escape_markdown(USED_HELP))
    export.table(sweep_frame(rows, name=short, beside=curves), key=SWEEP + "table", name=f"sweep {name}",
                 hide_index=True, column_config={
        "vocab_size": st.column_config.NumberColumn("vocabulary", format="localized",
                                                    help="The size the training reached (see “why”)"),
        "requested_size": st.column_config.NumberColumn("asked for", format="localized"),
        "knee": st.column_config.CheckboxColumn("knee", help="The knee of characters per token"),
        "heldout_tokens": st.column_config.NumberColumn("held-out tokens", format="localized"),
        "tokens_per_byte": st.column_config.NumberColumn("tokens/byte", format="%.4f",
                                                         help="Held-out tokens per UTF-8 byte of the held-out text"),
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
