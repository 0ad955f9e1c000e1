"""The compiled kernel against the pure-Python reference on hostile, random input (bench/fuzz_kernel.py).

A fixed set of seeds runs in CI, here and under AddressSanitizer and UndefinedBehaviorSanitizer
(scripts/sanitized_kernel.sh runs this file against the sanitized build); the long mode
(``python -m bench.fuzz_kernel --minutes 30``) runs fresh seeds. Every bug the fuzzer found stays
below as a regression test of its own.
"""

from __future__ import annotations

import os
import random
from collections import Counter

import pytest

from bench import fuzz_kernel as fuzz
from tokenizer_core.kernel.native import available

pytestmark = pytest.mark.skipif(not available(), reason="the compiled kernel is not installed")

#: Seeds per case kind in CI: about 4 s on the normal build and 40 s under the sanitizers (2 cores).
SEEDS_PER_KIND = 150


def test_the_expected_kernel_is_loaded():
    """Under scripts/sanitized_kernel.sh the sanitized build must be the one imported (PYTHONPATH
    comes before site-packages); elsewhere, whichever kernel is installed."""
    import tokenizer_kernel

    expected = os.environ.get("TOKENIZER_KERNEL_EXPECT")
    if expected:
        assert tokenizer_kernel.__file__.startswith(expected), tokenizer_kernel.__file__


#: Each kind's seeds in this many tests, every one taking every BATCHES-th seed: under the sanitizers
#: one kind's 150 seeds took 29 s in one test, which the other worker could not share.
BATCHES = 3


def _seeds_of(batch: int) -> range:
    """The seed numbers one batch of a kind runs (every BATCHES-th, from ``batch``)."""
    return range(batch, SEEDS_PER_KIND, BATCHES)


@pytest.mark.parametrize("batch", range(BATCHES))
@pytest.mark.parametrize("kind", fuzz.KINDS)
def test_fuzz_seeds(kind, batch):
    ran = Counter()
    offset = fuzz.KINDS.index(kind)
    mine = _seeds_of(batch)
    for n in mine:
        ran[fuzz.run_case(offset + n * len(fuzz.KINDS))] += 1
    assert ran == {kind: len(mine)}


def test_the_batches_take_every_seed_once():
    taken = sorted(n for batch in range(BATCHES) for n in _seeds_of(batch))
    assert taken == list(range(SEEDS_PER_KIND))


def test_the_fuzzer_sees_a_wrong_kernel(monkeypatch):
    """The differential check is not vacuous: a kernel split that drops the last piece diverges."""
    from bench.fuzz_kernel import _splitter
    from tokenizer_core.text.byte_level import GPT2_PATTERN

    real = _splitter(GPT2_PATTERN)

    class Wrong:
        def split(self, text):
            return real.split(text)[:-1]

    monkeypatch.setattr(fuzz, "_splitter", lambda pattern: Wrong())
    with pytest.raises(fuzz.Divergence, match="split"):
        for seed in range(0, 40, len(fuzz.KINDS)):
            fuzz.run_case(seed)


def test_hostile_text_covers_what_it_promises():
    texts = [fuzz.hostile_text(random.Random(seed)) for seed in range(300)]
    joined = "".join(texts)
    assert any("\ud800" <= c <= "\udfff" for c in joined)  # lone surrogates
    assert any(max(map(len, t.split(" ") or [""])) >= 1000 for t in texts)  # long runs
    assert any(c.isdigit() and not c.isascii() for c in joined)  # digits of other scripts
    assert any(ord(c) < 0x20 and c not in "\n\t\r" for c in joined)  # control characters
    assert any(ord(c) > 0xFFFF for c in joined)  # astral characters


# ----------------------------------------------------------------------------- what the fuzzer found


def test_training_reads_lone_surrogates_as_the_replacement_character():
    """Found by the fuzzer: byte-level training (kernel and Python paths) raised UnicodeEncodeError on
    a lone surrogate, which encoding reads as U+FFFD. Training now reads it the same way."""
    from tokenizer_core.bpe.trainer import train_bpe
    from tokenizer_core.options import TrainOptions

    options = TrainOptions(vocab_size=270, byte_level=True)
    odd = train_bpe(["a\ud800b \udfff\ud800 ab\n", "ab\n"], options=options)[1]
    with fuzz.pure_python():
        reference = train_bpe(["a\ud800b \udfff\ud800 ab\n", "ab\n"], options=options)[1]
    replaced = train_bpe(["a\ufffdb \ufffd\ufffd ab\n", "ab\n"], options=options)[1]
    assert (odd.merges, odd.vocab) == (reference.merges, reference.vocab) == (replaced.merges, replaced.vocab)


def test_pieces_differing_only_in_surrogates_are_counted_together():
    """Found by the fuzzer: two raw pieces that map to the same byte symbols ("\\ud800" and "\\udfff"
    both read as U+FFFD) overwrote each other's count instead of adding up."""
    from tokenizer_core.text.counting import count_words
    from tokenizer_core.text.pre_tokenizers import ByteLevel

    lines = ["x \ud800 \udfff \ud800\n"]
    counts = count_words(lines, pre_tokenizer=ByteLevel())
    with fuzz.pure_python():
        reference = count_words(lines, pre_tokenizer=ByteLevel())
    assert counts == reference
    assert counts["Ġï¿½"] == 3
