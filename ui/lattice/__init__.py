"""The Lattice page: a Unigram lattice with its Viterbi path, n-best, sampling and training."""
