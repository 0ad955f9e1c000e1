"""The Batch page: padding, truncation, attention masks, waste and exports of a batch."""

#: Every session-state key of this page starts with this (widget keys included), so pages never clash.
PREFIX = "batch_"
