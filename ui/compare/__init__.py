"""The Compare page: tokenizers side by side on one text, their metrics, and the vocabulary-size sweep."""

#: Every session-state key of this page starts with this (widget keys included), so pages never clash.
PREFIX = "compare_"
