"""Chat templates page: a conversation rendered by each model's chat template, as tokens per turn."""

import streamlit as st

from ui.chat.page import render_page
from ui.router import require_router

require_router()
st.title("Chat templates")
render_page()
