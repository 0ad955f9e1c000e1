"""The pipeline of a tokenizer, stage by stage, on a text of the user's: what the normalizer,
the pre-tokenizer, the model, the post-processor and the decoder each did.

Every piece of text is shown escaped (chips, code blocks or dataframe cells)."""

from __future__ import annotations

import html

import pandas as pd
import streamlit as st

from tokenizer_core.errors import TokenizerError
from tokenizer_core.pipeline import Tokenizer
from ui import url_state
from ui.tokenizers import PREFIX
from ui.widgets.export import table
from ui.widgets.safe_html import render_html
from ui.widgets.text import escape_markdown
from ui.widgets.tokens import chip_html, chips_html, scheme_for, visible_whitespace

DEFAULT_TEXT = "Hello, world! Tokenizers don't split naïve café text the same way: 12345 🤖"
MAX_CHARS = 2000
#: The text in the address (a longer one than a link carries is left out, and the sidebar says so).
URL_PARAMS = (url_state.text(PREFIX + "pipeline_text", PREFIX + "pipeline_text", default=DEFAULT_TEXT,
                             what="the pipeline's text"),)


def component_name(component: object) -> str:
    """A stage's name for people, e.g. ``'ByteLevel'`` or ``'none'``."""
    if component is None:
        return "none"
    inner = getattr(component, "normalizers", None) or getattr(component, "pre_tokenizers", None) \
        or getattr(component, "decoders", None)
    name = type(component).__name__
    if inner:
        return f"{name}[{', '.join(type(c).__name__ for c in inner)}]"
    return name


def _stage(title: str, component: object, body_html: str) -> None:
    st.markdown(f"**{title}** · `{escape_markdown(component_name(component))}`")
    render_html(body_html)


def render_pipeline(tok: Tokenizer, *, translate: bool) -> None:
    text = st.text_area("Text", key=PREFIX + "pipeline_text", max_chars=MAX_CHARS, height=80)
    try:
        trace = tok.explain(text)
        final = tok.encode(text)
        decoded = tok.decode(final.ids)
    except TokenizerError as err:
        st.error(escape_markdown(str(err)))
        return
    scheme = scheme_for(tok)
    box = 'style="font-family:ui-monospace,monospace;white-space:pre-wrap;overflow-wrap:anywhere"'
    _stage("1. Normalizer", tok.normalizer,
           f"<div {box}>{html.escape(visible_whitespace(trace.normalized))}</div>")
    pieces = "".join(chip_html(None, p.text, scheme=scheme, translate=translate,
                               title_extra=f"characters {p.offsets[0]}–{p.offsets[1]} of the input")
                     for p in trace.pieces)
    _stage("2. Pre-tokenizer", tok.pre_tokenizer,
           f'<div style="line-height:2">{pieces or "<em>no pieces</em>"}</div>')
    per_piece = "".join(
        '<div style="display:inline-block;margin:2px 6px 2px 0;padding:2px 4px;border:1px dashed #9ca3af;'
        f'border-radius:6px">{chips_html([(t.id, t.text) for t in p.tokens], scheme=scheme, translate=translate)}</div>'
        for p in trace.pieces
    )
    _stage("3. Model", tok.model, f"<div>{per_piece or '<em>no tokens</em>'}</div>")
    _stage("4. Post-processor", tok.post_processor,
           chips_html(list(zip(final.ids, final.tokens)), scheme=scheme, translate=translate))
    frame = pd.DataFrame({
        "token": [visible_whitespace(t) for t in final.tokens], "id": final.ids,
        "start": [o[0] for o in final.offsets], "end": [o[1] for o in final.offsets],
        "text": [visible_whitespace(text[a:b]) for a, b in final.offsets],
        "type_id": final.type_ids, "special": final.special_tokens_mask,
        "word": pd.array(final.word_ids, dtype="Int64"),
    })
    table(frame, key=PREFIX + "stages_table", name="pipeline tokens", hide_index=True,
          height=min(300, 40 + 35 * len(frame)))
    _stage("5. Decoder", tok.decoder, f"<div {box}>{html.escape(visible_whitespace(decoded))}</div>")
    same = "equals" if decoded == text else "differs from"
    st.caption(f"{len(final.ids):,} tokens for {len(text):,} characters; the decoded text {same} the input.")
    render_fast_path(tok)


def render_fast_path(tok: Tokenizer) -> None:
    """How the engines run this tokenizer: its fast path (or none), when a text still takes the
    general path, and why each other kind of fast path does not fit (reasons quote the file's own
    stages and patterns: shown as text)."""
    report = tok.explain_fast_path()
    head, *rest = report.sentences()
    limits, refused = rest[:len(report.limits)], rest[len(report.limits):]
    st.markdown("**How it runs**", help="Every fast path gives the general path's encodings exactly; "
                "it only changes how fast they come.")
    (st.success if report.compiled else st.info)(escape_markdown(head), icon=":material/speed:")
    for line in limits:
        st.caption(escape_markdown(line))
    if refused:
        with st.expander(f"Why not the other fast paths ({len(refused)})", icon=":material/help:"):
            st.markdown("\n".join(f"- {escape_markdown(line)}" for line in refused))
