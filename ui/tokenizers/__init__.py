"""The Tokenizers page: the shelf, imports and downloads, and a close look at one tokenizer."""

#: Every session-state key of this page starts with this (widget keys included), so pages never clash.
PREFIX = "tokenizers_"
