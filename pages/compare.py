"""Compare page: granularities and tokenizers side by side, their metrics, and the vocabulary-size sweep."""

import streamlit as st

from ui.compare.page import render_page
from ui.router import require_router

require_router()
st.title("Compare")
render_page()
