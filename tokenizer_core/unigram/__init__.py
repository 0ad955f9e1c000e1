"""Unigram language-model tokenization: the model, the segmentation lattice (Viterbi, n-best,
marginals, sampling) and the EM trainer with pruning, as SentencePiece does it; and the parts that
read SentencePiece ``.model`` files exactly (normalizer with its rule table, encoder, decoder)."""

from tokenizer_core.unigram.lattice import Lattice, PieceTrie
from tokenizer_core.unigram.model import Unigram
from tokenizer_core.unigram.sentencepiece_decoder import SentencePieceDecoder
from tokenizer_core.unigram.sentencepiece_normalizer import SentencePieceNormalizer
from tokenizer_core.unigram.sentencepiece_unigram import SentencePieceUnigram

_TRAINER_NAMES = ("train_unigram", "train_unigram_parts", "unigram_components")


def __getattr__(name: str):
    # The trainer needs numpy (60 ms to import): loaded on first use, not by every tokenizer load.
    if name in _TRAINER_NAMES:
        from tokenizer_core.unigram import trainer

        return getattr(trainer, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

__all__ = ["Lattice", "PieceTrie", "SentencePieceDecoder", "SentencePieceNormalizer", "SentencePieceUnigram", "Unigram",
           "train_unigram", "train_unigram_parts", "unigram_components"]
