"""Warm the server up before the first visitor: the landing page's imports and data.

``streamlit run app.py`` finds the ``st.App`` in ``app.py`` and serves it; its lifespan (below)
starts one background thread at server start. While the browser is still loading Streamlit's
frontend (about 0.6 s), that thread imports the landing page's modules (pandas and altair are
most of it) and fills the disk caches of the default corpus and its statistics, so the first
script run finds them ready instead of paying for them. It only imports and reads: nothing it
does needs a session. A script run that starts while the thread is still importing waits for it
(:func:`wait_for_imports`): two threads importing the same circle of modules at once can see each
other's half-initialised modules. The corpus and its statistics are then safe to share: their
loaders hold a lock and write their cache files atomically.

The lifespan is what ``app.py`` hands to Streamlit::

    app = st.App(__file__, lifespan=lifespan)
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import AsyncIterator
from typing import Any

_LOG = logging.getLogger(__name__)
_IMPORTS_DONE = threading.Event()
_IMPORTS_DONE.set()  # nothing to wait for until a warm-up starts


def wait_for_imports(*, timeout: float = 60.0) -> None:
    """Block until a running warm-up has finished importing (at once when none runs)."""
    _IMPORTS_DONE.wait(timeout)


def warm_up() -> None:
    """Import the landing page and load the default corpus and its statistics (disk-cached)."""
    try:
        try:
            import ui.corpus.page  # noqa: F401  (pandas, altair and the Corpus page)
            import ui.widgets.sidebar  # noqa: F401

            _first_call_costs()
        finally:
            _IMPORTS_DONE.set()
        from tokenizer_core.corpus.default import cache_dir
        from tokenizer_core.corpus.loading import load_sample
        from tokenizer_core.corpus.stats_cache import sample_stats

        sample_stats(load_sample("default"), folder=cache_dir())
    except Exception:  # noqa: BLE001 - an optimisation only: the first run does the same work
        _LOG.warning("Warm-up failed; the first page will load the corpus itself", exc_info=True)


def _first_call_costs() -> None:
    """Pay, ahead of the first run, what Streamlit and altair pay on their first call (measured:
    0.2 s compiling the emoji pattern the page icon is checked against, 0.1 s of ``inspect.stack``
    in Streamlit's once-only "run me with streamlit run" check, 0.1 s of altair's first chart)."""
    import altair as alt
    import pandas as pd
    from streamlit import delta_generator, string_util

    string_util.is_emoji("🔤")
    # Private, hence guarded: it only sets a flag once (no warning under a running server).
    getattr(delta_generator, "_maybe_print_use_warning", lambda: None)()
    alt.Chart(pd.DataFrame({"x": [1], "y": [1]})).mark_bar().encode(x="x", y="y").to_dict()


@contextlib.asynccontextmanager
async def lifespan(_app: Any) -> AsyncIterator[None]:
    """The ``st.App`` lifespan: warm up in a daemon thread, never delaying the server's start."""
    _IMPORTS_DONE.clear()
    threading.Thread(target=warm_up, name="tp-warm-up", daemon=True).start()
    yield
