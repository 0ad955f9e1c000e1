"""The Lattice page: a Unigram lattice with its Viterbi path, n-best, sampling and training."""

#: Every session-state key of this page starts with this (widget keys included), so pages never clash.
PREFIX = "lattice_"
