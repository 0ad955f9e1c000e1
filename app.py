"""Tokenizer Playground: the Streamlit entry point (router only).

Run with ``streamlit run app.py``. Each page is a thin script in ``pages/``; shared state and
rendering helpers live in ``ui/``; algorithms in ``tokenizer_core``. A ``pages/`` folder makes
Streamlit run a page script on its own (without this router) for the first request of a fresh
server; every page therefore starts with :func:`ui.router.require_router`, which sends that run
back through here.
"""

import streamlit as st

from ui import url_state
from ui.corpus import link as corpus_link
from ui.navigation import PAGES as NAV_PAGES
from ui.session import begin_run
from ui.widgets import display
from ui.widgets.sidebar import render_sidebar

display_refused = url_state.restore(display.URL_PARAMS)  # ?raw= and ?present= (before page config)
st.set_page_config(page_title="Tokenizer Playground", page_icon="🔤", layout="wide",
                   initial_sidebar_state="collapsed" if display.presenter() else "auto")
display.apply_css()

PAGES = [
    st.Page(spec.script, title=spec.title, icon=spec.icon, url_path=spec.url_path, default=(i == 0))
    for i, spec in enumerate(NAV_PAGES)
]

page = st.navigation(PAGES)
begin_run()
corpus_link.restore()  # ?corpus= in the address: a reload or a shared link keeps the corpus
refresh_shelf = render_sidebar()
corpus_link.show_message()
url_state.show_refusals(display_refused)
page.run()
refresh_shelf()  # the page may have put a tokenizer on the shelf
corpus_link.publish()
url_state.publish(display.URL_PARAMS)
