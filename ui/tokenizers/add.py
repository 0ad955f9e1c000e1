"""Putting tokenizers on the shelf: train one on the active corpus, upload a file, or fetch one
from the Hugging Face Hub. Errors are shown with ``st.error``; nothing here raises to the page."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Optional

import streamlit as st

from tokenizer_core.corpus.loading import Corpus
from tokenizer_core.errors import TokenizerError
from tokenizer_core.io.hf_json import load_from_hub
from tokenizer_core.io.uploads import import_files
from tokenizer_core.options import TrainOptions
from tokenizer_core.pipeline import Tokenizer
from tokenizer_core.training import train
from ui import session as state
from ui.corpus.view import display_name, escape_markdown
from ui.server_store import ServerStore
from ui.shelf import state as shelf
from ui.widgets.cancel import cancel_button

PREFIX = "tokenizers_"
SELECTED = PREFIX + "selected"  # key of the shelf item the page shows
ALGORITHMS = {
    "bpe-bytes": "BPE on bytes (GPT-2 style)",
    "bpe-chars": "BPE on characters",
    "wordpiece": "WordPiece (BERT style)",
    "unigram": "Unigram (SentencePiece style)",
}
UPLOAD_TYPES = ["json", "model", "txt", "tiktoken", "bpe"]


@dataclass(frozen=True)
class TrainRequest:
    """What the Train panel asks for; hashable, so it keys the cache."""

    algorithm: str
    vocab_size: int
    lowercase: bool

    def options(self) -> TrainOptions:
        specials = ("<unk>", "<s>", "</s>") if self.algorithm == "unigram" else ("[UNK]", "[PAD]", "[CLS]", "[SEP]", "[MASK]")
        return TrainOptions(
            vocab_size=self.vocab_size, lowercase=self.lowercase, byte_level=self.algorithm == "bpe-bytes",
            special_tokens=specials if self.algorithm != "bpe-bytes" else ("<|endoftext|>",),
            unk_token=None if self.algorithm == "bpe-bytes" else specials[0],
        )

    @property
    def trainer(self) -> str:
        return "bpe" if self.algorithm.startswith("bpe") else self.algorithm

    def describe(self, corpus_name: str) -> str:
        case = ", lowercased" if self.lowercase else ""
        return f"{ALGORITHMS[self.algorithm]}, {self.vocab_size:,} tokens{case}, on “{corpus_name}”"


def trained_tokenizer(corpus_key: str, request: TrainRequest, corpus: Corpus, bar: object = None) -> Tokenizer:
    """The tokenizer ``request`` trains on ``corpus``, trained once per server: the same text
    (``corpus_key`` is its fingerprint) and settings give the same tokenizer, never changed after
    training, so sessions share it. ``bar`` (an ``st.progress``) shows the training's progress."""
    store = ServerStore("trained-tokenizers", max_entries=12)
    tok = store.get((corpus_key, request))
    if tok is None:
        def progress(done: int, total: int, message: str) -> None:
            # Every update is also where a Cancel click stops the job (see ui.widgets.cancel).
            if bar is not None:
                bar.progress(min(1.0, done / total) if total else 0.0, text=message or "training")

        tok = train(request.trainer, corpus.lines(), options=request.options(), progress=progress)
        store.put((corpus_key, request), tok)
    return tok


def _select(item: shelf.ShelfItem) -> None:
    """Show ``item`` next (it is drawn after the panels, so setting its widget here is allowed)."""
    st.session_state[SELECTED] = shelf_label(item)


def train_panel() -> None:
    corpus = state.active_corpus()
    c1, c2, c3, c4 = st.columns([2, 1, 1, 1], vertical_alignment="bottom")
    algorithm = c1.selectbox("Algorithm", list(ALGORITHMS), format_func=ALGORITHMS.get, key=PREFIX + "algorithm", bind="query-params")
    vocab = c2.number_input("Vocabulary size", min_value=300, max_value=200_000, value=8000, step=500,
                            key=PREFIX + "vocab_size", bind="query-params")
    lowercase = c3.checkbox("Lowercase", key=PREFIX + "lowercase", bind="query-params")
    if not c4.button("Train", key=PREFIX + "train", type="primary", icon=":material/model_training:"):
        st.caption(escape_markdown(f"Trains on the active corpus, “{display_name(corpus)}”."))
        return
    request = TrainRequest(algorithm=algorithm, vocab_size=int(vocab), lowercase=bool(lowercase))
    trained = train_onto_shelf(request)
    if trained is not None:
        item, seconds = trained
        _select(item)
        st.success(escape_markdown(f"Trained in {seconds:.1f} s and put on the shelf: {item.name}."))


def train_onto_shelf(request: TrainRequest) -> Optional[tuple[shelf.ShelfItem, float]]:
    """Train ``request`` on the active corpus with a progress bar and put the tokenizer on the shelf;
    the item and the seconds it took, or None after showing the error (every page trains this way)."""
    corpus = state.active_corpus()
    slot = st.empty()
    with slot.container():
        bar = st.progress(0.0, text=f"Training {ALGORITHMS[request.algorithm]}…")
        cancel_button(key=f"{PREFIX}cancel_{request.algorithm}", what=f"Training {ALGORITHMS[request.algorithm]}")
    start = time.perf_counter()
    try:
        tok = trained_tokenizer(state.active_corpus_key(), request, corpus, bar)
    except TokenizerError as err:
        slot.empty()
        st.error(escape_markdown(f"{ALGORITHMS[request.algorithm]}: {err}"))
        return None
    slot.empty()
    item = shelf.add(tok, name=f"{ALGORITHMS[request.algorithm].split(' (')[0]} {request.vocab_size:,}",
                     kind="trained", detail=request.describe(display_name(corpus)))
    return item, time.perf_counter() - start


def shelf_label(item: shelf.ShelfItem) -> str:
    """The label a shelf picker shows for ``item``."""
    return next(label for label, other in shelf.unique_labels(shelf.items()).items() if other.key == item.key)


def upload_panel() -> None:
    files = st.file_uploader(
        "Tokenizer file", type=UPLOAD_TYPES, accept_multiple_files=True, key=PREFIX + "upload",
        help="tokenizer.json (Hugging Face), a SentencePiece .model, a BERT vocab.txt, a .tiktoken file, "
             "GPT-2's encoder.json + vocab.bpe (both), or a file downloaded from this page.",
    )
    lowercase = st.checkbox("vocab.txt: uncased model (lowercase the input)", value=True, key=PREFIX + "uncased", bind="query-params")
    if not st.button("Import", key=PREFIX + "import", disabled=not files, icon=":material/upload_file:"):
        return
    pairs = [(f.name, f.getvalue()) for f in files or []]
    try:
        tok = import_files(pairs, lowercase=lowercase)
    except TokenizerError as err:  # FormatError included: a clear message, never a traceback
        st.error(escape_markdown(str(err)))
        return
    except MemoryError:
        st.error("That file needs more memory than this server has; try a smaller tokenizer.")
        return
    names = " + ".join(name for name, _ in pairs)
    item = shelf.add(tok, name=names[:60], kind="imported",
                     detail=f"{type(tok.model).__name__}, {tok.vocab_size:,} tokens, from {names}")
    _select(item)
    st.success(escape_markdown(f"Imported {names}: {tok.vocab_size:,} tokens."))


def hub_panel() -> None:
    repo = st.text_input("Model id on the Hugging Face Hub", key=PREFIX + "hub_id", placeholder="owner/name",
                         max_chars=120, help="Reads the repository's tokenizer.json (online, or from the local Hub cache).")
    if not st.button("Load from the Hub", key=PREFIX + "hub_load", disabled=not repo, icon=":material/cloud_download:"):
        return
    tok: Optional[Tokenizer] = None
    with st.spinner("Asking the Hub…"):
        try:
            tok = load_from_hub(repo.strip())
        except TokenizerError as err:
            st.error(escape_markdown(str(err)))
    if tok is not None:
        item = shelf.add(tok, name=repo.strip(), kind="imported",
                         detail=f"{type(tok.model).__name__}, {tok.vocab_size:,} tokens, from the Hub")
        _select(item)
        st.success(escape_markdown(f"Loaded {repo.strip()}: {tok.vocab_size:,} tokens."))
