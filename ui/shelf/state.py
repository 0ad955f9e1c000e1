"""The shelf's contents: offline references for everyone, plus this session's own tokenizers.

References are listed always and loaded on first use (once per server: they never change). A
session's trained and imported tokenizers live in its own session state, so no other session
sees them. Every item has a stable key; pages keep the key of the item they show.

Keys in ``st.session_state`` owned here start with ``shelf_``.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Literal, Optional

import streamlit as st

from tokenizer_core.io.references import list_references, load_reference
from tokenizer_core.pipeline import Tokenizer

Kind = Literal["reference", "trained", "imported"]
KIND_LABELS: dict[str, str] = {"reference": "reference", "trained": "trained here", "imported": "imported"}
_ITEMS = "shelf_items"  # key -> ShelfItem (this session's own tokenizers)
MAX_ITEMS = 24  # a session's own tokenizers; the oldest is dropped past this


@dataclass(frozen=True)
class ShelfItem:
    """A tokenizer on the shelf (``tokenizer`` is None for a reference not loaded yet)."""

    key: str
    name: str
    kind: Kind
    detail: str

    @property
    def label(self) -> str:
        return f"{self.name} · {KIND_LABELS[self.kind]}"


@st.cache_resource(show_spinner="Loading the reference tokenizer…", max_entries=16)
def _reference(name: str) -> Tokenizer:
    return load_reference(name)


def _own() -> dict[str, tuple[ShelfItem, Tokenizer]]:
    return st.session_state.setdefault(_ITEMS, {})


def references() -> list[ShelfItem]:
    """The offline references, as shelf items."""
    return [ShelfItem(key=f"ref:{r.name}", name=r.name, kind="reference", detail=r.title) for r in list_references()]


def items() -> list[ShelfItem]:
    """Everything on the shelf: this session's own tokenizers (newest first), then the references."""
    own = [item for item, _ in reversed(list(_own().values()))]
    return own + references()


def unique_labels(shown: list[ShelfItem]) -> dict[str, ShelfItem]:
    """Each item under its label; a label seen before gets " (2)", " (3)"... so none is lost."""
    out: dict[str, ShelfItem] = {}
    for item in shown:
        label, n = item.label, 1
        while label in out:
            n += 1
            label = f"{item.label} ({n})"
        out[label] = item
    return out


def find(key: Optional[str]) -> Optional[ShelfItem]:
    return next((item for item in items() if item.key == key), None)


def tokenizer(key: str) -> Tokenizer:
    """The tokenizer of a shelf item (loads a reference on first use). KeyError if unknown."""
    if key.startswith("ref:"):
        return _reference(key[4:])
    return _own()[key][1]


def add(tok: Tokenizer, *, name: str, kind: Kind, detail: str) -> ShelfItem:
    """Put a tokenizer on this session's shelf (the same name and content again is one item)."""
    digest = hashlib.sha1(f"{kind}|{name}|{detail}|{tok.vocab_size}".encode()).hexdigest()[:12]
    item = ShelfItem(key=f"{kind}:{digest}", name=name, kind=kind, detail=detail)
    own = _own()
    own.pop(item.key, None)
    own[item.key] = (item, tok)
    while len(own) > MAX_ITEMS:
        own.pop(next(iter(own)))
    return item


def remove(key: str) -> None:
    _own().pop(key, None)
