"""The Entropy patches page: a byte n-gram model of the active corpus gives each byte of a text its
next-byte entropy; patches start where it crosses a threshold (the Byte Latent Transformer's global
rule) or rises by more than one (its relative rule). The patch count sits beside the token counts of
shelf tokenizers on the same text.

The model is counted once per corpus and order for the server (``ui.cache.NGRAM_MODELS``, keyed by
the corpus digest), on the corpus' first :data:`TRAIN_BYTES` bytes.

>>> RULES, TRAIN_BYTES // 2**20
(('Global', 'Relative'), 10)
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from tokenizer_core.corpus.documents import Corpus
from tokenizer_core.errors import TokenizerError
from tokenizer_core.patches import ByteNgramModel, joined_bytes, patch_starts, patches_of
from ui import session, url_state
from ui.cache import NGRAM_MODELS
from ui.patches import PREFIX
from ui.patches.chart import entropy_figure
from ui.widgets import display, shelf_picker
from ui.widgets.export import plotly_chart, table
from ui.widgets.metric_strip import Metric, metric_strip_html
from ui.widgets.safe_html import render_html
from ui.widgets.text import escape_markdown
from ui.widgets.tokens import CHIP_CSS, bytes_display, chip_html

DEFAULT_TEXT = "The tokenizer splits the text into tokens; the model never sees the characters themselves."
RULES = ("Global", "Relative")
TRAIN_BYTES = 10 * 2**20  # counted of the corpus: a few seconds, and enough for an n-gram's contexts
MAX_TEXT_BYTES = 3000  # the chart has a bar per byte
TEXT, ORDER, RULE, THRESHOLD, SHELF = (PREFIX + k for k in ("text", "order", "rule", "threshold", "shelf"))
PARAMS = (
    url_state.text("patch_text", TEXT, default=DEFAULT_TEXT, what="the text"),
    url_state.integer("order", ORDER, default=4, lo=1, hi=6),
    url_state.choice("rule", RULE, RULES, default=RULES[0]),
    url_state.number("theta", THRESHOLD, default=2.0, lo=0.0, hi=8.0),
    shelf_picker.params_many("patch_shelf", SHELF),
)


def corpus_bytes(corpus: Corpus, limit: int = TRAIN_BYTES) -> bytes:
    """What the model counts of ``corpus``: its texts joined by newlines, the first ``limit`` bytes."""
    return joined_bytes(corpus.texts, limit=limit)


def _model(order: int) -> ByteNgramModel | None:
    corpus, key = session.active_corpus(), session.active_corpus_key()
    return NGRAM_MODELS.get_or_run(
        (key, order, TRAIN_BYTES),
        lambda progress: ByteNgramModel.train(corpus_bytes(corpus), order=order, progress=progress),
        job=f"ngram:{key}:{order}", what=f"Counting the corpus' bytes ({order}-grams)")


def _cut(data: bytes, limit: int) -> bytes:
    """At most ``limit`` bytes of UTF-8 ``data``, never ending inside a character."""
    return data[:limit].decode("utf-8", errors="ignore").encode("utf-8")


def render_page() -> None:
    """The whole page (called by ``pages/patches.py``)."""
    url_state.seed(PARAMS)
    display.intro("The **Byte Latent Transformer** reads bytes in **patches**: a small byte model predicts "
                  "each next byte, and a new patch starts where it is unsure. Here that model is a byte "
                  "n-gram model counted on your corpus; the bars are its uncertainty (entropy, in bits) "
                  "about each byte, and an orange bar starts a patch.")
    with display.folded("Text and settings"):
        left, right = st.columns([3, 2], gap="large")
        with left:
            st.text_area("Text", key=TEXT, height=150, help=f"Its first {MAX_TEXT_BYTES:,} bytes are drawn.")
        with right:
            order_col, rule_col = st.columns(2)
            order_col.selectbox("n-gram order", list(range(1, 7)), key=ORDER,
                                help="Bytes the model reads: the order minus one before each byte, and the byte.")
            rule_col.radio("Rule", RULES, key=RULE, horizontal=True,
                           help="Global: a patch starts where the entropy is above the threshold. Relative: "
                                "where it rose by more than the threshold over the byte before.")
            st.slider("Threshold (bits)", 0.0, 8.0, step=0.1, key=THRESHOLD)
            chosen = shelf_picker.choose_many(key=SHELF, label="Tokenizers to count against",
                                              prefer=("gpt2", "cl100k_base"))
    url_state.publish(PARAMS)
    data = str(st.session_state.get(TEXT) or "").encode("utf-8")
    if not data:
        st.info("Type a text to see where its patches begin.")
        return
    if len(data) > MAX_TEXT_BYTES:
        st.caption(f"The text has {len(data):,} bytes; the first {MAX_TEXT_BYTES:,} are drawn.")
        data = _cut(data, MAX_TEXT_BYTES)
    model = _model(int(st.session_state[ORDER]))
    if model is None:
        return
    threshold = float(st.session_state[THRESHOLD])
    mode = "relative" if st.session_state[RULE] == "Relative" else "global"
    entropies = model.entropies(data)
    patches = patches_of(data, patch_starts(entropies.tolist(), threshold=threshold, mode=mode))
    render_html(metric_strip_html([
        Metric("Bytes", f"{len(data):,}"),
        Metric("Patches", f"{len(patches):,}", help="Where the rule starts a new patch (the first byte always does)."),
        Metric("Bytes per patch", f"{len(data) / len(patches):.2f}"),
        Metric("Mean entropy", f"{float(entropies.mean()):.2f} bits",
               help=f"Of the {model.order}-gram model counted on the first {model.trained_bytes:,} bytes of the corpus."),
    ]))
    plotly_chart(entropy_figure([p.data for p in patches], entropies.tolist(), threshold=threshold, mode=mode),
                 key=PREFIX + "chart", name="next-byte entropy")
    st.markdown("**The patches**")
    render_html(CHIP_CSS + '<div class="tp-chips tp-patches" style="line-height:2.2">'
                + "".join(chip_html(i, bytes_display(p.data), title_extra=f"bytes {p.start}-{p.end - 1}")
                          for i, p in enumerate(patches)) + "</div>")
    _counts(chosen, data, len(patches))


def _counts(chosen: list, data: bytes, patches: int) -> None:
    """Patches beside each picked tokenizer's tokens on the same text."""
    text = data.decode("utf-8")
    rows = [{"unit": "entropy patches (this model)", "count": patches, "bytes per unit": len(data) / patches}]
    for picked in shelf_picker.load_many(chosen):
        try:
            n = len(picked.tokenizer.encode(text, add_special_tokens=False).ids)
        except TokenizerError as err:
            st.error(escape_markdown(f"{picked.label}: {err}"))
            continue
        rows.append({"unit": f"{picked.label} tokens", "count": n, "bytes per unit": len(data) / max(n, 1)})
    st.markdown("**Patches and tokens on this text**")
    table(pd.DataFrame(rows), key=PREFIX + "counts", name="patches and tokens", hide_index=True,
          column_config={"bytes per unit": st.column_config.NumberColumn(format="%.2f")})
