"""Session state of the step-through page: widget keys, the settings widgets' values, the current step.

Every key starts with ``merges_``. The current step lives in :data:`STEP`; the
slider and the "jump to" box mirror it and write it back through callbacks, so
buttons, slider, box and auto-play always agree.
"""

from __future__ import annotations

import hashlib
from dataclasses import fields
from typing import Any, Optional

import streamlit as st

from ui import session, url_state
from ui.merges.encode import MAX_CHARS
from ui.merges.settings import (
    ALGORITHMS,
    BUDGET_KINDS,
    DEFAULT_TEXT,
    EXAMPLE_TEXTS,
    LEVELS,
    MARKERS,
    MAX_BUDGET,
    PRE_TOKENIZERS,
    TIE_BREAKS,
    WORKED_EXAMPLES,
    MergeSettings,
    pre_tokenizer_choices,
)
from ui.widgets.stepper import StepperState, is_stale_echo

# Settings widgets: one key per MergeSettings field.
SETTING_KEYS: dict[str, str] = {f.name: f"merges_{f.name}" for f in fields(MergeSettings)}
TRAIN = "merges_train"
EXAMPLE = "merges_example"
TRAINED = "merges_trained"  # (corpus key, MergeSettings) of the run the page shows
PREPARED_FOR = "merges_prepared_for"  # corpus key the settings were last prefilled for
PREPARED_NAME = "merges_prepared_name"  # and that corpus' name
SAVED = "merges_saved_settings"  # the settings last read from the widgets
SAVED_TEXT = "merges_saved_text"  # the sentence to encode, kept across pages

STEP = "merges_step"
JUMP = "merges_jump"
PLAYING = "merges_playing"
SHOWN_RUN = "merges_shown_run"  # id of the run on show: the step starts again at 0 when it changes
SPEED_VALUE = "merges_speed_value"  # seconds per step (the step controls' speed box)
STEPPER = StepperState(step=STEP, playing=PLAYING, widget="merges_stepper", speed=SPEED_VALUE)
TEXT = "merges_text"
TREE = "merges_tree_token"

SPEEDS = (0.1, 0.25, 0.5, 1.0, 2.0)  # seconds per step while playing
DEFAULT_SETTINGS = MergeSettings(budget=2000)
SETTINGS_OPEN = "merges_settings_open"  # the settings expander's open state
SKELETON_DRAWN = "merges_skeleton_drawn"  # the step view's first draw was its skeleton (once per session)
LINKED_STEP = "merges_linked_step"  # a ?step= from the address, waiting for its run

_D = DEFAULT_SETTINGS
#: The settings in the address: a link restores them (and ?step= trains them and opens that step).
#: The training settings are a form: the address shows those of the run on show (committed when it
#: is trained, see :func:`commit_run`), not the ones being edited; the text and speed act at once.
SETTING_PARAMS = (
    *url_state.form(url_state.choice("algo", SETTING_KEYS["algorithm"], ALGORITHMS, default=_D.algorithm),
    url_state.choice("symbols", SETTING_KEYS["level"], LEVELS, default=_D.level),
    url_state.choice("pre", SETTING_KEYS["pre_tokenizer"], {p for c in PRE_TOKENIZERS.values() for p in c},
                     default=_D.pre_tokenizer),
    url_state.choice("eow", SETTING_KEYS["marker"], MARKERS, default=_D.marker),
    url_state.choice("stop", SETTING_KEYS["budget_kind"], BUDGET_KINDS, default=_D.budget_kind),
    url_state.integer("n", SETTING_KEYS["budget"], default=_D.budget, lo=1, hi=MAX_BUDGET),
    url_state.integer("minfreq", SETTING_KEYS["min_frequency"], default=_D.min_frequency, lo=0, hi=1_000_000),
    url_state.choice("ties", SETTING_KEYS["tie_break"], TIE_BREAKS, default=_D.tie_break),
    url_state.flag("lower", SETTING_KEYS["lowercase"], default=_D.lowercase),
    url_state.integer("stage2", SETTING_KEYS["transition"], default=_D.transition, lo=1, hi=100),
    url_state.integer("ios", SETTING_KEYS["threshold"], default=_D.threshold, lo=1, hi=100)),
    url_state.text("text", TEXT, default=DEFAULT_TEXT, limit=MAX_CHARS),
    url_state.number("speed", SPEED_VALUE, default=0.5, lo=0.1, hi=2.0),
)
#: ?step= read from the address (into LINKED_STEP, for the page to train and open) and written from
#: the step on show (only while a run is on show).
STEP_IN = url_state.integer("step", LINKED_STEP, default=None, lo=0, hi=MAX_BUDGET)
STEP_OUT = url_state.integer("step", STEP, default=None, lo=0, hi=MAX_BUDGET)


def publish_url(*, run_shown: bool) -> None:
    """Write the settings of the run on show, the text and (while a run is on show) the step into
    the address."""
    if run_shown:
        url_state.publish((*SETTING_PARAMS, STEP_OUT))
    else:
        url_state.publish(SETTING_PARAMS)
        url_state.forget((STEP_OUT,))


def commit_run(settings: MergeSettings) -> None:
    """The run of ``settings`` is on show: its settings are what the address names."""
    url_state.commit(SETTING_PARAMS, {key: getattr(settings, name) for name, key in SETTING_KEYS.items()})


def prepare(corpus_name: str, corpus_key: str) -> None:
    """Fill the settings widgets before they are drawn.

    For a newly active classic sample the worked example's settings are filled in.
    Streamlit forgets a widget's value when another page was shown in between, so
    missing values come back from the last settings read (:data:`SAVED`).
    """
    ss = st.session_state
    if ss.get(PREPARED_FOR) != corpus_key:
        ss[PREPARED_FOR] = corpus_key
        example = WORKED_EXAMPLES.get(corpus_name)
        if example is not None:
            set_settings(example[0])
        elif ss.get(PREPARED_NAME) in WORKED_EXAMPLES:
            set_settings(DEFAULT_SETTINGS)  # a toy example's 3 merges make no sense on real text
        ss[PREPARED_NAME] = corpus_name
        ss[SAVED_TEXT] = EXAMPLE_TEXTS.get(corpus_name, DEFAULT_TEXT)
        ss.pop(TEXT, None)
    if any(key not in ss for key in SETTING_KEYS.values()):
        set_settings(ss.get(SAVED) or DEFAULT_SETTINGS)
    if TEXT not in ss:
        ss[TEXT] = ss.get(SAVED_TEXT, DEFAULT_TEXT)


def set_settings(settings: MergeSettings) -> None:
    """Put ``settings`` into the widgets (call before they are drawn, or from a callback)."""
    for name, key in SETTING_KEYS.items():
        st.session_state[key] = getattr(settings, name)


def close_settings() -> None:
    """Callback of Train: the settings fold away so the run's step controls come into view."""
    st.session_state[SETTINGS_OPEN] = False


def open_settings() -> None:
    """Callback of a cancelled training: the settings come back, to be changed and trained again."""
    st.session_state[SETTINGS_OPEN] = True


def forget_run() -> None:
    """Callback of Cancel while a dropped run trains again: the page stops showing that run (so the
    next click does not train it again) and the settings come back."""
    st.session_state.pop(TRAINED, None)
    open_settings()


def reset_pre_tokenizer() -> None:
    """Callback of the algorithm and symbol widgets: each combination starts from its usual pre-tokenizer."""
    ss = st.session_state
    algorithm, level = ss.get(SETTING_KEYS["algorithm"], "bpe"), ss.get(SETTING_KEYS["level"], "char")
    if algorithm in ("superbpe", "pickybpe"):  # bytes only: the symbols radio shows what it trains on
        ss[SETTING_KEYS["level"]] = level = "byte"
    ss[SETTING_KEYS["pre_tokenizer"]] = next(iter(pre_tokenizer_choices(algorithm, level)))


def use_example(corpus_name: str) -> None:
    """Callback of the "worked example" button."""
    example = WORKED_EXAMPLES.get(corpus_name)
    if example is not None:
        set_settings(example[0])


def current_step(num_steps: int) -> int:
    """The current step, kept within ``0..num_steps``."""
    ss = st.session_state
    step = min(max(int(ss.get(STEP, 0)), 0), num_steps)
    ss[STEP] = step
    return step


def go_to(step: int, num_steps: int) -> None:
    st.session_state[STEP] = min(max(int(step), 0), num_steps)


def from_widget(key: str, num_steps: int) -> None:
    """Callback of the jump box (stops play); the old step echoed back by a browser
    that had not yet drawn the last button's or key's step is ignored (see :func:`is_stale_echo`)."""
    value = st.session_state.get(key, 0)
    if is_stale_echo(STEPPER, int(value)):
        return
    st.session_state[PLAYING] = False
    go_to(value, num_steps)


def show_run(corpus_key: str, settings: MergeSettings) -> str:
    """Note which run the page shows; a different run than last time starts at step 0, paused.

    Returns the run's id, which the step controls send back with each command.
    """
    run_id = hashlib.sha1(f"{corpus_key}|{settings!r}".encode()).hexdigest()[:16]
    ss = st.session_state
    if ss.get(SHOWN_RUN) != run_id:
        ss[SHOWN_RUN] = run_id
        ss[STEP] = 0
        ss[PLAYING] = False
    return run_id


def speed() -> float:
    """Seconds per step while playing."""
    value = st.session_state.get(SPEED_VALUE, 0.5)
    return value if value in SPEEDS else 0.5


def sync_widgets(step: int) -> None:
    """Make the jump box show the current step (before it is drawn)."""
    st.session_state[JUMP] = step


def skeleton_first() -> bool:
    """Whether the step view draws only its skeleton in this run (the step controls and the merge,
    the charts, words and encoder left to the next run), and notes that it did.

    So it goes on a browser's first run of a session (a link or a reload opening a trained run): its
    Streamlit has yet to load the code of the controls' component, and everything drawn in the same
    run would hold the controls back (the browser reveals what it loads together, once nothing new
    arrives), so they came 0.3-0.6 s after the heading. The controls report when they are drawn,
    which reruns the view with the rest. Later runs, and runs with no browser on the other end (no
    URL from a frontend: AppTest), draw everything at once."""
    ss = st.session_state
    if ss.get(SKELETON_DRAWN) or session.run_number() > 1 or st.context.url is None:
        return False
    ss[SKELETON_DRAWN] = True
    return True


def keep_view_values() -> None:
    """Keep the values of the widgets a skeleton run does not draw (Streamlit forgets those)."""
    ss = st.session_state
    for key in (TEXT, TREE):
        if key in ss:
            ss[key] = ss[key]


def trained() -> Optional[tuple[str, MergeSettings]]:
    value: Any = st.session_state.get(TRAINED)
    return value
