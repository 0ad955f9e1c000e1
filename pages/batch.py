"""Batch page: padding, truncation, attention masks and the waste they cost."""

import streamlit as st

from ui.batch.page import render_page
from ui.router import require_router

require_router()
st.title("Batch")
render_page()
