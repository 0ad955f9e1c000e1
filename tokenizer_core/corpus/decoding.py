"""Decoding file bytes to text: UTF-8/UTF-16 byte-order marks, binary sniffing, invalid bytes.

>>> decode_bytes(codecs.BOM_UTF8 + "hé".encode())
('hé', 0)
"""

from __future__ import annotations

import codecs
import threading
from typing import Literal

from tokenizer_core.errors import CorpusError

Errors = Literal["strict", "replace"]

# File signatures of common binary formats, so the error can say what the file is.
BINARY_SIGNATURES: tuple[tuple[bytes, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF87a", "a GIF image"),
    (b"GIF89a", "a GIF image"),
    (b"%PDF-", "a PDF document"),
    (b"PK\x03\x04", "a ZIP archive (or .docx/.xlsx/.odt); name it .zip if it holds text files"),
    (b"\x1f\x8b", "a gzip archive"),
    (b"\xfd7zXZ\x00", "an xz archive"),
    (b"7z\xbc\xaf\x27\x1c", "a 7-Zip archive"),
    (b"\x7fELF", "an executable (ELF)"),
    (b"SQLite format 3\x00", "an SQLite database"),
    (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "an old Microsoft Office document"),
)


def check_errors(errors: str) -> None:
    if errors not in ("strict", "replace"):
        raise CorpusError(f'errors must be "strict" or "replace", not {errors!r}.')


def _line_of(data: bytes, offset: int) -> int:
    return data.count(b"\n", 0, offset) + 1


def _looks_like_utf16_without_bom(data: bytes) -> bool:
    head = data[:2048]
    if len(head) < 16:  # too little to tell; a stray NUL in a tiny file is just a NUL
        return False
    even, odd = head[0::2], head[1::2]
    # ASCII text in UTF-16 has a NUL in every other byte, and (almost) none in the others.
    nul_even, nul_odd = even.count(0) / len(even), odd.count(0) / len(odd)
    return (nul_even > 0.4 and nul_odd < 0.1) or (nul_odd > 0.4 and nul_even < 0.1)


def _utf8_behind_utf16_bom(data: bytes) -> bool:
    """Whether bytes starting with a UTF-16 byte-order mark are really UTF-8 text behind two stray bytes.

    Real UTF-16 text nearly always holds NUL bytes (the other half of every ASCII character) or
    fails to decode as UTF-16; UTF-8 after ``FF FE`` has no NUL and decodes as UTF-8. Tiny files
    that decode both ways are read as UTF-8 only when that reading has ASCII letters and whitespace
    (which, in UTF-16, would have come with NUL bytes).
    """
    payload = data[2:]
    if not payload or b"\x00" in payload:
        return False
    try:
        as_utf8 = payload.decode("utf-8")
    except UnicodeDecodeError:
        return False
    try:
        payload.decode("utf-16-le" if data.startswith(codecs.BOM_UTF16_LE) else "utf-16-be")
    except UnicodeDecodeError:
        return True
    return any(c in as_utf8 for c in " \n\t\r") and any(c.isascii() and c.isalnum() for c in as_utf8)


def _stray_bom(data: bytes, label: str, errors: Errors) -> tuple[str, int]:
    shown = " ".join(f"0x{b:02X}" for b in data[:2])
    if errors == "strict":
        raise CorpusError(
            f"{label} starts with the bytes {shown} (a UTF-16 byte-order mark), but the rest is UTF-8 "
            "text, not UTF-16. Remove those two bytes (re-save the file as UTF-8), or load it with "
            "invalid bytes replaced by U+FFFD."
        )
    text, replaced = _decode_payload(data[2:], 0, "utf-8", label, errors)
    return "\ufffd\ufffd" + text, replaced + 2


def refuse_binary(data: bytes, label: str) -> None:
    for signature, what in BINARY_SIGNATURES:
        if data.startswith(signature):
            raise CorpusError(f"{label} looks like {what}, not a text file. Choose a plain-text file.")
    nul = data.find(b"\x00")
    if nul >= 0:
        if _looks_like_utf16_without_bom(data):
            raise CorpusError(
                f"{label} looks like UTF-16 text without a byte-order mark. "
                "Re-save it as UTF-8 (or as UTF-16 with a byte-order mark)."
            )
        raise CorpusError(
            f"{label} contains a NUL byte at byte offset {nul}, so it looks like a binary file, "
            "not text. Choose a plain-text file (UTF-8)."
        )


class _ReplacementCounter(threading.local):
    count = 0


_REPLACED = _ReplacementCounter()
# The name of a process-wide codecs error handler; kept as it was when this code lived in
# loading.py, so that anything looking the handler up by name still finds it.
_COUNTING_HANDLER = "tokenizer_core.corpus.loading.count_replaced"


def _count_and_replace(err: UnicodeDecodeError) -> tuple[str, int]:
    _REPLACED.count += err.end - err.start
    return "\ufffd", err.end


codecs.register_error(_COUNTING_HANDLER, _count_and_replace)


def _decode_payload(data: bytes, bom: int, codec: str, label: str, errors: Errors) -> tuple[str, int]:
    """Decode ``data[bom:]``; return the text and how many bytes became U+FFFD."""
    payload = data[bom:]
    try:
        return payload.decode(codec), 0
    except UnicodeDecodeError as err:
        if errors == "strict":
            bad = bom + err.start
            shown = " ".join(f"0x{b:02X}" for b in data[bad : bom + err.end])
            encoding = "UTF-8" if codec == "utf-8" else "UTF-16"
            hint = " (it may be in another encoding, such as Windows-1252)" if codec == "utf-8" else ""
            raise CorpusError(
                f"{label} is not valid {encoding}{hint}: byte {shown} at byte offset {bad} "
                f"(line {_line_of(data, bad)}) cannot be decoded. Re-save the file as UTF-8, "
                "or load it with invalid bytes replaced by U+FFFD."
            ) from None
    if codec == "utf-8":
        # Fast path (C speed even for millions of bad bytes): every bad span becomes one
        # U+FFFD, and an encoded U+FFFD (EF BF BD) in the input always decodes as itself,
        # because UTF-8 resynchronises on a lead byte. So the byte counts balance:
        # len(payload) = good + 3 * genuine + replaced; len(text as UTF-8) = good + 3 * all U+FFFD.
        text = payload.decode("utf-8", "replace")
        genuine = payload.count(b"\xef\xbf\xbd")
        replaced = len(payload) - len(text.encode("utf-8")) + 3 * (text.count("\ufffd") - genuine)
        return text, replaced
    _REPLACED.count = 0
    text = payload.decode(codec, _COUNTING_HANDLER)
    return text, _REPLACED.count


def decode_bytes(data: bytes, *, label: str = "the input", errors: Errors = "strict") -> tuple[str, int]:
    """Decode file bytes to text; return ``(text, replaced_bytes)``.

    UTF-8 (optionally with BOM) and UTF-16 with a BOM are recognised; binary
    data is refused; with ``errors="strict"`` invalid bytes raise
    :class:`~tokenizer_core.errors.CorpusError` naming ``label`` and the offset.

    >>> decode_bytes(b"\\xef\\xbb\\xbfcaf\\xc3\\xa9")
    ('café', 0)
    >>> decode_bytes("hé".encode("utf-16"))
    ('hé', 0)
    >>> decode_bytes(b"a\\xff\\xfeb", errors="replace")
    ('a\ufffd\ufffdb', 2)
    """
    check_errors(errors)
    data = bytes(data)
    if data.startswith((codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE)):
        raise CorpusError(f"{label} is UTF-32 text, which is not supported. Re-save it as UTF-8.")
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)) and _utf8_behind_utf16_bom(data):
        text, replaced = _stray_bom(data, label, errors)
    elif data.startswith(codecs.BOM_UTF16_LE):
        text, replaced = _decode_payload(data, 2, "utf-16-le", label, errors)
    elif data.startswith(codecs.BOM_UTF16_BE):
        text, replaced = _decode_payload(data, 2, "utf-16-be", label, errors)
    else:
        refuse_binary(data, label)
        bom = 3 if data.startswith(codecs.BOM_UTF8) else 0
        text, replaced = _decode_payload(data, bom, "utf-8", label, errors)
    if "\x00" in text:
        raise CorpusError(f"{label} contains NUL characters, so it looks like a binary file, not text.")
    return text, replaced
