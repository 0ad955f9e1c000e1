"""How fast a link restores a user's work from the workspace store (SQLite), and what it costs.

Run from the repository root::

    python -m bench.bench_store            # a 20 MB corpus and a 200,000-token tokenizer (o200k_base)

It saves both the way the app does (a pasted corpus; a shelf tokenizer in this app's JSON), then
times, in a fresh process state (no server-wide table filled, a new store engine, as after a server
restart), what a page's first run pays to restore them: reading the row, decompressing, parsing,
and building the Corpus or Tokenizer. Then a whole page run under ``AppTest`` opened on the link
(``/batch?corpus=...&shelf=...&batch_tokenizer=...``) against the same page with nothing to restore.
Prints the store file's size. The goal of issue #25: under 1 s each.
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def _median_s(fn, reps: int = 5) -> float:  # noqa: ANN001
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="tp-bench-store-") as folder:
        os.environ["TOKENIZER_PLAYGROUND_CACHE"] = folder
        db = str(Path(folder) / "workspaces.sqlite3")
        os.environ["TOKENIZER_PLAYGROUND_DB"] = db
        from tokenizer_core.corpus.documents import Corpus
        from tokenizer_core.io.references import load_reference
        from tokenizer_core.pipeline import Tokenizer
        from ui import cache
        from ui.corpus.link import corpus_from_payload, corpus_payload
        from ui.store.backend import Quota, Store

        text = _corpus_text(20_000_000)
        corpus = Corpus("bench corpus", (text,))
        tok = load_reference("o200k_base")
        store = Store.open(db, quota=Quota())
        saved_json, tok_digest = cache.saved_form(tok)
        t0 = time.perf_counter()
        corpus_link = store.put("corpus", cache.corpus_digest(corpus), corpus_payload(corpus),
                                meta={"name": corpus.name}, workspace="bench")
        t1 = time.perf_counter()
        tok_link = store.put("tokenizer", tok_digest, saved_json.encode(),
                             meta={"name": "o200k copy", "kind": "imported", "detail": "bench"}, workspace="bench")
        t2 = time.perf_counter()
        print(f"save: 20 MB corpus {t1 - t0:.2f} s, {tok.vocab_size:,}-token tokenizer {t2 - t1:.2f} s")

        def restore_corpus() -> None:
            fresh = Store.open(db, quota=Quota())
            assert corpus_from_payload(fresh.get(corpus_link).payload).texts == corpus.texts

        def restore_tokenizer() -> None:
            fresh = Store.open(db, quota=Quota())
            again = Tokenizer.from_dict(json.loads(fresh.get(tok_link).payload))
            assert again.vocab_size == tok.vocab_size

        print(f"restore (new engine, read, decompress, parse, build), median of 5: "
              f"corpus {_median_s(restore_corpus):.2f} s, tokenizer {_median_s(restore_tokenizer):.2f} s")

        from streamlit.testing.v1 import AppTest

        app = str(ROOT / "app.py")

        def page(params: dict) -> float:
            """One session: the landing page first, then the link's parameters and the Batch page; the
            time of that second run (in which the router restores what the link names)."""
            cache._registry().clear()
            from ui.store import workspace

            workspace.reset_for_tests()
            at = AppTest.from_file(app, default_timeout=300)
            at.run()
            for k, v in params.items():
                at.query_params[k] = v
            start = time.perf_counter()
            at.switch_page("pages/batch.py").run()
            assert not at.exception, at.exception
            return time.perf_counter() - start

        label = "o200k copy · imported"
        plain = statistics.median(page({}) for _ in range(3))
        linked = statistics.median(page({"corpus": corpus_link, "shelf": [tok_link], "batch_tokenizer": label})
                                   for _ in range(3))
        print(f"The Batch page's run under AppTest, median of 3: with nothing to restore {plain:.2f} s; "
              f"opened on the link (restoring the 20 MB corpus and the 200k-token tokenizer, then "
              f"encoding its rows with it) {linked:.2f} s")
        size = sum(p.stat().st_size for p in Path(folder).glob("workspaces.sqlite3*"))
        print(f"store file: {size / 1e6:.1f} MB for {len(text) / 1e6:.0f} MB of text and "
              f"{len(saved_json) / 1e6:.1f} MB of tokenizer JSON")
    return 0


def _corpus_text(size: int) -> str:
    """About ``size`` bytes of real text (the benchmarks' corpus: Python's docs and sources)."""
    from bench.corpus import bench_corpus_path

    return bench_corpus_path(size // 1_000_000).read_text(encoding="utf-8")


if __name__ == "__main__":
    raise SystemExit(main())
