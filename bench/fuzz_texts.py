"""The hostile text the kernel's fuzzer draws (:mod:`bench.fuzz_kernel`): code points of every Unicode
general category (lone surrogates included), characters the split patterns treat specially, runs of
one character thousands long, digit runs of several scripts, mixed scripts and control characters.

>>> rng = random.Random(1)
>>> isinstance(hostile_text(rng), str), len(random_corpus(rng)) > 0
(True, True)
"""

from __future__ import annotations

import random
import unicodedata
from functools import lru_cache

# Characters that the split patterns treat specially: contraction letters (ſ folds to s, K to k),
# apostrophes, spaces that are and are not \s, line breaks, digits of other scripts, marks.
_SPECIAL = list("'’sSdDmMtTlLvVeErRſK \t\n\r\x0b\x0c\x1c\x1d\x1e\x1f\x85\xa0\u1680\u2028\u2029\u3000\u200b\ufeff")
_DIGITS = "0123456789٠١٢٣٤٥٦٧٨٩०१२३४५६७८९０１２３４５６７８９²³¹⅓Ⅻ"
_SCRIPTS = ["hello world", "naïve café", "Привет мир", "中文字符", "日本語のテキスト", "한국어", "العربية",
            "עברית", "हिन्दी", "Ελληνικά", "ไทย", "😀👍🏽👨‍👩‍👧🇫🇷", "e\u0301x\u0308", "ﬁ ＡＢＣ ①"]


@lru_cache(maxsize=1)
def _by_category() -> dict[str, list[str]]:
    """Up to 64 code points of every Unicode general category (Cs: lone surrogates; Cn: unassigned)."""
    found: dict[str, list[str]] = {}
    rng = random.Random(0)
    for cp in range(0x110000):
        cat = unicodedata.category(chr(cp))
        bucket = found.setdefault(cat, [])
        if len(bucket) < 64:
            bucket.append(chr(cp))
        elif rng.random() < 0.001:
            bucket[rng.randrange(64)] = chr(cp)
    return found


def hostile_text(rng: random.Random, *, max_run: int = 3000) -> str:
    """Random text made of hostile parts (see the module's docstring)."""
    cats = _by_category()
    names = sorted(cats)
    parts: list[str] = []
    for _ in range(rng.randint(0, 12)):
        kind = rng.random()
        if kind < 0.3:
            parts.append("".join(rng.choice(cats[rng.choice(names)]) for _ in range(rng.randint(1, 6))))
        elif kind < 0.5:
            parts.append("".join(rng.choice(_SPECIAL) for _ in range(rng.randint(1, 8))))
        elif kind < 0.6:
            parts.append(rng.choice(_SPECIAL + list("a0.") + ["ab"]) * rng.randint(50, max_run))
        elif kind < 0.7:
            parts.append("".join(rng.choice(_DIGITS) for _ in range(rng.randint(1, 40))))
        elif kind < 0.8:
            parts.append(rng.choice(_SCRIPTS))
        elif kind < 0.9:  # short words over two or three letters: many merges of equal rank apply
            letters = rng.choice(["ab", "aab", "abc", "a "])
            parts.append(" ".join("".join(rng.choice(letters) for _ in range(rng.randint(1, 9)))
                                  for _ in range(rng.randint(1, 20))))
        else:
            parts.append("".join(chr(rng.randrange(0x20)) for _ in range(rng.randint(1, 5))))
    return rng.choice(["", " ", "\n"]).join(parts)


def random_corpus(rng: random.Random) -> list[str]:
    lines = [hostile_text(rng, max_run=400) + "\n" for _ in range(rng.randint(1, 30))]
    words = ["the", "cat", "sat", "on", "mat", "naïve", "中文", "don't", "I'LL", "2024"]
    lines += [" ".join(rng.choice(words) for _ in range(rng.randint(1, 12))) + "\n" for _ in range(rng.randint(0, 40))]
    rng.shuffle(lines)
    return lines
