"""The Compare page: tokenizers side by side on one text, their metrics, and the vocabulary-size sweep."""
