"""Importers for WordPiece vocabularies: a BERT ``vocab.txt`` becomes a full BERT tokenizer.

``bert-vocab`` reads an uncased vocabulary (lowercase and strip accents, as
``bert-base-uncased``); pass ``lowercase=False`` for cased ones, or use the
``bert-vocab-cased`` format name.

>>> from tokenizer_core.formats import importer_names
>>> {"bert-vocab", "bert-vocab-cased"} <= set(importer_names())
True
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .formats import register_importer

if TYPE_CHECKING:
    from .pipeline import Tokenizer


@register_importer("bert-vocab")
def import_bert_vocab(path: str, *, lowercase: bool = True) -> "Tokenizer":
    """A BERT tokenizer from a ``vocab.txt`` (one token per line, ids are line numbers)."""
    from .bert import load_bert_vocab

    return load_bert_vocab(path, lowercase=lowercase)


@register_importer("bert-vocab-cased")
def import_bert_vocab_cased(path: str) -> "Tokenizer":
    """A cased BERT tokenizer (no lowercasing, accents kept) from a ``vocab.txt``."""
    return import_bert_vocab(path, lowercase=False)
