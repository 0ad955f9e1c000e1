"""The BPE step-through page (with a WordPiece mode): settings, cached training, stepping, views."""

#: Every session-state key of this page starts with this (widget keys included), so pages never clash.
PREFIX = "merges_"
