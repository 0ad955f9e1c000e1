"""The Corpus page: choose or upload a corpus (shared by every page) and see its statistics."""

#: Every session-state key of this page starts with this (widget keys included), so pages never clash.
PREFIX = "corpus_"
