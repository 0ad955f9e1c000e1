"""Every server-wide cache of the app, in one module, keyed by content.

A Streamlit server runs one Python process for all its users, so anything cached there
(``st.cache_resource``, ``st.cache_data``, a module-level table) is shared by every session. One
user must never get another's result, so every key here is built from **content**: the digest of a
tokenizer's canonical JSON (:func:`saved_form`), the digest of a corpus' documents
(:func:`corpus_digest`), and the settings that went into the result. Never a display name, a shelf
label or ``id()``, which two users' different tokenizers can share.

Each kind of result has one :class:`Table` declared below (its size bound and what it holds), so
this file is the audit list of what the server keeps. Values are never changed after they are
stored: sessions read the same object.

Long work runs in the page, which draws its own progress and Cancel button, and only its result is
stored here (Streamlit replays the elements a cached function draws, and replaying a progress bar
from an earlier run fails); :meth:`Table.get_or_make` is for work short enough to run under a
spinner.

>>> t = Table("doc-example", max_entries=2, holds="an example")
>>> t.put(("a",), 1); t.put(("b",), 2); t.get(("a",)); t.put(("c",), 3)
1
>>> t.get(("b",)) is None, t.get(("a",)), t.get_or_make(("c",), lambda: 0)
(True, 1, 3)
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any, Optional, TypeVar

import streamlit as st

from tokenizer_core.corpus.documents import Corpus

T = TypeVar("T")
Key = tuple[Hashable, ...]


def canonical_json(tok: Any) -> str:
    """A tokenizer saved in this app's format with sorted keys: equal tokenizers give equal text."""
    return json.dumps(tok.to_dict(), ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def digest_text(text: str) -> str:
    """A 128-bit hex digest of a text (surrogates kept, so no two texts share one).

    >>> len(digest_text("abc")), digest_text("a") == digest_text("a"), digest_text("a") == digest_text("b")
    (32, True, False)
    """
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


def saved_form(tok: Any) -> tuple[str, str]:
    """A tokenizer's canonical JSON and its content identity, the digest of that JSON (every stage
    included): the shelf keeps the one in the store and keys every cache of results by the other."""
    saved = canonical_json(tok)
    return saved, "tok-" + digest_text(saved)


def corpus_digest(corpus: Corpus) -> str:
    """The content identity of a corpus: the digest of its documents (its name plays no part).

    >>> corpus_digest(Corpus("a", ("x y",))) == corpus_digest(Corpus("b", ("x y",)))
    True
    """
    return "corpus-" + corpus.fingerprint()


@st.cache_resource(show_spinner=False)
def _registry() -> dict[str, tuple[threading.Lock, OrderedDict]]:
    # One dict per server process that outlives script reruns; it only holds the tables below.
    return {}


class Table:
    """A named least-recently-used table of at most ``max_entries`` results, one per server process.

    ``holds`` says what it keeps, for the audit in the design notes. Keys are tuples of content
    digests and settings; values must never be changed after they are stored (sessions share them).
    """

    def __init__(self, name: str, *, max_entries: int, holds: str) -> None:
        self.name = name
        self.max_entries = max_entries
        self.holds = holds

    def _parts(self) -> tuple[threading.Lock, OrderedDict]:
        return _registry().setdefault(self.name, (threading.Lock(), OrderedDict()))

    def get(self, key: Key) -> Optional[Any]:
        lock, table = self._parts()
        with lock:
            if key not in table:
                return None
            table.move_to_end(key)
            return table[key]

    def put(self, key: Key, value: Any) -> None:
        lock, table = self._parts()
        with lock:
            table[key] = value
            table.move_to_end(key)
            while len(table) > self.max_entries:
                table.popitem(last=False)

    def get_or_make(self, key: Key, make: Callable[[], T], *, spinner: Optional[str] = None) -> T:
        """The stored value, or ``make()`` (under ``spinner``, if given) stored and returned.

        Two sessions asking at once may both compute; the results are equal (same content), and the
        lock is never held while computing, so one slow result never blocks another table's users.
        """
        found = self.get(key)
        if found is not None:
            return found
        if spinner:
            with st.spinner(spinner):
                value = make()
        else:
            value = make()
        self.put(key, value)
        return value

    def get_or_run(self, key: Key, make: Callable[[Any], T], *, job: str, what: str) -> Optional[T]:
        """The stored value, or ``make(progress)`` run as a long job with a progress bar and Cancel
        (:func:`ui.widgets.cancel.run_job`) and stored; None when this session cancelled it."""
        found = self.get(key)
        if found is not None:
            return found
        from ui.widgets.cancel import run_job  # the widget draws; this module only stores

        value = run_job(job=job, what=what, make=make)
        if value is not None:
            self.put(key, value)
        return value

    def __contains__(self, key: Key) -> bool:
        lock, table = self._parts()
        with lock:
            return key in table


# --- Every table of the server: what it holds and its key --------------------------------------
#: Bundled sample corpora: key (sample name,). Shipped with the app, the same for everyone.
SAMPLES = Table("samples", max_entries=8, holds="bundled sample corpora, by sample name")
#: Reference tokenizers with their digest: key (name,). Files shipped in pinned packages, the same for everyone.
REFERENCES = Table("references", max_entries=16, holds="offline reference tokenizers, by reference name")
#: Tokenizers trained by the shelf's Train panels: key (corpus digest, TrainRequest).
TRAINED = Table("trained-tokenizers", max_entries=12, holds="tokenizers trained on a corpus, by corpus digest and request")
#: Step-through runs of the BPE page: key (corpus digest, MergeSettings). Tens of MB each.
MERGE_RUNS = Table("merge-runs", max_entries=8, holds="BPE/WordPiece step-through runs, by corpus digest and settings")
#: Word counts of a corpus as a trainer counts them: key (corpus digest, WordCounting.key). Trainings
#: with the same normalizer and pre-tokenizer share them (the BPE page counts a corpus once).
WORD_COUNTS = Table("word-counts", max_entries=4, holds="word counts of a corpus, by corpus digest and counting stages")
#: Byte n-gram models of the Entropy patches page: key (corpus digest, order, bytes counted).
NGRAM_MODELS = Table("ngram-models", max_entries=4, holds="byte n-gram models of a corpus, by corpus digest and order")
#: Corpus statistics: key (corpus digest,).
CORPUS_STATS = Table("corpus-stats", max_entries=16, holds="corpus statistics, by corpus digest")
#: A tokenizer's files for download: key (tokenizer digest,) -> (app JSON, tokenizer.json, why not).
DOWNLOADS = Table("downloads", max_entries=16, holds="a tokenizer's download files, by tokenizer digest")
#: The vocabulary table of the Tokenizers page: key (tokenizer digest,).
VOCABULARY = Table("vocabulary", max_entries=16, holds="vocabulary entries, by tokenizer digest")
#: Token counts of a tokenizer over the start of a corpus: key (tokenizer digest, corpus digest, chars).
TOKEN_COUNTS = Table("token-counts", max_entries=16, holds="token use counts, by tokenizer and corpus digest")
#: The vocabulary explorer's display frame: key (tokenizer digest, corpus digest, scheme, markers).
VOCAB_FRAMES = Table("vocabulary-frames", max_entries=16, holds="vocabulary display frames, by tokenizer and corpus digest")
#: Word/char/byte baselines of the Compare page: key (corpus digest, kind).
BASELINES = Table("baselines", max_entries=12, holds="word/char/byte baseline tokenizers, by corpus digest and kind")
#: Compare metrics over the corpus: key (corpus digest, tokenizer digests, settings).
COMPARE_ROWS = Table("compare-rows", max_entries=256, holds="compare metrics, by corpus and tokenizer digests and settings")
#: Vocabulary-size sweeps: key (corpus digest, sweep settings).
SWEEPS = Table("sweeps", max_entries=8, holds="vocabulary-size sweeps, by corpus digest and settings")
#: Encodings of fixed probe texts (robustness, languages): key (tokenizer digest, probe set).
PROBES = Table("probes", max_entries=64, holds="encodings of the built-in probe texts, by tokenizer digest")
#: Lessons read from their files: key (digest of the file's text,). Built-in or uploaded, the text is the content.
RESIDUES = Table("residues", max_entries=8, holds="residue and glitch token tables, by tokenizer and corpus digest")

LESSONS = Table("lessons", max_entries=64, holds="lessons parsed and checked, by digest of the lesson file")
#: The built-in lessons by id: key (their folder, each file's (size, modification time)). Every Lessons run
#: asks for them twice; an edited file gives a new key.
BUILTIN_LESSONS = Table("builtin-lessons", max_entries=2, holds="the built-in lessons, by their files' sizes and times")
#: A lesson step's figure: key (digest of the figure's checked inputs, corpus digest or "" when the figure reads no corpus).
LESSON_FIGURES = Table("lesson-figures", max_entries=256, holds="lesson figures, by digest of their inputs and corpus digest")
#: A lesson chart's Vega-Lite spec: key (digest of the chart's data, dark theme?, presenter mode?).
LESSON_CHARTS = Table("lesson-charts", max_entries=256, holds="lesson charts' Vega-Lite specs, by digest of the chart and its style")

TABLES: tuple[Table, ...] = (SAMPLES, REFERENCES, TRAINED, MERGE_RUNS, WORD_COUNTS, CORPUS_STATS, DOWNLOADS, VOCABULARY,
                             TOKEN_COUNTS,
                             VOCAB_FRAMES, BASELINES, COMPARE_ROWS, SWEEPS, PROBES, RESIDUES, LESSONS, BUILTIN_LESSONS,
                             LESSON_FIGURES, LESSON_CHARTS, NGRAM_MODELS)
