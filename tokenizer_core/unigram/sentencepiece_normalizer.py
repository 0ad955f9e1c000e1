"""SentencePiece's normalizer: its rule table, then its own handling of spaces.

What ``sentencepiece`` does to a text before segmenting it, as its documentation and its
``normalize()`` show:

1. The text is read left to right in chunks: a user-defined symbol (longest first) is
   copied verbatim; otherwise the longest key of the rule table (``nmt_nfkc``, ``nfkc``,
   a custom table; see :mod:`~tokenizer_core.unigram.charsmap`) is replaced; otherwise one
   character is copied.
2. Only U+0020 counts as a space, after the table has run (``nmt_nfkc`` maps tabs,
   newlines, NBSP, U+3000 ... to it; ``identity`` keeps them as they are).
3. ``remove_extra_whitespaces``: spaces at the start and the end go, runs of spaces become
   one. An input of nothing but spaces becomes empty (and gets no dummy prefix).
4. ``escape_whitespaces``: each space becomes "▁".
5. ``add_dummy_prefix``: one "▁" goes in front (at the end instead with
   ``treat_whitespace_as_suffix``).

Every output character keeps the span of the input it came from, so offsets point into
the original text; an inserted "▁" has an empty span.

>>> norm = SentencePieceNormalizer()
>>> norm.normalize_str("  Hello   world ")
'▁Hello▁world'
>>> SentencePieceNormalizer(remove_extra_whitespaces=False).normalize_str(" a  b")
'▁▁a▁▁b'
>>> SentencePieceNormalizer(treat_whitespace_as_suffix=True).normalize_str("a b")
'a▁b▁'
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Iterable, Iterator
from typing import Any, Optional, Union

from tokenizer_core.errors import FormatError
from tokenizer_core.registry import register
from tokenizer_core.text.normalized import NormalizedString
from tokenizer_core.text.normalizers import Normalizer
from tokenizer_core.types import Offsets
from tokenizer_core.unigram.charsmap import PrecompiledCharsmap, charsmap_from

SPACE_SYMBOL = "\u2581"  # "▁"
_WORDS = re.compile(r"[^ ]+")


@register("normalizer", "SentencePiece")
class SentencePieceNormalizer(Normalizer):
    """The normalization of a SentencePiece model (see the module docstring for the steps)."""

    type_name = "SentencePiece"

    def __init__(
        self,
        *,
        charsmap: Union[bytes, PrecompiledCharsmap, None] = None,
        name: str = "",
        add_dummy_prefix: bool = True,
        remove_extra_whitespaces: bool = True,
        escape_whitespaces: bool = True,
        treat_whitespace_as_suffix: bool = False,
        user_defined_symbols: Iterable[str] = (),
    ) -> None:
        self.charsmap = charsmap_from(charsmap)
        self.name = name
        self.add_dummy_prefix = bool(add_dummy_prefix)
        self.remove_extra_whitespaces = bool(remove_extra_whitespaces)
        self.escape_whitespaces = bool(escape_whitespaces)
        self.treat_whitespace_as_suffix = bool(treat_whitespace_as_suffix)
        self.user_defined_symbols = sorted({s for s in user_defined_symbols if s})
        self._space = SPACE_SYMBOL if self.escape_whitespaces else " "
        # first character -> symbols starting with it, longest first
        self._symbols: dict[str, list[str]] = {}
        for sym in sorted(self.user_defined_symbols, key=len, reverse=True):
            self._symbols.setdefault(sym[0], []).append(sym)

    # ------------------------------------------------------------------ chunks
    def _chunks(self, text: str) -> Iterator[tuple[str, int, int]]:
        """``(replacement, i, j)`` for consecutive input spans: step 1 of the module docstring."""
        table, symbols = self.charsmap, self._symbols
        i, n = 0, len(text)
        while i < n:
            ch = text[i]
            if symbols and ch in symbols:
                sym = next((s for s in symbols[ch] if text.startswith(s, i)), None)
                if sym is not None:
                    yield sym, i, i + len(sym)
                    i += len(sym)
                    continue
            if table is not None and table.starts_key(ch):
                hit = table.longest_match(text, i)
                if hit is not None:
                    yield hit[0], i, hit[1]
                    i = hit[1]
                    continue
            yield ch, i, i + 1
            i += 1

    def _units(self, text: str) -> Iterator[tuple[str, int, int]]:
        remove_extra = self.remove_extra_whitespaces
        chunks = list(self._chunks(text))
        k = 0
        if remove_extra:  # leading chunks that are exactly one space vanish
            while k < len(chunks) and chunks[k][0] == " ":
                k += 1
            if k == len(chunks):
                return
        if not chunks:
            return
        space = self._space
        first = chunks[k][1]
        out: list[tuple[str, int, int]] = []
        if self.add_dummy_prefix and not self.treat_whitespace_as_suffix:
            out.append((space, first, first))
        prev_space = remove_extra
        for rep, i, j in chunks[k:]:
            if prev_space:
                rep = rep.lstrip(" ")
            if rep:
                prev_space = rep.endswith(" ")
                out.append((rep.replace(" ", space) if space != " " else rep, i, j))
            if not remove_extra:
                prev_space = False
        if remove_extra:  # trailing spaces go, whichever chunk wrote them
            while out and out[-1][0].endswith(space):
                rep, i, j = out.pop()
                rep = rep.rstrip(space)
                if rep:
                    out.append((rep, i, j))
                    break
        if self.add_dummy_prefix and self.treat_whitespace_as_suffix:
            end = len(text)
            out.append((space, end, end))
        yield from out

    # ------------------------------------------------------------------ fast path
    def replacements(self, text: str) -> Optional[dict[str, str]]:
        """What the rule table does to each character of ``text`` that it changes (a replacement may be
        several characters, or none), when every character maps on its own; None when a longer key
        might match or a user-defined symbol occurs (the general path handles those).

        >>> SentencePieceNormalizer().replacements("ab")
        {}
        """
        table = self.charsmap
        chars = set(text)
        if self._symbols and not chars.isdisjoint(self._symbols):
            return None
        if table is None:
            return {}
        rules = [(c, *table.char_rule(c)) for c in chars]
        follow = frozenset().union(*(r[2] for r in rules))
        if follow and any(c.encode("utf-8")[0] in follow for c in chars):
            return None  # some longer key might match: look ahead character by character
        return {c: rep for c, rep, _ in rules if rep is not None and rep != c}

    def _mapped(self, text: str) -> Optional[str]:
        """The rule table applied to ``text`` when each character maps on its own to exactly one
        character (most lines of most texts), else ``None`` (the general path handles it)."""
        reps = self.replacements(text)
        if reps is None or any(len(rep) != 1 for rep in reps.values()):
            return None
        return text.translate({ord(c): rep for c, rep in reps.items()}) if reps else text

    def _spaces(self, mapped: str) -> tuple[str, list[Offsets]]:
        """Steps 3-5 of the module docstring on a text the table maps character for character."""
        space, n = self._space, len(mapped)
        dummy = self.add_dummy_prefix
        parts: list[str] = []
        align: list[Offsets] = []
        if self.remove_extra_whitespaces:
            words = [m.span() for m in _WORDS.finditer(mapped)]
            if not words:
                return "", []
            if dummy and not self.treat_whitespace_as_suffix:
                parts.append(space)
                align.append((words[0][0], words[0][0]))
            prev = -1
            for a, b in words:
                if prev >= 0:  # a run of spaces becomes its first space
                    parts.append(space)
                    align.append((prev, prev + 1))
                parts.append(mapped[a:b])
                align.extend(zip(range(a, b), range(a + 1, b + 1)))
                prev = b
            out = "".join(parts)
            trimmed = out.rstrip(space)  # a "▁" typed at the end goes too: it reads as a space
            if len(trimmed) < len(out):
                del align[len(trimmed):]
                out = trimmed
        else:
            if not n:
                return "", []
            out = mapped.replace(" ", space) if space != " " else mapped
            align = list(zip(range(n), range(1, n + 1)))
            if dummy and not self.treat_whitespace_as_suffix:
                out = space + out
                align.insert(0, (0, 0))
        if dummy and self.treat_whitespace_as_suffix:
            out += space
            align.append((n, n))
        return out, align

    def normalize(self, text: Union[str, NormalizedString]) -> NormalizedString:
        if not isinstance(text, str):
            return text.transform(self._units(text.text))
        mapped = self._mapped(text)
        if mapped is None:
            return NormalizedString.from_str(text).transform(self._units(text))
        out, align = self._spaces(mapped)
        return NormalizedString(out, align, len(text))

    def normalize_str(self, text: str) -> str:
        mapped = self._mapped(text)
        if mapped is None:
            return "".join(rep for rep, _, _ in self._units(text))
        return self._spaces(mapped)[0]

    # ------------------------------------------------------------------ saving
    def to_dict(self) -> dict[str, Any]:
        return {
            "type": self.type_name,
            "name": self.name,
            "precompiled_charsmap": base64.b64encode(self.charsmap.blob).decode("ascii") if self.charsmap else None,
            "add_dummy_prefix": self.add_dummy_prefix,
            "remove_extra_whitespaces": self.remove_extra_whitespaces,
            "escape_whitespaces": self.escape_whitespaces,
            "treat_whitespace_as_suffix": self.treat_whitespace_as_suffix,
            "user_defined_symbols": list(self.user_defined_symbols),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "SentencePieceNormalizer":
        blob = data.get("precompiled_charsmap")
        raw: Optional[bytes] = None
        if blob is not None:
            try:
                raw = base64.b64decode(blob, validate=True)
            except (binascii.Error, TypeError, ValueError):
                raise FormatError("the SentencePiece normalizer's precompiled_charsmap is not base64") from None
        return cls(charsmap=raw, name=data.get("name", ""), add_dummy_prefix=data.get("add_dummy_prefix", True),
                   remove_extra_whitespaces=data.get("remove_extra_whitespaces", True),
                   escape_whitespaces=data.get("escape_whitespaces", True),
                   treat_whitespace_as_suffix=data.get("treat_whitespace_as_suffix", False),
                   user_defined_symbols=data.get("user_defined_symbols", ()))

    def to_hf(self) -> dict[str, Any]:
        """The nearest ``tokenizers`` chain (Precompiled, Strip, Replace, Prepend).

        It is close, not exact: ``tokenizers`` strips every Unicode space at the ends and has
        no suffix form of the dummy prefix."""
        parts: list[dict[str, Any]] = []
        if self.charsmap is not None:
            parts.append({"type": "Precompiled",
                          "precompiled_charsmap": base64.b64encode(self.charsmap.blob).decode("ascii")})
        if self.remove_extra_whitespaces:
            parts.append({"type": "Strip", "strip_left": True, "strip_right": True})
            parts.append({"type": "Replace", "pattern": {"Regex": " {2,}"}, "content": " "})
        if self.add_dummy_prefix and not self.treat_whitespace_as_suffix:
            parts.append({"type": "Prepend", "prepend": self._space})
        if self.escape_whitespaces:
            parts.append({"type": "Replace", "pattern": {"String": " "}, "content": SPACE_SYMBOL})
        return {"type": "Sequence", "normalizers": parts}

    def __repr__(self) -> str:
        return (f"SentencePieceNormalizer(name={self.name!r}, add_dummy_prefix={self.add_dummy_prefix}, "
                f"remove_extra_whitespaces={self.remove_extra_whitespaces})")
