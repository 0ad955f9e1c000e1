"""Unigram language-model tokenization: the model, the segmentation lattice (Viterbi, n-best,
marginals, sampling) and the EM trainer with pruning, as SentencePiece does it; and the parts that
read SentencePiece ``.model`` files exactly (normalizer with its rule table, encoder, decoder)."""

from tokenizer_core.unigram.lattice import Lattice, PieceTrie
from tokenizer_core.unigram.model import Unigram
from tokenizer_core.unigram.sentencepiece_decoder import SentencePieceDecoder
from tokenizer_core.unigram.sentencepiece_normalizer import SentencePieceNormalizer
from tokenizer_core.unigram.sentencepiece_unigram import SentencePieceUnigram
from tokenizer_core.unigram.trainer import train_unigram, train_unigram_parts, unigram_components

__all__ = ["Lattice", "PieceTrie", "SentencePieceDecoder", "SentencePieceNormalizer", "SentencePieceUnigram", "Unigram",
           "train_unigram", "train_unigram_parts", "unigram_components"]
