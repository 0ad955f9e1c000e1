"""The BPE step-through page, drawn with Streamlit: settings, training, stepping, encoding.

The page trains once per corpus and settings (cached, with a progress bar) and
then every step is drawn from the run's trace: moving the slider, pressing
next or playing never retrains. The step view is a fragment, so auto-play
reruns only it. A browser's first run of a session draws the step view's skeleton
(controls and merge) and the rest right after (:func:`ui.merges.state.skeleton_first`).
"""

from __future__ import annotations

import html
from typing import Optional

import streamlit as st

from tokenizer_core.corpus.loading import Corpus
from ui import session as state
from ui import url_state
from ui.corpus.counts import is_counts
from ui.merges import state as ms
from ui.merges.cache import DROPPED, cached_run, get_run
from ui.merges.counts_file import header_notes, settings_that_fit
from ui.merges.encode import MAX_CHARS, encode, tokens_of
from ui.merges.html import (
    merge_banner_html,
    sentence_html,
    stop_text,
    strips_parts,
    tie_text,
    tree_block_html,
    words_parts,
)
from ui.merges.pairs import pair_frame, pair_table
from ui.merges.panel import settings_from_widgets, settings_panel, start_button
from ui.merges.picky_html import removals_html
from ui.merges.picky_run import PickyRun
from ui.merges.run import MergeRun, StepInfo
from ui.merges.settings import MergeSettings
from ui.merges.stage_html import stage_html
from ui.merges.superbpe_run import SuperBpeRun
from ui.shelf import state as shelf
from ui.widgets import display
from ui.widgets.charts import candidates_chart, candidates_html, compression_chart, kinds_legend_html
from ui.widgets.drawing import render_drawing
from ui.widgets.export import chart_downloads, table
from ui.widgets.export_theme import current
from ui.widgets.metric_strip import Metric, metric_strip_html
from ui.widgets.quick_charts import curve_drawing
from ui.widgets.safe_html import render_html
from ui.widgets.stepper import render_stepper_controls
from ui.widgets.text import display_name, escape_markdown
from ui.widgets.tokens import chip_html, shown_text

INTRO = (
    "Watch BPE (or WordPiece, SuperBPE, PickyBPE) learn its vocabulary one merge at a time on the active corpus: which "
    "pair is merged and why, how words and corpus length change, and how the merges encode your own text."
)
KEYS = ("Keys: **→**/**N** next · **←**/**P** previous · **Home**/**End** first/last · "
        "**Space**/**K** play/pause")

PRIMER = (
    "1. The text is cut into words (the *pre-tokenizer*), and every word into single symbols: "
    "characters, or the bytes of UTF-8.\n"
    "2. Count every pair of neighbouring symbols in all the words (a word that occurs 50 times counts 50 times).\n"
    "3. Merge the most frequent pair everywhere into one new symbol, a new token of the vocabulary "
    "(WordPiece picks the pair with the best *score* instead of the most frequent one).\n"
    "4. Repeat until the number of merges or the vocabulary size you chose is reached.\n\n"
    "The list of merges, in order, is the tokenizer: to encode new text, apply them in the same order. "
    "Press **Train**, then **Next** to watch one merge at a time."
)


def render_page() -> None:
    """The whole page (called by ``pages/merges.py``)."""
    corpus = state.active_corpus()
    corpus_key = state.active_corpus_key()
    ms.prepare(corpus.name, corpus_key)
    url_state.show_refusals(url_state.restore((*ms.SETTING_PARAMS, ms.STEP_IN)))
    if url_state.history_navigation() and ms.LINKED_STEP not in st.session_state:
        st.session_state.pop(ms.TRAINED, None)  # Back to the view before a run was shown
    display.intro(INTRO)
    if not display.presenter():  # a slide shows the merge, not the primer
        with st.expander("New to BPE? How it works in four lines", icon=":material/help:"):
            st.markdown(PRIMER)

    shown = ms.trained()
    shown_here = shown is not None and shown[0] == corpus_key
    linked_step = st.session_state.pop(ms.LINKED_STEP, None)  # ?step=N: train (cached) and open step N
    presenting = display.presenter()
    clicked = settings_panel(corpus.name, collapsed=shown_here or linked_step is not None or presenting)
    settings = settings_from_widgets()
    fits = "; ".join(settings_that_fit(corpus)) if is_counts(corpus) else ""  # a counts file fits some settings
    if presenting and not (clicked or shown_here or linked_step is not None):  # a slide: Train in sight
        clicked = start_button(display_name(corpus), settings, fits=fits)
    if clicked or linked_step is not None:
        run = _train(corpus, corpus_key, settings)
    else:
        run = _shown_run(corpus, corpus_key, shown[1]) if shown_here else None
    if run is None:
        ms.publish_url(run_shown=False)
        if not clicked and linked_step is None and not presenting:
            name = escape_markdown(display_name(corpus))
            st.info(f"Choose the settings and press **Train** to learn merges on “{name}”."
                    + (f" It is a counts file; settings that fit it: {escape_markdown(fits)}." if fits else ""))
        return
    _trained_caption(run, settings)
    run_id = ms.show_run(corpus_key, run.settings)
    if linked_step is not None:
        ms.go_to(linked_step, run.num_steps)
        st.session_state[ms.PLAYING] = False
    render_stepper(run, run_id)
    ms.publish_url(run_shown=True)


def _train(corpus: Corpus, corpus_key: str, settings: MergeSettings) -> Optional[MergeRun]:
    """The run of ``settings`` (stored, or trained now), made the one on show and put on the shelf."""
    run = get_run(corpus, corpus_key, settings)
    if run is not None and is_counts(corpus):
        for note in header_notes(corpus, run.settings):  # a file from another tool leaves stages unsaid
            st.info(escape_markdown(note))
    if run is not None:
        st.session_state[ms.TRAINED] = (corpus_key, run.settings)
        ms.commit_run(run.settings)
        # Every page can use what was trained here: it goes on the session's shelf.
        shelf.add(run.tokenizer, name=run_name(run), kind="trained",
                  detail=f"{run_name(run)}, on “{display_name(corpus)}” (BPE page)")
    return run


def run_name(run: MergeRun) -> str:
    """The shelf name of a run: its settings, and what it reached when the corpus ran out of pairs
    to merge before the budget (named after the size reached too, never the size asked alone)."""
    s = run.settings.effective()
    reached = run.num_steps if s.budget_kind == "merges" else run.vocab_size_at(run.num_steps)
    if reached >= s.budget:
        return run.settings.describe()
    return f"{run.settings.describe()} → {reached:,} {'merges' if s.budget_kind == 'merges' else 'tokens'}"


def _shown_run(corpus: Corpus, corpus_key: str, settings: MergeSettings) -> Optional[MergeRun]:
    """The run on show, read back from the server's table; one it has dropped is trained again with
    progress and Cancel, and the page says why (a long recomputation is never silent)."""
    dropped = cached_run(corpus_key, settings) is None
    run = get_run(corpus, corpus_key, settings, dropped=dropped)
    if run is not None and dropped:
        st.info(DROPPED + " It has been trained again.", icon=":material/restart_alt:")
    return run


def _trained_caption(run: MergeRun, settings: MergeSettings) -> None:
    text = (f"Trained: {run.settings.describe()} — {run.num_steps:,} merges in {run.seconds:.2f} s. "
            f"Vocabulary {run.base_vocab_size:,} → {run.vocab_size_at(run.num_steps):,} tokens.")
    if settings.effective() != run.settings:
        text += " The settings above have changed: press Train to apply them."
    st.caption(escape_markdown(text))


# ---------------------------------------------------------------------------------- stepping


def render_stepper(run: MergeRun, run_id: str) -> None:
    """The step view, as a fragment: stepping reruns only this part of the page."""
    st.fragment(_stepper)(run, run_id)


def _stepper(run: MergeRun, run_id: str) -> None:
    n = run.num_steps
    if n == 0:
        st.warning(escape_markdown(f"Training made no merge: {stop_text(run)}."))
        return
    step = ms.current_step(n)
    ms.sync_widgets(step)
    skeleton = ms.skeleton_first()
    _controls(n, step, run_id, report_mounted=skeleton)
    translate = display.translate()
    info = run.step_info(max(step, 1))
    _step_header(run, step, info, translate)
    if skeleton:  # the controls and the merge first; the controls' report reruns this with the rest
        ms.keep_view_values()
        return
    _charts(run, step, info, translate)
    _words(run, step, info, translate)
    if run.teaching:
        _pair_table(run, step, translate)
    _encode_panel(run, step, info, translate)
    if not st.session_state.get(ms.PLAYING):  # a step shown while playing is no view to go Back to
        ms.publish_url(run_shown=True)  # a fragment rerun (a step) does not reach the page's own publish


def _controls(n: int, step: int, run_id: str, *, report_mounted: bool) -> None:
    # The buttons, the play speed and the scrubber are one component, drawn and moved in the browser.
    buttons, jump = st.columns([5.3, 1.1], vertical_alignment="bottom")
    with buttons:
        render_stepper_controls(ms.STEPPER, num_steps=n, run_id=run_id, interval=ms.speed(),
                                report_mounted=report_mounted, scrubber=True, speeds=ms.SPEEDS)
    # No max_value: Streamlit would refuse 99999 with a red mark and stay put; go to the last step instead.
    jump.number_input("Jump to step", min_value=0, step=1, key=ms.JUMP, on_change=ms.from_widget,
                      args=(ms.JUMP, n), help=f"0 to {n:,}; a larger number goes to the last step.")
    if not display.presenter():  # the buttons' tooltips name the keys too
        st.caption(KEYS)


def _step_header(run: MergeRun, step: int, info: StepInfo, translate: bool) -> None:
    head, toggle = st.columns([3, 1.3], vertical_alignment="center")
    display.markers_toggle("merges", container=toggle)
    with head:
        if step == 0:
            st.subheader(f"Step 0 of {run.num_steps:,}: every word split into single symbols")
            label = "Next merge (#1):"
        else:
            st.subheader(f"Step {step:,} of {run.num_steps:,}")
            label = f"Merge #{step:,}:"
        render_html(merge_banner_html(info.left, info.right, info.token, run.token_id, scheme=run.scheme,
                                  translate=translate, label=label))
    # One markup strip, not four st.metric elements: it is redrawn on every step (~35 ms less a click).
    if info.score is None:
        first = Metric("Pair count" if step else "Next pair's count", f"{info.count:,}")
    else:
        first = Metric("Score" if step else "Next pair's score", f"{info.score:.4g}",
                       help=f"count(ab) / (count(a) · count(b)) = {info.count:,} / "
                            f"({info.left_count:,} · {info.right_count:,})")
    size = run.vocab_size_at(step)
    grew = size - run.vocab_size_at(step - 1) if step else None
    removed = len(run.removals_at(step)) if isinstance(run, PickyRun) else 0
    tokens = run.tokens_at(step)
    start = run.tokens_at(0)
    shrunk = 100 * (1 - tokens / start) if start else 0.0
    render_html(metric_strip_html([
        first,
        Metric("Vocabulary size", f"{size:,}",
               delta=None if grew is None else (f"{grew:+d} ({removed} removed)" if removed else f"+{grew}" if grew
                                                else "+0 (token already existed)"), tone="off",
               help="Tokens known after this step: the starting symbols (and [UNK]) plus one new token per merge."),
        Metric("Corpus tokens", f"{tokens:,}", delta=None if not step else f"{tokens - run.tokens_at(step - 1):,}",
               tone="inverse", help="How many tokens the whole corpus is split into after this many merges. "
                                    "Merging a pair that occurs n times makes it up to n tokens shorter."),
        Metric("Shorter by", f"{shrunk:.1f} %" if shrunk >= 1 or not shrunk else f"{shrunk:.2f} %",
               help="How much shorter the corpus is in tokens than at step 0."),
    ]))
    if isinstance(run, SuperBpeRun):
        render_html(stage_html(run, step))
    if isinstance(run, PickyRun):
        render_html(removals_html(run, step, translate=translate))
    if info.score is not None:
        bpe = info.bpe_choice
        line = (f"score = {info.count:,} / ({info.left_count:,} × {info.right_count:,}) = {info.score:.4g}. ")
        if bpe is None or bpe.pair == (info.left, info.right):
            render_html(f"<div>{html.escape(line)}BPE would have merged the same pair (it is also the most frequent).</div>")
        else:
            render_html(
                f"<div>{html.escape(line)}BPE would have merged "
                f"{chip_html(run.token_id(bpe.left), bpe.left, scheme=run.scheme, translate=translate)} + "
                f"{chip_html(run.token_id(bpe.right), bpe.right, scheme=run.scheme, translate=translate)} "
                f"(the most frequent pair, {bpe.count:,} times).</div>"
            )
    tie = tie_text(info, algorithm=run.algorithm, tie_break=run.settings.tie_break, id_of=run.token_id,
                   scheme=run.scheme, translate=translate)
    if tie:
        st.info(escape_markdown(tie), icon=":material/balance:")
    if step == run.num_steps:
        st.success(escape_markdown(f"Last step. Training stopped: {stop_text(run)}."))


def _charts(run: MergeRun, step: int, info: StepInfo, translate: bool) -> None:
    # Markup charts, redrawn on every step for a few milliseconds (a Vega-Lite chart cost ~60 ms of
    # each click); their downloads are the Vega-Lite charts, built only when clicked.
    style = current()
    left, right = st.columns(2)
    with left.container(key="merges_candidates_chart"):
        what = "merge #1 (next)" if step == 0 else f"merge #{step:,}"
        render_html([f"<div><strong>Top candidate pairs for {html.escape(what)}</strong></div>",
                     candidates_html(info, run.token_id, scheme=run.scheme, translate=translate, style=style),
                     kinds_legend_html(info, scheme=run.scheme, translate=translate)])
        chart_downloads(lambda s: candidates_chart(info, scheme=run.scheme, translate=translate, style=s),
                        key="merges_candidates_chart", name="candidate pairs", style=style)
    with right.container(key="merges_compression_chart"):
        st.markdown("**Compression: corpus length after each merge**")
        switch = ([(run.transition_step, "stage 2 →")] if isinstance(run, SuperBpeRun)
                  and run.transition_step < run.num_steps else [])
        render_drawing(curve_drawing(run.curve, step, x_title="merge step", y_title="corpus length (tokens)",
                                     style=style, boundaries=switch), key="merges_compression_curve",
                       font=style.size(12))
        chart_downloads(lambda s: compression_chart(run.curve, step, style=s), key="merges_compression_chart",
                        name="compression curve", style=style)


def _words(run: MergeRun, step: int, info: StepInfo, translate: bool) -> None:
    left, right = st.columns(2)
    highlight = frozenset([info.token]) if step else frozenset()
    lines = run.kept_words(step)[0] == "lines"  # SuperBPE's stage 2 trains on whole lines
    with left:
        st.markdown("**Most frequent lines at this step** (stage 2 merges within lines)" if lines
                    else "**Most frequent words at this step**")
        render_html(words_parts(run.display_words(step, 16), run.token_id, scheme=run.scheme, translate=translate,
                           highlight=highlight))
    with right:
        if step:
            st.markdown("**Frequent lines holding the new token**" if lines
                        else "**Frequent words holding the new token**")
            rows = run.words_with(info.token, step, 16)
            if rows:
                render_html(words_parts(rows, run.token_id, scheme=run.scheme, translate=translate, highlight=highlight))
            else:
                st.caption("None among the most frequent words.")


def _pair_table(run: MergeRun, step: int, translate: bool) -> None:
    before = max(step - 1, 0)
    if step == 0:
        title = "**All pairs at the start** — merge #1 takes the marked row"
    else:
        title = f"**All pairs before merge #{step:,}** — it took the marked row"
    st.markdown(title)
    st.caption("Teaching mode (small corpus): every adjacent pair of the corpus counted afresh, "
               "sorted the way the trainer chooses.")
    rows = pair_table(run, before)
    frame = pair_frame(rows, scheme=run.scheme, translate=translate, wordpiece=run.algorithm == "wordpiece")
    table(frame, key="merges_pair_table", name="pair counts", hide_index=True, height=min(38 + 35 * len(frame), 420),
          column_config={"score": st.column_config.NumberColumn(format="%.4g")})


def _encode_panel(run: MergeRun, step: int, info: StepInfo, translate: bool) -> None:
    ss = st.session_state
    st.subheader("Encode your own text")
    text = st.text_input("Text to encode", key=ms.TEXT, max_chars=MAX_CHARS,
                         help="Encoded with the merges learned up to the current step.")
    ss[ms.SAVED_TEXT] = text
    view = encode(run, text, step)
    if not view.pieces:
        st.caption("Type some text to see the merges applied to it.")
        return
    st.caption(f"The merges learned up to step {step:,}, applied in order: one strip per merge that changes "
               "the sentence, the merged token outlined.")
    render_html(strips_parts(view, run.token_id, scheme=run.scheme, translate=translate))
    if view.final_differs:
        st.markdown("**What the WordPiece encoder outputs** (greedy longest match with the vocabulary at this step)")
        render_html(sentence_html(view.final, run.token_id, scheme=run.scheme, translate=translate))
    options = tokens_of(view)
    if step and info.token not in options:
        options.insert(0, info.token)
    options = [t for t in options if not run.merge_tree(t, step, max_nodes=1).is_leaf]
    if not options:
        st.caption("No token of this text was made by a merge yet, so there is no merge tree to show.")
        return
    if ss.get(ms.TREE) not in options:
        ss[ms.TREE] = options[0]
    choice = st.selectbox("Merge tree of token", options, key=ms.TREE,
                          format_func=lambda t: shown_text(t, scheme=run.scheme, translate=translate) or "∅")
    render_html(tree_block_html(run.merge_tree(choice, step), scheme=run.scheme, translate=translate))
