r"""``tokenizers``' Precompiled normalizer: a SentencePiece rule table applied grapheme by grapheme.

Files converted from SentencePiece models (T5, ALBERT, XLNet, mBART...) carry the model's
normalization rules (``nmt_nfkc`` and friends) as a ``precompiled_charsmap``: base64 of a
little-endian 32-bit size, a double-array trie of that many bytes (darts-clone: 32-bit units
holding a label byte, a leaf flag and an offset to the children), then NUL-ended replacement
strings that the trie's leaves point into.

``tokenizers`` applies it in its own way, which this module follows exactly (it differs from
SentencePiece's longest match): the text is cut into extended grapheme clusters; a cluster of
fewer than 6 UTF-8 bytes is looked up whole, and the *shortest* key that starts it replaces
the whole cluster; otherwise (or when no key starts it) each character is looked up alone.
Alignment follows ``tokenizers`` too, including its slip: characters removed at the very start
of the text shift the alignment of the characters after them.

>>> table = Precompiled(charsmap_blob({"\ufb01": "fi", "\x07": ""}))
>>> table.normalize_str("\ufb01x\x07")
'fix'
>>> table.normalize("a\ufb01").align
[(0, 1), (1, 2), (1, 2)]
"""

from __future__ import annotations

import base64
import binascii
import struct
from collections.abc import Mapping
from typing import Any, Optional, Union

import regex

from tokenizer_core.errors import FormatError
from tokenizer_core.registry import register
from tokenizer_core.text.charsmap_trie import CharsmapTrie
from tokenizer_core.text.normalized import NormalizedString, sources_of_changes
from tokenizer_core.text.normalizer_base import Normalizer

_GRAPHEMES = regex.compile(r"\X")
_NO_MATCH = object()
#: What the errors of a malformed rule table name (see FormatError.part).
_PART = "normalizer of type 'Precompiled'"


class CharsMap:
    """The rule table of a ``precompiled_charsmap`` blob, read as ``tokenizers`` reads it."""

    def __init__(self, blob: bytes) -> None:
        self._trie = CharsmapTrie(blob)
        self.blob = self._trie.blob
        self._cache: dict[str, Optional[str]] = {}

    def first_match(self, chunk: str) -> Optional[str]:
        """The replacement of the shortest key that ``chunk`` starts with (None: no key)."""
        hit = self._cache.get(chunk, _NO_MATCH)
        if hit is not _NO_MATCH:
            return hit  # type: ignore[return-value]
        hit = None
        trie, pos = self._trie, self._trie.root
        for ch in chunk:
            step = trie.walk(pos, ch)
            if step is None:
                break
            pos, hit = step
            if hit is not None:
                break
        self._cache[chunk] = hit
        return hit


@register("normalizer", "Precompiled")
class Precompiled(Normalizer):
    """SentencePiece's compiled normalization rules, applied as ``tokenizers`` applies them."""

    type_name = "Precompiled"

    def __init__(self, charsmap: Union[bytes, CharsMap]) -> None:
        self.charsmap = charsmap if isinstance(charsmap, CharsMap) else CharsMap(charsmap)

    def _changes(self, text: str) -> Optional[list[tuple[str, int]]]:
        """``(char, change)`` edits in ``tokenizers``' notation, or None when nothing changes."""
        lookup = self.charsmap.first_match
        changes: list[tuple[str, int]] = []
        modified = False
        for grapheme in _GRAPHEMES.findall(text):
            if len(grapheme.encode("utf-8")) < 6:
                norm = lookup(grapheme)
                if norm is not None:
                    modified = True
                    _replace(changes, len(grapheme), norm)
                    continue
            for c in grapheme:
                norm = lookup(c)
                if norm is None:
                    changes.append((c, 0))
                else:
                    modified = True
                    _replace(changes, 1, norm)
        return changes if modified else None

    def normalize_str(self, text: str) -> str:
        changes = self._changes(text)
        return text if changes is None else "".join(c for c, _ in changes)

    def normalize(self, text: Union[str, NormalizedString]) -> NormalizedString:
        ns = NormalizedString.from_str(text) if isinstance(text, str) else text
        changes = self._changes(ns.text)
        return ns if changes is None else ns.remap(sources_of_changes(changes))

    def _units(self, text: str) -> Any:  # pragma: no cover - normalize() overrides
        raise NotImplementedError

    def to_dict(self) -> dict[str, Any]:
        return {"type": "Precompiled", "precompiled_charsmap": base64.b64encode(self.charsmap.blob).decode("ascii")}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Precompiled":
        raw = data.get("precompiled_charsmap")
        if not isinstance(raw, str) or not raw:
            raise FormatError("normalizer of type 'Precompiled' needs a non-empty base64 \"precompiled_charsmap\"",
                              part=_PART)
        try:
            blob = base64.b64decode(raw, validate=True)
        except (binascii.Error, ValueError) as err:
            raise FormatError(f"{_PART}: precompiled_charsmap is not base64 ({err})", part=_PART) from None
        return cls(blob)

    def __repr__(self) -> str:
        return f"Precompiled(<{len(self.charsmap.blob)} bytes>)"


def _replace(changes: list[tuple[str, int]], old_count: int, new: str) -> None:
    """Record ``old_count`` characters becoming ``new`` (``tokenizers``' bookkeeping, slip included)."""
    changes.extend((c, 0) for c in new)
    diff = len(new) - old_count
    if diff > 0:  # the extra characters are insertions
        for k in range(len(changes) - diff, len(changes)):
            changes[k] = (changes[k][0], 1)
    elif diff < 0 and changes:  # the last character written swallows the rest (maybe an earlier one)
        c, change = changes[-1]
        changes[-1] = (c, change + diff)


def charsmap_blob(rules: Mapping[str, str]) -> bytes:
    """A ``precompiled_charsmap`` for a few rules (tests and examples; real ones come with models).

    Builds a plain double array: a node's children sit at ``base ^ label``, its leaf at ``base``.
    """
    keys = sorted((k.encode("utf-8"), v) for k, v in rules.items() if k)
    strings = bytearray()
    values: dict[bytes, int] = {}
    for key, value in keys:
        values[key] = len(strings)
        strings += value.encode("utf-8") + b"\0"
    units: dict[int, int] = {}
    bases: set[int] = set()

    def place(prefix: bytes, pos: int) -> None:
        labels = sorted({k[len(prefix)] for k, _ in keys if len(k) > len(prefix) and k.startswith(prefix)})
        leaf = prefix in values
        base = 1
        # A base of its own (two parents sharing one would see each other's children by label)
        # whose child slots, and the leaf slot base ^ 0, are all free.
        while base in bases or any((base ^ lab) in units or (base ^ lab) == 0 for lab in labels) or base in units:
            base += 1
        bases.add(base)
        label = prefix[-1] if prefix else 0
        units[pos] = label | (1 << 8 if leaf else 0) | ((pos ^ base) << 10)  # children at pos ^ offset
        if leaf:
            units[base] = values[prefix] | (1 << 31)
        for lab in labels:
            units[base ^ lab] = 0  # reserve before recursing
        for lab in labels:
            place(prefix + bytes([lab]), base ^ lab)

    place(b"", 0)
    size = (max(units) | 0xFF) + 257  # room for any label after the last base, as real tables have
    trie = struct.pack(f"<{size}I", *(units.get(i, 0) for i in range(size)))
    return struct.pack("<I", len(trie)) + trie + bytes(strings)
