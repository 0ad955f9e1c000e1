"""The Corpus page: choose or upload a corpus (shared by every page) and see its statistics."""
