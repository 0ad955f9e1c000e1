"""The active corpus in the address (``?corpus=``), on every page.

A bundled sample is named (``?corpus=tiny-shakespeare``). The user's own text (uploaded or pasted)
is saved in the workspace store (:mod:`ui.store.workspace`) the first time it is active in a run,
and named by the store's random link id (``?corpus=Xy3...``, 144 bits; never a digest of the text,
so nobody can fetch a corpus by guessing what it holds). A reload, a server restart or a student's
browser opening the link gets the same corpus back. A link the store does not know (expired, cut,
or from before links were saved) is said, and the current corpus stays: nothing is guessed.

A counts file (:mod:`ui.corpus.counts`) is kept and linked the same way, as its canonical text
under the store's kind ``counts``.

The default sample is left out of the address.
"""

from __future__ import annotations

import json
from typing import Any, Optional

import streamlit as st

from tokenizer_core.corpus import samples
from tokenizer_core.corpus.loading import Corpus
from tokenizer_core.errors import CorpusError, TokenizerError
from ui import address, cache, url_state
from ui import session as state
from ui.corpus import counts
from ui.corpus.counts import is_counts
from ui.store import workspace
from ui.widgets.text import sample_name

PARAM = "corpus"
COUNTS_KIND = "counts"  # a counts file's kind in the store (a corpus of counted pieces)
_MESSAGE = "corpus_link_message"
_LINKS = "corpus_links"  # corpus digest -> its link id in the store, for this session
_OLD_OWN = "own-"  # links made before corpora were saved named the text by its fingerprint


def corpus_payload(corpus: Corpus) -> bytes:
    """A corpus as the store keeps it (JSON; every field that makes it what it is).

    >>> corpus_from_payload(corpus_payload(Corpus("n", ("a\\nb", "c"), source="s"))).texts
    ('a\\nb', 'c')
    """
    return json.dumps({"name": corpus.name, "texts": list(corpus.texts), "source": corpus.source,
                       "replaced_bytes": corpus.replaced_bytes, "word_counts": corpus.word_counts},
                      ensure_ascii=False).encode("utf-8", "surrogatepass")


def corpus_from_payload(payload: bytes) -> Corpus:
    data: Any = json.loads(payload.decode("utf-8", "surrogatepass"))
    if not isinstance(data, dict) or not isinstance(data.get("texts"), list):
        raise CorpusError("the saved corpus is not in this app's format")
    return Corpus(str(data.get("name", "saved corpus")), tuple(data["texts"]), source=str(data.get("source", "")),
                  replaced_bytes=int(data.get("replaced_bytes", 0)), word_counts=data.get("word_counts"))


def _links() -> dict[str, str]:
    return st.session_state.setdefault(_LINKS, {})


def _own_link(corpus: Corpus) -> Optional[str]:
    """The corpus' link id, saving it in the store the first time (None when it cannot be saved)."""
    digest = cache.corpus_digest(corpus)
    link = _links().get(digest)
    if link is None:
        with st.spinner("Saving the corpus, so that a link or a reload finds it again…"):
            if is_counts(corpus):  # kept as its canonical text, read back as a counts file
                link = workspace.save(COUNTS_KIND, digest, lambda: counts.payload(corpus),
                                      meta={"name": corpus.name, "pieces": corpus.distinct},
                                      what="a link to this counts file")
            else:
                link = workspace.save("corpus", digest, lambda: corpus_payload(corpus),
                                      meta={"name": corpus.name, "bytes": corpus.size_bytes},
                                      what="a link to this corpus")
        if link is not None:
            _links()[digest] = link
    return link


def link_value(corpus: Corpus) -> Optional[str]:
    """The ``?corpus=`` value naming ``corpus``: a sample's name, the user's text's link id, or None
    (the default sample, or a text the store could not keep)."""
    name = sample_name(corpus)
    if name == state.DEFAULT_SAMPLE:
        return None
    return name if name is not None else _own_link(corpus)


def in_use() -> list[str]:
    """The store ids of this session's own corpora (kept from expiry while the session is open)."""
    return list(_links().values())


def _restore_own(raw: str) -> Optional[Corpus]:
    if raw.startswith(_OLD_OWN):
        st.session_state[_MESSAGE] = ("This link is from an older version of the app, which did not save uploaded "
                                      "or pasted text. Upload or paste it again on the Corpus page; until then "
                                      "the current corpus is used.")
        return None
    if not 8 <= len(raw) <= 40:
        st.session_state[_MESSAGE] = f"The link names a corpus that does not exist ({raw[:40]!r}); using the current one."
        return None
    stored = workspace.load(raw)
    if stored is None:
        return None
    try:
        if stored.kind == COUNTS_KIND:
            corpus: Corpus = counts.from_payload(str(stored.meta.get("name", "counts.tsv")), stored.payload)
        elif stored.kind != "corpus":
            raise CorpusError(f"the link names a {stored.kind}, not a corpus")
        else:
            corpus = corpus_from_payload(stored.payload)
    except (TokenizerError, ValueError, TypeError) as err:  # CorpusError and CountsFormatError included
        workspace.say_once(f"The linked corpus could not be read: {err}")
        return None
    _links()[cache.corpus_digest(corpus)] = raw
    return corpus


def restore() -> None:
    """Make the corpus named in the address active, once per distinct value (call before the page)."""
    raw = address.raw(PARAM)
    if not url_state.is_news(PARAM, raw):
        return  # absent, or written by this session itself (the browser may lag behind a change)
    url_state.note_seen(PARAM, raw)
    active = state.active_corpus()
    if raw == sample_name(active) or raw == _links().get(cache.corpus_digest(active)):
        return
    try:
        samples.get(raw)
    except CorpusError:
        corpus = _restore_own(raw)
        if corpus is None:
            return
    else:
        corpus = state.load_sample_cached(raw)
    state.set_active_corpus(corpus)


def publish() -> None:
    """Write the active corpus into the address (saving the user's own text the first time)."""
    value = link_value(state.active_corpus())
    if value is None:
        address.set_raw(PARAM, None)
        return
    url_state.note_seen(PARAM, value)
    address.set_raw(PARAM, value)


def show_message() -> None:
    """The message :func:`restore` left, once (call where the page can show it)."""
    message = st.session_state.pop(_MESSAGE, None)
    if message:
        st.warning(message, icon=":material/link_off:")
