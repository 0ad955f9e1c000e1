"""What a lesson figure is made of: its checked inputs (:class:`Param`) and what the engines give
back (:class:`FigureResult`: named values for the claims, tables, token rows and charts).

The app draws a result; the handout writes it as HTML; the tests compare its values with the
engines'. Nothing here formats HTML.

>>> p = Param("merges", "int", default=3, lo=1, hi=200)
>>> p.check(5), p.check(None)
(5, 3)
>>> p.check(0)
Traceback (most recent call last):
...
ValueError: must be between 1 and 200, got 0
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Optional

_REQUIRED = object()


@dataclass(frozen=True)
class Param:
    """One input of a figure kind: its type (``int``, ``float``, ``str``, ``bool``, ``ints``,
    ``strs``, ``counts`` a {word: count} mapping, ``numbers`` a {name: number} mapping, ``batches``
    a {name: [lengths]} mapping), default (``_REQUIRED`` when it must be given) and bounds."""

    name: str
    type: str
    default: Any = _REQUIRED
    lo: Optional[float] = None
    hi: Optional[float] = None
    choices: tuple[str, ...] = ()
    max_len: int = 200

    @property
    def required(self) -> bool:
        return self.default is _REQUIRED

    def check(self, value: Any) -> Any:
        """The value to use; ``ValueError`` with a short reason when it does not fit."""
        if value is None:
            if self.required:
                raise ValueError("is required")
            return self.default
        checker = _CHECKS[self.type]
        return checker(self, value)

    def describe(self) -> str:
        """For error messages and the README: ``merges (int, 1-200)``."""
        bounds = f", {self.lo:g}-{self.hi:g}" if self.lo is not None and self.hi is not None else ""
        options = f", one of {'/'.join(self.choices)}" if self.choices else ""
        return f"{self.name} ({self.type}{bounds}{options}{'' if self.required else ', optional'})"


def _number(p: Param, value: Any, kind: type) -> Any:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or (kind is int and not isinstance(value, int)):
        raise ValueError(f"must be a {'whole number' if kind is int else 'number'}, got {value!r}"[:120])
    if (p.lo is not None and value < p.lo) or (p.hi is not None and value > p.hi):
        raise ValueError(f"must be between {p.lo:g} and {p.hi:g}, got {value:g}")
    return kind(value)


def _text(p: Param, value: Any) -> str:
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        raise ValueError("must be text")
    value = str(value)
    if len(value) > p.max_len:
        raise ValueError(f"is longer than {p.max_len} characters")
    if p.choices and value not in p.choices:
        raise ValueError(f"must be one of {', '.join(p.choices)}, not {value!r}"[:200])
    return value


def _bool(_p: Param, value: Any) -> bool:
    if not isinstance(value, bool):
        raise ValueError("must be true or false")
    return value


def _list(p: Param, value: Any, item: Callable[[Any], Any], what: str) -> list[Any]:
    if not isinstance(value, list) or not value or len(value) > 64:
        raise ValueError(f"must be a list of 1 to 64 {what}")
    return [item(v) for v in value]


def _mapping(p: Param, value: Any, item: Callable[[Any], Any], what: str) -> dict[str, Any]:
    if not isinstance(value, dict) or not value or len(value) > 64:
        raise ValueError(f"must be a mapping of 1 to 64 entries (name: {what})")
    out = {}
    for k, v in value.items():
        if len(str(k)) > p.max_len:
            raise ValueError(f"has a name longer than {p.max_len} characters")
        out[str(k)] = item(v)
    return out


def _int_item(p: Param) -> Callable[[Any], int]:
    return lambda v: _number(p, v, int)


_CHECKS: dict[str, Callable[[Param, Any], Any]] = {
    "int": lambda p, v: _number(p, v, int),
    "float": lambda p, v: _number(p, v, float),
    "str": _text,
    "bool": _bool,
    "ints": lambda p, v: _list(p, v, _int_item(p), "whole numbers"),
    "strs": lambda p, v: _list(p, v, lambda x: _text(Param(p.name, "str", max_len=p.max_len), x), "texts"),
    "counts": lambda p, v: _mapping(p, v, _int_item(p), "count"),
    "numbers": lambda p, v: _mapping(p, v, lambda x: _number(p, x, float), "number"),
    "batches": lambda p, v: _mapping(p, v, lambda x: _list(p, x, _int_item(p), "lengths"), "[lengths]"),
}


@dataclass(frozen=True)
class Table:
    """A table of a figure: column names and rows of plain values."""

    name: str
    columns: tuple[str, ...]
    rows: tuple[tuple[Any, ...], ...]


@dataclass(frozen=True)
class TokenRow:
    """A segmentation to draw as token chips, with a label ("after 2 merges", "seed 3")."""

    label: str
    tokens: tuple[str, ...]
    #: How markers are written (plain, byte-level, wordpiece, suffix, metaspace): the app shows them.
    scheme: str = "plain"
    #: The tokens' ids when the figure has a vocabulary (chip colours follow them); else empty.
    ids: tuple[Optional[int], ...] = ()


@dataclass(frozen=True)
class Chart:
    """A chart as data: ``rows`` of {x, y, series}; the app and the handout draw it with Altair.
    ``mark_x`` marks one x value (the knee); ``log_x`` puts x on a log scale."""

    name: str
    x_title: str
    y_title: str
    rows: tuple[Mapping[str, Any], ...]
    mark: str = "line"  # "line" or "bar"
    log_x: bool = False
    mark_x: Optional[float] = None


@dataclass(frozen=True)
class FigureResult:
    """What the engines computed for one step: named ``values`` (what claims compare with), and the
    tables, token rows, charts and sentences (``notes``, computed, e.g. which numbers conflict)."""

    title: str
    values: Mapping[str, Any]
    tables: tuple[Table, ...] = ()
    token_rows: tuple[TokenRow, ...] = ()
    charts: tuple[Chart, ...] = ()
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class Context:
    """What a figure may need beyond its inputs: the active corpus' lines (only the sweep and the
    granularity figures ask; a callable, so the others never load it) and its name."""

    corpus_lines: Callable[[], Sequence[str]] = lambda: ()
    corpus_name: str = "the corpus"
    progress: Callable[[int, int, str], None] = field(default=lambda done, total, what: None)


@dataclass(frozen=True)
class FigureKind:
    """A kind of figure: its inputs and the function of the engines that computes it."""

    name: str
    params: tuple[Param, ...]
    compute: Callable[[Mapping[str, Any], Context], FigureResult]
    about: str
    uses_corpus: bool = False
