"""The BPE page's settings: the widgets and Train, folded in an expander, and in presenter mode a
Train button outside it, so a slide shows what to press before anything is trained.

Keys in ``st.session_state`` owned here start with ``merges_``.
"""

from __future__ import annotations

import streamlit as st

from ui.merges import state as ms
from ui.merges.settings import (
    ALGORITHMS,
    BUDGET_KINDS,
    LEVELS,
    MARKER_HELP,
    MARKERS,
    MAX_BUDGET,
    PRE_TOKENIZER_HELP,
    THRESHOLD_HELP,
    TIE_BREAK_HELP,
    TIE_BREAKS,
    TRANSITION_HELP,
    WORKED_EXAMPLES,
    MergeSettings,
    pre_tokenizer_choices,
)
from ui.widgets import display
from ui.widgets.text import escape_markdown

K = ms.SETTING_KEYS
START = "merges_start"  # presenter mode's Train button, outside the folded settings
FOLDED_FOR_SLIDES = "merges_folded_for_slides"  # presenter mode was on in the last run (its settings folded once)


def settings_panel(corpus_name: str, *, collapsed: bool) -> bool:
    """The settings widgets and the Train button, in an expander that closes when Train is pressed and
    starts closed once a run is on show (so the step controls stay above the fold); returns whether
    Train was pressed. Its open state is a session value (keyed), so reruns never flip it."""
    ss = st.session_state
    ss.setdefault(ms.SETTINGS_OPEN, not collapsed)
    if display.presenter() and not ss.get(FOLDED_FOR_SLIDES):  # presenting: the settings start folded
        ss[ms.SETTINGS_OPEN] = False
    ss[FOLDED_FOR_SLIDES] = display.presenter()
    with st.expander("Settings", key=ms.SETTINGS_OPEN, on_change="rerun", icon=":material/tune:"):
        c1, c2, c3, c4 = st.columns([1.1, 1.5, 1.3, 1.3])
        with c1:
            st.radio("Algorithm", list(ALGORITHMS), format_func=ALGORITHMS.get, key=K["algorithm"], horizontal=True,
                     on_change=ms.reset_pre_tokenizer,
                     help="BPE merges the most frequent pair; WordPiece the pair with the best score "
                          "count(ab) / (count(a) · count(b)); SuperBPE is byte-level BPE whose last merges "
                          "may cross spaces.")
            wordpiece = ss[K["algorithm"]] == "wordpiece"
            superbpe = ss[K["algorithm"]] == "superbpe"
            picky = ss[K["algorithm"]] == "pickybpe"
            st.radio("Symbols", list(LEVELS), format_func=LEVELS.get, key=K["level"], horizontal=True,
                     disabled=wordpiece or superbpe or picky, on_change=ms.reset_pre_tokenizer,
                     help="Start from characters, or from the 256 bytes of UTF-8 as GPT-2 does (BPE only; "
                          "SuperBPE and PickyBPE always start from bytes).")
        level = {"wordpiece": "char", "superbpe": "byte", "pickybpe": "byte"}.get(ss[K["algorithm"]], ss[K["level"]])
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
            if superbpe:
                st.slider("Stage 2 from (% of the vocabulary)", min_value=1, max_value=100, step=1,
                          key=K["transition"], format="%d %%", help=TRANSITION_HELP)
            if picky:
                st.slider("Remove tokens above IoS (%)", min_value=1, max_value=100, step=1,
                          key=K["threshold"], format="%d %%", help=THRESHOLD_HELP)
        with c4:
            st.number_input("Minimum pair frequency", min_value=0, max_value=1_000_000, step=1,
                            key=K["min_frequency"], disabled=superbpe or picky,
                            help="Stop (BPE) or skip pairs (WordPiece) seen fewer times.")
            st.selectbox("Ties broken by", list(TIE_BREAKS), format_func=TIE_BREAKS.get, key=K["tie_break"],
                         disabled=wordpiece or superbpe or picky, help=TIE_BREAK_HELP)
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


def settings_from_widgets() -> MergeSettings:
    ss = st.session_state
    values = {name: ss[key] for name, key in K.items()}
    values["budget"] = int(values["budget"])
    values["min_frequency"] = int(values["min_frequency"])
    settings = MergeSettings(**values)
    ss[ms.SAVED] = settings
    return settings


def start_button(corpus_name: str, settings: MergeSettings, *, fits: str = "") -> bool:
    """Presenter mode, nothing trained yet: a primary Train button under the folded settings, and
    what it trains; returns whether it was pressed (then neither is drawn: the page trains)."""
    if st.session_state.get(START):
        return True
    st.button("Train", key=START, type="primary", icon=":material/model_training:", on_click=ms.close_settings,
              help="Train with the settings (folded above: open them to change them).")
    st.info(escape_markdown(f"Press Train to learn {settings.describe()} on “{corpus_name}” (the settings are "
                            "folded above)." + (f" It is a counts file; settings that fit it: {fits}." if fits else "")),
            icon=":material/school:")
    return False
