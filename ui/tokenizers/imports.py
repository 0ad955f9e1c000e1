"""The Upload and Hub panels of the Tokenizers page: a tokenizer file becomes a shelf item, named from
its files, with progress and Cancel, and held once by the server however many sessions import it.

A class where every student imports Gemma 3 must not hold forty copies of a 262k-token model, nor
spend forty times the seconds. Imports are keyed by the **digest of the uploaded bytes**:

- :data:`_LIVE` maps that digest to the tokenizer while some session's shelf holds it (a weak
  reference: when the last session lets go, the memory goes back; nothing here keeps it alive);
- the same digest is the shelf item's content identity (:attr:`ui.shelf.state.ShelfItem.digest`),
  the key of every cache of results about it.

Both are content, never a file name, so one user never gets another's tokenizer.

>>> upload_digest([("a.json", b"{}")], lowercase=True) == upload_digest([("a.json", b"{}")], lowercase=True)
True
>>> upload_digest([("a.json", b"{}")], lowercase=True) == upload_digest([("a.json", b"{}")], lowercase=False)
False
"""

from __future__ import annotations

import ctypes
import hashlib
import threading
import weakref
from collections.abc import Callable, Sequence
from typing import Optional

import streamlit as st

from tokenizer_core.errors import TokenizerError
from tokenizer_core.io.hf_json import load_from_hub
from tokenizer_core.io.naming import imported_name
from tokenizer_core.io.uploads import import_files
from tokenizer_core.pipeline import Tokenizer
from tokenizer_core.types import ProgressCallback
from ui import url_state
from ui.shelf import state as shelf
from ui.tokenizers import PREFIX
from ui.widgets.cancel import cancel_button, throttled
from ui.widgets.text import escape_markdown

UPLOAD_TYPES = ["json", "model", "txt", "tiktoken", "bpe", "jinja"]
Select = Callable[[shelf.ShelfItem], None]  # shows a shelf item on the page (the picker is drawn later)
_ROUND = PREFIX + "upload_round"  # a new uploader after each import: it never keeps the last file
_DONE = PREFIX + "upload_done"  # what the last import did, said in the next run
_LOCK = threading.Lock()
#: Upload digest -> the tokenizer some session's shelf holds now (weak: freed with the last one).
_LIVE: "weakref.WeakValueDictionary[str, Tokenizer]" = weakref.WeakValueDictionary()


def upload_digest(files: Sequence[tuple[str, bytes]], *, lowercase: bool) -> str:
    """The content identity of an upload: its files' names and bytes, and the one option import reads."""
    h = hashlib.blake2b(digest_size=16)
    h.update(b"lowercase" if lowercase else b"cased")
    for name, data in files:
        h.update(len(name).to_bytes(4, "little") + name.encode("utf-8", "surrogatepass"))
        h.update(len(data).to_bytes(8, "little") + data)
    return "upload-" + h.hexdigest()


def give_back_memory() -> None:
    """Hand the memory freed by released tokenizers back to the system (glibc keeps freed heap for
    reuse otherwise: the server stayed at its peak with every browser closed)."""
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):  # not glibc: the allocator keeps its own policy
        pass


TRIM_DELAY_S = 2.0  # what a closed session held goes in a burst: trim once, after it
_trim_pending = threading.Event()


def _released() -> None:
    """A shared imported tokenizer was freed (its last session let go): give the memory back soon."""
    if _trim_pending.is_set():
        return
    _trim_pending.set()

    def trim() -> None:
        _trim_pending.clear()
        give_back_memory()

    timer = threading.Timer(TRIM_DELAY_S, trim)
    timer.daemon = True
    timer.start()


def trim_pending() -> bool:
    """Whether a release's trim is still to come (the memory test waits on this, not on a clock)."""
    return _trim_pending.is_set()


def live_count() -> int:
    """How many imported tokenizers the server holds now (for the memory test and the bench)."""
    with _LOCK:
        return len(_LIVE)


def imported_tokenizer(files: Sequence[tuple[str, bytes]], *, lowercase: bool,
                       progress: Optional[ProgressCallback] = None) -> tuple[Tokenizer, str]:
    """The tokenizer of an upload and its content identity: the one the server holds already (when a
    session's shelf has it), else imported now with ``progress`` (a ProgressCallback).

    The identity is the upload's digest: equal bytes import to equal tokenizers, so it keys the
    caches as safely as the digest of the canonical JSON, without serializing a 200k-token model
    to find it (the store serializes it once, when it does not hold it yet)."""
    key = upload_digest(files, lowercase=lowercase)
    with _LOCK:
        tok = _LIVE.get(key)
    if tok is None:
        made = import_files(files, lowercase=lowercase, progress=progress)
        with _LOCK:  # two sessions importing at once: the first one stored is the one both keep
            tok = _LIVE.setdefault(key, made)
        if tok is made:
            weakref.finalize(made, _released)
    return tok, key


def name_of(files: Sequence[tuple[str, bytes]], tok: Tokenizer) -> str:
    """The shelf name of an import, read from its files (:func:`tokenizer_core.io.naming.imported_name`)."""
    config = tok.metadata.get("tokenizer_config")
    return imported_name([name for name, _ in files], model_type=type(tok.model).__name__, vocab_size=tok.vocab_size,
                         config=config if isinstance(config, dict) else None)


def upload_panel(*, params: Sequence[url_state.UrlParam], select: Select) -> None:
    """The uploader, the uncased option and Import; ``select(item)`` shows the imported item."""
    round_ = st.session_state.setdefault(_ROUND, 0)
    done = st.session_state.pop(_DONE, None)
    if done:  # said in the run after the import, which draws the uploader empty
        st.success(escape_markdown(done))
    with st.container(key=PREFIX + "upload"):
        files = st.file_uploader(
            "Tokenizer file", type=UPLOAD_TYPES, accept_multiple_files=True, key=f"{PREFIX}upload_file_{round_}",
            help="tokenizer.json (Hugging Face; its tokenizer_config.json beside it names the model and brings "
                 "its chat template, as does a chat_template.jinja), a "
                 "SentencePiece .model, a BERT vocab.txt, a .tiktoken file, GPT-2's encoder.json + vocab.bpe "
                 "(both), or a file downloaded from this page.")
    lowercase = st.checkbox("vocab.txt: uncased model (lowercase the input)", key=PREFIX + "uncased")
    if not st.button("Import", key=PREFIX + "import", disabled=not files, icon=":material/upload_file:"):
        return
    url_state.commit(params)
    pairs = [(f.name, f.getvalue()) for f in files or []]
    names = " + ".join(name for name, _ in pairs)
    slot = st.empty()
    with slot.container():
        bar = st.progress(0.0, text=f"Importing {names}…")
        cancel_button(key=PREFIX + "cancel_import", what=f"Importing {names}")

    def show(done: int, total: int, message: str) -> None:
        bar.progress(min(1.0, done / total) if total else 0.0, text=escape_markdown(f"{names}: {message}…"))

    try:
        tok, digest = imported_tokenizer(pairs, lowercase=lowercase, progress=throttled(show, every=0.0))
    except TokenizerError as err:  # FormatError included: a clear message, never a traceback
        slot.empty()
        st.error(escape_markdown(str(err)))
        return
    except MemoryError:
        slot.empty()
        st.error("That file needs more memory than this server has; try a smaller tokenizer.")
        return
    slot.empty()
    name = name_of(pairs, tok)
    item = shelf.add(tok, name=name, kind=shelf.Kind.IMPORTED, digest=digest,
                     detail=f"{type(tok.model).__name__}, {tok.vocab_size:,} tokens, from {names}")
    select(item)
    st.session_state[_ROUND] = round_ + 1  # a new, empty uploader (and a disabled Import) from now on
    st.session_state[_DONE] = f"Imported {names} as “{name}”: {tok.vocab_size:,} tokens. Rename it on the shelf."
    st.rerun()


def hub_panel(*, select: Select) -> None:
    """Load a tokenizer.json from the Hugging Face Hub (online, or from the local Hub cache)."""
    repo = st.text_input("Model id on the Hugging Face Hub", key=PREFIX + "hub_id", placeholder="owner/name",
                         max_chars=120, help="Reads the repository's tokenizer.json, with its tokenizer_config.json and chat template "
                              "when it has them (online, or from the local Hub cache).")
    if not st.button("Load from the Hub", key=PREFIX + "hub_load", disabled=not repo, icon=":material/cloud_download:"):
        return
    tok: Optional[Tokenizer] = None
    with st.spinner("Asking the Hub…"):
        try:
            tok = load_from_hub(repo.strip())
        except TokenizerError as err:
            st.error(escape_markdown(str(err)))
    if tok is not None:
        item = shelf.add(tok, name=repo.strip(), kind=shelf.Kind.IMPORTED,
                         detail=f"{type(tok.model).__name__}, {tok.vocab_size:,} tokens, from the Hub")
        select(item)
        st.success(escape_markdown(f"Loaded {repo.strip()}: {tok.vocab_size:,} tokens."))
