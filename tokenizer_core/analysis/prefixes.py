"""Smaller tokenizers read off one larger training: the first merges of BPE, the first entries of WordPiece.

Both trainers grow their vocabulary in order (special tokens, the alphabet, then one token per
merge, a merge that spells an existing token reusing its id) and stop *only* on their size limits
(or when nothing is left to merge). Their choices never depend on the target size, so training to
``vocab_size`` V stops exactly where a longer run passed V: the smaller tokenizer is the longer
run's first merges (BPE) or vocabulary entries (WordPiece), with the same ids.
``tests/core/analysis/test_sweep.py`` checks this against separate trainings at each size.

>>> from tokenizer_core.bpe.trainer import train_bpe
>>> from tokenizer_core.options import TrainOptions
>>> from tokenizer_core.pipeline import Tokenizer
>>> parts, result = train_bpe(["low lower newest widest\\n"], options=TrainOptions(vocab_size=30))
>>> bpe_prefix(result, 20)
(6, 20)
>>> small = bpe_prefix_tokenizer(Tokenizer.from_parts(parts), result, 20)
>>> small.model.merges == result.merges[:6], small.vocab_size
(True, 20)
"""

from __future__ import annotations

from typing import Any, Optional

from tokenizer_core.bpe.trainer import BpeTrainResult
from tokenizer_core.errors import TokenizerError
from tokenizer_core.pipeline import Tokenizer
from tokenizer_core.wordpiece.trainer import WordPieceTraining

__all__ = ["bpe_prefix", "bpe_prefix_tokenizer", "wordpiece_prefix_tokenizer", "wordpiece_prefix_vocab"]


def _grow(base: int, new_tokens: list[bool], vocab_size: int, num_merges: Optional[int]) -> tuple[int, int]:
    """(merges kept, vocabulary size) when merging stops at ``vocab_size`` tokens or ``num_merges``
    merges, checked before each merge as the trainers do."""
    if isinstance(vocab_size, bool) or not isinstance(vocab_size, int) or vocab_size < 1:
        raise TokenizerError(f"vocab_size must be a positive whole number, got {vocab_size!r}")
    size, kept = base, 0
    for is_new in new_tokens:
        if size >= vocab_size or (num_merges is not None and kept >= num_merges):
            break
        size += is_new
        kept += 1
    return kept, size


def bpe_prefix(result: BpeTrainResult, vocab_size: int, *, num_merges: Optional[int] = None) -> tuple[int, int]:
    """How many of ``result``'s merges a training stopped at ``vocab_size`` keeps, and its vocabulary size.

    A target below the special tokens and alphabet keeps no merge (the size is then larger than asked,
    as for the trainer); one above what the run reached keeps every merge.
    """
    new_tokens = result.trace.new_token_flags()  # building 8k full records per cut cost more than the cut
    return _grow(len(result.vocab) - sum(new_tokens), new_tokens, vocab_size, num_merges)


def _rebuilt(tok: Tokenizer, model: Any, metadata: dict[str, Any]) -> Tokenizer:
    """``tok``'s stages around another model."""
    return Tokenizer(model, normalizer=tok.normalizer, pre_tokenizer=tok.pre_tokenizer,
                     post_processor=tok.post_processor, decoder=tok.decoder, special_tokens=tok.special_tokens,
                     metadata={**tok.metadata, **metadata})


def bpe_prefix_tokenizer(tok: Tokenizer, result: BpeTrainResult, vocab_size: int, *,
                         num_merges: Optional[int] = None) -> Tokenizer:
    """The BPE tokenizer a training of ``tok`` stopped at ``vocab_size`` would give (``result`` is
    ``tok``'s training): its first merges and the vocabulary they reach, ids unchanged."""
    kept, size = bpe_prefix(result, vocab_size, num_merges=num_merges)
    data = tok.model.to_dict()
    data["vocab"] = {t: i for t, i in data["vocab"].items() if i < size}
    data["merges"] = data["merges"][:kept]
    return _rebuilt(tok, type(tok.model).from_dict(data), {"num_merges": kept})


def wordpiece_prefix_vocab(training: WordPieceTraining, vocab_size: int, *,
                           num_merges: Optional[int] = None) -> dict[str, int]:
    """The vocabulary a WordPiece training stopped at ``vocab_size`` would give, read off ``training``.

    >>> from tokenizer_core.wordpiece.trainer import train_wordpiece
    >>> counts = {"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}
    >>> run = train_wordpiece(counts, vocab_size=12, special_tokens=())
    >>> wordpiece_prefix_vocab(run, 10) == train_wordpiece(counts, vocab_size=10, special_tokens=()).vocab
    True
    """
    base = len(dict.fromkeys([*training.special_tokens, *training.alphabet]))
    new_tokens, size = [], base
    for merge in training.merges:  # a merge is new when it takes the next id
        new_tokens.append(merge.new_id == size)
        size += new_tokens[-1]
    _, size = _grow(base, new_tokens, vocab_size, num_merges)
    return {t: i for t, i in training.vocab.items() if i < size}


def wordpiece_prefix_tokenizer(tok: Tokenizer, training: WordPieceTraining, vocab_size: int, *,
                               num_merges: Optional[int] = None) -> Tokenizer:
    """The WordPiece tokenizer a training of ``tok`` stopped at ``vocab_size`` would give
    (``training`` is ``tok``'s training record)."""
    data = tok.model.to_dict()
    data["vocab"] = wordpiece_prefix_vocab(training, vocab_size, num_merges=num_merges)
    return _rebuilt(tok, type(tok.model).from_dict(data), {})
