"""BoundlessBPE's trace: every event of training in order, merges (within or across pretokens) and removals.

A merge event says whether it joined two tokens inside a pretoken (``kind="within"``, ordinary BPE)
or two complete pretokens side by side (``kind="across"``, a superword), how often the pair occurred,
how many were merged, and whether the token it spells was new, came back after a removal, or was there
already. A removal event names the token, its Intersection over Self (IoS), the merge that triggered
it and what its remaining occurrences split into (their bytes, as in the paper). :meth:`BoundlessTrace.events`
gives the bare tuples the model encodes with (:mod:`tokenizer_core.boundless.replay`).

>>> t = BoundlessTrace([MergeEvent(0, 1, "within", "o", "f", "of", 4, 4, "new", 257, 20),
...                     MergeEvent(1, 2, "across", "of", "Ġa", "ofĠa", 3, 3, "new", 258, 17)],
...                    stop_reason="reached vocab_size 258")
>>> [(e.kind, e.token) for e in t], t.events()[1], len(t.across())
([('within', 'of'), ('across', 'ofĠa')], ('supermerge', 'of', 'Ġa'), 1)
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Union

from tokenizer_core.removals.events import TOKEN_STATUS, EventTrace  # noqa: F401 (TOKEN_STATUS: its old home)

#: The kinds of merge: inside one pretoken, or across two complete pretokens (a superword).
MERGE_KINDS = ("within", "across")


@dataclass(frozen=True, slots=True)
class MergeEvent:
    """One merge. ``index`` is the event's place among all events (from 0), ``step`` the merge's
    number (from 1); ``count`` the pair's count when chosen (overlapping pairs counted, as our BPE
    counts them), ``merged`` the pairs merged (``a a a`` counts 2, merges 1). ``vocab_size`` and
    ``tokens_after`` are the vocabulary and the corpus (as the tokenizer segments it) after it."""

    index: int
    step: int
    kind: str
    left: str
    right: str
    token: str
    count: int
    merged: int
    status: str
    vocab_size: int
    tokens_after: int


@dataclass(frozen=True, slots=True)
class RemovalEvent:
    """One removal, right after the merge ``trigger`` (step ``step``) that used ``token``.

    ``ios = merged / before``: the merge used ``merged`` of the token's ``before`` occurrences in the
    pretokens (counted before the merge, the paper's f(x1, x2) / f(x)); the ``remaining`` ones went
    back to ``split``, the token's bytes."""

    index: int
    step: int
    token: str
    ios: float
    merged: int
    before: int
    remaining: int
    split: tuple[str, ...]
    trigger: tuple[str, str]
    vocab_size: int
    tokens_after: int

    kind = "remove"


Event = Union[MergeEvent, RemovalEvent]


class BoundlessTrace(EventTrace[MergeEvent, RemovalEvent]):
    """The events of one training run, in order, and why it stopped."""

    def across(self) -> list[MergeEvent]:
        """The superword merges (across pretokens), in order."""
        return [e for e in self.merges() if e.kind == "across"]

    def merge_name(self, event: Any) -> str:
        """``"merge"`` inside a pretoken, ``"supermerge"`` across two."""
        return "merge" if event.kind == "within" else "supermerge"

    def table(self) -> list[dict[str, Any]]:
        """Every event as a plain dict (removals with ``kind="remove"``), for the CLI and tables."""
        return [{**asdict(e), "kind": e.kind} for e in self]

    def __repr__(self) -> str:
        return (f"BoundlessTrace({len(self.merges())} merges, {len(self.across())} across pretokens, "
                f"{len(self.removals())} removals, stop_reason={self.stop_reason!r})")
