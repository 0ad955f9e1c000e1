"""The Lessons page: guided, replayable teaching sessions over the engines (tokenizer_core.lessons)."""

#: Every session-state key of this page starts with this (widget keys included), so pages never clash.
PREFIX = "lessons_"
