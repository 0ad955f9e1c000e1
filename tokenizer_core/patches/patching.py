"""Patches where the next byte is hard to predict, by the Byte Latent Transformer's two rules.

Pagnoni et al. (2024, section 2.3) start a new patch at byte ``t`` when its next-byte entropy
``H(t)`` (the model's uncertainty about byte ``t`` given the bytes before it) is

* **global**: above a threshold, ``H(t) > theta``; or
* **relative** (their approximate monotonicity constraint): higher than the byte before by more than
  a threshold, ``H(t) - H(t - 1) > theta``, so a patch ends where uncertainty jumps, not where it is
  merely high.

The first byte always starts a patch. A patch may end inside a character's UTF-8 bytes: the model
reads bytes, not characters.

>>> patch_starts([3.0, 0.5, 0.2, 2.5, 0.1], threshold=1.0)
[0, 3]
>>> patch_starts([3.0, 0.5, 1.8, 2.5, 0.1], threshold=1.0, mode="relative")
[0, 2]
>>> [p.data for p in patches_of(b"hello", [0, 3])]
[b'hel', b'lo']
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, Union

from tokenizer_core.errors import TokenizerError

if TYPE_CHECKING:
    from tokenizer_core.patches.ngram import ByteNgramModel

PatchMode = Literal["global", "relative"]
MODES: tuple[PatchMode, ...] = ("global", "relative")


@dataclass(frozen=True)
class Patch:
    """Bytes ``start:end`` of the text."""

    start: int
    end: int
    data: bytes

    @property
    def text(self) -> str:
        """The patch as text (a character cut at the patch's edge shows as U+FFFD)."""
        return self.data.decode("utf-8", errors="replace")


def patch_starts(entropies: Sequence[float], *, threshold: float, mode: PatchMode = "global") -> list[int]:
    """Where patches start (byte offsets, ascending; [] for no bytes) under rule ``mode``."""
    if mode not in MODES:
        raise TokenizerError(f"the patching rule is 'global' or 'relative', not {mode!r}")
    if isinstance(threshold, bool) or not isinstance(threshold, (int, float)) or not math.isfinite(threshold):
        raise TokenizerError(f"the entropy threshold must be a finite number, not {threshold!r}")
    h = [float(x) for x in entropies]
    if not h:
        return []
    if mode == "global":
        return [0] + [t for t in range(1, len(h)) if h[t] > threshold]
    return [0] + [t for t in range(1, len(h)) if h[t] - h[t - 1] > threshold]


def patches_of(data: bytes, starts: Sequence[int]) -> list[Patch]:
    """``data`` cut at ``starts`` (as :func:`patch_starts` gives them)."""
    ends = [*starts[1:], len(data)]
    return [Patch(s, e, bytes(data[s:e])) for s, e in zip(starts, ends)]


def patch_text(model: "ByteNgramModel", text: Union[str, bytes], *, threshold: float,
               mode: PatchMode = "global") -> list[Patch]:
    """``text`` (str: its UTF-8 bytes) cut into patches by ``model``'s entropies and rule ``mode``."""
    data = text.encode("utf-8") if isinstance(text, str) else bytes(text)
    starts = patch_starts(model.entropies(data).tolist(), threshold=threshold, mode=mode)
    return patches_of(data, starts)
