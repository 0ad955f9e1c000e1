"""Lattice page: a Unigram lattice with its Viterbi path, n-best list, sampling and training trace."""

import streamlit as st

from ui.lattice.page import render_page
from ui.router import require_router

require_router()
st.title("Unigram lattice")
render_page()
