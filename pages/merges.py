"""BPE step-through page: train BPE or WordPiece on the active corpus and replay it merge by merge."""

import streamlit as st

from ui.merges.page import render_page
from ui.router import require_router

require_router()
st.title("BPE step-through")
render_page()
