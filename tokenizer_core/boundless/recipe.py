"""The ``boundless`` trainer of the command line and the app: BoundlessBPE with the stages it is used with.

Lowercase or no normalizer (``options.lowercase``), the :class:`~tokenizer_core.boundless.runs.BoundlessRuns`
pre-tokenizer (GPT-2's pattern, or cl100k's with ``pre_tokenizer="cl100k-regex"``), the model, and
GPT-2's byte-level decoder; ``options.vocab_size`` (30,000 when unset) and ``options.boundless``.

>>> from tokenizer_core.options import BoundlessOptions, TrainOptions
>>> from tokenizer_core.pipeline import Tokenizer
>>> opts = TrainOptions(vocab_size=263, special_tokens=(), boundless=BoundlessOptions(threshold=None))
>>> tok = Tokenizer.from_parts(train_boundless_parts(["of the cat, of the dog\\n"] * 3, options=opts))
>>> tok.encode("of the dog").tokens
['ofĠthe', 'Ġ', 'd', 'o', 'g']
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from tokenizer_core.boundless.runs import BoundlessRuns
from tokenizer_core.boundless.trainer import DEFAULT_VOCAB_SIZE, BoundlessResult, count_runs, train_boundless_counts
from tokenizer_core.errors import TokenizerError
from tokenizer_core.text.byte_level import CL100K_PATTERN, GPT2_PATTERN
from tokenizer_core.types import ProgressCallback, no_progress

if TYPE_CHECKING:
    from tokenizer_core.options import TrainOptions
    from tokenizer_core.parts import TokenizerParts


def boundless_stages(options: "TrainOptions") -> tuple[Any, BoundlessRuns]:
    """The normalizer (or None) and pre-tokenizer BoundlessBPE counts runs with, for these options.

    >>> from tokenizer_core.options import TrainOptions
    >>> boundless_stages(TrainOptions(lowercase=True))
    (Lowercase(), BoundlessRuns())
    """
    from tokenizer_core.text.normalizers import Lowercase

    if options.num_merges is not None:
        raise TokenizerError("BoundlessBPE trains to a vocabulary size (removals free room for more merges); "
                             "give vocab_size, not num_merges")
    name = options.pre_tokenizer
    if name in (None, "byte-level", "gpt2-regex"):
        pattern = GPT2_PATTERN
    elif name == "cl100k-regex":
        pattern = CL100K_PATTERN
    else:
        raise TokenizerError(f"BoundlessBPE is byte-level and splits text with a regex; use pre_tokenizer "
                             f"'gpt2-regex' or 'cl100k-regex', not {name!r}")
    return (Lowercase() if options.lowercase else None), BoundlessRuns(pattern=pattern)


def train_boundless_parts(lines: Iterable[str], *, options: "TrainOptions",
                          progress: ProgressCallback = no_progress) -> "TokenizerParts":
    """The ``boundless`` trainer: runs counted with :func:`boundless_stages`, then trained."""
    normalizer, pre = boundless_stages(options)  # before the corpus is read
    progress(0, 0, "counting runs")
    counts = count_runs(lines, normalizer=normalizer, pattern=pre.pattern, progress=progress)
    return train_boundless_from_counts(counts, options=options, progress=progress)[0]


def train_boundless_from_counts(run_counts: Mapping[str, int], *, options: "TrainOptions",
                                progress: ProgressCallback = no_progress) -> tuple["TokenizerParts", BoundlessResult]:
    """:func:`train_boundless_parts` from run counts made with its stages (``boundless_stages`` of
    the options), and the result with its trace (what a step-through page steps through).

    >>> from tokenizer_core.options import BoundlessOptions, TrainOptions
    >>> opts = TrainOptions(vocab_size=260, special_tokens=(), boundless=BoundlessOptions(threshold=None))
    >>> parts, result = train_boundless_from_counts({"ofĠa": 3, "Ġa": 1}, options=opts)
    >>> result.merges, result.kinds, parts.metadata["superword_merges"]
    ([('Ġ', 'a'), ('o', 'f'), ('of', 'Ġa')], ['within', 'within', 'across'], 1)
    """
    from tokenizer_core.parts import TokenizerParts
    from tokenizer_core.text.decoders import ByteLevelDecoder

    normalizer, pre = boundless_stages(options)
    settings = options.boundless
    result = train_boundless_counts(run_counts, vocab_size=options.vocab_size or DEFAULT_VOCAB_SIZE,
                                    threshold=settings.threshold, superwords=settings.superwords,
                                    special_tokens=options.special_tokens, pattern=pre.pattern, progress=progress)
    parts = TokenizerParts(
        model=result.model, normalizer=normalizer, pre_tokenizer=pre, decoder=ByteLevelDecoder(),
        special_tokens=result.special_tokens,
        metadata={"trainer": "boundless", "byte_level": True, "num_merges": len(result.merges),
                  "superword_merges": result.kinds.count("across"), "removals": len(result.trace.removals()),
                  "threshold": result.threshold, "superwords": result.allow_superwords,
                  "stop_reason": result.stop_reason},
    )
    return parts, result
