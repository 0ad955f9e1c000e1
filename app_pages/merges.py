"""BPE step-through page: train BPE or WordPiece on the active corpus and replay it merge by merge."""

import streamlit as st

from ui.merges_view import render_page

st.title("BPE step-through")
render_page()
