"""Why two tokenizers count the same text differently: the rules that decide each one's split, in
words, found by probing the tokenizer itself (so they hold for any file, whatever its JSON says).

Each rule is measured: how digits are grouped (:mod:`tokenizer_core.analysis.numbers`), whether a word
keeps its leading space, whether case is kept, what happens to a character the vocabulary lacks
(bytes, byte fallback, an unknown token), whether contractions split off, and what is added around
the text (a BOS token).

>>> from tokenizer_core.io.references import load_reference
>>> for rule in split_rules(load_reference("cl100k_base")): print(rule)
digits in groups of up to 3, from the left
a word keeps its leading space
case kept (Hello and hello are different tokens)
any character: text is read as bytes
contractions split off ('s, 't, 're)
"""

from __future__ import annotations

from typing import Any

from tokenizer_core.analysis.compare import unk_id
from tokenizer_core.analysis.numbers import number_splits

DIGITS = {"from the left": "digits in groups of up to 3, from the left",
          "from the right": "digits in groups of up to 3, from the right",
          "single digits": "single digits",
          "learned (no rule)": "digits as learned (no fixed grouping)",
          "unknown": "digits it lacks become unknown tokens"}
RARE = "\U000f0041"  # a private-use character (four bytes of UTF-8): no vocabulary has it as a token


def _tokens(tok: Any, text: str, *, special: bool = False) -> tuple[list[int], list[str]]:
    enc = tok.encode(text, add_special_tokens=special)
    return list(enc.ids), [text[a:b] for a, b in enc.offsets]


def split_rules(tok: Any) -> list[str]:
    """The rules, one line each (see the module's docstring)."""
    rules = [DIGITS[number_splits(tok, start=0, stop=10).grouping]]
    _, pieces = _tokens(tok, "go home")
    rules.append("a word keeps its leading space" if any(p.startswith(" ") and p.strip() for p in pieces)
                 else "spaces are separate from words")
    unk = unk_id(tok)
    upper, lower = _tokens(tok, "Hello")[0], _tokens(tok, "hello")[0]
    if unk is None or unk not in upper + lower:  # two unknown tokens say nothing about case
        rules.append("lowercases the text" if upper == lower else "case kept (Hello and hello are different tokens)")
    ids, pieces = _tokens(tok, RARE)
    if unk is not None and unk in ids:
        rules.append("a character it lacks becomes the unknown token")
    elif len(ids) > 1:
        fallback = any(str(tok.id_to_token(i) or "").startswith("<0x") for i in ids)
        rules.append("a character it lacks falls back to its bytes (<0x..> tokens)" if fallback
                     else "any character: text is read as bytes")
    else:
        rules.append("even a private-use character is one token of its vocabulary")
    _, pieces = _tokens(tok, "don't")
    if any(p in ("'t", "’t") for p in pieces):
        rules.append("contractions split off ('s, 't, 're)")
    plain, added = _tokens(tok, "hi")[0], _tokens(tok, "hi", special=True)[0]
    if len(added) > len(plain):
        extra = [tok.id_to_token(i) for i in added[:len(added) - len(plain)]] if added[-len(plain):] == plain else []
        rules.append(f"adds {' '.join(str(t) for t in extra)} at the start" if extra else
                     f"adds {len(added) - len(plain)} special token(s) around the text")
    return rules
