"""Split patterns compiled for the kernel's backtracking matcher: any tokenizer regex of the usual
kind (o200k, Llama 3, Qwen, Tekken, a tokenizer.json's ``Split``) runs in C, on every core.

The patterns tokenizers use are alternations of sequences of quantified atoms: character classes
(``\\p{L}``, ``[^\\s\\p{L}\\p{N}]``, ``\\s``), literal characters, case-insensitive groups
(``(?i:'s|'t)``), negative lookaheads (``(?!\\S)``) and possessive quantifiers (``\\s++``). This
module parses that subset, gives every distinct character class a bit, and asks the ``regex`` module
itself which code points each class matches (so the kernel reads classes exactly as the reference
does, whatever Unicode version it has); the table (two bytes per code point) is kept in the cache
folder. The program is a list of int32 words for a Perl-style backtracking machine (leftmost
alternative first), the same semantics as the ``regex`` module. A pattern outside the subset (or
one that can match the empty string) gets None: the ``regex`` module splits it, as before.

>>> prog = compile_program(r"\\p{L}+|\\s+(?!\\S)|\\s+")
>>> prog is not None and prog.classes
['\\\\p{L}', '\\\\s', '\\\\S']
>>> compile_program(r"a*") is None          # matches the empty string: the regex module keeps it
True
"""

from __future__ import annotations

import hashlib
import os
from array import array
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any, Optional, Union

import regex

from tokenizer_core.cache_paths import cache_dir
from tokenizer_core.text.regex_parse import (
    INF,
    Alt,
    Char,
    CharSet,
    Cls,
    End,
    Item,
    Look,
    Unsupported,
    everything_class,
    nullable_atom,
    parse,
)

# Opcodes (kernels/src/program.c reads the same numbers).
OP_MATCH, OP_CHAR, OP_CLASS, OP_SPLIT, OP_JMP, OP_POSS, OP_LOOK, OP_END, OP_SET, OP_FIRST = range(10)
MAX_CLASSES = 16
_TABLE_VERSION = 1


# ------------------------------------------------------------------------------------------- code
class _Emitter:
    def __init__(self) -> None:
        self.code: list[int] = []
        self.classes: dict[str, int] = {}

    def class_bit(self, key: str) -> int:
        if key not in self.classes:
            if len(self.classes) == MAX_CLASSES:
                raise Unsupported("more than 16 character classes")
            self.classes[key] = len(self.classes)
        return self.classes[key]

    def here(self) -> int:
        return len(self.code)

    def alt(self, alt: Alt) -> None:
        jumps: list[int] = []
        for k, seq in enumerate(alt.seqs):
            if k < len(alt.seqs) - 1:
                split = self.here()
                guard = self.first_bit(seq)
                if guard is None:
                    self.code += [OP_SPLIT, split + 3, 0]
                else:  # tried only where its first character can start it: no backtrack frame else
                    self.code += [OP_FIRST, guard, split + 4, 0]
                self.seq(seq)
                jumps.append(self.here())
                self.code += [OP_JMP, 0]
                self.code[split + (2 if guard is None else 3)] = self.here()  # the next alternative
            else:
                self.seq(seq)
        for j in jumps:
            self.code[j + 1] = self.here()

    def first_bit(self, seq: list[Item]) -> Optional[int]:
        """The class bit of the characters ``seq`` can start with, when every way through it reads one
        first (no look-ahead or ``$`` before, never empty); None: no guard (a class to spare too)."""
        keys = first_keys(seq)
        if keys is None:
            return None
        key = keys[0] if len(keys) == 1 else "(?:" + "|".join(keys) + ")"
        if key not in self.classes and len(self.classes) == MAX_CLASSES:
            return None
        return self.class_bit(key)

    def seq(self, seq: list[Item]) -> None:
        for item in seq:
            self.item(item)

    def single(self, atom: Union[Cls, Char]) -> tuple[int, int]:
        return (0, self.class_bit(atom.key)) if isinstance(atom, Cls) else (1, atom.cp)

    def once(self, atom: Union[Cls, Char, CharSet, Look, End, Alt]) -> None:
        if isinstance(atom, Cls):
            self.code += [OP_CLASS, self.class_bit(atom.key)]
        elif isinstance(atom, Char):
            self.code += [OP_CHAR, atom.cp]
        elif isinstance(atom, CharSet):
            self.code += [OP_SET, len(atom.cps), *atom.cps]
        elif isinstance(atom, End):
            self.code += [OP_END]
        elif isinstance(atom, Look):
            at = self.here()
            self.code += [OP_LOOK, int(atom.negative), 0]
            self.alt(atom.body)
            self.code += [OP_MATCH]
            self.code[at + 2] = self.here()  # where the main program goes on
        else:
            self.alt(atom)

    def item(self, item: Item) -> None:
        atom, lo, hi = item.atom, item.lo, item.hi
        if item.mode == "possessive":
            if not isinstance(atom, (Cls, Char)):
                raise Unsupported("a possessive group")
            kind, arg = self.single(atom)
            self.code += [OP_POSS, kind, arg, lo, hi]
            return
        if nullable_atom(atom) and (hi == INF or hi > 1):
            raise Unsupported("a repeated part that can match nothing")
        for _ in range(lo):
            self.once(atom)
        if hi == INF:
            loop = self.here()
            self.code += [OP_SPLIT, 0, 0]
            self.once(atom)
            self.code += [OP_JMP, loop]
            self._prefer(loop, loop + 3, self.here(), item.mode)
            return
        tails: list[int] = []
        for _ in range(hi - lo):
            split = self.here()
            self.code += [OP_SPLIT, 0, 0]
            tails.append(split)
            self.once(atom)
        end = self.here()
        for split in tails:
            self._prefer(split, split + 3, end, item.mode)

    def _prefer(self, split: int, body: int, out: int, mode: str) -> None:
        first, second = (body, out) if mode == "greedy" else (out, body)
        self.code[split + 1], self.code[split + 2] = first, second


def first_keys(seq: list[Item]) -> Optional[list[str]]:
    """Regexes of one character each, together matching every first character ``seq`` can read;
    None when a way through it reads none first (it can be empty, or asserts before reading).

    >>> print(*first_keys(parse(r"(?i:'s|'t)x").seqs[0]))
    \\U00000027
    >>> print(*first_keys(parse(r"[^\\r\\n\\p{L}]?\\p{L}+").seqs[0]))
    [^\\r\\n\\p{L}] \\p{L}
    >>> first_keys(parse(r"\\s*(?!\\S)").seqs[0]) is None
    True
    """
    # What follows the sequence is unknown here: a way through it that reads nothing says "unknown" too.
    follow = _first_of(seq, _Follow(unknown=True))
    if follow.unknown:
        return None
    keys: list[str] = []
    for atom in follow.atoms:
        if isinstance(atom, Cls):
            keys.append(atom.key)
        else:
            keys += [f"\\U{cp:08x}" for cp in ((atom.cp,) if isinstance(atom, Char) else atom.cps)]
    return list(dict.fromkeys(keys))


@dataclass(frozen=True)
class Program:
    """A compiled split pattern: the machine's words, and the classes (their bits in :meth:`table`)."""

    pattern: str
    code: bytes
    classes: list[str]

    def table(self) -> bytes:
        """Two bytes per code point (native order): bit k set when class k matches it."""
        return _table(tuple(self.classes))


@dataclass(frozen=True)
class _Follow:
    """What can come after a point of the pattern: the atoms that may be read first, whether the end
    (the program's MATCH) can be reached reading nothing, and whether an assertion may decide first."""

    atoms: tuple[Union[Cls, Char, CharSet], ...] = ()
    open: bool = False
    unknown: bool = False


_END = _Follow(open=True)  # the program's end: MATCH, which always succeeds


def _first_of(items: list[Item], after: _Follow) -> _Follow:
    atoms: list[Union[Cls, Char, CharSet]] = []
    for item in items:
        atom = item.atom
        if isinstance(atom, (Look, End)):
            return _Follow(tuple(atoms), unknown=True)
        if isinstance(atom, Alt):
            inner = [_first_of(seq, _END) for seq in atom.seqs]
            if any(f.unknown for f in inner):
                return _Follow(tuple(atoms), unknown=True)
            for f in inner:
                atoms += f.atoms
            if item.lo > 0 and not any(f.open for f in inner):
                return _Follow(tuple(atoms))
            continue
        atoms.append(atom)
        if item.lo > 0:
            return _Follow(tuple(atoms))
    return _Follow(tuple(atoms) + after.atoms, after.open, after.unknown)


def _possessive_where_exact(alt: Alt, after: _Follow, overlap: Any) -> Alt:
    """``alt`` with each greedy repeat of one character class (or character) made possessive where
    that cannot change a match: what follows it can always reach the end reading nothing, or must
    first read a character the repeat cannot take. Greedy tries the longest run first; in the first
    case that run succeeds, in the second every shorter run fails as the longest does, so no
    backtracking into the repeat ever finds another match (PCRE's auto-possessification)."""
    seqs = []
    for seq in alt.seqs:
        new = list(seq)
        for k, item in enumerate(seq):
            follow = _first_of(seq[k + 1:], after)
            atom = item.atom
            if isinstance(atom, Alt) and item.hi == 1:
                new[k] = replace(item, atom=_possessive_where_exact(atom, follow, overlap))
            elif (isinstance(atom, (Cls, Char)) and item.mode == "greedy" and item.hi != item.lo
                    and not follow.unknown
                    and (follow.open or not any(overlap(atom, other) for other in follow.atoms))):
                new[k] = replace(item, mode="possessive")
        seqs.append(new)
    return Alt(seqs)


def _overlaps(classes: dict[str, int], table: bytes) -> Any:
    """overlap(a, b): whether some character matches both atoms, read from the class table."""
    import numpy as np

    bits = np.frombuffer(table, dtype=np.uint16)

    def chars(atom: Union[Cls, Char, CharSet]) -> tuple[int, ...]:
        return (atom.cp,) if isinstance(atom, Char) else tuple(atom.cps)

    @lru_cache(maxsize=None)
    def both(a: int, b: int) -> bool:
        mask = (1 << a) | (1 << b)
        return bool(np.any((bits & mask) == mask))

    def overlap(a: Union[Cls, Char, CharSet], b: Union[Cls, Char, CharSet]) -> bool:
        if isinstance(a, Cls) and isinstance(b, Cls):
            return both(*sorted((classes[a.key], classes[b.key])))
        if isinstance(a, Cls) or isinstance(b, Cls):
            cls, other = (a, b) if isinstance(a, Cls) else (b, a)
            bit = classes[cls.key]
            return any(cp < len(bits) and (int(bits[cp]) >> bit) & 1 for cp in chars(other))
        return bool(set(chars(a)) & set(chars(b)))

    return overlap


def compile_program(pattern: str, *, multiline: bool = False) -> Optional[Program]:
    """The program of ``pattern``, or None when the kernel cannot run it (the regex module splits).
    ``multiline``: the pattern is read with MULTILINE (a ``Split``'s, as Oniguruma reads it), where
    ``$`` means something else: a pattern with ``$`` is then left to the regex module."""
    try:
        regex.compile(pattern)
        ast = parse(pattern)
        if multiline and _has_end(ast):
            raise Unsupported("$ under MULTILINE")
        if nullable_atom(ast):
            raise Unsupported("the pattern can match nothing")
        em = _Emitter()
        em.alt(ast)
        em.code.append(OP_MATCH)
        classes = sorted(em.classes, key=em.classes.get)
        # Again, with the repeats that need no backtracking made possessive (the classes' table tells
        # which overlap); the same classes in the same order.
        tight = _Emitter()
        tight.classes = dict(em.classes)
        tight.alt(_possessive_where_exact(ast, _END, _overlaps(em.classes, _table(tuple(classes)))))
        tight.code.append(OP_MATCH)
        if tight.classes != em.classes:  # never expected: keep the plain program
            tight = em
    except (Unsupported, regex.error, RecursionError):
        return None
    return Program(pattern, array("i", tight.code).tobytes(), classes)


def _has_end(alt: Alt) -> bool:
    for seq in alt.seqs:
        for item in seq:
            atom = item.atom
            if isinstance(atom, End) or (isinstance(atom, Alt) and _has_end(atom)) or (
                    isinstance(atom, Look) and _has_end(atom.body)):
                return True
    return False


@lru_cache(maxsize=8)
def _table(classes: tuple[str, ...]) -> bytes:
    digest = hashlib.sha256("\0".join(classes).encode("utf-8", "surrogatepass")).hexdigest()[:24]
    path = cache_dir() / f"regex-classes-v{_TABLE_VERSION}-regex-{regex.__version__}-{digest}.bin"
    try:
        stored = path.read_bytes()
        data, check = stored[:0x220000], stored[0x220000:]
        if len(data) == 0x220000 and check == hashlib.sha256(data).digest():
            return data
    except OSError:
        pass
    data = _build_table(classes)
    try:  # best effort, as the kernel's own class table
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        tmp.write_bytes(data + hashlib.sha256(data).digest())
        os.replace(tmp, path)
    except OSError:
        pass
    return data


def _build_table(classes: tuple[str, ...]) -> bytes:
    everything = everything_class()
    table = array("H", bytes(0x220000))
    for bit, key in enumerate(classes):
        mask = 1 << bit
        # Runs of matching characters, found by the regex module itself (the reference's reading).
        for m in regex.finditer(f"(?:{key})+", everything):
            for cp in range(m.start(), m.end()):
                table[cp] |= mask
    return table.tobytes()

