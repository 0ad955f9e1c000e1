"""The Chat templates page: type a conversation once, pick models from the shelf, and see what each
one really reads: its chat template's text around every message, as tokens, turn by turn, with the
counts side by side.

>>> DEFAULT_SHELF
('qwen', 'llama3')
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from tokenizer_core.chat import TemplateError
from tokenizer_core.chat.conversation import ROLES, parse_conversation
from ui import url_state
from ui.chat import PREFIX
from ui.chat.view import build, counts_table, render_column
from ui.widgets import display, shelf_picker
from ui.widgets.text import escape_markdown

DEFAULT_CONVERSATION = ("system: You are a helpful assistant. Answer in one sentence.\n"
                        "user: How many r's are in strawberry?\n"
                        "assistant: There are three r's in strawberry.\n"
                        "user: And in <b>raspberry</b>? 🍓")
DEFAULT_SHELF = ("qwen", "llama3")
TEXT = PREFIX + "text"
PROMPT = PREFIX + "prompt"
SHELF = PREFIX + "shelf"
PARAMS = (
    url_state.text("chat", TEXT, default=DEFAULT_CONVERSATION, what="the conversation"),
    url_state.flag(PROMPT, PROMPT, default=True),
    shelf_picker.params_many(SHELF, SHELF),
)
PER_ROW = 3


def render_page() -> None:
    """The whole page (called by ``pages/chat.py``)."""
    url_state.seed(PARAMS)
    display.intro("A chat model never reads your messages alone: its **chat template** (in its "
                  "tokenizer_config.json) wraps each one in role markers and control tokens. Pale chips "
                  "are what the template adds, outlined chips are control tokens, coloured chips are the "
                  "message's own text.")
    with display.folded("Conversation and models"):
        left, right = st.columns([3, 2], gap="large")
        with left:
            st.text_area("Conversation", key=TEXT, height=170,
                         help=f"One message per line, starting with its role ({', '.join(ROLES)}); "
                              "the lines after it continue its text.")
        with right:
            chosen = shelf_picker.choose_many(
                key=SHELF, label="Models", prefer=DEFAULT_SHELF,
                help="Models whose tokenizer came with a chat template (import a tokenizer.json with its "
                     "tokenizer_config.json on the Tokenizers page), and the references with a chat format "
                     "written here (Llama 3, Qwen).")
            st.toggle("Add the generation prompt", key=PROMPT,
                      help="What the template adds after the last message so that the model answers next.")
    url_state.publish(PARAMS)
    try:
        messages = parse_conversation(str(st.session_state.get(TEXT) or ""))
    except TemplateError as err:
        st.warning(escape_markdown(str(err)), icon=":material/edit_note:")
        return
    picked = shelf_picker.load_many(chosen)
    if not picked:
        st.info("Pick one or more models to see the conversation as each one reads it.")
        return
    columns = [build(p, messages, prompt=bool(st.session_state.get(PROMPT))) for p in picked]
    shown = [c for c in columns if c.view is not None]
    if len(shown) > 1:
        st.markdown("**Tokens per turn**")
        st.dataframe(pd.DataFrame(counts_table(shown, messages)).set_index("Turn"), width="stretch")
    for start in range(0, len(columns), PER_ROW):
        row = st.columns(min(PER_ROW, len(columns)), gap="medium")
        for column, p, where in zip(columns[start:start + PER_ROW], picked[start:start + PER_ROW], row):
            with where:
                render_column(column, p.tokenizer)
