"""Tokenizer Playground: the Streamlit entry point (router only).

Run with ``streamlit run app.py``. Each page is a thin script in ``pages/``; shared state and
rendering helpers live in ``ui/``; algorithms in ``tokenizer_core``. A ``pages/`` folder makes
Streamlit run a page script on its own (without this router) for the first request of a fresh
server; every page therefore starts with :func:`ui.router.require_router`, which sends that run
back through here.

``streamlit run app.py`` first imports this file as a module (``__name__ == "app"``) and finds the
``st.App`` below, whose lifespan warms the server up (:mod:`ui.warmup`); each session's run then
executes it as ``__main__``, which routes to the page.
"""

import streamlit as st


def route() -> None:
    """One run of a session: page config, navigation, sidebar, the page, the address."""
    from ui.warmup import wait_for_imports

    wait_for_imports()  # the server's warm-up may still be importing what we import below
    from tokenizer_core.gc_pause import allow_pauses

    allow_pauses(False)  # many sessions share this process: one training never stops collection for all
    from ui import url_state
    from ui.corpus import link as corpus_link
    from ui.lessons import follow as class_follow
    from ui.lessons import library as lesson_library
    from ui.lessons import live as class_live
    from ui.navigation import PAGES as NAV_PAGES
    from ui.session import begin_run
    from ui.shelf import link as shelf_link
    from ui.store import workspace
    from ui.widgets import cancel, display, presenter
    from ui.widgets.sidebar import render_sidebar

    display_refused = url_state.restore(display.URL_PARAMS)  # ?raw= and ?present= (before page config)
    st.set_page_config(page_title="Tokenizer Playground", page_icon="🔤", layout="wide",
                       initial_sidebar_state="collapsed" if display.presenter() else "auto")
    display.apply_css()

    pages = [
        st.Page(spec.script, title=spec.title, icon=spec.icon, url_path=spec.url_path, default=(i == 0))
        for i, spec in enumerate(NAV_PAGES)
    ]
    page = st.navigation(pages)
    presenter.open_requested_page()  # a page key (1-9) pressed in presenter mode
    class_follow.follow({p.url_path: p for p in pages}, page.url_path)  # a student goes where the class is
    begin_run()
    url_state.clear_left_out()  # notes of what this run's pages leave out of the address
    corpus_link.restore()  # ?corpus= in the address: a reload or a shared link keeps the corpus
    shelf_link.begin_run()
    shelf_link.restore()  # ?shelf= : the user's own tokenizers the page uses, from the workspace store
    refresh_shelf = render_sidebar()
    with st.sidebar:
        class_live.render_sidebar_panel()  # start or join a class from any page
    presenter.render()  # presenter mode's bar (pages, Exit) and the keys F, Esc, 1-9
    corpus_link.show_message()
    cancel.show_note()  # a long job the user cancelled in the last run
    url_state.show_refusals(display_refused)
    with url_state.one_entry():  # the run's address changes in one go: one history entry per new view
        page.run()
        corpus_link.publish()
        shelf_link.publish()
        refresh_shelf()  # the page may have put a tokenizer on the shelf; the share link is now complete
        # What an open session uses never expires: its corpus, its tokenizers, its uploaded lessons.
        workspace.keep_in_use(corpus_link.in_use() + shelf_link.in_use() + lesson_library.in_use())
        url_state.publish(display.URL_PARAMS)
    class_follow.lead(page.url_path)  # a teacher's page and view go to the class
    class_follow.poll()


if __name__ == "__main__":  # a session's run (Streamlit executes the script as __main__)
    route()
else:  # imported by `streamlit run` to find the server: warm it up at start
    from starlette.middleware import Middleware

    from ui.early_keys import EarlyKeys
    from ui.warmup import lifespan

    app = st.App(__file__, lifespan=lifespan, middleware=[Middleware(EarlyKeys)])
