"""Hostile files, made on the fly, shared by the core/CLI tests and the browser battery.

Each entry is ``(file name, bytes, regex the refusal message must match)``. Corpus files are
what a user might drop on the Corpus page; tokenizer files what they might drop on the
Tokenizers page. The zip bomb is built once per process (it deflates 210 MB of one letter).
"""

from __future__ import annotations

import functools
import gzip
import io
import json
import zipfile

from tokenizer_core.corpus.sources import DEFAULT_MAX_BYTES

Hostile = tuple[str, bytes, str]

DEEP_JSON = b"[" * 100_000 + b"]" * 100_000


@functools.lru_cache(maxsize=1)
def zip_bomb() -> bytes:
    """A small .zip whose one text member unpacks to 10 MB more than the upload limit."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as archive:
        with archive.open("bomb.txt", "w", force_zip64=True) as member:
            chunk = b"a" * 10_000_000
            for _ in range(DEFAULT_MAX_BYTES // len(chunk) + 1):
                member.write(chunk)
    return buf.getvalue()


def gzip_bomb() -> bytes:
    return gzip.compress(b"a" * 20_000_000, compresslevel=1)


def corpus_files() -> list[Hostile]:
    """Corpus uploads that must be refused, each with the gist of its message."""
    return [
        ("photo.txt", b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4, "looks like a PNG image"),
        ("random.txt", bytes(range(1, 256)) * 8, "not valid UTF-8"),
        ("latin1.txt", "café crème brûlée\n".encode("latin-1"), r"not valid UTF-8.*byte 0xE9 at byte offset 3"),
        ("utf16.txt", "hug pug bun hugs pugs\n".encode("utf-16-le"), "UTF-16 text without a byte-order mark"),
        ("fffe.txt", b"\xff\xfe" + "hug pug bun hugs\n".encode(), r"starts with the bytes 0xFF 0xFE.*rest is UTF-8"),
        ("empty.txt", b"", "is empty"),
        ("blank.txt", b" \n\t\r\n   \n", "is empty"),
        ("surrogate.txt", b"hug \xed\xa0\x80 pug\n", r"not valid UTF-8.*byte 0xED"),
        ("nul.txt", b"hug\x00pug bun\n", "NUL byte at byte offset 3"),
        ("bomb.zip", zip_bomb(), r"bomb.zip \(unpacked\) is 210.0 MB, over the limit of 200.0 MB"),
        ("notes.txt", gzip_bomb(), "looks like a gzip archive"),
        ("deep.jsonl", DEEP_JSON + b"\n", "nests JSON arrays or objects too deeply"),
    ]


def corpus_files_accepted() -> list[tuple[str, bytes, str]]:
    """Odd but valid corpus uploads: ``(name, bytes, a word the corpus then holds)``."""
    return [
        ("bom16.txt", "zwieback hug pug\n".encode("utf-16"), "zwieback"),
        ("longword.txt", b"q" * 100_000 + b" hug pug\n", "q" * 50),
    ]


def _bpe_json(vocab: object, merges: object) -> bytes:
    return json.dumps({"model": {"type": "BPE", "vocab": vocab, "merges": merges}}).encode()


def _unigram_json(vocab: object, unk_id: object = 0) -> bytes:
    return json.dumps({"model": {"type": "Unigram", "vocab": vocab, "unk_id": unk_id}}).encode()


def _model_piece(text: bytes, score: bytes = b"\x00\x00\x80\xbf") -> bytes:
    body = b"\x0a" + bytes([len(text)]) + text + b"\x15" + score
    return b"\x0a" + bytes([len(body)]) + body


GOOD_VOCAB = {"[UNK]": 0, "h": 1, "u": 2, "g": 3, "hu": 4, "hug": 5}
GOOD_MERGES = [["h", "u"], ["hu", "g"]]


def tokenizer_files() -> list[Hostile]:
    """Tokenizer uploads that must be refused, each with the gist of its message."""
    good = _bpe_json(GOOD_VOCAB, GOOD_MERGES)
    millions = {"[UNK]": 0, "a": 1, "b": 2}
    return [
        ("tokenizer.json", good[: len(good) // 2], "not valid JSON"),
        ("wrong.json", _bpe_json([1, 2, 3], []), "needs a \"vocab\" object"),
        ("negative.json", _bpe_json({**GOOD_VOCAB, "zz": -5}, GOOD_MERGES), "whole numbers (>=|≥) 0, got -5"),
        ("duplicate.json", _bpe_json({**GOOD_VOCAB, "zz": 3}, GOOD_MERGES), "share id 3"),
        ("huge_id.json", _bpe_json({**GOOD_VOCAB, "zz": 10**12}, GOOD_MERGES),
         "token id 1000000000000 of 'zz' is past the largest id"),
        ("unknown.json", _bpe_json(GOOD_VOCAB, GOOD_MERGES + [["qq", "ww"]]), "'qq', which is not in the vocabulary"),
        ("millions.json", _bpe_json(millions, [["a", "b"]] * 1_000_000), "makes 'ab', which is not in the vocabulary"),
        ("deep.json", DEEP_JSON, "nests arrays or objects too deeply"),
        ("scores.json", _unigram_json([["a", "x"], ["b", -1.0]]), "scores must be finite numbers"),
        ("truncated.model", _model_piece(b"hug")[:-3], "is not a SentencePiece .model file"),
        ("twice.model", _model_piece(b"a") + _model_piece(b"a"), "piece 'a' appears twice"),
        ("photo.model", b"\x89PNG\r\n\x1a\n" + bytes(range(256)), "is not a SentencePiece .model file"),
        ("empty.json", b"", "is empty"),
    ]
