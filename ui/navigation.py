"""The app's pages, in menu order: one record per page, read by the router and by the tests.

>>> [p.url_path for p in PAGES][:2]
['corpus', 'tokenizers']
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class PageSpec:
    """A page script under ``pages/``, its menu title and icon, and its URL path."""

    script: str
    title: str
    icon: str
    url_path: str
    heading: str  # the page's first heading, which the browser tests look for


PAGES: tuple[PageSpec, ...] = (
    PageSpec("pages/corpus.py", "Corpus", ":material/description:", "corpus", "Corpus"),
    PageSpec("pages/tokenizers.py", "Tokenizers", ":material/inventory_2:", "tokenizers", "Tokenizers"),
    PageSpec("pages/merges.py", "BPE step-through", ":material/call_merge:", "merges", "BPE step-through"),
    PageSpec("pages/compare.py", "Compare", ":material/compare_arrows:", "compare", "Compare"),
    PageSpec("pages/lattice.py", "Unigram lattice", ":material/share:", "lattice", "Unigram lattice"),
    PageSpec("pages/batch.py", "Batch", ":material/table_rows:", "batch", "Batch"),
    PageSpec("pages/chat.py", "Chat templates", ":material/forum:", "chat", "Chat templates"),
    PageSpec("pages/lessons.py", "Lessons", ":material/school:", "lessons", "Lessons"),
    PageSpec("pages/patches.py", "Entropy patches", ":material/bar_chart:", "patches", "Entropy patches"),
)
