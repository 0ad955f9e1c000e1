"""Tokenizer Playground: the Streamlit entry point (router only).

Run with ``streamlit run app.py``. Each page is a thin script in ``app_pages/`` (not ``pages/``:
Streamlit would also run a ``pages/`` folder's scripts on their own when a page URL is opened
directly, skipping this router);
shared state and rendering helpers live in ``ui/``; algorithms in ``tokenizer_core``.
"""

import streamlit as st

from ui.sidebar import render_sidebar
from ui.state import begin_run

st.set_page_config(page_title="Tokenizer Playground", page_icon="🔤", layout="wide")

PAGES = [
    st.Page("app_pages/corpus.py", title="Corpus", icon=":material/description:", default=True),
    st.Page("app_pages/merges.py", title="BPE step-through", icon=":material/call_merge:"),
]

page = st.navigation(PAGES)
begin_run()
render_sidebar()
page.run()
