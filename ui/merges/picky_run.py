"""A PickyBPE run on the step-through page (Chizhov et al., 2024; :mod:`tokenizer_core.pickybpe`):
BPE whose merges may each be followed by removals of the tokens they used up.

A step is one merge and the removals it triggered (:meth:`PickyRun.removals_at`); the vocabulary can
shrink at a step, and a removed token can come back at a later one with its old id. Tokens keep the
id of the order they were first made, so a removed token keeps its colour on the page too.

>>> from tokenizer_core.corpus.loading import corpus_from_text
>>> from ui.merges.settings import MergeSettings
>>> from ui.merges.training import train_run
>>> run = train_run(corpus_from_text("abc abc abc abc ab\\n"),
...                 MergeSettings(algorithm="pickybpe", budget_kind="vocab", budget=260, threshold=70))
>>> [run.step_info(s).token for s in range(1, 5)], [[r.token for r in run.removals_at(s)] for s in range(1, 5)]
(['ab', 'Ġab', 'Ġabc', 'ab'], [[], ['ab'], ['Ġab'], []])
>>> [run.vocab_size_at(s) for s in range(5)], run.segment("Ġab", 3), run.step_info(4).token_id
([256, 257, 257, 257, 258], ['Ġ', 'a', 'b'], 256)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tokenizer_core.errors import TokenizerError
from tokenizer_core.pickybpe.events import MergeEvent, RemovalEvent
from ui.merges.run import MAX_TREE_NODES, MergeRun, RunFacts, StepInfo, producer_tree
from ui.merges.tree import TreeNode

if TYPE_CHECKING:
    from tokenizer_core.pickybpe.trainer import PickyBpeResult


class PickyRun(MergeRun):
    """A PickyBPE run: its trace of merges and removals, and the model that replays them."""

    algorithm = "pickybpe"

    def __init__(self, facts: RunFacts, *, result: "PickyBpeResult", initial_tokens: int) -> None:
        self.result = result
        self.model = facts.tokenizer.model
        self.threshold = result.threshold
        merges: list[MergeEvent] = []
        removals: list[list[RemovalEvent]] = [[]]
        ends = [0]  # events replayed after each step: its merge and its removals
        for event in result.trace:
            if isinstance(event, MergeEvent):
                merges.append(event)
                removals.append([])
                ends.append(event.index + 1)
            else:
                removals[-1].append(event)
                ends[-1] = event.index + 1
        self._merges, self._removals, self._ends = merges, removals, ends
        # Every token ever made keeps the id it was first made with (the model's vocabulary holds
        # only the tokens present at the end; a removed one is never given another's id).
        vocab = dict(result.vocab)
        next_id = len(result.special_tokens) + 256
        self._made_at: dict[str, int] = {}
        for m in merges:
            if m.status == "new":
                vocab.setdefault(m.token, next_id)
                next_id += 1
            self._made_at.setdefault(m.token, m.step)
        curve = [initial_tokens]
        for step, m in enumerate(merges, 1):
            last = removals[step][-1] if removals[step] else m
            curve.append(last.tokens_after)
        new_flags = [m.status != "present" for m in merges]
        super().__init__(facts, curve=curve, vocab=vocab, new_flags=new_flags, stop_reason=result.stop_reason)
        base = len(result.special_tokens) + 256
        self._sizes = [base] + [(r[-1] if r else m).vocab_size for m, r in zip(merges, removals[1:])]

    def removals_at(self, step: int) -> list[RemovalEvent]:
        """The removals merge ``step`` triggered, in order (none at step 0)."""
        return list(self._removals[self.check_step(step)])

    def removed_until(self, step: int) -> int:
        """How many removals the merges 1 to ``step`` triggered."""
        return sum(len(r) for r in self._removals[:self.check_step(step) + 1])

    def segment(self, word: str, step: int) -> list[str]:
        return self.model.segment(word, upto=self._ends[self.check_step(step)])

    def step_info(self, step: int) -> StepInfo:
        if not 1 <= self.check_step(step):
            raise TokenizerError("step 0 is before the first merge; merge records start at step 1")
        m = self._merges[step - 1]
        return StepInfo(step=step, left=m.left, right=m.right, token=m.token, token_id=self.vocab.get(m.token, -1),
                        token_is_new=m.status != "present", count=m.count, score=None, left_count=None,
                        right_count=None, runner_ups=(), tied=(), tie_break=None, bpe_choice=None,
                        tokens_after=m.tokens_after)

    def merge_tree(self, token: str, step: int, *, max_nodes: int = MAX_TREE_NODES) -> TreeNode:
        return producer_tree(token, self.check_step(step), max_nodes, made_at=self._made_at,
                             pair_of=lambda made: (self._merges[made - 1].left, self._merges[made - 1].right),
                             vocab=self.vocab)
