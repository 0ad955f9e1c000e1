"""Misuse of the compiled kernel from Python raises exceptions; it never kills the process.

``kernels/`` parses every user's text inside the server process, so a segmentation fault there
ends every session at once. Each case runs in a child process: a crash shows up as the child's
signal (return code -11) and fails the test, instead of taking pytest down with it. The child
prints the name of the exception each call raised ("raised ValueError") or "returned".
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from tests._paths import ROOT

pytest.importorskip("tokenizer_kernel")

PRELUDE = '''
from array import array

import tokenizer_kernel as k
from tokenizer_core.bpe.kernel import class_table

def expect(fn, *args, **kw):
    try:
        fn(*args, **kw)
    except Exception as e:
        print("raised", type(e).__name__, flush=True)
    else:
        print("returned", flush=True)

def small_encoder_args(merges=None, byte_ids=None, token_bytes=None):
    """A byte-level vocabulary (byte b is id b) plus "ab" (256) and its merge."""
    token_bytes = token_bytes if token_bytes is not None else [bytes([b]) for b in range(256)] + [b"ab"]
    strs = [chr(b) for b in range(256)] + ["ab"]
    return (class_table(), k.PAT_GPT2, byte_ids if byte_ids is not None else list(range(256)),
            merges if merges is not None else [(97, 98, 256)], token_bytes, strs)
'''


def _run(code: str) -> list[str]:
    """The lines the child printed; fails unless it exited normally."""
    proc = subprocess.run([sys.executable, "-c", PRELUDE + textwrap.dedent(code)], capture_output=True,
                          text=True, cwd=ROOT, timeout=300)
    assert proc.returncode == 0, f"child exited with {proc.returncode}\n{proc.stdout}\n{proc.stderr[-3000:]}"
    return proc.stdout.splitlines()


# Every method of every kernel type, with arguments that would be valid on a built object.
METHOD_CALLS = {
    "Encoder": {
        "encode": ("'a b'", "0", "0"),
        "encode_split": ("'a b'", "array('q', [1, 3])", "0", "0"),
        "encode_batch": ("['a b']", "0"),
        "encode_ids": ("'a b'",),
        "split": ("'a'",),
        "encode_piece": ("b'ab'",),
        "cache_size": (),
        "cache_bytes": (),
        "clear_cache": (),
    },
    "MergeState": {"best": (), "merge": ("1", "2", "3"), "words": ()},
    "PieceCounter": {"add": ("'a b'", "False"), "merge": ("k.PieceCounter(class_table(), k.SPLIT_GPT2)",),
                     "counts": (), "distinct": ()},
    "WordSet": {"add": ("'a b a'",), "distinct": ()},
    "ChunkTable": {
        "missing": ("['a b']",),
        "put": ("'ab'", "False", "[2]", "[0]", "[2]", "[0]", "1"),
        "encode": ("'a b'",),
        "encode_batch": ("['a b']", "0"),
        "encode_joined": ("['a', '\\n', 'b']", "bytes(8)"),
        "size": (),
        "set_lattice": ("[('a', 0, -1.0)]", "0", "-2.0"),
    },
    "UnigramCorpus": {
        "seed": ("3", "bytes([3])", "-1"),
        "expected": ("['a', 'b']", "array('d', [-1.0, -1.0])", "array('d', [0.0, 0.0])"),
        "viterbi": ("['a', 'b']", "array('d', [-1.0, -1.0])", "array('d', [0.0, 0.0])"),
        "splits": ("['a', 'b', 'ab']", "array('d', [-1.0, -1.0, -1.0])", "bytes([0, 0, 1])",
                   "array('d', [0.0, 0.0, 0.0])"),
    },
}


def test_every_method_is_covered():
    """A method added to a kernel type must be added to METHOD_CALLS (and so be checked below)."""
    import tokenizer_kernel

    for type_name, calls in METHOD_CALLS.items():
        methods = {n for n in dir(getattr(tokenizer_kernel, type_name)) if not n.startswith("_")}
        assert methods == set(calls), type_name


@pytest.mark.parametrize("type_name,method", [(t, m) for t, calls in METHOD_CALLS.items() for m in calls])
def test_methods_before_init_raise(type_name, method):
    args = ", ".join(METHOD_CALLS[type_name][method])
    out = _run(f"""
        obj = k.{type_name}.__new__(k.{type_name})
        expect(lambda: obj.{method}({args}))
    """)
    assert out == ["raised RuntimeError"]


def test_gpt2_encode_refuses_negative_and_huge_base_and_first_word():
    out = _run("""
        from tokenizer_core.bpe.kernel import kernel_encoder
        from tokenizer_core.io.references import load_reference
        tok = load_reference("gpt2")
        enc = kernel_encoder(tok.pre_tokenizer, tok.model)
        expect(enc.encode, "hello world", -1, 0)
        expect(enc.encode, "hello world", 0, -1)
        expect(enc.encode, "hello world", 2**63 - 5, 0)
        expect(enc.encode, "hello world", 0, 2**63 - 5)
        expect(enc.encode, "hello world", 2**64, 0)
        print(enc.encode("hello world", 3, 5))
    """)
    assert out[:4] == ["raised ValueError"] * 4
    assert out[4] == "raised OverflowError"
    assert out[5] == "([31373, 995], ['hello', 'Ġworld'], [(3, 8), (8, 14)], [5, 6], 2)"


def test_encode_split_checks_the_piece_ends():
    """An Encoder given its pieces (pattern EXTERNAL) reads ``ends`` only after checking them all:
    increasing, inside the text, the last one its end; and it refuses the calls that would split."""
    out = _run("""
        args = list(small_encoder_args())
        args[1] = k.PAT_EXTERNAL
        e = k.Encoder(*args)
        print(e.encode_split("ab ab", array("q", [2, 5]), 0, 0)[0])
        print(e.encode_split("", array("q"), 0, 0)[0])
        for ends in ([2, 2, 5], [0, 5], [3, 2, 5], [2, 4], [2, 6], [-1, 5], [5, 5], []):
            expect(e.encode_split, "ab ab", array("q", ends), 0, 0)
        expect(e.encode_split, "", array("q", [0]), 0, 0)
        expect(e.encode_split, "ab ab", b"12345", 0, 0)         # not whole int64 values
        expect(e.encode_split, "ab ab", array("q", [2, 5]), -1, 0)
        expect(e.encode_split, "ab ab", array("q", [2, 5]), 0, 2**63 - 2)
        for call in (lambda: e.encode("ab", 0, 0), lambda: e.encode_ids("ab"), lambda: e.split("ab"),
                     lambda: e.encode_batch(["ab"], 0)):
            expect(call)
        g = k.Encoder(*small_encoder_args())                     # a pattern of its own: ends given anyway
        print(g.encode_split("ab ab", array("q", [1, 5]), 0, 0)[0])
    """)
    assert out[:2] == ["[256, 32, 256]", "[]"]
    assert out[2:14] == ["raised ValueError"] * 12
    assert out[14:18] == ["raised ValueError"] * 4
    assert out[18:] == ["[97, 98, 32, 256]"]


def test_bad_programs_are_refused_before_use():
    """A PROGRAM Encoder's words are checked once: every opcode known, operands in range, jumps onto
    instructions, MATCH last; the table two bytes per code point; program only with pattern 3."""
    out = _run("""
        import struct
        args = list(small_encoder_args())
        args[1] = k.PAT_PROGRAM
        table = bytes(0x220000)
        words = lambda *w: struct.pack(f"={len(w)}i", *w)
        for code in (words(), words(99), words(1), words(1, 0x110000), words(2, 16, 0), words(3, 0, 9, 0),
                     words(3, 1, 3, 0), words(4, 7, 0), words(5, 2, 0, 0, 1, 0), words(5, 0, 3, 2, 1, 0),
                     words(6, 0, 2, 0), words(8, 17, 0), words(8, 2, 97), words(1, 97), b"abc"):
            expect(k.Encoder, *args, program=code, program_table=table)
        expect(k.Encoder, *args, program=words(0), program_table=b"short")
        expect(k.Encoder, *args)                                      # pattern 3 needs a program
        args[1] = k.PAT_GPT2
        expect(k.Encoder, *args, program=words(0), program_table=table)
        args[1] = k.PAT_PROGRAM
        e = k.Encoder(*args, program=words(1, 97, 0), program_table=table)   # "a"; anything else a gap
        print(e.split("xaay"), e.encode_ids("xaay"))
        a = words(1, 97, 0)
        for progs, tables in (((), ()), ((a,) * 5, (table,) * 5), ((a, a), (table,)), ((a,), table), ((a, 5), (table, table)),
                              ((a, words(99)), (table, table)), (a, (table,))):
            expect(k.Encoder, *args, program=progs, program_table=tables)
        chain = k.Encoder(*args, program=(words(1, 32, 0), a), program_table=(table, table))  # " " splits, then "a"
        print(chain.split("xa aay"))
    """)
    assert out[:15] == ["raised ValueError"] * 15
    assert out[15:18] == ["raised ValueError"] * 3
    assert out[18] == "['x', 'a', 'a', 'y'] [120, 97, 97, 121]"
    assert out[19:26] == ["raised ValueError"] * 4 + ["raised TypeError", "raised ValueError", "raised ValueError"]
    assert out[26] == "['x', 'a', ' ', 'a', 'a', 'y']"


def test_first_character_guards_are_checked_and_run():
    """FIRST bit a b (opcode 9): its bit in range, both targets instructions; alternative a is tried only
    where the character is in class `bit`, elsewhere the program goes straight to b."""
    out = _run("""
        import struct
        args = list(small_encoder_args())
        args[1] = k.PAT_PROGRAM
        words = lambda *w: struct.pack(f"={len(w)}i", *w)
        table = bytearray(0x220000)
        table[97 * 2] = 1                                   # class 0: "a" (two bytes a code point, native order)
        for code in (words(9, 16, 4, 4, 0), words(9, 0, 4, 9, 0), words(9, 0, 1, 4, 0), words(9, 0, 4)):
            expect(k.Encoder, *args, program=code, program_table=bytes(table))
        # "ab" (where an "a" is), else "x": FIRST 0 4 10 | CHAR a, CHAR b, JMP 12 | CHAR x | MATCH
        code = words(9, 0, 4, 10, 1, 97, 1, 98, 4, 12, 1, 120, 0)
        e = k.Encoder(*args, program=code, program_table=bytes(table))
        print(e.split("abxaxab?"))
    """)
    assert out[:4] == ["raised ValueError"] * 4
    # "a" not followed by "b": the guard let the first alternative try, it failed, the second did too
    # (a gap up to the next match); "?" is a gap at the end.
    assert out[4] == "['ab', 'x', 'a', 'x', 'ab', '?']"


def test_failed_encoder_init_leaves_nothing_half_built():
    out = _run("""
        e = k.Encoder.__new__(k.Encoder)
        bad = [bytes([b]) for b in range(256)] + [5]      # fails after most members were set
        expect(e.__init__, *small_encoder_args(token_bytes=bad))
        expect(e.encode_ids, "ab ab")
        expect(e.split, "ab")
        e.__init__(*small_encoder_args())                  # a failed init may be retried
        print(e.encode_ids("ab ab"))
        expect(e.__init__, *small_encoder_args())          # a second init is refused, nothing leaks
        print(e.encode_ids("ab ab"))
    """)
    assert out == ["raised TypeError", "raised RuntimeError", "raised RuntimeError",
                   "[256, 32, 256]", "raised RuntimeError", "[256, 32, 256]"]


def test_failed_merge_state_init_leaves_nothing_half_built():
    out = _run("""
        m = k.MergeState.__new__(k.MergeState)
        expect(m.__init__, [[1, 2], [1, 2]], [1, -1], 16)
        expect(m.words)
        expect(m.best)
        m.__init__([[1, 2], [1, 2]], [1, 2], 16)
        print(m.best(), m.merge(1, 2, 3), m.words())
        expect(m.__init__, [[1, 2]], [1], 16)
        print(m.words())
    """)
    assert out == ["raised ValueError", "raised RuntimeError", "raised RuntimeError",
                   f"({1 << 16 | 2}, 3) 3 [[3], [3]]", "raised RuntimeError", "[[3], [3]]"]


def test_piece_counter_init_twice():
    out = _run("""
        c = k.PieceCounter(class_table(), k.SPLIT_GPT2)
        c.add("a b a", False)
        expect(c.__init__, class_table(), k.SPLIT_GPT2)
        print(c.counts())
    """)
    assert out == ["raised RuntimeError", "{'a': 1, ' b': 1, ' a': 1}"]


def test_index_that_mutates_the_inputs_is_refused():
    """Objects whose ``__index__`` changes the list being read, after its size was measured: the
    kernel takes ints only, so no Python code runs while it copies the lists."""
    out = _run("""
        class Clears:
            def __init__(self, target):
                self.target = target
            def __index__(self):
                self.target.clear()
                return 1

        merges = [None, (97, 98, 256)]
        merges[0] = (Clears(merges), 98, 256)
        expect(k.Encoder, *small_encoder_args(merges=merges))

        byte_ids = list(range(256))
        byte_ids[0] = Clears(byte_ids)
        expect(k.Encoder, *small_encoder_args(byte_ids=byte_ids))

        counts = [None, 1, 1]
        counts[0] = Clears(counts)
        expect(k.MergeState, [[1, 2], [1, 2], [1, 2]], counts, 16)

        words = [None, [1, 2], [1, 2]]
        words[0] = [Clears(words), 2]
        expect(k.MergeState, words, [1, 1, 1], 16)
    """)
    assert out == ["raised TypeError"] * 4


def test_merge_refuses_ids_that_do_not_fit():
    """Ids wider than the shift (or than int32) were truncated and merged the wrong pair."""
    out = _run("""
        m = k.MergeState([[1, 2, 1, 2]], [1], 16)
        m.best()
        expect(m.merge, 1, 2, 2**32 + 3)
        expect(m.merge, 1, 2, 1 << 16)
        expect(m.merge, -1, 2, 3)
        print(m.merge(1, 2, 3), m.words())
    """)
    assert out == ["raised ValueError"] * 3 + ["2 [[3, 3]]"]


BAD_VALUES = ["-1", "-2**63", "2**31", "2**64", "10**100", "1.5", "'x'", "None", "b''", "[]", "object()",
              "float('nan')"]


@pytest.mark.parametrize("type_name", list(METHOD_CALLS))
def test_every_method_with_every_bad_argument(type_name):
    """Each argument of each method of a built object replaced in turn by a negative, huge or
    non-int value (and each method called with too few and too many arguments): an exception or a
    result, never a signal. All in one child per type; the child prints one line per call."""
    build = {
        "Encoder": "k.Encoder(*small_encoder_args())",
        "MergeState": "k.MergeState([[1, 2, 1, 2], [2, 1]], [3, 1], 16)",
        "PieceCounter": "k.PieceCounter(class_table(), k.SPLIT_GPT2)",
        "WordSet": "k.WordSet(class_table())",
        "UnigramCorpus": "k.UnigramCorpus('ab', array('q', [0, 2]), array('d', [1.0]), bytes([1, 0]))",
        "ChunkTable": "k.ChunkTable(['a', 'b', 'ab'], rule=k.RULE_SPACES, scored=True, max_score=1.0)",
    }[type_name]
    calls = []
    for method, args in METHOD_CALLS[type_name].items():
        for at in range(len(args)):
            for bad in BAD_VALUES:
                calls.append(f"obj.{method}({', '.join(bad if i == at else a for i, a in enumerate(args))})")
        calls.append(f"obj.{method}({', '.join([*args, '0'])})")
        if args:
            calls.append(f"obj.{method}()")
    body = "\n".join(f"expect(lambda: {c})" for c in calls)
    out = _run(f"""
obj = {build}
if hasattr(obj, "best"):
    obj.best()  # merge() needs a chosen pair
{body}
print("alive")
""")
    assert len(out) == len(calls) + 1 and out[-1] == "alive"
    assert all(line.startswith(("raised", "returned")) for line in out[:-1])


def test_constructors_with_bad_arguments():
    out = _run("""
        args = list(small_encoder_args())
        for at, bad in [(0, b"short"), (1, -1), (1, 2**40), (2, list(range(255))), (2, [-1] * 256),
                        (2, [2**31] * 256), (3, [(1, 2)]), (3, [(1, 2, -3)]), (3, [(2**40, 1, 2)]), (3, "x"),
                        (4, [b"a", 5]), (5, None)]:
            expect(k.Encoder, *[bad if i == at else a for i, a in enumerate(args)])
        expect(k.Encoder, *args, cache_bytes=-5)            # no cache, still encodes
        expect(k.Encoder, *args, cache_bytes=2**62)
        expect(k.Encoder, *args, cache_bytes=2**64)
        expect(k.Encoder, *args, tokens_rank=True)          # a merges list given too: ignored
        expect(k.MergeState, [[1, 2]], [1], 0)
        expect(k.MergeState, [[1, 2]], [1], 32)
        expect(k.MergeState, [[1, 2]], [1, 2], 16)
        expect(k.MergeState, [[1, 2 ** 20]], [1], 16)
        expect(k.MergeState, [[1, 2], [1, 2]], [2**62, 2**62], 16)  # pair counts would pass int64
        expect(k.MergeState, [[1, 2, 1, 2, 1]], [2**62], 16)
        expect(k.PieceCounter, b"short", 0)
        expect(k.PieceCounter, class_table(), 1)
        expect(k.PieceCounter, class_table(), -1)
        e = k.Encoder(*args, cache_bytes=-5)
        print(e.encode_ids("ab ab"), e.cache_size())
    """)
    assert out[:12] == ["raised ValueError", "raised ValueError", "raised OverflowError", "raised ValueError",
                        "raised ValueError", "raised ValueError", "raised TypeError", "raised ValueError",
                        "raised ValueError", "raised TypeError", "raised TypeError", "raised TypeError"]
    assert out[12:16] == ["returned", "returned", "raised OverflowError", "returned"]
    assert out[16:20] == ["raised ValueError"] * 4
    assert out[20:22] == ["raised OverflowError"] * 2
    assert out[22:25] == ["raised ValueError"] * 3
    assert out[25] == "[256, 32, 256] 0"


def test_one_encoder_shared_by_threads():
    """Calls share nothing but the piece cache, behind a lock (kernel.h, "Threads"): threads encoding
    with one Encoder while another clears its cache get what one thread alone gets."""
    out = _run("""
        import threading
        from tokenizer_core.bpe.kernel import kernel_encoder
        from tokenizer_core.io.references import load_reference
        from tests._texts import real_lines
        tok = load_reference("gpt2")
        enc = kernel_encoder(tok.pre_tokenizer, tok.model)
        texts = ["\\n".join(real_lines(400)[i::4]) + " naïve 中文 😀" * i for i in range(4)]
        alone = [enc.encode(t, 0, 0) for t in texts]
        got, stop = {}, threading.Event()
        def work(i):
            for _ in range(5):
                got.setdefault(i, []).append(enc.encode(texts[i], 0, 0) == alone[i])
        def clear():
            while not stop.is_set():
                enc.clear_cache()
        cleaner = threading.Thread(target=clear)
        cleaner.start()
        threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
        for t in threads: t.start()
        for t in threads: t.join()
        stop.set(); cleaner.join()
        print(sorted(got), all(all(v) for v in got.values()))
    """)
    assert out == ["[0, 1, 2, 3] True"]


def test_piece_counter_merge_refuses_what_it_cannot_merge():
    out = _run("""
        c = k.PieceCounter(class_table(), k.SPLIT_GPT2)
        c.add("a b", False)
        expect(c.merge, c)                                              # itself
        expect(c.merge, k.PieceCounter(class_table(), k.SPLIT_WHITESPACE))  # another split
        expect(c.merge, k.PieceCounter.__new__(k.PieceCounter))         # not initialised
        expect(c.merge, "a b")
        d = k.PieceCounter(class_table(), k.SPLIT_GPT2)
        d.add(" b c", False)
        c.merge(d)
        print(c.counts(), d.counts())
    """)
    assert out == ["raised ValueError", "raised ValueError", "raised RuntimeError", "raised TypeError",
                   "{'a': 1, ' b': 2, ' c': 1} {' b': 1, ' c': 1}"]


def test_piece_counter_counts_without_the_gil():
    """add() lets other threads run while it counts (threads count chunks at once): the main thread
    keeps running Python code in the middle of a long add() on another thread. Were the GIL held,
    no main-thread step could fall inside the call."""
    out = _run("""
        import threading, time
        text = "the quick brown fox jumps over the lazy dog 1234\\n" * 400_000  # 19 MB
        c = k.PieceCounter(class_table(), k.SPLIT_GPT2)
        span = {}
        def work():
            span["start"] = time.perf_counter()
            c.add(text, True)
            span["end"] = time.perf_counter()
        steps = []
        t = threading.Thread(target=work)
        t.start()
        while t.is_alive():
            steps.append(time.perf_counter())
        t.join()
        a, b = span["start"], span["end"]
        inside = [s for s in steps if a + 0.25 * (b - a) < s < a + 0.75 * (b - a)]
        print(len(inside) > 0, c.counts()[" fox"])
    """)
    assert out == ["True 400000"]


def test_word_set_counts_distinct_words():
    out = _run("""
        w = k.WordSet(class_table())
        print(w.add("the cat  the\\tdog\\n"), w.add("cat naïve 中文 naïve"), w.distinct())
        expect(w.add, b"bytes")
        expect(k.WordSet, b"short")
        expect(w.__init__, class_table())
    """)
    assert out == ["3 5 5", "raised TypeError", "raised ValueError", "raised RuntimeError"]
