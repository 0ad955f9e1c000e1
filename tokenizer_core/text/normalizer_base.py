"""The base class every normalizer shares: a fast ``normalize_str`` and an aligned ``normalize``.

>>> class Upper(Normalizer):
...     def _units(self, text):
...         return ((c.upper(), i, i + 1) for i, c in enumerate(text))
>>> Upper().normalize("ab").text, Upper().normalize_str("ab")
('AB', 'AB')
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Union

from tokenizer_core.registry import Component
from tokenizer_core.text.normalized import NormalizedString


class Normalizer(Component):
    """Base class: subclasses give ``_units`` (with alignment) and may speed up ``normalize_str``."""

    type_name = "Normalizer"

    def normalize_str(self, text: str) -> str:
        return "".join(piece for piece, _, _ in self._units(text))

    def normalize(self, text: Union[str, NormalizedString]) -> NormalizedString:
        ns = NormalizedString.from_str(text) if isinstance(text, str) else text
        return ns.transform(self._units(ns.text))

    def _units(self, text: str) -> Iterator[tuple[str, int, int]]:
        raise NotImplementedError
