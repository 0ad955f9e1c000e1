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
from ui.batch import PREFIX
from ui.shelf import state as shelf
from ui.widgets.text import escape_markdown
from ui.widgets.url_text import publish_text, seed_from_url

ROWS = PREFIX + "rows"
MAX_ROWS = 64
MAX_ROW_CHARS = 5000
DEFAULT_ROWS = "Hello world!\nTokenizers pad short rows.\nA much longer row shows how padding fills the rest of the batch."
TEMPLATE_LABELS = {"own": "the tokenizer's own", "none": "none", "bert": "BERT  [CLS] A [SEP] B [SEP]",
                   "roberta": "RoBERTa  <s> A </s></s> B </s>", "gpt2": "GPT-2 (adds nothing)",
                   "llama": "Llama  <s> A", "custom": "custom"}


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
    seed_from_url(ROWS, limit=MAX_ROWS * MAX_ROW_CHARS)
    source = st.radio("Rows", ["type", "corpus"], horizontal=True, key=PREFIX + "source", bind="query-params",
                      format_func={"type": "Type (one row per line)", "corpus": "Lines of the corpus"}.get)
    if source == "corpus":
        publish_text(None)
        c1, c2, c3 = st.columns(3)
        n = int(c1.number_input("Rows", min_value=1, max_value=MAX_ROWS, value=8, key=PREFIX + "corpus_rows", bind="query-params"))
        lo = int(c2.number_input("Shortest (characters)", min_value=1, value=20, key=PREFIX + "min_chars", bind="query-params"))
        hi = int(c3.number_input("Longest (characters)", min_value=1, value=400, key=PREFIX + "max_chars", bind="query-params"))
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
        st.session_state.setdefault(ROWS, DEFAULT_ROWS)
        typed = st.text_area("One row per line; `first ||| second` makes a pair", key=ROWS, height=120,
                             max_chars=MAX_ROWS * 200)
        publish_text(typed if typed != DEFAULT_ROWS else None)
        rows = _split(typed)
    if not any("|||" in r for r in rows):
        return rows, None
    firsts, seconds = [], []
    for r in rows:
        a, _, b = r.partition("|||")
        firsts.append(a.strip())
        seconds.append(b.strip())
    return firsts, seconds


def choose_tokenizer() -> tuple[str, Tokenizer]:
    labels = shelf.unique_labels(shelf.items())
    default = next((i for i, label in enumerate(labels) if label.startswith("gpt2")), 0)
    label = st.selectbox("Tokenizer", list(labels), index=default, key=PREFIX + "tokenizer", bind="query-params")
    return label, shelf.tokenizer(labels[label].key)


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
                                key=PREFIX + "template", bind="query-params")
        single = pair = ""
        if template == "custom":
            single = st.text_input("Single", value="[CLS] $A [SEP]", key=PREFIX + "single", bind="query-params")
            pair = st.text_input("Pair", value="[CLS] $A [SEP] $B:1 [SEP]:1", key=PREFIX + "pair", bind="query-params")
        elif template in TEMPLATES:
            st.caption(escape_markdown(f"single: {TEMPLATES[template][0]} · pair: {TEMPLATES[template][1]}"))
    with c2:
        strategy = st.selectbox("Padding", ["longest", "max_length", "do_not_pad"], key=PREFIX + "padding", bind="query-params")
        side = st.radio("Padding side", ["right", "left"], horizontal=True, key=PREFIX + "padding_side", bind="query-params")
        length = int(st.number_input("Pad to length", min_value=1, max_value=8192, value=32, key=PREFIX + "pad_length", bind="query-params",
                                     disabled=strategy != "max_length"))
        multiple = int(st.number_input("pad_to_multiple_of (0: off)", min_value=0, max_value=512, value=0,
                                       key=PREFIX + "multiple", bind="query-params", disabled=strategy == "do_not_pad"))
    with c3:
        truncation = st.selectbox("Truncation", ["do_not_truncate", "longest_first", "only_first", "only_second"],
                                  key=PREFIX + "truncation", bind="query-params")
        tside = st.radio("Truncation side", ["right", "left"], horizontal=True, key=PREFIX + "truncation_side", bind="query-params")
        max_length = int(st.number_input("max_length", min_value=0, max_value=8192, value=16, key=PREFIX + "max_length", bind="query-params",
                                         disabled=truncation == "do_not_truncate"))
        stride = int(st.number_input("stride", min_value=0, max_value=512, value=0, key=PREFIX + "stride", bind="query-params",
                                     disabled=truncation == "do_not_truncate"))
        overflow = st.checkbox("Overflow as rows", value=True, key=PREFIX + "overflow", bind="query-params",
                               disabled=truncation == "do_not_truncate")
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
