"""Importers for WordPiece vocabularies: a BERT ``vocab.txt`` becomes a full BERT tokenizer.

``bert-vocab`` reads an uncased vocabulary (lowercase and strip accents, as
``bert-base-uncased``); pass ``lowercase=False`` for cased ones, or use the
``bert-vocab-cased`` format name.

>>> tok = bert_tokenizer({"[UNK]": 0, "[CLS]": 1, "[SEP]": 2, "hug": 3, "##s": 4})
>>> tok.encode("Hugs").tokens
['[CLS]', 'hug', '##s', '[SEP]']
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, Union

from tokenizer_core.pipeline import Tokenizer
from tokenizer_core.wordpiece.bert import bert_parts
from tokenizer_core.wordpiece.model import read_vocab_txt


def bert_tokenizer(vocab: Mapping[str, int], **options: Any) -> Tokenizer:
    """A BERT-style :class:`Tokenizer` over a WordPiece vocabulary (options as :func:`bert_parts`)."""
    return Tokenizer.from_parts(bert_parts(vocab, **options))


def load_bert_vocab(path: Union[str, Path], *, lowercase: bool = True) -> Tokenizer:
    """A BERT tokenizer from a ``vocab.txt`` (one token per line; uncased models: ``lowercase=True``).

    The template is added when the file has ``[CLS]`` and ``[SEP]``.
    """
    vocab = read_vocab_txt(path)
    return bert_tokenizer(vocab, lowercase=lowercase, add_template="[CLS]" in vocab and "[SEP]" in vocab)


def import_bert_vocab(path: str, *, lowercase: bool = True) -> Tokenizer:
    """A BERT tokenizer from a ``vocab.txt`` (one token per line, ids are line numbers)."""
    return load_bert_vocab(path, lowercase=lowercase)


def import_bert_vocab_cased(path: str) -> Tokenizer:
    """A cased BERT tokenizer (no lowercasing, accents kept) from a ``vocab.txt``."""
    return import_bert_vocab(path, lowercase=False)
