"""Compare's Round trip tab: does each tokenizer give the text back? ``decode(encode(text))`` against
the text, the changes marked inline (lost characters struck through in red, added ones in green,
whitespace made visible) and the reasons (:mod:`tokenizer_core.analysis.round_trip`).

>>> diff_html([Change("equal", "a ", "a "), Change("replace", "É", "e")])
'<span>a·</span><span class="tp-lost">É</span><span class="tp-added">e</span>'
"""

from __future__ import annotations

import html
from collections.abc import Sequence

import pandas as pd
import streamlit as st

from tokenizer_core.analysis.round_trip import Change, RoundTrip, round_trip
from ui.compare.choices import Compared
from ui.widgets.safe_html import render_html
from ui.widgets.text import escape_markdown
from ui.widgets.tokens import visible_whitespace

CSS = ("<style>.tp-rt{line-height:1.9;font-family:monospace;white-space:pre-wrap;word-break:break-all}"
       ".tp-lost{background:#fecaca;color:#7f1d1d;text-decoration:line-through}.tp-added{background:#bbf7d0;color:#14532d}"
       "</style>")


def _shown(text: str) -> str:
    return html.escape(visible_whitespace(text))


def diff_html(changes: Sequence[Change]) -> str:
    """The changes as escaped inline HTML."""
    out = []
    for c in changes:
        if c.kind == "equal":
            out.append(f"<span>{_shown(c.before)}</span>")
            continue
        if c.before:
            out.append(f'<span class="tp-lost">{_shown(c.before)}</span>')
        if c.after:
            out.append(f'<span class="tp-added">{_shown(c.after)}</span>')
    return "".join(out)


def render_round_trip(text: str, chosen: Sequence[Compared]) -> None:
    trips: list[tuple[Compared, RoundTrip]] = [(c, round_trip(c.tokenizer, text)) for c in chosen]
    st.markdown("Does decoding the tokens give the text back? Lost characters are struck through in red, "
                "characters the decoder adds are green.")
    st.dataframe(pd.DataFrame({
        "tokenizer": [c.name for c, _ in trips],
        "gives the text back": ["yes" if r.lossless else "no" for _, r in trips],
        "characters changed": [sum(max(len(x.before), len(x.after)) for x in r.changes if x.kind != "equal")
                               for _, r in trips],
        "unknown tokens": [r.unknown for _, r in trips],
    }), hide_index=True, width="stretch")
    for c, r in trips:
        st.markdown(f"**{escape_markdown(c.name)}**")
        if r.lossless:
            st.success("Gives the text back exactly.", icon=":material/check:")
            continue
        st.warning(escape_markdown("; ".join(r.reasons)), icon=":material/difference:")
        render_html(f'{CSS}<div class="tp-rt">{diff_html(r.changes)}</div>')
