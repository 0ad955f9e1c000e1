"""The Train panel's inputs that only one algorithm has: SuperBPE's transition and PickyBPE's IoS
threshold, each drawn only when its algorithm is picked (both in percent, kept in the address).

>>> transition_at(8000, 90), transition_at(8000, 0)
(7200, 1)
"""

from __future__ import annotations

import streamlit as st

from tokenizer_core.options import PickyBpeOptions, SuperBpeOptions
from ui.tokenizers import PREFIX
from ui.widgets.text import escape_markdown

#: SuperBPE: where stage 2 begins, in percent of the vocabulary (the paper's best, 90%).
DEFAULT_TRANSITION = round(100 * SuperBpeOptions().transition_share)
TRANSITION = PREFIX + "transition"
#: PickyBPE: the Intersection over Self above which a used-up token is removed, in percent (0.9).
DEFAULT_THRESHOLD = round(100 * PickyBpeOptions().threshold)
THRESHOLD = PREFIX + "threshold"


def superbpe_options(percent: int) -> SuperBpeOptions:
    """SuperBPE's transition as a share; 0% is a transition of one token, which (below the 256 bytes)
    learns every merge in stage 2, as a share of 0 would if a transition could be 0."""
    return SuperBpeOptions(transition=1) if percent == 0 else SuperBpeOptions(transition_share=percent / 100)


def transition_at(vocab: int, percent: int) -> int:
    """The vocabulary size where SuperBPE's stage 2 begins."""
    return min(superbpe_options(percent).transition_for(vocab), vocab)


def transition_input(vocab: int) -> int:
    """SuperBPE's transition (percent of the vocabulary)."""
    s1, s2 = st.columns([1, 2], vertical_alignment="bottom")
    percent = int(s1.number_input(
        "Transition (% of the vocabulary)", min_value=0, max_value=100, step=5, key=TRANSITION,
        help="Where SuperBPE's second stage begins: up to this share of the vocabulary it learns BPE within "
             "words (cut at spaces), then merges across spaces (superwords such as “ of the”). 90% is the "
             "paper's best; 100% is plain byte-level BPE, 0% learns every merge across spaces."))
    s2.caption(escape_markdown(f"Stage 2 (merges across spaces) begins at {transition_at(vocab, percent):,} "
                               f"of the {vocab:,} tokens."))
    return percent


def threshold_input() -> int:
    """PickyBPE's IoS threshold (percent)."""
    s1, s2 = st.columns([1, 2], vertical_alignment="bottom")
    percent = int(s1.number_input(
        "Remove above IoS (%)", min_value=1, max_value=100, step=5, key=THRESHOLD,
        help="PickyBPE checks both tokens of every merge: one the merge used up almost everywhere (its "
             "Intersection over Self, pairs merged / its occurrences before the merge, above this share) is "
             "removed from the vocabulary and its last occurrences split back. 90% is the paper's best; 100% "
             "removes nothing (plain byte-level BPE)."))
    s2.caption(escape_markdown(f"Tokens whose IoS is above {percent / 100:g} go; the vocabulary page lists "
                               "them with why."))
    return percent
