"""Compare what a source printed with what the engines computed.

A number agrees when it is within half a unit of the last digit the source printed (169.8 holds
169.76 to 169.84; 65 holds 64.5 to 65.5); texts and lists must be equal, and a text of tokens
("un hug") equals a list of them.

>>> check_claim(Claim("loss", 169.8, "agree"), {"loss": 169.8029}).agrees
True
>>> c = check_claim(Claim("percent:chars", 65, "differ", why="rounding"), {"percent:chars": 62.666})
>>> c.agrees, c.as_expected, format_value(c.computed)
(False, True, '62.67')
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from tokenizer_core.lessons.schema import Claim

MISSING = object()


@dataclass(frozen=True)
class ClaimCheck:
    """A claim, what the engines computed for its quantity, and whether they agree."""

    claim: Claim
    computed: Any
    agrees: bool

    @property
    def as_expected(self) -> bool:
        """Whether the lesson's expectation (agree/differ) holds."""
        return self.agrees == (self.claim.expect == "agree")

    @property
    def known(self) -> bool:
        return self.computed is not MISSING


def _tolerance(value: float) -> float:
    exponent = Decimal(repr(float(value)) if isinstance(value, float) else str(value)).normalize().as_tuple().exponent
    return 0.5 * 10 ** min(int(exponent), 0) if isinstance(exponent, int) else 0.0


def same(printed: Any, computed: Any) -> bool:
    """Whether ``computed`` is what ``printed`` says (see the module's rule)."""
    if isinstance(printed, bool) or isinstance(computed, bool):
        return printed is computed or printed == computed
    if isinstance(printed, (int, float)) and isinstance(computed, (int, float)):
        if not math.isfinite(computed):
            return False
        return abs(computed - printed) <= _tolerance(printed) + 1e-12
    if isinstance(printed, str) and isinstance(computed, (list, tuple)):
        return printed.split() == [str(c) for c in computed]
    if isinstance(printed, list) and isinstance(computed, (list, tuple)):
        return len(printed) == len(computed) and all(same(a, b) for a, b in zip(printed, computed))
    return str(printed) == str(computed) if isinstance(printed, str) else printed == computed


def check_claim(claim: Claim, values: Mapping[str, Any]) -> ClaimCheck:
    """Compare one claim with the figure's values (a quantity the figure does not compute never agrees)."""
    computed = values.get(claim.quantity, MISSING)
    return ClaimCheck(claim, computed, computed is not MISSING and same(claim.value, computed))


def format_value(value: Any, *, quantity: str = "") -> str:
    """A computed value for people: numbers to 4 significant decimals, lists of tokens joined.

    >>> format_value([["a", "a"], ["a", "b"]]), format_value(0.000389), format_value(940)
    ('a + a, a + b', '0.000389', '940')
    >>> format_value([" of", " the"], quantity="merge"), format_value(".\\n"), format_value("from the left")
    ('·of + ·the', '.⏎', 'from the left')
    """
    if value is MISSING:
        return "(not computed by this figure)"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        if value == 0 or abs(value) >= 1:
            return f"{value:,.2f}".rstrip("0").rstrip(".")
        return f"{value:.3g}" if abs(value) < 1e-4 else f"{value:.6f}".rstrip("0")
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, (list, tuple)):
        # One pair of symbols (a merge, what a merge joined or a token split into): as sources write a merge.
        if quantity in ("merge", "pair") or quantity.endswith(("_merge", "_trigger", "_split")):
            return " + ".join(map(_visible, value))
        if value and all(isinstance(v, (list, tuple)) for v in value):
            return ", ".join(" + ".join(map(_visible, v)) for v in value)
        return " | ".join(map(_visible, value))
    return _visible(value)


def _visible(value: Any) -> str:
    """A text with its whitespace made visible (``·``, ``⏎``, ``⇥``) where it would vanish: a token's
    space at either end, a newline, a tab; a phrase with spaces only inside it stays as it is."""
    text = str(value)
    if text != text.strip(" ") or "\n" in text or "\t" in text:
        return text.replace(" ", "·").replace("\n", "⏎").replace("\t", "⇥")
    return text
