"""The counts file: ``#`` header lines saying how the pieces were counted, then ``piece<TAB>count``.

Any job can write one (a Spark or Hadoop step, a shell pipeline): the format is plain UTF-8 text.

- The first line is ``# tokenizer-playground counts 1`` (the format and its version).
- Other ``#`` lines before the first piece are ``# key: value`` facts; the ones read back are
  ``model``, ``normalizer`` and ``pre_tokenizer`` (JSON of the stages, as a saved tokenizer writes
  them), ``max_sentence_length``, ``last_piece`` and ``columns``. Unknown keys are kept and ignored.
- Then one piece per line: ``piece<TAB>count`` and, for Unigram, a third column ``line_final``
  (how many of the occurrences end their line; see :mod:`tokenizer_core.unigram.line_ends`), in
  the order the corpus first shows them. The order matters only where a trainer breaks ties by
  first occurrence (WordPiece's likelihood score, BPE's ``--tie-break first``); a job that cannot
  keep it may write any order, which changes only those ties.
  In a piece, backslash, tab, newline and carriage return are written ``\\\\``, ``\\t``, ``\\n``, ``\\r``,
  and a ``#`` that starts a piece ``\\#`` (a line starting with ``#`` is a header line).

>>> import io
>>> buf = io.StringIO()
>>> write_counts(buf, CountsFile({"a\\tb": 3, "▁x": 1}, facts={"model": "bpe"}))
>>> buf.getvalue().splitlines()[1:]
['# model: bpe', '# columns: piece count', '# pieces: 2', '# total: 4', 'a\\\\tb\\t3', '▁x\\t1']
>>> read_counts(io.StringIO(buf.getvalue())).counts
{'a\\tb': 3, '▁x': 1}
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Optional, Union

from tokenizer_core.errors import TokenizerError

MAGIC = "# tokenizer-playground counts"
VERSION = 1
_ESCAPES = {"\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r"}
_UNESCAPES = {"\\": "\\", "t": "\t", "n": "\n", "r": "\r", "#": "#"}


class CountsFormatError(TokenizerError):
    """A counts file that cannot be read: says which line and what is wrong with it."""


@dataclass
class CountsFile:
    """What a counts file holds: the counts, the line-final counts (Unigram; empty when not
    counted) and the header's facts (``model``, ``normalizer``, ``pre_tokenizer``, ...; strings).
    """

    counts: dict[str, int]
    line_final: dict[str, int] = field(default_factory=dict)
    facts: dict[str, str] = field(default_factory=dict)

    @property
    def has_line_final(self) -> bool:
        """Whether the file has the third column (a file without it says nothing of line ends)."""
        return self.facts.get("columns", "piece count").split() == ["piece", "count", "line_final"]


def escape(piece: str) -> str:
    r"""A piece as the file writes it.

    >>> escape("a\\b\tc\nd")
    'a\\\\b\\tc\\nd'
    """
    if any(c in piece for c in _ESCAPES):
        piece = "".join(_ESCAPES.get(c, c) for c in piece)
    return "\\" + piece if piece.startswith("#") else piece


def unescape(text: str, *, line: int = 0) -> str:
    r"""A piece as the file wrote it, read back; a lone or unknown escape is a CountsFormatError.

    >>> unescape(escape("x\\\ty")) == "x\\\ty"
    True
    """
    if "\\" not in text:
        return text
    out: list[str] = []
    i = 0
    while i < len(text):
        c = text[i]
        if c == "\\":
            nxt = text[i + 1] if i + 1 < len(text) else ""
            if nxt not in _UNESCAPES:
                raise CountsFormatError(f"line {line}: unknown escape '\\{nxt}' in a piece (use \\\\, \\t, \\n, \\r or \\#)")
            out.append(_UNESCAPES[nxt])
            i += 2
        else:
            out.append(c)
            i += 1
    return "".join(out)


def write_counts(out: Union[IO[str], str, Path], data: CountsFile) -> None:
    """Write ``data`` (to a text stream, or a path: written to a temporary file, then renamed in place)."""
    if not isinstance(out, (str, Path)):
        _write(out, data)
        return
    path = Path(out)
    tmp = path.with_name(path.name + ".partial")
    with tmp.open("w", encoding="utf-8", newline="\n") as fh:
        _write(fh, data)
    tmp.replace(path)


def _write(fh: IO[str], data: CountsFile) -> None:
    unigram = bool(data.line_final) or data.has_line_final
    facts = {k: v for k, v in data.facts.items() if k not in ("columns", "pieces", "total")}
    facts["columns"] = "piece count line_final" if unigram else "piece count"
    facts["pieces"] = str(len(data.counts))
    facts["total"] = str(sum(data.counts.values()))
    fh.write(f"{MAGIC} {VERSION}\n")
    for key, value in facts.items():
        if "\n" in value or "\r" in value:
            raise TokenizerError(f"header fact {key!r} spans lines; write it on one line")
        fh.write(f"# {key}: {value}\n")
    final = data.line_final
    for piece, count in data.counts.items():
        if unigram:
            fh.write(f"{escape(piece)}\t{count}\t{final.get(piece, 0)}\n")
        else:
            fh.write(f"{escape(piece)}\t{count}\n")


def read_counts(source: Union[IO[str], str, Path], *, max_pieces: Optional[int] = None) -> CountsFile:
    """Read a counts file (a path or an open text stream); a malformed one is a CountsFormatError that
    names the line. More than ``max_pieces`` distinct pieces is refused as soon as it is seen.
    """
    if isinstance(source, (str, Path)):
        path = Path(source)
        try:
            with path.open(encoding="utf-8", newline="\n") as fh:
                return read_counts(fh, max_pieces=max_pieces)
        except FileNotFoundError:
            raise TokenizerError(f"{path}: no such counts file") from None
        except UnicodeDecodeError as err:
            raise CountsFormatError(f"{path.name}: not UTF-8 text (byte {err.start}); a counts file is "
                                    "UTF-8 text") from None
    return _read(iter(source), max_pieces=max_pieces)


def _read(lines: Iterator[str], *, max_pieces: Optional[int]) -> CountsFile:
    first = next(lines, "")
    if not first.startswith(MAGIC):
        raise CountsFormatError(f"line 1: a counts file starts with '{MAGIC} {VERSION}'; this one starts "
                                f"with {first[:40].rstrip()!r}")
    version = first[len(MAGIC):].strip()
    if version != str(VERSION):
        raise CountsFormatError(f"line 1: counts file version {version or '(none)'} is not one this "
                                f"version reads ({VERSION})")
    data = CountsFile({})
    number = 1
    header = True
    counts, final = data.counts, data.line_final
    for number, line in enumerate(lines, start=2):
        line = line[:-1] if line.endswith("\n") else line
        # A file saved with Windows line ends: a piece's own carriage return is written "\r".
        line = line[:-1] if line.endswith("\r") else line
        if header and line.startswith("#"):
            key, sep, value = line[1:].partition(":")
            if sep:
                data.facts[key.strip()] = value.strip()
            continue
        if header:
            header = False
            columns = data.facts.get("columns", "piece count").split()
            if columns not in (["piece", "count"], ["piece", "count", "line_final"]):
                raise CountsFormatError(f"columns {' '.join(columns)!r} are not 'piece count' or "
                                        "'piece count line_final'")
            width = len(columns)
        if not line:
            continue
        cells = line.split("\t")
        if len(cells) != width:
            raise CountsFormatError(f"line {number}: expected {width} tab-separated columns, found {len(cells)}")
        piece = unescape(cells[0], line=number)
        if not piece:
            raise CountsFormatError(f"line {number}: an empty piece")
        count = _count(cells[1], number)
        if piece in counts:
            counts[piece] += count  # a job that wrote a piece twice: its counts add up
        else:
            counts[piece] = count
            if max_pieces is not None and len(counts) > max_pieces:
                raise TokenizerError(f"the counts file has more than {max_pieces:,} distinct pieces, more than "
                                     f"training takes (its memory grows with them); count with a "
                                     f"--min-count or use a smaller corpus")
        if width == 3:
            extra = _count(cells[2], number, least=0)
            if extra > counts[piece]:
                raise CountsFormatError(f"line {number}: line_final {extra} is more than the count")
            if extra:
                final[piece] = final.get(piece, 0) + extra
    if not counts:
        raise CountsFormatError(f"no pieces after the header (line {number}); the file has nothing to train on")
    return data


def _count(cell: str, number: int, *, least: int = 1) -> int:
    if not cell.isascii() or not cell.isdigit():
        raise CountsFormatError(f"line {number}: count {cell[:20]!r} is not a whole number")
    value = int(cell)
    if value < least:
        raise CountsFormatError(f"line {number}: count {value} must be at least {least}")
    return value
