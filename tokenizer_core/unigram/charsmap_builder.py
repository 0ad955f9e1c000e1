"""Compile a small normalization table into the ``precompiled_charsmap`` layout.

Real tables come inside ``.model`` files; this builder exists so that the reader
(:mod:`tokenizer_core.unigram.charsmap`) can be shown and tested on tables small enough to
read. It places each trie node's children in a free block of 256 units (simple, roomy, and
plenty for a few hundred rules).

>>> blob = compile_charsmap({"ab": "X"})
>>> int.from_bytes(blob[:4], "little") % 4, blob.endswith(b"X\\0")
(0, True)
"""

from __future__ import annotations

from collections.abc import Mapping

_LEAF_BIT = 1 << 8
_OFFSET_LIMIT = 1 << 21


def compile_charsmap(rules: Mapping[str, str]) -> bytes:
    """The blob for ``{key: replacement}`` (keys non-empty; replacements without NUL)."""
    strings = bytearray()
    values: dict[bytes, int] = {}
    for key, rep in sorted(rules.items()):
        if not key or "\0" in rep:
            raise ValueError(f"cannot compile the rule {key!r} -> {rep!r}")
        values[key.encode("utf-8")] = len(strings)
        strings += rep.encode("utf-8") + b"\0"
    # The trie as nested dicts keyed by byte; -1 marks "a key ends here".
    trie: dict[int, dict] = {}
    for key, value in values.items():
        node = trie
        for b in key:
            node = node.setdefault(b, {})
        node[-1] = value  # type: ignore[assignment]
    units: dict[int, int] = {}
    todo = [(0, trie, 0)]  # (position, node, label that led there)
    used = {0}
    while todo:
        pos, node, label = todo.pop()
        labels = [0 if b == -1 else b for b in node]
        base = 256
        while any((base ^ c) in used for c in labels):
            base += 256
        offset = pos ^ base
        if offset >= _OFFSET_LIMIT:
            raise ValueError("too many rules for this simple builder")
        units[pos] = (offset << 10) | (_LEAF_BIT if -1 in node else 0) | label
        for b, child in node.items():
            used.add(base ^ (0 if b == -1 else b))
            if b == -1:
                units[base] = (1 << 31) | child  # a leaf unit: the top bit, then the value
            else:
                todo.append((base ^ b, child, b))
    size = max(units) + 1
    trie_bytes = b"".join(units.get(i, 0).to_bytes(4, "little") for i in range(size))
    return len(trie_bytes).to_bytes(4, "little") + trie_bytes + bytes(strings)
