"""Lessons page: guided, replayable teaching sessions built from the sources' worked examples."""

import streamlit as st

from ui.lessons.page import render_page
from ui.router import require_router

require_router()
st.title("Lessons")
render_page()
