"""The step trace of BPE training: one record per merge, plus the compression curve.

Each :class:`MergeRecord` says which pair was merged, how often it occurred, which
pairs came next (the runner-ups), whether a tie in counts had to be broken, and
how many tokens the corpus takes after the merge. :class:`BpeTrace` holds the
records and can show how any word was segmented after any number of merges,
cheaply enough for a slider: a word's segmentation after ``k`` merges is
rank-ordered BPE restricted to the first ``k`` merges.

>>> from tokenizer_core.bpe.trainer import train_bpe_counts
>>> result = train_bpe_counts({"aaabdaaabac": 1}, num_merges=3, special_tokens=())
>>> [(r.step, r.left, r.right, r.count) for r in result.trace]
[(1, 'a', 'a', 4), (2, 'a', 'b', 2), (3, 'aa', 'ab', 2)]
>>> result.trace.segment("aaabdaaabac", 3)
['aaab', 'd', 'aaab', 'a', 'c']
>>> result.trace.compression_curve()
[11, 9, 7, 5]
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Optional

from tokenizer_core.errors import TokenizerError

if TYPE_CHECKING:
    from tokenizer_core.bpe.model import BPE


_MEMO_MIN_LENGTH = 1000
_MEMO_SIZE = 16


@dataclass(frozen=True, slots=True)
class RunnerUp:
    """A pair that was a candidate at a merge step but was not chosen."""

    left: str
    right: str
    count: int


@dataclass(frozen=True, slots=True)
class MergeRecord:
    """What one BPE training step did.

    ``step`` counts from 1 (after record ``step`` the model has ``step`` merges).
    ``token_is_new`` is False when the merged string already had an id (two different
    pairs can spell the same token; the id is reused, the vocabulary does not grow).
    ``tie`` is True when a runner-up had the same count; ``tie_break`` then explains
    the choice. ``tokens_after`` is the corpus length in tokens after this merge.
    """

    step: int
    left: str
    right: str
    left_id: int
    right_id: int
    count: int
    token: str
    token_id: int
    token_is_new: bool
    runner_ups: tuple[RunnerUp, ...]
    tie: bool
    tie_break: str
    tokens_after: int

    def to_dict(self) -> dict[str, Any]:
        """Plain-JSON view (for the CLI and tables)."""
        return {
            "step": self.step,
            "pair": [self.left, self.right],
            "pair_ids": [self.left_id, self.right_id],
            "count": self.count,
            "token": self.token,
            "token_id": self.token_id,
            "token_is_new": self.token_is_new,
            "runner_ups": [[r.left, r.right, r.count] for r in self.runner_ups],
            "tie": self.tie,
            "tie_break": self.tie_break,
            "tokens_after": self.tokens_after,
        }


class BpeTrace:
    """All merge records of one training run and what is needed to replay them.

    Records are stored compactly and built on access (``trace[i]``, iteration), so a
    trace of 30k merges costs little. ``initial_tokens`` is the corpus length (in symbols)
    before any merge; ``alphabet`` the initial symbols; ``stop_reason`` why training
    stopped; ``word_counts`` the most frequent training words (piece form, e.g. "Ġthe"
    for byte-level); ``tie_break`` the rule used for equal counts ("ids" or "first").
    """

    def __init__(
        self,
        steps: list[tuple],
        id_to_token: list[str],
        shift: int,
        *,
        initial_tokens: int,
        alphabet: list[str],
        stop_reason: str,
        word_counts: Optional[list[tuple[str, int]]] = None,
        model: Optional["BPE"] = None,
        tie_break: str = "ids",
        top_k: int = 10,
    ) -> None:
        # Each step: (left id, right id, count, new id, token is new, ((pair key, count), ...),
        # number of runner-ups tied with the count, corpus tokens after).
        self._steps = steps
        self._id_to_token = id_to_token
        self._shift = shift
        self.initial_tokens = initial_tokens
        self.alphabet = alphabet
        self.stop_reason = stop_reason
        self.word_counts = word_counts or []
        self.model = model
        # A memo of long-word segmentations (see segment); not part of the trace's value.
        self._memo: dict[tuple[str, int], tuple[str, ...]] = {}
        self.tie_break = tie_break
        self.top_k = top_k

    def __len__(self) -> int:
        return len(self._steps)

    def __iter__(self) -> Iterator[MergeRecord]:
        return (self._record(i) for i in range(len(self._steps)))

    def __getitem__(self, index: int) -> MergeRecord:
        if not -len(self._steps) <= index < len(self._steps):
            raise IndexError(f"merge record {index} out of range (0..{len(self._steps) - 1})")
        return self._record(index % len(self._steps))

    def new_token_flags(self) -> list[bool]:
        """For each merge, whether it made a token not in the vocabulary yet (what a vocabulary-size
        cut counts), read without building the records."""
        return [bool(step[4]) for step in self._steps]

    @property
    def records(self) -> list[MergeRecord]:
        """Every record (built on each call; prefer indexing for single steps)."""
        return list(self)

    def _record(self, i: int) -> MergeRecord:
        a, b, count, new_id, is_new, ups, tied, after = self._steps[i]
        names = self._id_to_token
        shift = self._shift
        mask = (1 << shift) - 1
        runner_ups = tuple(RunnerUp(names[k >> shift], names[k & mask], c) for k, c in ups)
        tie_break = ""
        if tied:
            others = [(k >> shift, k & mask) for k, _ in ups[:tied]]
            cut = tied == self.top_k
            if self.tie_break == "first":
                o = runner_ups[0]
                tie_break = (
                    f"{tied + 1}{'+' if cut else ''} pairs occur {count} times; the one seen first in the corpus "
                    f"wins: ({names[a]}, {names[b]}) before ({o.left}, {o.right})"
                )
            else:
                tie_break = explain_tie((a, b), others, count, at_least=cut)
        return MergeRecord(
            step=i + 1, left=names[a], right=names[b], left_id=a, right_id=b, count=count,
            token=names[new_id], token_id=new_id, token_is_new=is_new, runner_ups=runner_ups,
            tie=bool(tied), tie_break=tie_break, tokens_after=after,
        )

    def compression_curve(self) -> list[int]:
        """Corpus length in tokens after 0, 1, 2, ... merges (index = step)."""
        return [self.initial_tokens, *(st[7] for st in self._steps)]

    def counts(self) -> list[int]:
        """The count of the merged pair at each step (index 0 = step 1)."""
        return [st[2] for st in self._steps]

    def ties(self) -> list[MergeRecord]:
        """The steps where two or more pairs had the top count."""
        return [self._record(i) for i, st in enumerate(self._steps) if st[6]]

    def _check_step(self, step: int) -> int:
        if not isinstance(step, int) or isinstance(step, bool):
            raise TokenizerError(f"step must be an integer, got {step!r}")
        if not 0 <= step <= len(self._steps):
            raise TokenizerError(f"step must be between 0 and {len(self._steps)}, got {step}")
        return step

    def segment(self, word: str, step: int) -> list[str]:
        """The tokens of ``word`` (piece form) after the first ``step`` merges.

        Characters the alphabet lacks come out as the unknown token (or are dropped
        when the model has none).
        """
        if self.model is None:
            raise TokenizerError("this trace has no model attached; train with train_bpe_counts()")
        step = self._check_step(step)
        if len(word) < _MEMO_MIN_LENGTH:
            return self.model.segment(word, max_rank=step)
        # Very long words (a corpus that is one 200k-character "word") cost up to a second
        # each; a page asks for the same one several times per step, so remember a few.
        key = (word, step)
        hit = self._memo.get(key)
        if hit is None:
            hit = tuple(self.model.segment(word, max_rank=step))
            if len(self._memo) >= _MEMO_SIZE:
                self._memo.pop(next(iter(self._memo)), None)
            self._memo[key] = hit
        return list(hit)

    def segment_many(self, words: Iterable[str], step: int) -> list[list[str]]:
        """:meth:`segment` for several words at one step."""
        step = self._check_step(step)
        return [self.segment(w, step) for w in words]

    def top_words(self, n: int = 50) -> list[tuple[str, int]]:
        """The ``n`` most frequent training words with their counts."""
        return self.word_counts[:n]

    def tokens_at(self, step: int) -> int:
        """Corpus length in tokens after ``step`` merges."""
        step = self._check_step(step)
        return self.initial_tokens if step == 0 else self._steps[step - 1][7]

    def table(self, *, start: int = 0, stop: Optional[int] = None) -> list[dict[str, Any]]:
        """Records ``start:stop`` as plain dicts."""
        return [self._record(i).to_dict() for i in range(len(self._steps))[start:stop]]

    def __repr__(self) -> str:
        return f"BpeTrace({len(self)} merges, stop_reason={self.stop_reason!r})"


def explain_tie(
    chosen: tuple[int, int], others: Sequence[tuple[int, int]], count: int, *, at_least: bool = False
) -> str:
    """Words for a broken tie: among equal counts the pair with the smallest ids wins.

    ``others`` are the tied pairs that lost; ``at_least`` says the list was cut short.

    >>> explain_tie((5, 9), [(7, 2)], 12)
    '2 pairs occur 12 times; the smallest ids win: (5, 9) before (7, 2)'
    """
    n = f"{len(others) + 1}{'+' if at_least else ''}"
    first = others[0]
    return (
        f"{n} pairs occur {count} times; the smallest ids win: "
        f"({chosen[0]}, {chosen[1]}) before ({first[0]}, {first[1]})"
    )
