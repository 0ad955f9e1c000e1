"""The workspace store: corpora and shelf tokenizers that outlive a session (see backend.py)."""
