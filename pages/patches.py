"""Entropy patches page: a byte n-gram model's next-byte entropy over a text, and the patches it cuts."""

import streamlit as st

from ui.patches.page import render_page
from ui.router import require_router

require_router()
st.title("Entropy patches")
render_page()
