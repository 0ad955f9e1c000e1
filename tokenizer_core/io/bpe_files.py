"""Importers for pretrained BPE files: GPT-2 (``encoder.json`` + ``vocab.bpe``) and tiktoken ranks.

Both become our own :class:`~tokenizer_core.bpe.model.BPE` inside a byte-level
:class:`~tokenizer_core.pipeline.Tokenizer`:

* GPT-2: the vocabulary is ``encoder.json`` and the merges are the lines of
  ``vocab.bpe`` in order (rank = line number); pieces come from the GPT-2 regex.
* tiktoken (``*.tiktoken``, or gzipped: one ``base64(token bytes) rank`` per line): there is no
  merge list; a pair may merge when its concatenation is a token, the lower token
  rank first (``MergeRanks.TOKENS``), and a piece that is a token as a whole is
  taken directly, as tiktoken does. A ranks file known by its hash (o200k_base, Llama 3,
  Qwen: :mod:`~tokenizer_core.io.encodings`) gets its model's regex and special tokens;
  any other file the cl100k regex and the cl100k special tokens that fit.

Registered as ``import --format gpt2`` and ``import --format tiktoken``.

>>> from tokenizer_core.io.importers import importer_names
>>> {"gpt2", "tiktoken"} <= set(importer_names())
True
"""

from __future__ import annotations

import base64
import binascii
import gzip
import hashlib
import json
import zlib
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping, Optional, Union

from tokenizer_core.errors import FormatError
from tokenizer_core.text.pre_tokenizers import CL100K_PORTABLE_PATTERN

if TYPE_CHECKING:
    from tokenizer_core.pipeline import Tokenizer

#: cl100k_base's special tokens and ids (as tiktoken defines them).
CL100K_SPECIAL_TOKENS: dict[str, int] = {
    "<|endoftext|>": 100257,
    "<|fim_prefix|>": 100258,
    "<|fim_middle|>": 100259,
    "<|fim_suffix|>": 100260,
    "<|endofprompt|>": 100276,
}
GPT2_END_OF_TEXT = "<|endoftext|>"
# The portable spelling of cl100k's pattern lives with the pre-tokenizers.



def _read_text(path: Path, what: str) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except OSError as err:
        raise FormatError(f"cannot read the {what} {path}: {err.strerror or err}") from err
    except UnicodeDecodeError as err:
        raise FormatError(f"the {what} {path} is not UTF-8 text") from err


def read_gpt2_files(encoder_json: Union[str, Path], vocab_bpe: Union[str, Path]) -> tuple[dict[str, int], list[tuple[str, str]]]:
    """The vocabulary and ranked merges stored in GPT-2's two files."""
    enc_path, bpe_path = Path(encoder_json), Path(vocab_bpe)
    try:
        vocab = json.loads(_read_text(enc_path, "GPT-2 encoder"))
    except json.JSONDecodeError as err:
        raise FormatError(f"{enc_path} is not valid JSON: {err.msg} at line {err.lineno}") from err
    except RecursionError:
        raise FormatError(f"{enc_path} nests JSON arrays or objects too deeply to be GPT-2's encoder") from None
    if not isinstance(vocab, dict) or not all(isinstance(v, int) for v in vocab.values()):
        raise FormatError(f"{enc_path} must be a JSON object mapping tokens to integer ids")
    merges: list[tuple[str, str]] = []
    for n, line in enumerate(_read_text(bpe_path, "GPT-2 merges file").split("\n"), 1):
        if not line or (n == 1 and line.startswith("#version")):
            continue
        parts = line.split(" ")
        if len(parts) != 2 or not parts[0] or not parts[1]:
            raise FormatError(f"{bpe_path}, line {n}: expected two tokens separated by one space, got {line[:60]!r}")
        merges.append((parts[0], parts[1]))
    return vocab, merges


def gpt2_tokenizer(vocab: Mapping[str, int], merges: list[tuple[str, str]]) -> "Tokenizer":
    """A GPT-2 style tokenizer (GPT-2 regex, byte-level BPE, ``<|endoftext|>``) from vocab and merges."""
    from tokenizer_core.bpe.model import BPE
    from tokenizer_core.errors import TokenizerError
    from tokenizer_core.pipeline import Tokenizer
    from tokenizer_core.text.decoders import ByteLevelDecoder
    from tokenizer_core.text.pre_tokenizers import ByteLevel

    try:
        model = BPE(vocab, merges)
    except TokenizerError as err:
        raise FormatError(f"inconsistent GPT-2 files: {err}") from err
    specials = [GPT2_END_OF_TEXT] if GPT2_END_OF_TEXT in vocab else []
    return Tokenizer(
        model,
        pre_tokenizer=ByteLevel(add_prefix_space=False),
        decoder=ByteLevelDecoder(),
        special_tokens=specials,
        metadata={"source": "gpt2 files"},
    )


def _gpt2_paths(path: Union[str, Path]) -> tuple[Path, Path]:
    p = Path(path)
    if p.is_dir():
        enc, bpe = p / "encoder.json", p / "vocab.bpe"
    elif p.suffix == ".bpe":
        enc, bpe = p.with_name("encoder.json"), p
    else:
        enc, bpe = p, p.with_name("vocab.bpe")
    for f in (enc, bpe):
        if not f.is_file():
            raise FormatError(f"GPT-2 import needs encoder.json and vocab.bpe side by side; {f} is missing")
    return enc, bpe


def import_gpt2(path: str) -> "Tokenizer":
    """Import GPT-2 files: a directory holding ``encoder.json`` and ``vocab.bpe``, or either file."""
    enc, bpe = _gpt2_paths(path)
    vocab, merges = read_gpt2_files(enc, bpe)
    tok = gpt2_tokenizer(vocab, merges)
    tok.metadata["source"] = str(Path(path))
    return tok


def _tiktoken_bytes(p: Path) -> bytes:
    try:
        data = p.read_bytes()
        if data[:2] == b"\x1f\x8b":  # gzip, as some packages ship them (o200k_base.tiktoken.gz)
            data = gzip.decompress(data)
    except OSError as err:
        raise FormatError(f"cannot read {p}: {getattr(err, 'strerror', None) or err}") from err
    except (EOFError, zlib.error) as err:
        raise FormatError(f"{p} is a damaged gzip file: {err}") from err
    return data


def _parse_ranks(data: bytes, p: Path) -> dict[bytes, int]:
    ranks: dict[bytes, int] = {}
    for n, line in enumerate(data.splitlines(), 1):
        if not line:
            continue
        parts = line.split()
        if len(parts) != 2:
            raise FormatError(f"{p}, line {n}: expected 'base64-token rank'")
        try:
            ranks[base64.b64decode(parts[0], validate=True)] = int(parts[1])
        except (binascii.Error, ValueError) as err:
            raise FormatError(f"{p}, line {n}: {err}") from err
    if not ranks:
        raise FormatError(f"{p} holds no tokens")
    return ranks


def read_tiktoken_ranks(path: Union[str, Path]) -> dict[bytes, int]:
    """Token bytes -> rank from a ``.tiktoken`` file (plain or gzipped)."""
    p = Path(path)
    return _parse_ranks(_tiktoken_bytes(p), p)


def tiktoken_tokenizer(
    ranks: Mapping[bytes, int],
    *,
    pattern: Optional[str] = None,
    special_tokens: Optional[Mapping[str, int]] = None,
    normalizer: Any = None,
) -> "Tokenizer":
    """A tokenizer that encodes as tiktoken does with these ranks, split pattern and special tokens.

    ``normalizer`` runs before the split (Qwen's tokenizers apply NFC to the text first)."""
    from tokenizer_core.bpe.model import BPE
    from tokenizer_core.bpe.options import BpeModelOptions, MergeRanks
    from tokenizer_core.errors import TokenizerError
    from tokenizer_core.pipeline import Tokenizer
    from tokenizer_core.text.decoders import ByteLevelDecoder
    from tokenizer_core.text.pre_tokenizers import ByteLevel, bytes_to_symbols

    vocab = {bytes_to_symbols(tok): rank for tok, rank in ranks.items()}
    specials = dict(CL100K_SPECIAL_TOKENS if special_tokens is None else special_tokens)
    used = set(vocab.values())
    for tok, tid in specials.items():
        if tid in used or tok in vocab:
            raise FormatError(f"special token {tok!r} (id {tid}) clashes with the ranks file")
        vocab[tok] = tid
    try:
        model = BPE(vocab, options=BpeModelOptions(merge_ranks=MergeRanks.TOKENS, ignore_merges=True))
    except TokenizerError as err:
        raise FormatError(f"invalid tiktoken ranks: {err}") from err
    return Tokenizer(
        model,
        normalizer=normalizer,
        pre_tokenizer=ByteLevel(add_prefix_space=False, pattern=pattern or CL100K_PORTABLE_PATTERN),
        decoder=ByteLevelDecoder(),
        special_tokens=list(specials),
        metadata={"source": "tiktoken ranks"},
    )


def import_tiktoken(path: str) -> "Tokenizer":
    """Import a ``.tiktoken`` ranks file (plain or gzipped).

    A file known by its SHA-256 (o200k_base, Llama 3, Qwen, Qwen3.5: see
    :data:`~tokenizer_core.io.encodings.KNOWN_RANK_FILES`) gets its model's split pattern and
    special tokens; any other gets cl100k's pattern and those cl100k special tokens whose ids
    the file leaves free."""
    from tokenizer_core.io.encodings import ENCODINGS, KNOWN_RANK_FILES
    from tokenizer_core.text.normalizers import NFC

    p = Path(path)
    data = _tiktoken_bytes(p)
    ranks = _parse_ranks(data, p)
    known = KNOWN_RANK_FILES.get(hashlib.sha256(data).hexdigest())
    if known in ENCODINGS:
        spec = ENCODINGS[known]
        tok = tiktoken_tokenizer(ranks, pattern=spec.pattern, special_tokens=spec.special_tokens,
                                 normalizer=NFC() if spec.nfc else None)
    else:
        used, tokens = set(ranks.values()), set(ranks)
        specials = {t: i for t, i in CL100K_SPECIAL_TOKENS.items() if i not in used and t.encode() not in tokens}
        tok = tiktoken_tokenizer(ranks, special_tokens=specials)
    tok.metadata["source"] = str(p)
    if known:
        tok.metadata["encoding"] = known
    return tok
