"""Splitting at pattern matches with ``tokenizers``' five behaviours, and the pre-tokenizers built on it.

What happens to a match (a "delimiter"): ``removed`` drops it, ``isolated`` makes it a piece
of its own, ``merged_with_previous``/``merged_with_next`` glue it to the piece before/after,
``contiguous`` makes a run of matches one piece. ``invert`` swaps matches and gaps first.

>>> [p for p, _ in Split(" ", behavior="merged_with_next").pre_tokenize_str("a b  c")]
['a', ' b', ' ', ' c']
>>> [p for p, _ in Digits().pre_tokenize_str("R2D22 x")]
['R', '2', 'D', '22', ' x']
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import regex

from tokenizer_core.errors import TokenizerError
from tokenizer_core.registry import register
from tokenizer_core.text.patterns import compile_pattern, match_runs
from tokenizer_core.text.pre_tokenizer_base import Piece, PreTokenizer

BEHAVIORS = ("removed", "isolated", "merged_with_previous", "merged_with_next", "contiguous")
_HF_NAMES = {b: "".join(w.capitalize() for w in b.split("_")) for b in BEHAVIORS}  # "MergedWithNext"

Runs = list[tuple[int, int, bool]]


def behavior_name(value: Any) -> str:
    """Our name for a behaviour given in either spelling ("MergedWithNext" or "merged_with_next")."""
    if isinstance(value, str):
        low = value.lower()
        for b in BEHAVIORS:
            if low in (b, b.replace("_", "")):
                return b
    raise TokenizerError(f"unknown split behaviour {value!r}; use one of {', '.join(BEHAVIORS)}")


def _merge(runs: Runs, *, backwards: bool) -> list[tuple[int, int]]:
    # A match joins its neighbour piece unless the match before it did the same; a match
    # that cannot join anything (first in line) stands alone.
    out: list[list[int]] = []
    previous_match = False
    for s, e, is_match in (reversed(runs) if backwards else runs):
        if is_match and not previous_match and out:
            if backwards:
                out[-1][0] = s
            else:
                out[-1][1] = e
        else:
            out.append([s, e])
        previous_match = is_match
    if backwards:
        out.reverse()
    return [(s, e) for s, e in out]


def apply_behavior(runs: Runs, behavior: str) -> list[tuple[int, int]]:
    """Spans of the pieces left when ``behavior`` is applied to matches and gaps (empty ones dropped).

    >>> apply_behavior([(0, 1, False), (1, 2, True), (2, 3, True), (3, 4, False)], "contiguous")
    [(0, 1), (1, 3), (3, 4)]
    """
    if behavior == "removed":
        spans = [(s, e) for s, e, m in runs if not m]
    elif behavior == "isolated":
        spans = [(s, e) for s, e, _ in runs]
    elif behavior == "merged_with_previous":
        spans = _merge(runs, backwards=False)
    elif behavior == "merged_with_next":
        spans = _merge(runs, backwards=True)
    elif behavior == "contiguous":
        merged: list[list[Any]] = []
        for s, e, m in runs:
            if merged and merged[-1][2] == m:
                merged[-1][1] = e
            else:
                merged.append([s, e, m])
        spans = [(s, e) for s, e, _ in merged]
    else:
        raise TokenizerError(f"unknown split behaviour {behavior!r}; use one of {', '.join(BEHAVIORS)}")
    return [(s, e) for s, e in spans if e > s]


def _char_runs(text: str, test: Callable[[str], bool], *, each: bool) -> Runs:
    """Runs of characters passing ``test`` (one run per character when ``each``) and the gaps."""
    out: Runs = []
    for k, c in enumerate(text):
        hit = test(c)
        if out and out[-1][2] == hit and not (hit and each):
            out[-1] = (out[-1][0], k + 1, hit)
        else:
            out.append((k, k + 1, hit))
    return out


class _BehaviorSplit(PreTokenizer):
    """Shared ``split``: subclasses give the match runs and the behaviour."""

    behavior = "isolated"

    def _runs(self, text: str) -> Runs:
        raise NotImplementedError

    def split(self, text: str) -> list[Piece]:
        return [Piece(text[s:e], s, e) for s, e in apply_behavior(self._runs(text), self.behavior)]


@register("pre_tokenizer", "Split")
class Split(_BehaviorSplit):
    """``tokenizers``' Split: a literal string or an (Oniguruma) regex, a behaviour, ``invert``.

    >>> Split(r"\\d+", is_regex=True, behavior="removed").words("ab12cd3")
    ['ab', 'cd']
    """

    type_name = "Split"

    def __init__(self, pattern: str, *, is_regex: bool = False, behavior: str = "isolated",
                 invert: bool = False) -> None:
        if not isinstance(pattern, str):
            raise TokenizerError(f"a Split pattern must be a string, got {pattern!r:.60}")
        self.pattern, self.is_regex, self.invert = pattern, bool(is_regex), bool(invert)
        self.behavior = behavior_name(behavior)
        self._re = compile_pattern(pattern, is_regex=self.is_regex) if pattern else None

    def _runs(self, text: str) -> Runs:
        if self._re is None:  # an empty literal matches nowhere
            runs: Runs = [(0, len(text), False)] if text else []
        else:
            runs = match_runs(self._re, text)
        if self.invert:
            runs = [(s, e, not m) for s, e, m in runs]
        return runs

    def to_dict(self) -> dict[str, Any]:
        return {"type": "Split", "pattern": {"Regex" if self.is_regex else "String": self.pattern},
                "behavior": _HF_NAMES[self.behavior], "invert": self.invert}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Split":
        pattern, is_regex = pattern_of(data, "Split pre-tokenizer")
        return cls(pattern, is_regex=is_regex, behavior=data.get("behavior", "Isolated"),
                   invert=bool(data.get("invert", False)))

    def __repr__(self) -> str:
        return f"Split({self.pattern!r}, is_regex={self.is_regex}, behavior={self.behavior!r}, invert={self.invert})"


def pattern_of(data: dict[str, Any], what: str) -> tuple[str, bool]:
    """``(pattern, is_regex)`` of a ``tokenizers`` pattern object ``{"String": s}`` / ``{"Regex": r}``.

    >>> pattern_of({"pattern": {"Regex": "\\\\s+"}}, "Split")
    ('\\\\s+', True)
    """
    pat = data.get("pattern")
    if isinstance(pat, dict) and len(pat) == 1:
        (kind, value), = pat.items()
        if kind in ("String", "Regex") and isinstance(value, str):
            return value, kind == "Regex"
    raise TokenizerError(f"{what} needs a pattern {{\"String\": ...}} or {{\"Regex\": ...}}, got {pat!r:.80}")


_NUMERIC = regex.compile(r"\p{N}")  # Rust's char::is_numeric: categories Nd, Nl, No


@register("pre_tokenizer", "Digits")
class Digits(_BehaviorSplit):
    """Numbers apart from the rest: each digit alone (``individual_digits``) or runs of digits.

    >>> Digits(individual_digits=True).words("a12")
    ['a', '1', '2']
    """

    type_name = "Digits"

    def __init__(self, *, individual_digits: bool = False) -> None:
        self.individual_digits = bool(individual_digits)
        self.behavior = "isolated" if self.individual_digits else "contiguous"

    def _runs(self, text: str) -> Runs:
        return _char_runs(text, lambda c: _NUMERIC.match(c) is not None, each=self.individual_digits)

    def to_dict(self) -> dict[str, Any]:
        return {"type": "Digits", "individual_digits": self.individual_digits}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Digits":
        return cls(individual_digits=bool(data.get("individual_digits", False)))


def punctuation_runs(text: str, is_punctuation: Callable[[str], bool]) -> Runs:
    """One run per punctuation character, gaps between (what Punctuation splits on)."""
    return _char_runs(text, is_punctuation, each=True)
