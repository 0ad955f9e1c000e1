"""BPE-dropout over many draws: how often each segmentation of a word comes out.

All draws come from one generator seeded once, as in a command-line run (see
:meth:`tokenizer_core.types.Sampling.generator`): the seed reproduces the whole table, and the
draws are independent of each other.

>>> from tokenizer_core.bpe.model import BPE
>>> m = BPE({"a": 0, "b": 1, "ab": 2}, [("a", "b")])
>>> sorted(dropout_frequencies(m, ["ab"], dropout=0.5, draws=1000, seed=0).items())
[(('a', 'b'), 508), (('ab',), 492)]
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING

from tokenizer_core.errors import TokenizerError
from tokenizer_core.types import Sampling

if TYPE_CHECKING:
    from tokenizer_core.bpe.model import BPE

#: More draws than a table needs; the limit keeps one request from holding a server for minutes.
MAX_DRAWS = 1_000_000


def dropout_frequencies(model: "BPE", pieces: Sequence[str], *, dropout: float, draws: int,
                        seed: int) -> Counter[tuple[str, ...]]:
    """How often each segmentation (the tokens of ``pieces``, one after another) comes out of
    ``draws`` BPE-dropout draws with merge-skip probability ``dropout``."""
    if isinstance(draws, bool) or not isinstance(draws, int) or not 1 <= draws <= MAX_DRAWS:
        raise TokenizerError(f"draws must be a whole number from 1 to {MAX_DRAWS:,}, got {draws!r}")
    sampling = Sampling(seed=seed, dropout=dropout)
    rng = sampling.generator()
    return Counter(tuple(t.text for piece in pieces for t in model.tokenize_sampled(piece, rng=rng, sampling=sampling))
                   for _ in range(draws))
