"""The Tokenizers page: the shelf, imports and downloads, and a close look at one tokenizer."""
