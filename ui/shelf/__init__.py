"""The shelf: every tokenizer of the session (trained here, imported, or an offline reference),
shared by every page."""
