"""Importers of tokenizer files made elsewhere, looked up by format name.

One explicit table: the CLI's ``import --format NAME`` and the app's upload box read it,
so a new format is one line here and one function in its own module.

>>> importer_names()
['bert-vocab', 'bert-vocab-cased', 'gpt2', 'hf', 'own', 'sentencepiece', 'tekken', 'tiktoken']
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Union

from tokenizer_core.errors import FormatError, TokenizerError
from tokenizer_core.gc_pause import paused_gc
from tokenizer_core.io import bpe_files, hf_json, sentencepiece, tekken, vocab_txt
from tokenizer_core.pipeline import Tokenizer

Importer = Callable[[str], Tokenizer]

IMPORTERS: dict[str, Importer] = {
    "own": Tokenizer.load,
    "hf": hf_json.load_hf_file,
    "gpt2": bpe_files.import_gpt2,
    "tiktoken": bpe_files.import_tiktoken,
    "tekken": tekken.import_tekken,
    "sentencepiece": sentencepiece.import_sentencepiece_model,
    "bert-vocab": vocab_txt.import_bert_vocab,
    "bert-vocab-cased": vocab_txt.import_bert_vocab_cased,
}


def importer_names() -> list[str]:
    """Format names that :func:`import_tokenizer` accepts."""
    return sorted(IMPORTERS)


def import_tokenizer(fmt: str, path: Union[str, Path]) -> Tokenizer:
    """Read a tokenizer stored in format ``fmt`` at ``path``."""
    if fmt not in IMPORTERS:
        raise TokenizerError(f"unknown format {fmt!r}; choose one of: {', '.join(importer_names())}")
    if not Path(path).exists():
        raise FormatError(f"{path} does not exist")
    # A 33 MB tokenizer.json is two million small containers, none in a cycle: without the pause
    # the collector walks them over and over (0.5 s of Gemma 3's load; the app's server never pauses).
    with paused_gc():
        return IMPORTERS[fmt](str(path))
