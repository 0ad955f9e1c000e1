"""The BPE step-through page, drawn with Streamlit: settings, training, stepping, encoding.

The page trains once per corpus and settings (cached, with a progress bar) and
then every step is drawn from the run's trace: moving the slider, pressing
next or playing never retrains. The step view is a fragment, so auto-play
reruns only it.
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
from ui.merges.encode import MAX_CHARS, encode, tokens_of
from ui.merges.from_counts import header_notes, matching
from ui.merges.html import (
    merge_banner_html,
    sentence_html,
    stop_text,
    strips_html,
    tie_text,
    tree_block_html,
    words_html,
)
from ui.merges.pairs import pair_frame, pair_table
from ui.merges.run import MergeRun, StepInfo
from ui.merges.settings import (
    ALGORITHMS,
    BUDGET_KINDS,
    LEVELS,
    MARKER_HELP,
    MARKERS,
    MAX_BUDGET,
    PRE_TOKENIZER_HELP,
    TIE_BREAK_HELP,
    TIE_BREAKS,
    WORKED_EXAMPLES,
    MergeSettings,
    pre_tokenizer_choices,
)
from ui.shelf import state as shelf
from ui.widgets import display
from ui.widgets.charts import candidates_chart, compression_chart, kinds_legend_html
from ui.widgets.export import altair_chart, table
from ui.widgets.safe_html import render_html
from ui.widgets.stepper import render_stepper_controls
from ui.widgets.text import display_name, escape_markdown
from ui.widgets.tokens import chip_html, shown_text

K = ms.SETTING_KEYS

INTRO = (
    "Watch BPE (or WordPiece) learn its vocabulary one merge at a time on the active corpus: which pair "
    "is merged and why, how words and corpus length change, and how the merges encode your own text."
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
    clicked = _settings_panel(corpus.name, collapsed=shown_here or linked_step is not None)
    settings = _settings_from_widgets()
    if clicked or linked_step is not None:
        run = _train(corpus, corpus_key, settings)
    else:
        run = _shown_run(corpus, corpus_key, shown[1]) if shown_here else None
    if run is None:
        ms.publish_url(run_shown=False)
        if not clicked and linked_step is None:
            name = escape_markdown(display_name(corpus))
            fits = "; ".join(matching(corpus)) if is_counts(corpus) else ""  # a counts file fits some settings
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
        shelf.add(run.tokenizer, name=f"{run.settings.describe()}", kind="trained",
                  detail=f"{run.settings.describe()}, on “{display_name(corpus)}” (BPE page)")
    return run


def _shown_run(corpus: Corpus, corpus_key: str, settings: MergeSettings) -> Optional[MergeRun]:
    """The run on show, read back from the server's table; one it has dropped is trained again with
    progress and Cancel, and the page says why (a long recomputation is never silent)."""
    dropped = cached_run(corpus_key, settings) is None
    run = get_run(corpus, corpus_key, settings, dropped=dropped)
    if run is not None and dropped:
        st.info(DROPPED + " It has been trained again.", icon=":material/restart_alt:")
    return run


# ---------------------------------------------------------------------------------- settings


def _settings_panel(corpus_name: str, *, collapsed: bool) -> bool:
    """The settings widgets and the Train button, in an expander that closes when Train is pressed and
    starts closed once a run is on show (so the step controls stay above the fold); returns whether
    Train was pressed. Its open state is a session value (keyed), so reruns never flip it."""
    ss = st.session_state
    ss.setdefault(ms.SETTINGS_OPEN, not collapsed)
    with st.expander("Settings", key=ms.SETTINGS_OPEN, on_change="rerun", icon=":material/tune:"):
        c1, c2, c3, c4 = st.columns([1.1, 1.5, 1.3, 1.3])
        with c1:
            st.radio("Algorithm", list(ALGORITHMS), format_func=ALGORITHMS.get, key=K["algorithm"], horizontal=True,
                     on_change=ms.reset_pre_tokenizer,
                     help="BPE merges the most frequent pair; WordPiece the pair with the best score "
                          "count(ab) / (count(a) · count(b)).")
            wordpiece = ss[K["algorithm"]] == "wordpiece"
            st.radio("Symbols", list(LEVELS), format_func=LEVELS.get, key=K["level"], horizontal=True,
                     disabled=wordpiece, on_change=ms.reset_pre_tokenizer,
                     help="Start from characters, or from the 256 bytes of UTF-8 as GPT-2 does (BPE only).")
        level = "char" if wordpiece else ss[K["level"]]
        choices = pre_tokenizer_choices(ss[K["algorithm"]], level)
        if ss.get(K["pre_tokenizer"]) not in choices:
            ss[K["pre_tokenizer"]] = next(iter(choices))
        with c2:
            st.selectbox("Pre-tokenizer", list(choices), format_func=choices.get, key=K["pre_tokenizer"],
                         help=PRE_TOKENIZER_HELP)
            st.selectbox("End-of-word marker", list(MARKERS), format_func=MARKERS.get, key=K["marker"],
                         disabled=wordpiece or level == "byte",
                         help=MARKER_HELP)
        with c3:
            st.radio("Stop after", list(BUDGET_KINDS), format_func=BUDGET_KINDS.get, key=K["budget_kind"],
                     horizontal=True)
            by_merges = ss[K["budget_kind"]] == "merges"
            st.number_input("Number of merges" if by_merges else "Vocabulary size (special tokens included)",
                            min_value=1, max_value=MAX_BUDGET, step=1, key=K["budget"],
                            help=(f"How many merges to learn, 1 to {MAX_BUDGET:,}. Each merge adds one token."
                                  if by_merges else
                                  f"Stop when the vocabulary has this many tokens, 1 to {MAX_BUDGET:,}: it starts "
                                  "with every character (or the 256 bytes) and [UNK], and each merge adds one."))
        with c4:
            st.number_input("Minimum pair frequency", min_value=0, max_value=1_000_000, step=1,
                            key=K["min_frequency"], help="Stop (BPE) or skip pairs (WordPiece) seen fewer times.")
            st.selectbox("Ties broken by", list(TIE_BREAKS), format_func=TIE_BREAKS.get, key=K["tie_break"],
                         disabled=wordpiece, help=TIE_BREAK_HELP)
            st.checkbox("Lowercase", key=K["lowercase"], help="Lowercase the corpus before training.")
        b1, b2, b3 = st.columns([1.1, 2.2, 3.5])
        clicked = b1.button("Train", key=ms.TRAIN, type="primary", icon=":material/model_training:",
                            on_click=ms.close_settings)
        example = WORKED_EXAMPLES.get(corpus_name)
        if example is not None:
            b2.button("Worked example settings", key=ms.EXAMPLE, on_click=ms.use_example, args=(corpus_name,),
                      icon=":material/school:")
            b3.caption(escape_markdown(example[1]))
    return bool(clicked)


def _settings_from_widgets() -> MergeSettings:
    ss = st.session_state
    values = {name: ss[key] for name, key in K.items()}
    values["budget"] = int(values["budget"])
    values["min_frequency"] = int(values["min_frequency"])
    settings = MergeSettings(**values)
    ss[ms.SAVED] = settings
    return settings


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
    _controls(n, step, run_id)
    translate = display.translate()
    info = run.step_info(max(step, 1))
    _step_header(run, step, info, translate)
    _charts(run, step, info, translate)
    _words(run, step, info, translate)
    if run.teaching:
        _pair_table(run, step, translate)
    _encode_panel(run, step, info, translate)
    if not st.session_state.get(ms.PLAYING):  # a step shown while playing is no view to go Back to
        ms.publish_url(run_shown=True)  # a fragment rerun (a step) does not reach the page's own publish


def _controls(n: int, step: int, run_id: str) -> None:
    buttons, speed, jump = st.columns([4, 1.3, 1.1], vertical_alignment="bottom")
    with buttons:
        render_stepper_controls(ms.STEPPER, num_steps=n, run_id=run_id, interval=ms.speed())
    speed.select_slider("Speed", options=list(ms.SPEEDS), key=ms.SPEED, on_change=ms.speed_changed,
                        format_func=lambda s: f"{s:g} s per step")
    # No max_value: Streamlit would refuse 99999 with a red mark and stay put; go to the last step instead.
    jump.number_input("Jump to step", min_value=0, step=1, key=ms.JUMP, on_change=ms.from_widget,
                      args=(ms.JUMP, n), help=f"0 to {n:,}; a larger number goes to the last step.")
    st.slider("Step", min_value=0, max_value=n, key=ms.SLIDER, on_change=ms.from_widget, args=(ms.SLIDER, n),
              label_visibility="collapsed")
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
    m = st.columns(4)
    if info.score is None:
        m[0].metric("Pair count" if step else "Next pair's count", f"{info.count:,}")
    else:
        m[0].metric("Score" if step else "Next pair's score", f"{info.score:.4g}",
                    help=f"count(ab) / (count(a) · count(b)) = {info.count:,} / "
                         f"({info.left_count:,} · {info.right_count:,})")
    size = run.vocab_size_at(step)
    grew = size - run.vocab_size_at(step - 1) if step else None
    m[1].metric("Vocabulary size", f"{size:,}",
                delta=None if grew is None else (f"+{grew}" if grew else "+0 (token already existed)"),
                delta_color="off", help="Tokens known after this step: the starting symbols (and [UNK]) "
                                        "plus one new token per merge.")
    tokens = run.tokens_at(step)
    m[2].metric("Corpus tokens", f"{tokens:,}",
                delta=None if not step else f"{tokens - run.tokens_at(step - 1):,}", delta_color="inverse",
                help="How many tokens the whole corpus is split into after this many merges. Merging a "
                     "pair that occurs n times makes it up to n tokens shorter.")
    start = run.tokens_at(0)
    shrunk = 100 * (1 - tokens / start) if start else 0.0
    m[3].metric("Shorter by", f"{shrunk:.1f} %" if shrunk >= 1 or not shrunk else f"{shrunk:.2f} %",
                help="How much shorter the corpus is in tokens than at step 0.")
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
    left, right = st.columns(2)
    with left:
        what = "merge #1 (next)" if step == 0 else f"merge #{step:,}"
        st.markdown(f"**Top candidate pairs for {what}**")
        altair_chart(lambda style: candidates_chart(info, scheme=run.scheme, translate=translate, style=style),
                     key="merges_candidates_chart", name="candidate pairs")
        render_html(kinds_legend_html(info, scheme=run.scheme, translate=translate))
    with right:
        st.markdown("**Compression: corpus length after each merge**")
        altair_chart(lambda style: compression_chart(run.curve, step, style=style), key="merges_compression_chart",
                     name="compression curve")


def _words(run: MergeRun, step: int, info: StepInfo, translate: bool) -> None:
    left, right = st.columns(2)
    highlight = frozenset([info.token]) if step else frozenset()
    with left:
        st.markdown("**Most frequent words at this step**")
        render_html(words_html(run.display_words(step, 16), run.token_id, scheme=run.scheme, translate=translate,
                           highlight=highlight))
    with right:
        if step:
            st.markdown("**Frequent words holding the new token**")
            rows = run.words_with(info.token, step, 16)
            if rows:
                render_html(words_html(rows, run.token_id, scheme=run.scheme, translate=translate, highlight=highlight))
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
    render_html(strips_html(view, run.token_id, scheme=run.scheme, translate=translate))
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
