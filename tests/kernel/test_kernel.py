"""The compiled kernel (kernels/, ``tokenizer_kernel``) against the pure-Python reference path.

Pieces against the ``regex`` module's own matches; tokens of one piece against
:meth:`BPE.tokenize`; whole encodings and batches against the general pipeline path that
``explain`` walks, field for field. The kernel is part of the install (requirements.txt), so
these tests also fail when it did not build.
"""

from __future__ import annotations

import dataclasses
import os
import random
import subprocess
import sys
from functools import lru_cache

import pytest
import regex
from hypothesis import given, settings
from hypothesis import strategies as st

from tests._builders import train_bpe
from tests._paths import ROOT
from tests._texts import TRICKY, real_lines
from tokenizer_core.batch.batching import PaddingParams, TruncationParams
from tokenizer_core.bpe import kernel
from tokenizer_core.bpe.model import BPE
from tokenizer_core.bpe.options import BpeModelOptions
from tokenizer_core.corpus.loading import load_sample
from tokenizer_core.io.references import load_reference, load_reference_encoder
from tokenizer_core.options import TrainOptions
from tokenizer_core.pipeline import Tokenizer, _guarded
from tokenizer_core.text.added_vocabulary import AddedToken
from tokenizer_core.text.byte_level import CL100K_PATTERN, GPT2_PATTERN, ByteLevel, bytes_to_symbols

# Characters where the two split patterns differ or are easy to get wrong: every class, the
# case-insensitive contraction letters (ſ folds to s), spaces that are not \s (U+200B, U+001C),
# line breaks, combining marks, digits of other scripts, astral characters.
NASTY = list("aZſSsTtDdMmLlVvEeRrk'’ \t\n\r\x0b\x0c\x1c\x85\u00a0\u2028\u3000\u200b0179²٣Ⅻ.,!?-_\"#$%&()*/:;<=>@[]^`{|}~")
NASTY += ["é", "e\u0301", "中", "文", "😀", "𝔸", "\U0001F600", "ß", "İ", "ǅ", "ʰ", "\u0903"]
nasty_text = st.lists(st.sampled_from(NASTY), max_size=60).map("".join)


def _fields(enc):
    return {f.name: getattr(enc, f.name) for f in dataclasses.fields(enc)}


def _general(tok, text, *, split_special=True, sequence_id=0):
    """The reference: the general path, piece by piece, with the pipeline's input checks."""
    return _guarded(tok._trace_text, text, split_special=split_special, sampling=None, sequence_id=sequence_id)[1]


def _kernel_of(tok):
    fast = tok._fast.get(tok.normalizer, tok.pre_tokenizer, tok.model)
    assert fast is not None and fast.kernel is not None
    return fast.kernel


@pytest.fixture(scope="module")
def multilingual():
    return list(load_sample("multilingual").lines())


@pytest.fixture(scope="module")
def trained():
    tok, _ = train_bpe(real_lines(400), options=TrainOptions(vocab_size=500, byte_level=True))
    return tok


def test_the_kernel_is_built_and_used():
    assert kernel.available(), "tokenizer_kernel did not build: pip install . (needs gcc)"
    for name in ("gpt2", "cl100k_base"):
        _kernel_of(load_reference(name))
        assert load_reference_encoder(name).kernel is not None


def test_pure_switch_turns_the_kernel_off():
    code = ("from tokenizer_core.bpe import kernel; from tokenizer_core.io.references import load_reference;"
            "t = load_reference('gpt2'); f = t._fast.get(t.normalizer, t.pre_tokenizer, t.model);"
            "print(kernel.available(), f.kernel is None, t.encode('Hello there').ids)")
    out = subprocess.run([sys.executable, "-c", code], env={**os.environ, "TOKENIZER_CORE_PURE": "1"},
                         capture_output=True, text=True, check=True).stdout.split(maxsplit=2)
    assert out[:2] == ["False", "True"]
    assert out[2].strip() == str(load_reference("gpt2").encode("Hello there").ids)


def test_class_table_agrees_with_regex_one_character_at_a_time():
    table = kernel.class_table()
    rng = random.Random(7)
    points = [*range(0, 0x3000), *rng.sample(range(0x3000, 0x110000), 20_000)]
    classes = [(r"\p{L}", 1), (r"\p{N}", 2), (r"\s", 4)]
    for cp in points:
        ch = chr(cp)
        found = [code for pattern, code in classes if regex.fullmatch(pattern, ch)]
        assert len(found) <= 1, hex(cp)  # the classes are disjoint, as the C scanner assumes
        assert table[cp] & 7 == (found[0] if found else 0), hex(cp)


@pytest.mark.parametrize("pattern", [GPT2_PATTERN, CL100K_PATTERN])
def test_pieces_equal_the_regex_module_on_text(pattern, multilingual):
    enc = kernel.kernel_encoder(ByteLevel(pattern=pattern), load_reference("gpt2").model)
    for text in [*TRICKY, *real_lines(300), *multilingual, "\n".join(multilingual), "x" * 5000, " " * 7 + "\n\n a"]:
        assert enc.split(text) == regex.findall(pattern, text), text


@lru_cache(maxsize=2)
def _splitter(pattern: str):
    return kernel.kernel_encoder(ByteLevel(pattern=pattern), load_reference("gpt2").model)


@settings(max_examples=400, deadline=None, derandomize=True)
@given(text=nasty_text)
def test_pieces_equal_the_regex_module_on_nasty_text(text):
    for pattern in (GPT2_PATTERN, CL100K_PATTERN):
        assert _splitter(pattern).split(text) == regex.findall(pattern, text)


@settings(max_examples=200, deadline=None, derandomize=True)
@given(text=st.text(max_size=40))
def test_pieces_equal_the_regex_module_on_any_text(text):
    for pattern in (GPT2_PATTERN, CL100K_PATTERN):
        assert _splitter(pattern).split(text) == regex.findall(pattern, text)


def _reference_ids(model: BPE, data: bytes) -> list[int]:
    return [t.id for t in model._encode(bytes_to_symbols(data))]


@pytest.mark.parametrize("name", ["gpt2", "cl100k_base"])
def test_piece_tokens_equal_the_python_model(name):
    """Short pieces (the scan) and long ones (the heap), merge ranks by list (GPT-2) and by token (cl100k)."""
    tok = load_reference(name)
    enc = _kernel_of(tok)
    rng = random.Random(3)
    alphabet = b"aaabbbc xyz\n\xc3\xa9\xe4\xb8\xad"
    pieces = [bytes(rng.choice(alphabet) for _ in range(rng.randint(1, n))) for n in (4, 12, 47, 48, 49, 120, 700)
              for _ in range(40)]
    pieces += [b"x" * 5000, b"ab" * 3000, " lowest newest widest".encode(), "naïve 中文 😀".encode()]
    for data in pieces:
        assert enc.encode_piece(data) == _reference_ids(tok.model, data), data[:40]


def test_trained_model_and_ignore_merges(trained):
    model = trained.model
    whole = BPE(model.get_vocab(), model.merges, options=BpeModelOptions(ignore_merges=True))
    for m in (model, whole):
        enc = kernel.kernel_encoder(trained.pre_tokenizer, m)
        assert enc is not None
        for word in ["the", " the", " lowest", "zzzqqq", " international", "x" * 300, "é中"]:
            data = word.encode()
            assert enc.encode_piece(data) == _reference_ids(m, data), word


@pytest.mark.parametrize("name", ["gpt2", "cl100k_base"])
def test_whole_encodings_equal_the_general_path(name, multilingual):
    tok = load_reference(name)
    big = "\n".join([*real_lines(500), *multilingual, "x" * 3000, "naïve café ﬁ 中文 😀 " * 20])
    for text in [*TRICKY, big, "a\ud800b", "<|endoftext|>Hi<|endoftext|> there"]:
        assert _fields(tok.encode_sequence(text)) == _fields(_general(tok, text)), text[:60]
        assert _fields(tok.encode_sequence(text, sequence_id=1)) == _fields(_general(tok, text, sequence_id=1))


@settings(max_examples=150, deadline=None, derandomize=True)
@given(text=nasty_text)
def test_nasty_text_encodes_as_the_general_path(text):
    for name in ("gpt2", "cl100k_base"):
        tok = load_reference(name)
        assert _fields(tok.encode_sequence(text)) == _fields(_general(tok, text)), text


def test_added_tokens_between_kernel_segments(trained):
    tok = Tokenizer(trained.model, pre_tokenizer=trained.pre_tokenizer, decoder=trained.decoder,
                    added_tokens=[AddedToken("New World", normalized=True), AddedToken("[MASK]", special=True),
                                  AddedToken(" pad", lstrip=True, rstrip=True)])
    _kernel_of(tok)
    for text in ["a New World [MASK] of pad  pad naïve", "[MASK]é[MASK]", *TRICKY]:
        for split in (True, False):
            assert _fields(tok.encode_sequence(text, split_special_tokens=split)) == \
                _fields(_general(tok, text, split_special=split)), text


def _slot_set(obj, name: str) -> bool:
    from tokenizer_core.types import Encoding

    try:
        getattr(Encoding, name).__get__(obj)
        return True
    except AttributeError:
        return False


def test_batches_equal_one_text_at_a_time(multilingual):
    tok = load_reference("gpt2")
    texts = [*real_lines(300), *multilingual, "", " ", "x" * 2000]
    batch = tok.encode_batch(texts)
    # The kernel's rows hold packed columns: no list exists (nothing for the cyclic GC to walk) until read.
    first = batch.encodings[0]
    assert type(first).__name__ == "PackedEncoding" and len(first) == len(_general(tok, texts[0]).ids)
    assert not any(_slot_set(first, name) for name in ("ids", "tokens", "offsets", "word_ids"))
    assert [_fields(e) for e in batch.encodings] == [_fields(_general(tok, t)) for t in texts]
    # Read once, they are ordinary lists, for padding and truncation too.
    assert type(first.ids) is list and first.ids is first.ids
    padded = tok.encode_batch(texts[:20], padding=PaddingParams(strategy="longest"),
                              truncation=TruncationParams(max_length=12))
    one_by_one = [tok.encode(t, truncation=TruncationParams(max_length=12)) for t in texts[:20]]
    assert [e.ids[:len(o.ids)] for e, o in zip(padded.encodings, one_by_one)] == [o.ids for o in one_by_one]
    assert len({len(e.ids) for e in padded.encodings}) == 1


def test_batches_with_added_tokens_surrogates_and_bad_input():
    tok = load_reference("gpt2")
    texts = ["plain", "Hi<|endoftext|>there", "a\ud800b", "naïve"]
    batch = tok.encode_batch(texts)
    assert [_fields(e) for e in batch.encodings] == [_fields(_general(tok, t)) for t in texts]
    with pytest.raises(Exception, match="can only encode text"):
        tok.encode_batch(["fine", 3])  # type: ignore[list-item]


def test_the_cache_changes_nothing():
    tok = load_reference("cl100k_base")
    enc = _kernel_of(tok)
    text = "\n".join(real_lines(200))
    first = tok.encode(text)
    assert enc.cache_size() > 0
    again = tok.encode(text)  # every piece from the cache
    enc.clear_cache()
    assert enc.cache_size() == 0
    assert _fields(first) == _fields(again) == _fields(tok.encode(text))


def test_ids_path_equals_pipeline_ids(multilingual):
    text = "\n".join([*real_lines(300), *multilingual, "a\udfffb"])
    for name in ("gpt2", "cl100k_base"):
        assert load_reference_encoder(name).encode_ordinary(text) == load_reference(name).encode(text).ids


# ----------------------------------------------------------------------------- training


def _runs(words, counts, alphabet, **how):
    """run_merges through the kernel and through the Python loop (same inputs, fresh copies)."""
    from tokenizer_core.bpe import merge_engines, merge_loop
    from tokenizer_core.bpe.symbols import SymbolTable

    out = []
    for native in (True, False):
        table = SymbolTable(alphabet)
        saved = merge_engines.available
        merge_engines.available = (lambda: True) if native else (lambda: False)
        try:
            engine = merge_engines.choose_engine([], [], shift=20, tie_break="ids", top_k=how.get("top_k", 0))
            assert isinstance(engine, merge_engines.KernelEngine) == native  # the run below takes this engine
            run = merge_loop.run_merges([list(w) for w in words], list(counts), table, shift=20, **how)
        finally:
            merge_engines.available = saved
        out.append((run.merges, run.steps, run.initial_tokens, run.stop_reason, table.id_to_tok))
    return out


def _as_ids(word_counts, alphabet):
    ids = {c: i for i, c in enumerate(alphabet)}
    return [[ids[c] for c in w] for w in word_counts], list(word_counts.values())


@pytest.mark.parametrize("how", [dict(vocab_size=600), dict(num_merges=150, min_frequency=3), dict(vocab_size=5000),
                                 dict(num_merges=40, prefix="##"), dict(vocab_size=800, top_k=10),
                                 dict(num_merges=300, top_k=1), dict(num_merges=60, prefix="##", top_k=4)])
def test_merge_loop_runs_the_same_steps(how, multilingual):
    from collections import Counter

    word_counts = Counter(w for line in [*real_lines(800), *multilingual] for w in line.split())
    if how.get("prefix"):
        # WordPiece-style symbols: merges can spell a token that exists already (its id is reused).
        spelled = {w: [w[0], *("##" + c for c in w[1:])] for w in word_counts}
        alphabet = sorted({s for syms in spelled.values() for s in syms})
        ids = {s: i for i, s in enumerate(alphabet)}
        words, counts = [[ids[s] for s in spelled[w]] for w in word_counts], list(word_counts.values())
    else:
        alphabet = sorted({c for w in word_counts for c in w})
        words, counts = _as_ids(word_counts, alphabet)
    kernel_run, python_run = _runs(words, counts, alphabet, **how)
    assert kernel_run == python_run
    assert len(kernel_run[0]) > 30


@settings(max_examples=120, deadline=None, derandomize=True)
@given(word_counts=st.dictionaries(st.text("abcab", min_size=1, max_size=9), st.integers(0, 6), max_size=25),
       merges=st.integers(0, 30), top_k=st.sampled_from([0, 0, 1, 3, 10]))
def test_merge_loop_on_tiny_corpora_with_ties_and_repeats(word_counts, merges, top_k):
    """Few letters: many tied counts, overlapping pairs (aaa, abab), zero counts, words of one symbol;
    runner-ups (top_k) as the Python queue's stash gives them, duplicate entries of a pair included."""
    alphabet = sorted({c for w in word_counts for c in w}) or ["a"]
    words, counts = _as_ids(word_counts, alphabet)
    kernel_run, python_run = _runs(words, counts, alphabet, num_merges=merges, top_k=top_k)
    assert kernel_run == python_run


def test_runner_ups_change_no_merge():
    from tokenizer_core.bpe.trainer import train_bpe_counts

    counts = {"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}
    with_runner_ups = train_bpe_counts(counts, vocab_size=12, top_k=3)
    without = train_bpe_counts(counts, vocab_size=12, top_k=0)
    assert with_runner_ups.merges == without.merges
    assert without.merges[:3] == [("u", "g"), ("u", "n"), ("h", "ug")]  # the worked example in train_bpe_counts


def test_the_class_table_is_cached_and_a_damaged_copy_is_rebuilt(tmp_path, monkeypatch):
    from tokenizer_core.kernel import native

    monkeypatch.setenv("TOKENIZER_PLAYGROUND_CACHE", str(tmp_path))
    fresh = native._build_class_table()
    native._class_table.cache_clear()
    try:
        assert native.class_table() == fresh
        saved = native._table_path()
        assert saved.is_file()
        saved.write_bytes(b"\xff" * len(saved.read_bytes()))  # same length, wrong content
        native._class_table.cache_clear()
        assert native.class_table() == fresh
        assert saved.read_bytes()[:0x110000] == fresh
        monkeypatch.setenv("TOKENIZER_PLAYGROUND_CACHE", str(tmp_path / "file" / "nested"))
        (tmp_path / "file").write_text("not a folder")  # the cache cannot be written: built all the same
        native._class_table.cache_clear()
        assert native.class_table() == fresh
    finally:
        native._class_table.cache_clear()


# ----------------------------------------------------------------------------- threads


def test_batches_on_threads_equal_one_thread(multilingual):
    """Windows of texts encoded on several threads without the GIL (issue 29): the same rows as one
    thread, across window boundaries (over 4,096 texts and over 2M characters)."""
    tok = load_reference("cl100k_base")
    enc = _kernel_of(tok)
    texts = [*real_lines(1500), *multilingual] * 4 + ["x" * 700_000, "naïve café 😀 " * 50_000, "", " "] * 2
    one = enc.encode_batch(texts, 0, threads=1)
    assert enc.encode_batch(texts, 0, threads=4) == one
    assert enc.encode_batch(texts, 1, threads=3) == [row[:3] + ([1] * len(row[0]),) + row[4:7] + ([1] * len(row[0]),)
                                                      for row in one]
    assert [e.ids for e in tok.encode_batch(texts[:300], threads=2).encodings] == [r[0] for r in one[:300]]


def test_a_batch_on_threads_raises_the_first_failing_texts_error():
    enc = _kernel_of(load_reference("gpt2"))
    texts = ["plain text " * 1000] * 50 + ["a\ud800b" * 2000] + ["more " * 1000] * 50
    for threads in (1, 4):
        with pytest.raises(UnicodeEncodeError):
            enc.encode_batch(texts, 0, threads=threads)
    with pytest.raises(TypeError):
        enc.encode_batch(["fine"] * 10 + [b"bytes"], 0, threads=2)
    with pytest.raises(ValueError):
        enc.encode_batch(["fine"], 0, threads=0)


def test_long_texts_encode_without_the_gil():
    """encode() of a long text lets other threads run meanwhile (a server's other sessions)."""
    code = """
import threading, time
from tokenizer_core.io.references import load_reference
tok = load_reference("gpt2")
enc = tok._fast.get(tok.normalizer, tok.pre_tokenizer, tok.model).kernel
text = "the quick brown fox jumps over the lazy dog " * 300_000
enc.encode_ids(text[:1000])
span, steps = {}, []
def work():
    span["a"] = time.perf_counter(); enc.encode_ids(text); span["b"] = time.perf_counter()
t = threading.Thread(target=work); t.start()
while t.is_alive():
    steps.append(time.perf_counter())
a, b = span["a"], span["b"]
print(any(a + 0.25 * (b - a) < s < a + 0.75 * (b - a) for s in steps))
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                         cwd=str(ROOT))
    assert out.stdout.strip() == "True", out.stderr[-2000:]


def test_batches_made_as_encoding_objects():
    """encode_batch(encoding=Encoding) fills the dataclass's slots directly: the same fields as the
    rows, a fresh "overflowing" list each, and a class without those slots is refused."""
    from tokenizer_core.types import Encoding

    enc = _kernel_of(load_reference("gpt2"))
    texts = [*real_lines(50), "", "naïve 😀"]
    rows = enc.encode_batch(texts, 1, threads=2)
    objects = enc.encode_batch(texts, 1, threads=2, encoding=Encoding)
    assert [type(o) for o in objects] == [Encoding] * len(texts)
    assert [dataclasses.astuple(o)[:8] for o in objects] == [tuple(r) for r in rows]
    assert objects[0].overflowing == [] and objects[0].overflowing is not objects[1].overflowing

    @dataclasses.dataclass
    class NoSlots:
        ids: list

    with pytest.raises((TypeError, AttributeError)):
        enc.encode_batch(texts, 0, encoding=NoSlots)
    with pytest.raises(TypeError):
        enc.encode_batch(texts, 0, encoding="Encoding")
