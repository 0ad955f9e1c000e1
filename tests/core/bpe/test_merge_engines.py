"""choose_engine (bpe/merge_engines.py) picks the one engine of a BPE training, for the reasons it states."""

from __future__ import annotations

import pytest

from tokenizer_core.bpe import merge_engines
from tokenizer_core.bpe.merge_engines import FirstSeenEngine, KernelEngine, QueueEngine, choose_engine
from tokenizer_core.kernel.native import available

WORDS, COUNTS = [[0, 1, 2], [0, 1]], [3, 1]


def _choice(**how: object) -> type:
    settings = {"shift": 16, "tie_break": "ids", "top_k": 0, **how}
    return type(choose_engine([list(w) for w in WORDS], list(COUNTS), **settings))  # type: ignore[arg-type]


@pytest.mark.skipif(not available(), reason="the compiled kernel is not installed")
def test_the_kernel_runs_trainings_with_ties_by_ids() -> None:
    assert _choice() is KernelEngine
    assert _choice(top_k=1) is KernelEngine  # runner-ups too, as the queue's stash gives them
    assert _choice(top_k=1001) is QueueEngine  # more runner-ups than the kernel collects
    assert _choice(tie_break="first") is FirstSeenEngine  # the kernel breaks ties by ids only
    assert _choice(shift=32) is QueueEngine  # pair keys beyond the kernel's ints


def test_without_the_kernel_python_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(merge_engines, "available", lambda: False)
    assert _choice() is QueueEngine
    assert _choice(tie_break="first", top_k=3) is FirstSeenEngine


@pytest.mark.parametrize("native", [True, False])
def test_every_engine_takes_the_same_first_step(monkeypatch: pytest.MonkeyPatch, native: bool) -> None:
    if native and not available():
        pytest.skip("the compiled kernel is not installed")
    monkeypatch.setattr(merge_engines, "available", lambda: native)
    words = [list(w) for w in WORDS]
    engine = choose_engine(words, list(COUNTS), shift=16, tie_break="ids", top_k=0)
    assert engine.best_count() == 4
    assert engine.take() == ((0 << 16) | 1, [])
    assert engine.merge(0, 1, 3) == 4
    assert engine.best_count() == 3  # (ab, c) in the first word
    if not native:
        assert words == [[3, 2], [3]]  # the Python engines edit the words in place
