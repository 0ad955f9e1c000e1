"""Round trips: does ``decode(encode(text))`` give the text back, and if not, what changed and why.

A tokenizer is lossless on a text when decoding its tokens gives the text again. Many are not, by
design: a normalizer lowercases or folds compatibility characters (NFKC), strips accents, an unknown
token stands for characters the vocabulary lacks, a decoder's clean-up joins spaces before
punctuation. :func:`round_trip` returns the decoded text, the changes as runs of characters kept,
removed and added, and the reasons it can name.

>>> from tokenizer_core.io.references import load_reference
>>> r = round_trip(load_reference("gpt2"), "Hello, world!")
>>> r.lossless, r.changes
(True, (Change(kind='equal', before='Hello, world!', after='Hello, world!'),))
"""

from __future__ import annotations

import difflib
import unicodedata
from dataclasses import dataclass
from typing import Any

from tokenizer_core.analysis.compare import unk_id

MAX_CHARS = 100_000  # a round trip's diff is quadratic in the worst case: longer texts are cut


@dataclass(frozen=True)
class Change:
    """A run of the text: ``equal`` (kept), ``delete`` (lost), ``insert`` (added), ``replace``."""

    kind: str
    before: str
    after: str


@dataclass(frozen=True)
class RoundTrip:
    text: str
    decoded: str
    changes: tuple[Change, ...]
    unknown: int  # unknown tokens in the encoding
    reasons: tuple[str, ...]

    @property
    def lossless(self) -> bool:
        return self.text == self.decoded


def _spaces(text: str) -> int:
    return sum(1 for c in text if c.isspace())


def _marked(text: str) -> bool:
    return any(unicodedata.combining(c) for c in unicodedata.normalize("NFD", text))


def _normalizer_reason(tok: Any, text: str) -> str:
    normalizer = getattr(tok, "normalizer", None)
    if normalizer is None or not hasattr(normalizer, "normalize_str"):
        return ""
    normalized = normalizer.normalize_str(text)
    if normalized == text:
        return ""
    what = []
    if any(c.isupper() for c in text) and not any(c.isupper() for c in normalized):
        what.append("lowercases")
    compat = {c for c in text if unicodedata.normalize("NFKC", c) != unicodedata.normalize("NFC", c)}
    if compat and not compat & set(normalized):
        what.append("folds compatibility characters (NFKC)")
    if _marked(text) and not _marked(normalized):
        what.append("strips accents")
    return "its normalizer " + (", ".join(what) if what else "rewrites the text") + " before splitting"


def round_trip(tok: Any, text: str) -> RoundTrip:
    """Encode ``text`` (no special tokens added), decode it, and compare (see the module's docstring)."""
    text = text[:MAX_CHARS]
    enc = tok.encode(text, add_special_tokens=False)
    decoded = tok.decode(enc.ids, skip_special_tokens=False)
    matcher = difflib.SequenceMatcher(None, text, decoded, autojunk=False)
    changes = tuple(Change(op, text[a:b], decoded[c:d]) for op, a, b, c, d in matcher.get_opcodes())
    unk = unk_id(tok)
    unknown = sum(1 for i in enc.ids if unk is not None and i == unk)
    reasons: list[str] = []
    if text != decoded:
        found = _normalizer_reason(tok, text)
        if found:
            reasons.append(found)
        if unknown:
            reasons.append(f"{unknown} unknown token{'s' if unknown != 1 else ''} stand{'s' if unknown == 1 else ''} "
                           "for characters the vocabulary lacks")
        spaces = any(c.kind != "equal" and _spaces(c.before) != _spaces(c.after) for c in changes)
        if spaces and reasons:
            reasons.append("its decoder adds or drops spaces")
        if not reasons:
            reasons.append("its decoder does not give back every character as it was typed (spaces or "
                           "markers it joins, drops or adds)")
    return RoundTrip(text, decoded, changes, unknown, tuple(reasons))
