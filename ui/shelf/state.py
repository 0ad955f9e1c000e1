"""The shelf's contents: offline references for everyone, plus this session's own tokenizers.

References are listed always and loaded on first use (once per server: they never change). A
session's trained and imported tokenizers live in its own session state, so no other session
sees them. Every item carries a **content identity** (``digest``): for a tokenizer of the user's,
the digest of its canonical saved JSON; for a reference, its name (the file behind it is shipped in
a pinned package, the same for everyone). Caches of per-tokenizer results are keyed by that digest
(:mod:`ui.cache`), never by the item's name or label, which two users' tokenizers can share.

Keys in ``st.session_state`` owned here start with ``shelf_``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from enum import Enum
from typing import Optional

import streamlit as st

from tokenizer_core.errors import TokenizerError
from tokenizer_core.io.references import list_references, load_reference
from tokenizer_core.pipeline import Tokenizer
from ui import cache
from ui.store import workspace


class Kind(str, Enum):
    """Where a shelf item comes from (a ``str`` enum: it compares equal to its value)."""

    REFERENCE = "reference"
    TRAINED = "trained"
    IMPORTED = "imported"

    @property
    def label(self) -> str:
        return {"reference": "reference", "trained": "trained here", "imported": "imported"}[self.value]


KIND_LABELS: dict[str, str] = {k.value: k.label for k in Kind}
_ITEMS = "shelf_items"  # key -> (ShelfItem, Tokenizer): this session's own tokenizers
MAX_ITEMS = 24  # a session's own tokenizers; the oldest is dropped past this
MAX_NAME = 80  # characters of a shelf name (a rename, a name read from a stored link)
_REF = "ref:"


@dataclass(frozen=True)
class ShelfItem:
    """A tokenizer on the shelf: its key (unique on this session's shelf), what people read, and
    its content identity ``digest`` (the key of every cache of results about it)."""

    key: str
    name: str
    kind: Kind
    detail: str
    digest: str
    #: The item's id in the workspace store (a random link id), when it could be saved there.
    link: Optional[str] = None

    @property
    def label(self) -> str:
        return f"{self.name} · {Kind(self.kind).label}"


def _reference(name: str) -> Tokenizer:
    return cache.REFERENCES.get_or_make((name,), lambda: load_reference(name),
                                        spinner="Loading the reference tokenizer…")


def _own() -> dict[str, tuple[ShelfItem, Tokenizer]]:
    return st.session_state.setdefault(_ITEMS, {})


def references() -> list[ShelfItem]:
    """The offline references, as shelf items."""
    return [ShelfItem(key=_REF + r.name, name=r.name, kind=Kind.REFERENCE, detail=r.title, digest=_REF + r.name)
            for r in list_references()]


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


def label_of(item: ShelfItem) -> str:
    """The label pickers show for ``item`` on this session's shelf."""
    return next(label for label, other in unique_labels(items()).items() if other.key == item.key)


def find(key: Optional[str]) -> Optional[ShelfItem]:
    return next((item for item in items() if item.key == key), None)


def tokenizer(key: str) -> Tokenizer:
    """The tokenizer of a shelf item (loads a reference on first use). KeyError if unknown;
    a reference whose file cannot be read raises :class:`~tokenizer_core.errors.TokenizerError`."""
    if key.startswith(_REF):
        return _reference(key[len(_REF):])
    return _own()[key][1]


def add(tok: Tokenizer, *, name: str, kind: Kind, detail: str, link: Optional[str] = None,
        digest: Optional[str] = None) -> ShelfItem:
    """Put a tokenizer on this session's shelf and save it in the workspace store (so a link or a
    reload finds it again). The same content under the same name again is one item, moved to the
    top. The same content under another name (Unigram 500 and Unigram 300 both stopping at 81
    pieces) is an item of its own, with a link of its own: a name a link was shared under never
    changes; the two share the tokenizer object and the stored bytes. ``link`` and ``digest``: the
    store already holds it under that id, with that content digest (a restore need not serialize a
    200k-token vocabulary again)."""
    saved: Optional[str] = None
    if digest is None:
        saved, digest = cache.saved_form(tok)
    if link is None:  # with a known digest, the saved form is made only when the store lacks it
        link = workspace.save("tokenizer", digest,
                              lambda: (saved if saved is not None else cache.saved_form(tok)[0]).encode(
                                  "utf-8", "surrogatepass"),
                              meta={"name": name, "kind": Kind(kind).value, "detail": detail},
                              what="links to this tokenizer")
    own = _own()
    # Equal content is held once in memory, whatever the names it is shelved under.
    tok = next((other for item, other in own.values() if item.digest == digest), tok)
    item = ShelfItem(key=f"own:{digest}:{Kind(kind).value}:{name}", name=name, kind=Kind(kind), detail=detail,
                     digest=digest, link=link)
    own.pop(item.key, None)
    own[item.key] = (item, tok)
    while len(own) > MAX_ITEMS:
        own.pop(next(iter(own)))
    return item


def restore(link: str) -> Optional[ShelfItem]:
    """Put the tokenizer the store keeps under ``link`` on this session's shelf (a reload, a link
    from another browser); None after saying why not (expired, unreadable, not a tokenizer)."""
    for item, _ in _own().values():
        if item.link == link:
            return item
    stored = workspace.load(link)
    if stored is None:
        return None
    try:
        if stored.kind != "tokenizer":
            raise TokenizerError(f"the link {link[:40]!r} names a {stored.kind}, not a tokenizer")
        tok = Tokenizer.from_dict(json.loads(stored.payload.decode("utf-8", "surrogatepass")))
        meta = stored.meta
        return add(tok, name=str(meta.get("name", "saved tokenizer"))[:MAX_NAME], kind=Kind(meta.get("kind", "imported")),
                   detail=str(meta.get("detail", "")), link=link, digest=stored.digest)
    except (TokenizerError, ValueError, KeyError, TypeError) as err:
        workspace.say_once(f"A saved tokenizer could not be loaded: {err}")
        return None


def rename(key: str, name: str) -> Optional[ShelfItem]:
    """Shelve the item ``key`` under ``name`` instead (None when the name is empty or the item is
    gone). The renamed item is saved under a new link; links shared under the old name keep it."""
    name = " ".join(name.split())[:MAX_NAME]
    found = _own().get(key)
    if not name or found is None:
        return None
    item, tok = found
    if name == item.name:
        return item
    renamed = add(tok, name=name, kind=item.kind, detail=item.detail, digest=item.digest)
    remove(key)
    return renamed


def remove(key: str) -> None:
    _own().pop(key, None)
