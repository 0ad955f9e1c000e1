"""A tokenizer's vocabulary as a table, and how much of it a corpus uses.

One :class:`VocabEntry` per id: the token string, the bytes it stands for, its length, whether it
is special, and what the algorithm knows of it (the BPE merge that made it, the Unigram score).
:func:`token_counts` encodes (a prefix of) a corpus and counts each id, for frequency sorting,
utilization and the list of unused tokens.

>>> from tokenizer_core.training import train
>>> from tokenizer_core.options import TrainOptions
>>> tok = train("bpe", ["hug hug pug\\n"], options=TrainOptions(num_merges=2, special_tokens=("[UNK]",)))
>>> [(e.token, e.merge_rank) for e in vocabulary_entries(tok)][-2:]
[('ug', 0), ('hug', 1)]
>>> usage = token_counts(tok, ["hug pug\\n"])
>>> usage[tok.token_to_id("hug")], round(utilization(usage, tok), 2)
(1, 0.5)
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Optional

from tokenizer_core.pipeline import Tokenizer
from tokenizer_core.text.pre_tokenizers import unicode_to_bytes

_BYTE_TOKEN = re.compile(r"<0x([0-9A-Fa-f]{2})>")
#: How much of a corpus :func:`token_counts` encodes by default (characters).
DEFAULT_USAGE_CHARS = 300_000


@dataclass(frozen=True, slots=True)
class VocabEntry:
    """One vocabulary entry."""

    id: int
    token: str
    data: Optional[bytes]  # the bytes the token stands for, when the tokenizer says (byte-level, <0xNN>)
    length: int  # characters of the token's text (bytes for byte tokens), markers removed
    special: bool
    merge_rank: Optional[int]  # BPE: 0-based index of the merge that made it; None for base symbols
    score: Optional[float]  # Unigram: the piece's log-probability


def _is_byte_level(tok: Tokenizer) -> bool:
    names = f"{type(tok.pre_tokenizer).__name__} {tok.pre_tokenizer!r} {type(tok.decoder).__name__}"
    return "ByteLevel" in names or type(tok.model).__name__ == "ByteModel"


def _marker_free(token: str, model: Any) -> str:
    prefix = getattr(model, "continuing_subword_prefix", None)
    if prefix and token.startswith(prefix) and token != prefix:
        token = token[len(prefix):]
    suffix = getattr(model, "end_of_word_suffix", None)
    if suffix and token.endswith(suffix) and token != suffix:
        token = token[: -len(suffix)]
    return token.replace("▁", " ")


def token_bytes(tok: Tokenizer, token: str) -> Optional[bytes]:
    """The bytes ``token`` stands for, or None when it is plain text (a special token, say).

    >>> from tokenizer_core.io.references import load_reference
    >>> token_bytes(load_reference("gpt2"), "Ġhello")
    b' hello'
    """
    if tok.is_special_id(tok.token_to_id(token) if tok.token_to_id(token) is not None else -1):
        return None
    m = _BYTE_TOKEN.fullmatch(token)
    if m and getattr(tok.model, "byte_fallback", False):
        return bytes([int(m.group(1), 16)])
    if _is_byte_level(tok):
        table = unicode_to_bytes()
        if all(c in table for c in token):
            return bytes(table[c] for c in token)
    return _marker_free(token, tok.model).encode("utf-8")


def vocabulary_entries(tok: Tokenizer) -> list[VocabEntry]:
    """Every id of ``tok`` in id order (ids the model leaves unused are skipped)."""
    model = tok.model
    rank_of = getattr(model, "merge_rank", None)
    score_of = getattr(model, "score", None)
    byte_level = _is_byte_level(tok)
    table = unicode_to_bytes() if byte_level else {}
    out: list[VocabEntry] = []
    for token, tid in sorted(tok.get_vocab().items(), key=lambda kv: kv[1]):
        special = tok.is_special_id(tid)
        data: Optional[bytes] = None
        if not special:
            m = _BYTE_TOKEN.fullmatch(token)
            if m and getattr(model, "byte_fallback", False):
                data = bytes([int(m.group(1), 16)])
            elif byte_level and all(c in table for c in token):
                data = bytes(table[c] for c in token)
        length = len(data) if data is not None else len(token if special else _marker_free(token, model))
        out.append(VocabEntry(
            id=tid, token=token, data=data, length=length, special=special,
            merge_rank=rank_of(token) if callable(rank_of) else None,
            score=score_of(token) if callable(score_of) else None,
        ))
    return out


def token_counts(tok: Tokenizer, lines: Iterable[str], *, max_chars: int = DEFAULT_USAGE_CHARS) -> Counter[int]:
    """How often each id occurs when the first ``max_chars`` characters of ``lines`` are encoded."""
    counts: Counter[int] = Counter()
    batch: list[str] = []
    seen = 0
    for line in lines:
        if seen >= max_chars:
            break
        line = line[: max_chars - seen]
        seen += len(line)
        batch.append(line)
    for enc in tok.encode_batch(batch, add_special_tokens=False).encodings:  # one kernel call for byte-level BPE
        counts.update(enc.ids)
    return counts


def utilization(counts: Counter[int], tok: Tokenizer) -> float:
    """Share of the vocabulary's non-special ids that ``counts`` uses at least once."""
    ids = [i for i in tok.get_vocab().values() if not tok.is_special_id(i)]
    return sum(1 for i in ids if counts.get(i)) / len(ids) if ids else 0.0


def length_histogram(entries: Iterable[VocabEntry]) -> dict[int, int]:
    """Number of (non-special) tokens per length, lengths in increasing order."""
    hist = Counter(e.length for e in entries if not e.special)
    return dict(sorted(hist.items()))


def added_token_rows(tok: Tokenizer) -> list[dict[str, Any]]:
    """The special and added tokens of ``tok``, by id, with their matching flags and whether the
    model's own vocabulary holds them (added tokens of a tokenizer.json may lie past it).

    >>> from tokenizer_core.training import train
    >>> from tokenizer_core.options import TrainOptions
    >>> tok = train("bpe", ["ab\\n"], options=TrainOptions(special_tokens=("[UNK]",)))
    >>> added_token_rows(tok)[0]["content"], added_token_rows(tok)[0]["special"]
    ('[UNK]', True)
    """
    rows = []
    for token, tid in sorted(tok.added.entries, key=lambda entry: entry[1]):
        flags = token.to_dict()
        rows.append({"id": tid, **flags, "in_model_vocab": tok.model.id_to_token(tid) == token.content})
    return rows

