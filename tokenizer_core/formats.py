"""Importers of tokenizer files made elsewhere (GPT-2 files, tiktoken ranks, BERT vocab.txt,
SentencePiece models, our own JSON), looked up by format name.

Each algorithm module registers the importers it understands, so the CLI's
``import --format NAME`` and the app reach them without knowing the details.

>>> "own" in importer_names()
True
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Union

from .errors import FormatError, TokenizerError

if TYPE_CHECKING:
    from .pipeline import Tokenizer

Importer = Callable[[str], "Tokenizer"]
_IMPORTERS: dict[str, Importer] = {}
# Modules that register importers when imported; missing ones are simply not offered.
_PROVIDERS = ("formats_bpe", "formats_wordpiece", "formats_sentencepiece", "hf_import")


def register_importer(name: str) -> Callable[[Importer], Importer]:
    """Decorator: make ``fn(path) -> Tokenizer`` available as ``import --format name``."""

    def deco(fn: Importer) -> Importer:
        _IMPORTERS[name] = fn
        return fn

    return deco


def _load_providers() -> None:
    for mod in _PROVIDERS:
        try:
            importlib.import_module(f"{__package__}.{mod}")
        except ModuleNotFoundError as err:
            if err.name != f"{__package__}.{mod}":
                raise


def importer_names() -> list[str]:
    """Format names that :func:`import_tokenizer` accepts."""
    _load_providers()
    return sorted(_IMPORTERS)


def import_tokenizer(fmt: str, path: Union[str, Path]) -> "Tokenizer":
    """Read a tokenizer stored in format ``fmt`` at ``path``."""
    names = importer_names()
    if fmt not in _IMPORTERS:
        raise TokenizerError(f"unknown format {fmt!r}; choose one of: {', '.join(names)}")
    if not Path(path).exists():
        raise FormatError(f"{path} does not exist")
    return _IMPORTERS[fmt](str(path))


@register_importer("own")
def _import_own(path: str) -> "Tokenizer":
    from .pipeline import Tokenizer

    return Tokenizer.load(path)
