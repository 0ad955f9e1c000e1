"""Minimum-token segmentation (PathPiece, Schmidt et al., 2024): the path through a Unigram lattice
with the fewest tokens, its ties broken as the paper does, and a corpus measurement of what fewer
tokens cost in likelihood against Viterbi's path."""

from tokenizer_core.min_tokens.measure import Difference, FewestReport, compare_on_pieces, corpus_pieces, first_chars
from tokenizer_core.min_tokens.paths import TIES, FewestCount, all_fewest, fewest_count, fewest_tokens, longest_match

__all__ = ["TIES", "Difference", "FewestCount", "FewestReport", "all_fewest", "compare_on_pieces", "corpus_pieces",
           "fewest_count", "first_chars", "fewest_tokens", "longest_match"]
