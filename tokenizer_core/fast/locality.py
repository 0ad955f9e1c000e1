"""Which normalizers and regex ``Split`` stages never look across a chunk boundary (for
:mod:`tokenizer_core.fast.chain`).

Normalizers. A chunked encoding normalizes each chunk alone, so a normalizer qualifies when the
normalization of ``u + b + v`` (``b`` a boundary character: space, tab, LF, CR) is that of ``u``,
then ``b`` unchanged, then that of ``v``, alignment included:

* ``Lowercase``, ``StripAccents``: one character at a time (a character lowercases on its own, no
  final sigma; a mark is dropped on its own); no character lowercases to white space.
* ``NFC``, ``NFD``, ``NFKC``, ``NFKD``: space, tab, LF and CR are starters (canonical combining
  class 0) that no composition starts or ends with and that map to themselves in every form, so
  no normalization reorders, composes or decomposes across them. Our aligned form
  (``_UnicodeForm._units``) works on starter-led runs and joins a run to the one before only when
  their forms differ together and apart, which never happens in front of a boundary starter; a
  run led by a boundary character (``"\\t\\u0301"``) holds only marks after it, which compose with
  nothing, so they normalize and align alike without it (the composing branch needs a starter that
  composes). The compatibility forms do map other characters *to* spaces (U+00A0, U+2002, U+3000,
  U+00A8 " ̈"): such a space appears inside a chunk's normalized text, where the splitting stages
  see it like any other (see ``makes_spaces``), never at a chunk's edge in the original text.
* ``Replace`` of a literal holding no boundary character by content holding none: a match never
  spans a boundary, so the leftmost scan finds the same matches chunk by chunk; each replacement
  points at its match's last character.
* ``Sequence``: of the above (each keeps the boundary characters and their positions).

* ``Precompiled`` (:func:`normalizer_plan`), first in its ``Sequence`` or alone, with a guard over
  the raw text. It maps extended grapheme clusters, each on its own (the shortest charsmap key that
  starts a cluster under 6 bytes replaces all of it, else each character is looked up alone), so
  the text's normalization is its clusters' when no cluster crosses a boundary and each boundary
  cluster (" ", "\\t", "\\n", "\\r", "\\r\\n") maps to itself, or under ``"words"`` to white space
  the dropper drops (nmt_nfkc: tab, LF, CR -> " "), never to nothing (``"a\\rb"`` would join). The
  cluster segmentation of ``u + b + v`` is that of ``u``, ``b``, ``v`` when ``b`` is a cluster alone
  (no rule looks back across a character that is neither Extend, ZWJ nor a regional indicator).
  Tab, LF and CR are controls, always clusters alone (CR LF together: both boundaries). A space is
  not: the guard finds a space before an Extend, ZWJ or SpacingMark character (" \\u0301") or after
  a Prepend one ("\\u0600 "). ``tokenizers``' alignment slips when the text *begins* with removed
  characters (every later character shifts), so the guard also finds a text, or under ``"words"``
  a chunk, that begins with the first character of a key mapped to nothing (controls).
* ``Replace`` of a regex matching only runs of spaces, never the empty string, by spaces
  (``Replace(" {2,}", " ")``). Under ``"words"`` only runs of spaces change, which the dropper drops
  whatever their length, and every other character keeps its alignment. Under ``"spaces"`` a
  chunk's leading run is the text's whole run when the chunk before ends in something else than a
  space: only ``Precompiled`` (guarded: a character whose key writes a space or nothing, later
  followed by a space in its chunk) and ``Lowercase`` may come before it.

Refused: ``Prepend`` and ``Strip`` (they act at the text's ends, which each chunk would have),
other regex ``Replace``, ``Precompiled`` after another normalizer (the guard reads the raw text),
``BertNormalizer`` under ``"spaces"`` (it turns tabs into spaces).

Regex splits (:func:`regex_split_role`): parsed with :mod:`tokenizer_core.text.regex_parse` (an
unparsable pattern is refused), a pattern with a look-around or ``$`` is refused (they see past a
match's end), one that can match the empty string too. When no atom of the pattern matches a
boundary character, no match holds one and a match attempt ends at a boundary as it would at the
text's end, so the matches of ``u + b + v`` are those of ``u`` and of ``b + v``: the split is a
run splitter like a literal one (every behaviour, ``invert`` too); with ``invert`` and
``"removed"`` only the matches are pieces, none holding white space: a cutter. A pattern that is one
quantified class ``C{1,…}`` taking every boundary character, ``"removed"``, is a cutter too: every
character of ``C`` is matched, so the pieces are the runs of characters outside ``C``.

>>> from tokenizer_core.text.normalizers import NFKC, Lowercase, Sequence
>>> makes_spaces(Sequence([NFKC(), Lowercase()]), "spaces"), makes_spaces(Lowercase(), "words")
(True, False)
>>> from tokenizer_core.text.precompiled import Precompiled, charsmap_blob
>>> spaces, guard = normalizer_plan(Precompiled(charsmap_blob({"\\t": " ", "\\x07": ""})), "words")
>>> spaces, [bool(guard.search(t)) for t in ("a\\tb c", "a \\u0301", "\\u0600 a", "a \\x07", "\\x07a")]
(True, [False, True, True, True, True])
>>> from tokenizer_core.text.splitting import Split
>>> regex_split_role(Split(r"\\w+|[^\\w\\s]+", is_regex=True, behavior="removed", invert=True), "words")
'cut'
>>> regex_split_role(Split(r"\\s+", is_regex=True, behavior="removed"), "words")
'cut'
>>> regex_split_role(Split(r"\\w+(?=\\s)", is_regex=True), "words") is None
True
"""

from __future__ import annotations

import struct
from functools import lru_cache
from typing import Any, Optional, Union

import regex

from tokenizer_core.text.edit_normalizers import Replace
from tokenizer_core.text.normalizers import NFC, NFD, NFKC, NFKD, Lowercase, Sequence, StripAccents
from tokenizer_core.text.patterns import compile_pattern, python_pattern
from tokenizer_core.text.precompiled import Precompiled
from tokenizer_core.text.regex_parse import Alt, Char, CharSet, Cls, End, Look, Unsupported, parse

__all__ = ["BOUNDARY", "makes_spaces", "normalizer_plan", "regex_split_role", "unmatched_before_space"]

#: The characters a boundary of each chunk rule is made of.
BOUNDARY = {"words": " \t\n\r", "spaces": " "}
_CHAR_BY_CHAR = (Lowercase, StripAccents, NFC, NFD)
_COMPAT = (NFKC, NFKD)  # map U+00A0, U+2000-U+200A, U+3000, U+00A8... to (a text holding) a space


def makes_spaces(normalizer: Any, rule: str) -> Optional[bool]:
    """None when ``normalizer`` is not proven chunk-local under ``rule`` (module docstring), else
    whether it may write a space where the original text has none."""
    kind = type(normalizer)
    if normalizer is None or kind in _CHAR_BY_CHAR:
        return False
    if kind in _COMPAT:
        return True
    if kind is Replace:
        literal = not normalizer.is_regex and normalizer.pattern
        clean = not any(c in normalizer.pattern + normalizer.content for c in BOUNDARY["words"])
        return False if literal and clean else None
    if kind is Sequence:
        inner = [makes_spaces(n, rule) for n in normalizer.normalizers]
        return None if None in inner else any(inner)
    return None


#: A space in the same extended grapheme cluster as a neighbour (GB9, GB9a, GB9b; tab, LF and CR
#: are controls, which every rule breaks around).
_SPACE_IN_CLUSTER = (r"\p{Grapheme_Cluster_Break=Prepend}[ ]"
                     r"|[ ][\p{Grapheme_Cluster_Break=Extend}\p{Grapheme_Cluster_Break=ZWJ}"
                     r"\p{Grapheme_Cluster_Break=SpacingMark}]")


@lru_cache(maxsize=8)
def charsmap_rules(blob: bytes) -> Optional[dict[str, str]]:
    """Every key of a ``precompiled_charsmap`` that a lookup can reach, with its replacement (None
    when a key is not UTF-8). The lookup stops at the first key it meets (the shortest), so keys
    that extend a key are left out. Walks the darts-clone units of
    :class:`~tokenizer_core.text.precompiled.CharsMap` bottom-up: a unit with label ``c`` at
    position ``p`` is the child ``c`` of the node whose children start at ``p ^ c``."""
    (size,) = struct.unpack_from("<I", blob)
    units = struct.unpack_from(f"<{size // 4}I", blob, 4)
    strings = blob[4 + size:]

    def offset(unit: int) -> int:  # as precompiled._offset: 21 bits, shifted 8 further when bit 9 is set
        return (unit >> 10) << ((unit & (1 << 9)) >> 6)

    children: dict[int, list[int]] = {}
    for p, unit in enumerate(units):
        if not unit & (1 << 31) and unit & 0xFF:  # a node (a leaf's value has bit 31; label 0 is a leaf slot)
            children.setdefault(p ^ (unit & 0xFF), []).append(p)
    rules: dict[bytes, str] = {}
    todo = [(0, b"")]
    while todo:
        node, key = todo.pop()
        for p in children.get(node ^ offset(units[node]), ()):
            unit, longer = units[p], key + bytes([units[p] & 0xFF])
            if unit & (1 << 8):  # a key ends here; the lookup goes no further
                start = units[p ^ offset(unit)] & ((1 << 31) - 1)
                rules[longer] = strings[start:strings.find(b"\0", start)].decode("utf-8", "replace")
            elif len(longer) < 64:  # no real key is that long; stops a malformed table's cycles
                todo.append((p, longer))
    try:
        return {k.decode("utf-8"): v for k, v in rules.items()}
    except UnicodeDecodeError:
        return None


def _precompiled_fit(stage: Precompiled, rule: str) -> Optional[tuple[str, str]]:
    """None when ``stage`` maps a boundary cluster otherwise than the module docstring allows, else
    two guards: the one it always needs, and the one a later run-of-spaces ``Replace`` needs."""
    rules = charsmap_rules(stage.charsmap.blob)
    if rules is None:
        return None
    lookup = stage.charsmap.first_match
    if rule == "spaces":
        if lookup(" ") not in (None, " "):
            return None
    else:
        for cluster in (" ", "\t", "\n", "\r", "\r\n"):
            mapped = lookup(cluster)
            if mapped is not None and not (mapped and all(c in BOUNDARY["words"] for c in mapped)):
                return None
    removed = "".join(sorted({k[0] for k, v in rules.items() if not v}))
    spacey = "".join(sorted({k[0] for k, v in rules.items() if not v or " " in v}))
    guard = _SPACE_IN_CLUSTER
    if removed:
        starts = r"(?:\A|[ \t\n\r])" if rule == "words" else r"\A"
        guard += f"|{starts}[{regex.escape(removed)}]"
    ends_in_space = f"[{regex.escape(spacey)}][^ ]*[ ]" if spacey else ""
    return guard, ends_in_space


def _collapses_spaces(stage: Any) -> bool:
    """A regex ``Replace`` whose every match is a non-empty run of spaces, replaced by spaces."""
    if type(stage) is not Replace or not stage.is_regex or not stage.content or stage.content.strip(" "):
        return False
    try:
        atoms = _atoms(parse(stage.pattern))
    except Unsupported:
        return False
    only_spaces = all(isinstance(a, Char) and a.cp == 32 for a in atoms)
    return only_spaces and bool(atoms) and not compile_pattern(stage.pattern, is_regex=True).match("")


def normalizer_plan(normalizer: Any, rule: str) -> Optional[tuple[bool, Optional[Any]]]:
    """None when ``normalizer`` is not proven chunk-local under ``rule`` (module docstring), else
    whether it may write a space where the original text has none, and None or a compiled regex
    finding what makes a text take the general path."""
    stages = list(normalizer.normalizers) if type(normalizer) is Sequence else [normalizer]
    guards: list[str] = []
    new_spaces = False
    head = bool(stages) and type(stages[0]) is Precompiled
    ends_in_space = ""
    if head:
        found = _precompiled_fit(stages[0], rule)
        if found is None:
            return None
        guards.append(found[0])
        new_spaces, ends_in_space = True, found[1]
    for i, stage in enumerate(stages[head:], start=int(head)):
        if _collapses_spaces(stage):
            if rule == "spaces":
                if any(type(s) is not Lowercase for s in stages[head:i]):
                    return None
                if ends_in_space:
                    guards.append(ends_in_space)
            continue
        inner = makes_spaces(stage, rule)
        if inner is None:
            return None
        new_spaces = new_spaces or inner
    return new_spaces, (regex.compile("|".join(guards)) if guards else None)


Atom = Union[Cls, Char, CharSet, Look, End, Alt]


def _atoms(alt: Alt) -> list[Atom]:
    out: list[Atom] = []
    for seq in alt.seqs:
        for item in seq:
            out += _atoms(item.atom) if isinstance(item.atom, Alt) else [item.atom]
    return out


def _one_char(atom: Atom) -> str:
    """A Python regex matching exactly the characters ``atom`` matches (one class, char or set)."""
    if isinstance(atom, Cls):
        return f"(?:{python_pattern(atom.key)})"
    cps = (atom.cp,) if isinstance(atom, Char) else atom.cps  # type: ignore[union-attr]
    return "[" + "".join(regex.escape(chr(cp)) for cp in cps) + "]"


def _analysed(stage: Any) -> Optional[tuple[Alt, list[Atom], set[str]]]:
    """The tree, its atoms and the boundary characters some atom matches; None when refused."""
    try:
        tree = parse(stage.pattern)
    except Unsupported:
        return None
    atoms = _atoms(tree)
    if any(isinstance(a, (Look, End)) for a in atoms) or compile_pattern(stage.pattern, is_regex=True).match(""):
        return None
    taken = {c for a in atoms for c in BOUNDARY["words"] if regex.fullmatch(_one_char(a), c)}
    return tree, atoms, taken


def regex_split_role(stage: Any, rule: str) -> Optional[str]:
    """``"cut"``, ``"runs"`` or None for a regex ``Split`` under ``rule`` (module docstring)."""
    found = _analysed(stage)
    if found is None:
        return None
    tree, atoms, taken = found
    if not taken & set(BOUNDARY[rule]):
        return "cut" if stage.invert and stage.behavior == "removed" else "runs"
    one = len(tree.seqs) == 1 and len(tree.seqs[0]) == 1 and tree.seqs[0][0].lo == 1
    if one and not isinstance(tree.seqs[0][0].atom, Alt) and set(BOUNDARY[rule]) <= taken:
        return "cut" if not stage.invert and stage.behavior == "removed" else None
    return None


def unmatched_before_space(stage: Any) -> Optional[Any]:
    """For an ``"isolated"`` regex ``Split`` whose pattern is an alternation of single classes
    ``C{1,…}`` none of which takes a space: a compiled regex finding a character none of them takes
    right before a space (None when the stage is not such a split).

    Every character some ``C`` takes is matched wherever it stands (the first alternative taking it
    starts a match there), every other one is in a gap; the pieces are the matches and the gaps. A
    ``"spaces"`` chunk boundary comes before a space that follows a non-space ``x``: when ``x`` is
    matched, its match ends there and the space begins a gap, so no piece crosses; when ``x`` is in a
    gap, the gap runs on across the boundary. Texts this regex finds something in take the general path.
    """
    if stage.invert or stage.behavior != "isolated":
        return None
    found = _analysed(stage)
    if found is None or " " in found[2]:
        return None
    tree, atoms, _ = found
    if not all(len(seq) == 1 and seq[0].lo == 1 and not isinstance(seq[0].atom, Alt) for seq in tree.seqs):
        return None
    return regex.compile("(?:(?!" + "|".join(_one_char(a) for a in atoms) + ")[^ ]) ")
