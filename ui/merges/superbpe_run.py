"""A SuperBPE run on the step-through page: a BPE run in two stages, whose second stage's merges may
cross spaces (Liu et al., 2025; :mod:`tokenizer_core.superbpe`).

What it adds to :class:`~ui.merges.run.BpeRun`: where the switch is (:attr:`SuperBpeRun.transition_step`,
the last merge of stage 1), which stage a step belongs to, and the words the tables draw from: stage 1's
words up to the switch, stage 2's pieces (whole lines, numbers apart) after it, since only those can
hold a token that crosses a space.

>>> from tokenizer_core.corpus.loading import corpus_from_text
>>> from ui.merges.settings import MergeSettings
>>> from ui.merges.training import train_run
>>> corpus = corpus_from_text("of the cat and of the dog\\n" * 3)
>>> run = train_run(corpus, MergeSettings(algorithm="superbpe", budget_kind="vocab", budget=266, transition=97))
>>> run.transition_step, run.stage(run.transition_step), run.stage(run.transition_step + 1)
(2, 1, 2)
>>> [run.step_info(s).token for s in range(1, 6)]
['he', 'of', 'the', 'Ġthe', 'ofĠthe']
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from tokenizer_core.superbpe.stages import stage1_pieces
from tokenizer_core.text.byte_level import bytes_to_symbols
from tokenizer_core.text.surrogates import utf8_of
from ui.merges.run import BpeRun, RunFacts
from ui.widgets.tokens import spans_space

if TYPE_CHECKING:
    from tokenizer_core.superbpe.trainer import SuperBpeResult


class SuperBpeRun(BpeRun):
    """A SuperBPE run: the BPE trace of both stages, and where stage 2 begins."""

    algorithm = "superbpe"

    def __init__(self, facts: RunFacts, *, result: "SuperBpeResult", lines: list[tuple[str, int]]) -> None:
        super().__init__(facts, result=result)  # type: ignore[arg-type]  # the same trace and model
        self.transition_step = result.transition_step
        self.transition_size = result.transition
        self.superword_count = len(result.superwords())
        self.lines = lines
        # How many merges up to each step made a token that crosses a space (stage 2's only can).
        made = [0] * (self.num_steps + 1)
        for step in range(1, self.num_steps + 1):
            crossing = step > self.transition_step and spans_space(self.trace[step - 1].token, scheme=self.scheme)
            made[step] = made[step - 1] + crossing
        self._superwords = made
        # The teaching table's words (a small corpus): stage 2's pieces as the trainer's byte symbols, and
        # stage 1's read off them, each in order of first appearance. Its stage-2 pairs come from encoding
        # those pieces with the merges so far, which is the trainer's replay but for a merge that remakes
        # a token it already made (runs of spaces; see tokenizer_core.superbpe.inherit).
        self._stage2_words: Optional[list[tuple[str, int]]] = None
        if facts.words is not None:
            self._stage2_words = [(bytes_to_symbols(utf8_of(p)), c) for p, c in facts.words]
            first: dict[str, int] = {}
            for piece, count in facts.words:
                for q in stage1_pieces(piece):
                    key = bytes_to_symbols(utf8_of(q))
                    first[key] = first.get(key, 0) + count
            self.words = list(first.items())

    def superwords_until(self, step: int) -> int:
        """How many of the merges 1 to ``step`` made a token that crosses a space (a superword)."""
        return self._superwords[self.check_step(step)]

    def stage(self, step: int) -> int:
        """1 for the steps up to the switch (step 0 included), 2 after."""
        return 1 if self.check_step(step) <= self.transition_step else 2

    def table_words(self, step: int) -> Optional[list[tuple[str, int]]]:
        # The table after `step` merges is the one merge step + 1 chose from: stage 2's from the switch on.
        return self.words if self.check_step(step) < self.transition_step else self._stage2_words

    def kept_words(self, step: int) -> tuple[str, list[tuple[str, int]]]:
        if self.stage(step) == 1:
            return "words", self.top_words
        return "lines", self.lines
