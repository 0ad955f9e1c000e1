"""Which normalizers and regex ``Split`` stages never look across a chunk boundary.

:mod:`tokenizer_core.fast.chain` normalizes each chunk alone. So a normalizer must normalize ``u + b + v`` as ``u``,
then ``b`` unchanged, then ``v``, alignment included. ``b`` is a boundary character: space, tab, LF or CR. Accepted:

* ``Lowercase``, ``StripAccents``: one character at a time, with no final sigma; a mark is dropped on its own. No
  character lowercases to white space.
* ``NFC``, ``NFD``, ``NFKC``, ``NFKD``: nothing is reordered, composed or decomposed across a boundary character.
  :func:`makes_spaces` says why, and where the compatibility forms' new spaces go.
* ``Replace`` of a literal by content, neither holding a boundary character: no match spans a boundary, so the
  leftmost scan finds the same matches chunk by chunk. Each replacement points at its match's last character.
* ``Sequence`` of the above: each keeps the boundary characters and their positions.
* ``Precompiled``, alone or first in its ``Sequence``: it maps extended grapheme clusters on their own. A guard over
  the raw text (:func:`normalizer_plan`) sends a text to the general path where a cluster or a removed character
  would break that. ``_precompiled_fit`` lists the conditions.
* ``Replace`` of a regex matching only runs of spaces, never the empty string, by spaces (``Replace(" {2,}", " ")``).
  Under ``"words"`` the dropper drops the runs whatever their length, and other characters keep their alignment.
  Under ``"spaces"`` a chunk's leading run is the text's whole run only when the chunk before ends in a non-space.
  So only ``Lowercase`` and a guarded ``Precompiled`` may come before it.

Refused: ``Prepend`` and ``Strip``, since each chunk would have the text's ends; other regex ``Replace``;
``Precompiled`` after another normalizer, since the guard reads the raw text; ``BertNormalizer`` under ``"spaces"``,
since it turns tabs into spaces.

Regex splits (:func:`regex_split_role`) are refused when :mod:`tokenizer_core.text.regex_parse` cannot parse them,
when they hold a look-around or ``$``, which see past a match's end, or when they can match the empty string. If no
atom matches a boundary character, no match holds one, and a match attempt ends at a boundary as at the text's end.
So ``u + b + v`` has the matches of ``u`` and of ``b + v``, and the split is a run splitter like a literal one, in
every behaviour, inverted or not. Inverted and ``"removed"``, it is a cutter: its pieces are the matches, none
holding white space. One quantified class ``C{1,…}`` that takes every boundary character, with ``"removed"``, is
a cutter too: every character of ``C`` is matched, so the pieces are the runs of characters outside ``C``.

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
    whether it may write a space where the original text has none.

    Why the Unicode forms qualify. Space, tab, LF and CR are starters (combining class 0) that map to themselves in
    every form, and no composition starts or ends with them. Our aligned form, ``_UnicodeForm._units``, works on
    starter-led runs. It joins a run to the one before only when their forms differ together and apart, which never
    happens in front of a boundary starter. A run led by a boundary character (``"\\t\\u0301"``) holds only marks.
    They compose with nothing, since the composing branch needs a starter that composes, so they normalize and align
    alike without it. The compatibility forms map some other characters to spaces (U+00A0, U+2002, U+3000,
    U+00A8 " ̈"). Such a space lies inside a chunk's normalized text, never at a chunk's edge in the original, and
    the splitting stages see it like any other."""
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
    """None when ``stage`` maps a boundary cluster otherwise than allowed below, else two guards: the one it always
    needs, and the one a later run-of-spaces ``Replace`` needs.

    ``Precompiled`` maps each extended grapheme cluster on its own. The shortest charsmap key under 6 bytes that
    starts a cluster replaces all of it; else each character is looked up alone. That is chunk-local when:

    * no cluster crosses a boundary. A boundary that is a cluster alone splits the clusters there: no rule looks back
      past a character other than Extend, ZWJ or a regional indicator. Tab, LF and CR are controls, always clusters
      alone (CR LF: two boundaries). A space is not always alone: the guard finds one before an Extend, ZWJ or
      SpacingMark character (" \\u0301") or after a Prepend one ("\\u0600 ").
    * each boundary cluster (" ", "\\t", "\\n", "\\r", "\\r\\n") maps to itself, or under ``"words"`` to white space the
      dropper drops (nmt_nfkc: tab, LF, CR -> " "). Never to nothing: ``"a\\rb"`` would join.
    * no text, nor under ``"words"`` a chunk, begins with the first character of a key mapped to nothing (controls).
      ``tokenizers``' alignment slips there (every later character shifts), so the guard finds those.

    The second guard finds a character whose key writes a space or nothing, later followed by a space in its chunk."""
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
