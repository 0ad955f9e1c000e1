"""Tokenizer Playground: the Streamlit entry point (router only).

Run with ``streamlit run app.py``. Each page is a thin script in ``pages/``;
shared state and rendering helpers live in ``ui/``; algorithms in ``tokenizer_core``.
"""

import streamlit as st

from ui.sidebar import render_sidebar

st.set_page_config(page_title="Tokenizer Playground", page_icon="🔤", layout="wide")

PAGES = [
    st.Page("pages/corpus.py", title="Corpus", icon=":material/description:", default=True),
]

page = st.navigation(PAGES)
render_sidebar()
page.run()
