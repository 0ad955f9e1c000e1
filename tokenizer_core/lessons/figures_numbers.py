"""Lesson figures of numbers: how reference tokenizers cut the numbers of a sum, and whether their
digit groups line up with place value (:mod:`tokenizer_core.analysis.numbers`).

>>> r = number_splits_figure({"text": "1234 + 5678 = 6912", "references": ["cl100k_base", "qwen"]}, Context())
>>> r.values["digits:cl100k_base"], r.values["aligned:cl100k_base"], r.values["tokens:qwen"]
('123|4 + 567|8 = 691|2', False, 16)
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from tokenizer_core.analysis.numbers import grouping_rule
from tokenizer_core.errors import TokenizerError
from tokenizer_core.lessons.figure_types import Context, FigureKind, FigureResult, Param, Table, TokenRow

_DIGITS = re.compile(r"\d+")
REFERENCES = ("gpt2", "cl100k_base", "o200k_base", "llama3", "qwen", "qwen3_5", "tekken", "mistral_v1", "mistral_v3")


def _digit_pieces(text: str, offsets: list[tuple[int, int]]) -> str:
    """Each digit run of ``text`` with a bar where a token ends inside it; the rest of the text kept."""
    cuts = {b for a, b in offsets} | {a for a, b in offsets}
    out, last = [], 0
    for m in _DIGITS.finditer(text):
        out.append(text[last:m.start()])
        run = m.group()
        out.append("".join(ch + ("|" if m.start() + i + 1 in cuts and i + 1 < len(run) else "") for i, ch in enumerate(run)))
        last = m.end()
    out.append(text[last:])
    return "".join(out)


def _aligned(text: str, offsets: list[tuple[int, int]]) -> bool:
    """Whether every cut inside a digit run falls a multiple of 3 digits (or 1, single digits) from
    the run's right end: then the groups are ones, thousands, millions, as a column sum needs."""
    cuts = {b for a, b in offsets} | {a for a, b in offsets}
    for m in _DIGITS.finditer(text):
        inner = [m.end() - c for c in cuts if m.start() < c < m.end()]
        if inner and not all(d % 3 == 0 for d in inner) and len(inner) != len(m.group()) - 1:
            return False
    return True


def number_splits_figure(args: Mapping[str, Any], ctx: Context) -> FigureResult:
    """The text (a sum, a date, a price) under each named reference: its tokens, the cuts inside each
    number, whether they line up with place value, and the rule the tokenizer follows."""
    from tokenizer_core.io.references import load_reference  # the reference files load on first use

    text = args["text"]
    values: dict[str, Any] = {}
    rows, token_rows = [], []
    for name in args["references"]:
        if name not in REFERENCES:
            raise TokenizerError(f"{name!r} is not a reference tokenizer ({', '.join(REFERENCES)})")
        tok = load_reference(name)
        enc = tok.encode(text, add_special_tokens=False)
        offsets = [(int(a), int(b)) for a, b in enc.offsets]
        digits, aligned, rule = _digit_pieces(text, offsets), _aligned(text, offsets), grouping_rule(tok)
        values.update({f"tokens:{name}": len(enc.ids), f"digits:{name}": digits, f"aligned:{name}": aligned,
                       f"rule:{name}": rule})
        rows.append((name, len(enc.ids), digits, "yes" if aligned else "no", rule))
        token_rows.append(TokenRow(f"{name}: {len(enc.ids)} tokens", tuple(text[a:b] for a, b in offsets),
                                   ids=tuple(int(i) for i in enc.ids)))
    table = Table(f"“{text}”", ("tokenizer", "tokens", "cuts inside the numbers", "groups line up with place value",
                                "rule for long numbers"), tuple(rows))
    return FigureResult("How the numbers are cut", values, (table,), tuple(token_rows))


KINDS = (
    FigureKind("number_splits", (Param("text", "str", max_len=120),
                                 Param("references", "strs", default=["gpt2", "cl100k_base", "llama3", "qwen"],
                                       max_len=20)),
               number_splits_figure, "a sum or other numbers under reference tokenizers: cuts, place value, rule"),
)
