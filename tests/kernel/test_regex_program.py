"""Split patterns compiled for the kernel's matcher (tokenizer_core/text/regex_program.py and
kernels/src/program.c): the pieces equal the regex module's, piece for piece, on hostile texts, for
the references' patterns and for every construct of the subset; patterns outside it are left to the
regex module."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tokenizer_core.io.references import load_reference
from tokenizer_core.kernel.native import available, class_table, kernel
from tokenizer_core.text.byte_level import ByteLevel
from tokenizer_core.text.regex_program import compile_program

pytestmark = pytest.mark.skipif(not available(), reason="the compiled kernel is not built")

REFERENCES = ["gpt2", "cl100k_base", "o200k_base", "llama3", "qwen", "tekken"]
#: Every construct of the subset, each in a pattern of its own.
CONSTRUCTS = [
    r"\p{L}+|\d{1,2}",                      # leaves gaps: they are pieces too
    r"[a-c]+?x|\w+|\s+|[^\w\s]",            # a lazy repeat
    r"\w+(?=\s)|\w+|\W",                    # a positive look-ahead
    r"\s++|\S++",                           # possessive repeats
    r"(?i:ab|c)+|.|\n",                     # a repeated case-insensitive group, and any character
    r"\p{Lu}\p{Ll}*|\p{N}{2,}|[\x20-\x2f]+|\u00e9|[\s\S]",  # counts, \x and \u escapes, a range
    r"(?:ab|a)(?:bc|c)|\S|\s+$|\s",         # backtracking into an earlier alternative, and $
    r"[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+",
    # Llama 3.1's tokenizer.json (contractions first: guarded by their first character, ')
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+"
    r"|\s+(?!\S)|\s+",
    # Repeats that must keep backtracking (\w+ before \d, [ab]+ before b, a repeated group) and ones
    # that need not (an optional tail, a run before a disjoint class), each against the regex module
    r"\w+\d|[ab]+b|(?:x+y)+z|\p{L}+(?i:'s)?|\p{N}+\.?\p{N}*|[^\s\p{L}\p{N}]+(?=\s)|[^\s\p{L}\p{N}]|\s+",
    # DeepSeek's third Split: an alternative whose first character is one of a long set
    r"[!\"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~][A-Za-z]+|[^\r\n\p{L}\p{P}\p{S}]?[\p{L}\p{M}]+| ?[\p{P}\p{S}]+[\r\n]*"
    r"|\s*[\r\n]+|\s+(?!\S)|\s+",
]
_PARTS = ["a", "abc", "Hello", " world", "'s", "'LL", "'ſ", "123456", "١٢٣", " ", "  ", "\t", "\n", "\r\n",
          "\n\n ", "é", "e\u0301", "ﬁ", "中文", "😀", "👩‍👩‍👧", "ǅ", "ß", "İ", "K", "\u00a0", "\u2028", ".,;!?",
          "$%&", "__init__", "x" * 30, "AbCab", "/", "\x0b", "\x00"]
TEXTS = st.lists(st.sampled_from(_PARTS), max_size=30).map("".join)


def _splitter(pattern: str):  # noqa: ANN202
    prog = compile_program(pattern)
    assert prog is not None, pattern
    return _splitter_of(prog)


@pytest.fixture(scope="module")
def splitters() -> dict[str, tuple]:
    patterns = {name: load_reference(name).pre_tokenizer.pattern for name in REFERENCES}
    patterns.update({f"construct-{k}": p for k, p in enumerate(CONSTRUCTS)})
    return {name: (_splitter(p), ByteLevel(pattern=p)) for name, p in patterns.items()}


@settings(max_examples=200, deadline=None)
@given(text=TEXTS)
def test_the_kernel_splits_as_the_regex_module(splitters, text: str) -> None:
    for name, (encoder, pre) in splitters.items():
        assert encoder.split(text) == pre.chunk_texts(text), (name, text)


def _opcodes(code: bytes) -> list[int]:
    """The opcodes of a program, walked instruction by instruction (sizes as kernels/src/program.c's)."""
    import struct

    words = struct.unpack(f"={len(code) // 4}i", code)
    sizes = {0: 1, 1: 2, 2: 2, 3: 3, 4: 2, 5: 5, 6: 3, 7: 1, 9: 4}
    out, pc = [], 0
    while pc < len(words):
        out.append(words[pc])
        pc += 2 + words[pc + 1] if words[pc] == 8 else sizes[words[pc]]
    return out


def test_alternatives_are_guarded_by_their_first_characters(monkeypatch) -> None:
    """Each alternative but the last that must read a character first gets a guard (FIRST, 9) in
    place of its SPLIT (3); one that may read nothing first (\\s*, a look-ahead) keeps its SPLIT. The
    guarded program splits as the unguarded one (and both as the regex module, above)."""
    import tokenizer_core.text.regex_program as rp

    pattern = CONSTRUCTS[8]  # Llama 3.1's: seven alternatives (the constructs' ninth)
    guarded = compile_program(pattern)
    ops = _opcodes(guarded.code)
    # The six alternatives before the last: contractions, [^...]?\p{L}+, \p{N}, " ?[^...]", \s*[\r\n]+
    # (a space or a newline first: one class of the two) and \s+(?!\S); and inside the contractions'
    # group its six alternatives before the last.
    assert ops.count(9) == 6 + 6, ops
    monkeypatch.setattr(rp._Emitter, "first_bit", lambda self, seq: None)
    plain = compile_program(pattern)
    plain_ops = _opcodes(plain.code)
    assert 9 not in plain_ops and plain_ops.count(3) == ops.count(3) + 12  # each guard was a SPLIT
    texts = ["it's 12345 apples,\n\n  and 'LL \t\r\n x", "'", "''s", " 'd", "ǅ'S\u00a0\u2028.", ""]
    for text in texts:
        assert _splitter(pattern).split(text) == ByteLevel(pattern=pattern).chunk_texts(text), text
        assert _splitter(pattern).split(text) == _splitter_of(plain).split(text), text


def test_repeats_that_need_no_backtracking_are_made_possessive(monkeypatch) -> None:
    """Llama 3.1's pattern: its eight repeats followed by the end or by what they cannot read become
    possessive (POSS, 5); \\s* before [\\r\\n]+ (a newline is white space) and \\s+ before (?!\\S) (an
    assertion) keep their backtracking loops (SPLIT, 3). The splits stay the regex module's."""
    import tokenizer_core.text.regex_program as rp

    pattern = CONSTRUCTS[8]
    ops = _opcodes(compile_program(pattern).code)
    assert ops.count(5) == 8 and ops.count(3) == 2, ops
    monkeypatch.setattr(rp, "_possessive_where_exact", lambda alt, after, overlap: alt)
    loose = _opcodes(compile_program(pattern).code)
    assert loose.count(5) == 0 and loose.count(3) == 2 + 9  # \p{N}{1,3}: its two optional copies, a SPLIT each
    mixed = CONSTRUCTS[9]
    texts = ["abc1 aab x1 xyxz it's 12.5 ... !! ", "aaab ab b", "xxyxz xz z", "3.14.15 'S's", "ab1c2"]
    for text in texts:
        assert _splitter(mixed).split(text) == ByteLevel(pattern=mixed).chunk_texts(text), text


def _splitter_of(prog):  # noqa: ANN001, ANN202
    """An Encoder splitting with ``prog`` over a one-symbol-per-byte model: only the split is under test."""
    return kernel().Encoder(class_table(), 3, list(range(256)), [], [bytes([b]) for b in range(256)],
                            [chr(b) for b in range(256)], program=prog.code, program_table=prog.table())


def test_long_runs_and_long_texts(splitters) -> None:
    texts = ["x" * 5000, " " * 5000 + "y", "\n" * 3000, "1" * 4000, "é" * 3000 + "!" * 3000, "\u0301" * 2000]
    for name, (encoder, pre) in splitters.items():
        for text in texts:
            assert encoder.split(text) == pre.chunk_texts(text), name


@pytest.mark.parametrize("pattern", [
    r"a*",                  # matches the empty string
    r"\bword\b|\w+|\W",      # \b
    r"(a)\1|.",              # a back reference
    r"[[a-z]--[aeiou]]|.",   # a nested set
    r"(?m:^a)|.",            # flags other than i
    r"(?<=a)b|.",            # a look-behind
    r"(?:a|b*)+|.",          # a repeated part that can match nothing
    r"(?:ab)++|.",           # a possessive group
    "|".join(f"\\p{{{c}}}" for c in ["Lu", "Ll", "Lt", "Lm", "Lo", "Mn", "Mc", "Me", "Nd", "Nl", "No", "Pc", "Pd",
                                      "Ps", "Pe", "Pi", "Pf"]),  # 17 classes
])
def test_patterns_outside_the_subset_are_left_to_the_regex_module(pattern: str) -> None:
    assert compile_program(pattern) is None


def test_programs_that_run_without_end_raise_instead_of_hanging() -> None:
    import struct

    loop = struct.pack("=4i", 4, 0, 0, 0)  # JMP 0, then MATCH: never consumes anything
    encoder = kernel().Encoder(class_table(), 3, list(range(256)), [], [bytes([b]) for b in range(256)],
                               [chr(b) for b in range(256)], program=loop, program_table=bytes(0x220000))
    with pytest.raises(ValueError, match="backtracks too much"):
        encoder.split("abc")
