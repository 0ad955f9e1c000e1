"""Tokenizers page: the shelf of the session's tokenizers, and a close look at one of them."""

import streamlit as st

from ui.router import require_router
from ui.tokenizers.page import render_page

require_router()
st.title("Tokenizers")
render_page()
