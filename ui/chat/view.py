"""One model's column on the Chat templates page: where its template comes from, the tokens of each
turn (control tokens outlined, the template's own tokens near white, the message's text in its token
colours), and the counts the comparison table gathers.

>>> turn_caption(TurnCount("user", 14, 9, 5, 2))
'**user** · 14 tokens: 9 of the text, 5 from the template (2 control)'
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Optional

import streamlit as st

from tokenizer_core.chat import ChatTokens, TemplateError, TurnCount, chat_tokens, template_for
from tokenizer_core.chat.tokens import PROMPT
from ui.shelf.state import Kind
from ui.widgets.safe_html import render_html
from ui.widgets.text import escape_markdown
from ui.widgets.tokens import CHIP_CSS, chip_html, scheme_for

TEMPLATE_GREY = "#f3f4f6"  # the template's own tokens (near white: no token colour is this light)


@dataclass(frozen=True)
class Column:
    """What one picked tokenizer made of the conversation (``view`` is None when it could not)."""

    label: str
    source: str
    view: Optional[ChatTokens]
    problem: str = ""


def turn_caption(count: TurnCount) -> str:
    return (f"**{escape_markdown(count.role)}** · {count.tokens:,} tokens: {count.text:,} of the text, "
            f"{count.template:,} from the template ({count.special:,} control)")


def build(picked: Any, messages: Sequence[dict[str, Any]], *, prompt: bool) -> Column:
    """Render and tokenize the conversation with one picked shelf item (``ui.widgets.shelf_picker.Picked``)."""
    reference = picked.item.name if picked.item.kind == Kind.REFERENCE else None
    try:
        template, source = template_for(picked.tokenizer, reference=reference)
        if template is None:
            return Column(picked.label, source, None, problem=source)
        turns = template.turns(list(messages), add_generation_prompt=prompt)
        return Column(picked.label, source, chat_tokens(picked.tokenizer, turns, messages))
    except TemplateError as err:  # a hostile or broken template, or a conversation it refuses
        return Column(picked.label, "", None, problem=str(err))


def chat_turn_chips_html(view: ChatTokens, turn: Optional[int], scheme: Any) -> str:
    body = []
    for t in view.tokens:
        if t.turn != turn:
            continue
        colour = None if t.content else TEMPLATE_GREY
        why = "control token" if t.special else ("the message's text" if t.content else "added by the template")
        body.append(chip_html(t.id, t.text, scheme=scheme, translate=False, highlight=t.special, colour=colour,
                              title_extra=why))
    return f'{CHIP_CSS}<div class="tp-chips" style="line-height:2">{"".join(body)}</div>'


def render_column(column: Column, tokenizer: Any) -> None:
    st.markdown(f"##### {escape_markdown(column.label)}")
    if column.view is None:
        st.warning(escape_markdown(column.problem), icon=":material/block:")
        return
    view = column.view
    st.caption(escape_markdown(column.source))
    st.metric("Tokens the model reads", f"{view.total:,}")
    scheme = scheme_for(tokenizer)
    if view.counts:
        for i, count in enumerate(view.counts):
            st.markdown(turn_caption(count))
            render_html(chat_turn_chips_html(view, i, scheme))
        if view.prompt_tokens:
            st.markdown(f"**generation prompt** · {view.prompt_tokens:,} tokens: the model answers after them")
            render_html(chat_turn_chips_html(view, PROMPT, scheme))
    else:
        render_html(chat_turn_chips_html(view, None, scheme))
    if view.note:
        st.caption(escape_markdown(view.note))
    with st.expander("The text the model reads"):
        st.code(view.text, language=None, wrap_lines=True)


def counts_table(columns: Sequence[Column], messages: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """One row per turn (and the prompt, and the total), one column per model: the tokens it reads."""
    rows: list[dict[str, Any]] = []
    for i, m in enumerate(messages):
        words = " ".join(str(m.get("content") or "").split())
        row: dict[str, Any] = {"Turn": f"{i + 1}. {m['role']}: {words[:40]}{'…' if len(words) > 40 else ''}"}
        for c in columns:
            if c.view is not None and i < len(c.view.counts):
                row[c.label] = c.view.counts[i].tokens
        rows.append(row)
    rows.append({"Turn": "generation prompt", **{c.label: c.view.prompt_tokens for c in columns if c.view is not None}})
    rows.append({"Turn": "total", **{c.label: c.view.total for c in columns if c.view is not None}})
    return rows

