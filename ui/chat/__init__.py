"""The Chat templates page: one conversation as each picked model reads it, turn by turn."""

#: Every session-state key of this page starts with this (widget keys included), so pages never clash.
PREFIX = "chat_"
