"""What PickyBPE and BoundlessBPE share: BPE trained as a list of events, merges and removals.

Both trainers keep exact pair counts that move both ways (:mod:`~tokenizer_core.removals.pairs`,
:mod:`~tokenizer_core.removals.words`), record their events (:mod:`~tokenizer_core.removals.events`),
check their arguments the same way (:mod:`~tokenizer_core.removals.training`), and their models encode
by replaying the events in training order (:mod:`~tokenizer_core.removals.replay`) after checking them
(:mod:`~tokenizer_core.removals.checks`). This package sits below both, which may not import each other.
"""
