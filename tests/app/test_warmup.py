"""The server's warm-up: `streamlit run app.py` serves an st.App whose lifespan pre-loads the
landing page's modules and the default corpus' statistics before the first visitor."""

from __future__ import annotations

import asyncio
import sys
import threading

from streamlit.web.server.app_discovery import discover_asgi_app

from tests._paths import ROOT
from tokenizer_core.corpus import stats_cache
from ui import warmup


def test_streamlit_run_finds_the_app_with_its_lifespan():
    found = discover_asgi_app(ROOT / "app.py")
    assert found.is_asgi_app and found.import_string == "app:app"


def test_lifespan_warms_up_in_the_background(tmp_path, monkeypatch):
    monkeypatch.setenv("TOKENIZER_PLAYGROUND_CACHE", str(tmp_path))
    loaded = []

    def spy(corpus, *, folder):
        loaded.append((corpus.name, folder))
        return real(corpus, folder=folder)

    real = stats_cache.sample_stats
    monkeypatch.setattr(stats_cache, "sample_stats", spy)

    async def serve_briefly() -> None:
        async with warmup.lifespan(None):
            await asyncio.sleep(0)

    # In a thread of its own: browser tests in the same worker leave an event loop running here.
    server = threading.Thread(target=lambda: asyncio.run(serve_briefly()))
    server.start()
    server.join(timeout=60)
    warmup.wait_for_imports(timeout=60)
    assert "ui.corpus.page" in sys.modules and "altair" in sys.modules
    for thread in threading.enumerate():
        if thread.name == "tp-warm-up":
            thread.join(timeout=60)
    assert loaded == [("default", tmp_path)]  # the first page then finds them in memory or on disk


def test_waiting_without_a_warm_up_returns_at_once():
    warmup.wait_for_imports(timeout=0.01)
    assert warmup._IMPORTS_DONE.is_set()
