"""The Batch page's inputs: rows of text (typed, ``?text=`` one row per line, or corpus lines picked by
length), pairs, a tokenizer from the shelf, a template, padding and truncation settings.

Keys in ``st.session_state`` owned here start with ``batch_``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import streamlit as st

from tokenizer_core.analysis.batch_templates import TEMPLATES
from tokenizer_core.batch.batching import PaddingParams, TruncationParams
from tokenizer_core.corpus.documents import Corpus
from tokenizer_core.errors import TokenizerError
from tokenizer_core.pipeline import Tokenizer
from ui import url_state
from ui.batch import PREFIX
from ui.corpus.counts import say_no_running_text
from ui.widgets import shelf_picker
from ui.widgets.shelf_picker import Picked
from ui.widgets.text import escape_markdown

ROWS = PREFIX + "rows"
SOURCE = PREFIX + "source"  # typed rows, or lines of the corpus
MAX_ROWS = 64
MAX_ROW_CHARS = 5000
DEFAULT_ROWS = "Hello world!\nTokenizers pad short rows.\nA much longer row shows how padding fills the rest of the batch."
TEMPLATE_LABELS = {"own": "the tokenizer's own", "none": "none", "bert": "BERT  [CLS] A [SEP] B [SEP]",
                   "roberta": "RoBERTa  <s> A </s></s> B </s>", "gpt2": "GPT-2 (adds nothing)",
                   "llama": "Llama  <s> A", "custom": "custom"}


SOURCES = {"type": "Type (one row per line)", "corpus": "Lines of the corpus"}
PADDINGS = ["longest", "max_length", "do_not_pad"]
TRUNCATIONS = ["do_not_truncate", "longest_first", "only_first", "only_second"]
SIDES = ["right", "left"]
TOKENIZER = PREFIX + "tokenizer"

#: The page's inputs in the address, each under its widget key (as links made before name them),
#: except the rows, which are ``?text=`` (one row per line), as the other pages' texts are.
URL_PARAMS = (
    url_state.text("text", ROWS, default=DEFAULT_ROWS, what="the rows"),
    url_state.choice(SOURCE, SOURCE, SOURCES, default="type"),
    url_state.integer(PREFIX + "corpus_rows", PREFIX + "corpus_rows", default=8, lo=1, hi=MAX_ROWS),
    url_state.integer(PREFIX + "min_chars", PREFIX + "min_chars", default=20, lo=1, hi=10**9),
    url_state.integer(PREFIX + "max_chars", PREFIX + "max_chars", default=400, lo=1, hi=10**9),
    shelf_picker.param(TOKENIZER, TOKENIZER),
    url_state.choice(PREFIX + "template", PREFIX + "template", TEMPLATE_LABELS, default="own"),
    url_state.text(PREFIX + "single", PREFIX + "single", default="[CLS] $A [SEP]", what="the single template"),
    url_state.text(PREFIX + "pair", PREFIX + "pair", default="[CLS] $A [SEP] $B:1 [SEP]:1", what="the pair template"),
    url_state.choice(PREFIX + "padding", PREFIX + "padding", PADDINGS, default="longest"),
    url_state.choice(PREFIX + "padding_side", PREFIX + "padding_side", SIDES, default="right"),
    url_state.integer(PREFIX + "pad_length", PREFIX + "pad_length", default=32, lo=1, hi=8192),
    url_state.integer(PREFIX + "multiple", PREFIX + "multiple", default=0, lo=0, hi=512),
    url_state.choice(PREFIX + "truncation", PREFIX + "truncation", TRUNCATIONS, default="do_not_truncate"),
    url_state.choice(PREFIX + "truncation_side", PREFIX + "truncation_side", SIDES, default="right"),
    url_state.integer(PREFIX + "max_length", PREFIX + "max_length", default=16, lo=0, hi=8192),
    url_state.integer(PREFIX + "stride", PREFIX + "stride", default=0, lo=0, hi=512),
    url_state.flag(PREFIX + "overflow", PREFIX + "overflow", default=True),
)


@dataclass(frozen=True)
class Settings:
    template: str
    single: str
    pair: str
    padding: Optional[PaddingParams]
    truncation: Optional[TruncationParams]
    overflow: bool


def _split(text: str) -> list[str]:
    rows = [r[:MAX_ROW_CHARS] for r in text.split("\n") if r.strip()]
    if len(rows) > MAX_ROWS:
        st.warning(f"{len(rows):,} rows given; the first {MAX_ROWS} make the batch.")
    return rows[:MAX_ROWS]


def choose_rows(corpus: Corpus) -> tuple[list[str], Optional[list[str]]]:
    """The rows, and their pair texts when pairs are on (``first ||| second`` on a line)."""
    source = st.radio("Rows", list(SOURCES), horizontal=True, key=SOURCE, format_func=SOURCES.get)
    if source == "corpus" and say_no_running_text(corpus, "Taking rows from the corpus"):
        rows: list[str] = []
    elif source == "corpus":
        c1, c2, c3 = st.columns(3)
        n = int(c1.number_input("Rows", min_value=1, max_value=MAX_ROWS, key=PREFIX + "corpus_rows"))
        lo = int(c2.number_input("Shortest (characters)", min_value=1, key=PREFIX + "min_chars"))
        hi = int(c3.number_input("Longest (characters)", min_value=1, key=PREFIX + "max_chars"))
        rows = []
        for line in corpus.lines():
            line = line.strip()
            if lo <= len(line) <= hi:
                rows.append(line)
                if len(rows) == n:
                    break
        if not rows:
            st.warning(escape_markdown(f"No line of the corpus has {lo}–{hi} characters."))
    else:
        typed = st.text_area("One row per line; `first ||| second` makes a pair", key=ROWS, height=120,
                             max_chars=MAX_ROWS * MAX_ROW_CHARS)
        rows = _split(typed)
    if not any("|||" in r for r in rows):
        return rows, None
    firsts, seconds = [], []
    for r in rows:
        a, _, b = r.partition("|||")
        firsts.append(a.strip())
        seconds.append(b.strip())
    return firsts, seconds


def choose_tokenizer() -> Optional[Picked]:
    """The shelf picker (GPT-2 the first time); None when the tokenizer picked cannot be loaded."""
    picked = shelf_picker.pick_one(key=TOKENIZER, prefer=("gpt2",))
    return picked if isinstance(picked, Picked) else None


def _pad_id(tok: Tokenizer) -> tuple[int, str]:
    for token in ("[PAD]", "<pad>", "<|endoftext|>", "</s>", "<unk>", "[UNK]"):
        tid = tok.token_to_id(token)
        if tid is not None:
            return tid, token
    return 0, tok.id_to_token(0) or "[PAD]"


def choose_settings(tok: Tokenizer) -> Optional[Settings]:
    """The template, padding and truncation panels; None (with an error shown) when they clash."""
    c1, c2, c3 = st.columns(3)
    with c1:
        template = st.selectbox("Template", list(TEMPLATE_LABELS), format_func=TEMPLATE_LABELS.get,
                                key=PREFIX + "template")
        single = pair = ""
        if template == "custom":
            single = st.text_input("Single", key=PREFIX + "single")
            pair = st.text_input("Pair", key=PREFIX + "pair")
        elif template in TEMPLATES:
            st.caption(escape_markdown(f"single: {TEMPLATES[template][0]} · pair: {TEMPLATES[template][1]}"))
    with c2:
        strategy = st.selectbox("Padding", PADDINGS, key=PREFIX + "padding")
        side = st.radio("Padding side", SIDES, horizontal=True, key=PREFIX + "padding_side")
        length = int(st.number_input("Pad to length", min_value=1, max_value=8192, key=PREFIX + "pad_length",
                                     disabled=strategy != "max_length"))
        multiple = int(st.number_input("pad_to_multiple_of (0: off)", min_value=0, max_value=512,
                                       key=PREFIX + "multiple", disabled=strategy == "do_not_pad"))
    with c3:
        truncation = st.selectbox("Truncation", TRUNCATIONS, key=PREFIX + "truncation")
        tside = st.radio("Truncation side", SIDES, horizontal=True, key=PREFIX + "truncation_side")
        max_length = int(st.number_input("max_length", min_value=0, max_value=8192, key=PREFIX + "max_length",
                                         disabled=truncation == "do_not_truncate"))
        stride = int(st.number_input("stride", min_value=0, max_value=512, key=PREFIX + "stride",
                                     disabled=truncation == "do_not_truncate"))
        overflow = st.checkbox("Overflow as rows", key=PREFIX + "overflow", disabled=truncation == "do_not_truncate")
    pad_id, pad_token = _pad_id(tok)
    try:
        padding = None if strategy == "do_not_pad" else PaddingParams(
            strategy=strategy, side=side, max_length=length if strategy == "max_length" else None,
            pad_to_multiple_of=multiple or None, pad_id=pad_id, pad_token=pad_token)
        trunc = None if truncation == "do_not_truncate" else TruncationParams(
            strategy=truncation, max_length=max_length, stride=stride, side=tside)
    except TokenizerError as err:
        st.error(escape_markdown(str(err)))
        return None
    return Settings(template, single, pair, padding, trunc, overflow and trunc is not None)
