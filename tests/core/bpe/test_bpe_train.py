"""BPE trainer: golden examples from the literature, trace properties, options, parity with tokenizers."""

from __future__ import annotations

import json
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tokenizers import Tokenizer as HFTokenizer
from tokenizers import models as hf_models
from tokenizers import normalizers as hf_normalizers
from tokenizers import pre_tokenizers as hf_pre
from tokenizers import trainers as hf_trainers

from tests._builders import train_bpe
from tokenizer_core.bpe.trainer import count_words, train_bpe_counts
from tokenizer_core.corpus.loading import load_sample
from tokenizer_core.errors import TokenizerError
from tokenizer_core.options import BpeOptions, TrainOptions
from tokenizer_core.text.normalizers import Lowercase
from tokenizer_core.text.pre_tokenizers import ByteLevel, Whitespace
from tokenizer_core.training import train

SPECIALS = ("[PAD]", "[UNK]", "[BOS]", "[EOS]")


# ----------------------------------------------------------------------------- helpers


def hf_train(items, *, byte_level: bool, pre=None, lowercase: bool = False, **kw) -> tuple[list[tuple[str, str]], dict[str, int]]:
    """Train tokenizers' BpeTrainer on an iterator of texts; return (merges, vocab)."""
    tok = HFTokenizer(hf_models.BPE())
    if lowercase:
        tok.normalizer = hf_normalizers.Lowercase()
    if byte_level:
        tok.pre_tokenizer = hf_pre.ByteLevel(add_prefix_space=False)
        kw.setdefault("initial_alphabet", hf_pre.ByteLevel.alphabet())
    else:
        tok.pre_tokenizer = pre if pre is not None else hf_pre.Whitespace()
    tok.train_from_iterator(items, hf_trainers.BpeTrainer(show_progress=False, **kw))
    model = json.loads(tok.to_str())["model"]
    merges = [tuple(m) if isinstance(m, list) else tuple(m.split(" ")) for m in model["merges"]]
    return merges, model["vocab"]


def keep_last(merges: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """tokenizers keeps merges in a map, so a pair merged twice is saved once, at its last rank."""
    last = {p: i for i, p in enumerate(merges)}
    return [p for i, p in enumerate(merges) if last[p] == i]


def word_items(counts: dict[str, int]) -> list[str]:
    return [w for w, c in counts.items() for _ in range(c)]


def lines_of(name: str) -> list[str]:
    return list(load_sample(name).lines())


# ----------------------------------------------------------------------------- golden examples


def test_wikipedia_aaabdaaabac():
    counts = load_sample("wikipedia-aaabdaaabac").word_counts
    r = train_bpe_counts(counts, num_merges=3, special_tokens=())
    # Wikipedia: aa -> Z, then ab -> Y, then ZY -> X, giving "XdXac".
    assert r.merges == [("a", "a"), ("a", "b"), ("aa", "ab")]
    assert r.trace.segment("aaabdaaabac", 3) == ["aaab", "d", "aaab", "a", "c"]
    assert r.trace.compression_curve() == [11, 9, 7, 5]
    # After "aa" both "aa a" and "a b" occur twice: the tie is recorded and broken by ids.
    assert r.trace[1].tie and r.trace[1].runner_ups[0].count == 2
    assert [u.left + u.right for u in r.trace[1].runner_ups[:1]] == ["aaa"]
    assert r.model.segment("aaabdaaabac") == ["aaab", "d", "aaab", "a", "c"]


def test_sennrich_algorithm_1_merge_sequence():
    counts = load_sample("sennrich-low-lower-newest-widest").word_counts
    # Algorithm 1 of Sennrich et al. (2016): "</w>" is a symbol of its own and ties go to
    # the pair seen first (Python dict order); the paper's code prints these 10 merges.
    r = train_bpe_counts(counts, num_merges=10, special_tokens=(), end_of_word_suffix="</w>",
                         suffix_as_symbol=True, tie_break="first")
    assert r.merges == [
        ("e", "s"), ("es", "t"), ("est", "</w>"), ("l", "o"), ("lo", "w"),
        ("n", "e"), ("ne", "w"), ("new", "est</w>"), ("low", "</w>"), ("w", "i"),
    ]
    assert r.trace.segment("lowest", 10) == ["low", "est</w>"]
    assert r.model.segment("newest") == ["newest</w>"]


def test_sennrich_subword_nmt_style_matches_tokenizers():
    counts = load_sample("sennrich-low-lower-newest-widest").word_counts
    r = train_bpe_counts(counts, vocab_size=30, special_tokens=(), end_of_word_suffix="</w>")
    merges, vocab = hf_train(word_items(counts), byte_level=False, vocab_size=30, end_of_word_suffix="</w>")
    assert r.merges == merges
    assert r.merges[:3] == [("e", "s"), ("es", "t</w>"), ("l", "o")]
    assert set(r.vocab) == set(vocab)


def test_hugging_face_course_hug_pug():
    counts = load_sample("hf-course-hug-pug").word_counts
    r = train_bpe_counts(counts, vocab_size=10, special_tokens=())
    # The course: u g -> ug (20), u n -> un (16), h ug -> hug (15).
    assert r.merges == [("u", "g"), ("u", "n"), ("h", "ug")]
    assert [rec.count for rec in r.trace] == [20, 16, 15]
    assert list(r.vocab) == ["b", "g", "h", "n", "p", "s", "u", "ug", "un", "hug"]
    assert r.trace.segment("hugs", 3) == ["hug", "s"]
    assert r.trace.segment("bug", 1) == ["b", "ug"]


# ----------------------------------------------------------------------------- ids, options, stops


def test_ids_specials_then_sorted_alphabet_then_merges():
    r = train_bpe_counts({"ba": 3, "ca": 2}, vocab_size=20, special_tokens=("[PAD]", "[UNK]"))
    assert list(r.vocab.items())[:5] == [("[PAD]", 0), ("[UNK]", 1), ("a", 2), ("b", 3), ("c", 4)]
    assert r.vocab["ba"] == 5 and r.vocab["ca"] == 6


def test_stop_reasons():
    r = train_bpe_counts({"ab": 2}, vocab_size=100, special_tokens=())
    assert r.merges == [("a", "b")]
    assert "no pairs left" in r.trace.stop_reason
    r = train_bpe_counts({"ab": 1, "cd": 3}, vocab_size=100, min_frequency=2, special_tokens=())
    assert r.merges == [("c", "d")]
    assert "min_frequency 2" in r.trace.stop_reason and "occurs 1 times" in r.trace.stop_reason
    r = train_bpe_counts({"abcd": 1}, num_merges=2, special_tokens=())
    assert len(r.merges) == 2 and r.trace.stop_reason == "reached num_merges 2"
    r = train_bpe_counts({"abcd": 1}, vocab_size=6, special_tokens=())
    assert len(r.vocab) == 6 and r.trace.stop_reason == "reached vocab_size 6"
    r = train_bpe_counts({"abcd": 1}, vocab_size=3, special_tokens=())
    assert r.merges == [] and len(r.vocab) == 4 and "raise vocab_size" in r.trace.stop_reason


def test_limit_alphabet_and_initial_alphabet():
    counts = {"aaab": 5, "cc": 1, "dd": 1}
    r = train_bpe_counts(counts, vocab_size=50, limit_alphabet=2, special_tokens=())
    # keep a (15) and b (5); c and d tie at 2, both dropped; dropped characters vanish from words
    assert r.trace.alphabet == ["a", "b"]
    assert "cc" not in r.vocab
    r = train_bpe_counts(counts, num_merges=0, initial_alphabet=["z"], limit_alphabet=3, special_tokens=())
    assert "z" in r.trace.alphabet and "a" in r.trace.alphabet


def test_continuing_subword_prefix_matches_tokenizers():
    counts = {"hugs": 5, "hug": 10, "pugs": 4, "bun": 3}
    r = train_bpe_counts(counts, vocab_size=25, special_tokens=(), continuing_subword_prefix="##")
    merges, vocab = hf_train(word_items(counts), byte_level=False, vocab_size=25, continuing_subword_prefix="##")
    assert r.merges == merges
    assert set(r.vocab) == set(vocab)
    assert r.model.segment("hugs") == [t for t in r.model.segment("hugs")]  # decorated symbols are in vocab
    assert all(t.startswith("##") for t in r.model.segment("hugs")[1:])


def test_validation_errors_say_how_to_fix():
    with pytest.raises(TokenizerError, match="vocab_size"):
        train_bpe_counts({"a": 1}, vocab_size=0)
    with pytest.raises(TokenizerError, match="word counts"):
        train_bpe_counts({"a": -1})
    with pytest.raises(TokenizerError, match="strings"):
        train_bpe_counts({1: 2})  # type: ignore[dict-item]
    with pytest.raises(TokenizerError, match="tie_break"):
        train_bpe_counts({"a": 1}, tie_break="random")
    with pytest.raises(TokenizerError, match="suffix"):
        train_bpe_counts({"a": 1}, suffix_as_symbol=True)
    with pytest.raises(TokenizerError, match="no words"):
        train_bpe(["   \n"], options=TrainOptions(vocab_size=10))


def test_progress_is_reported():
    calls = []
    train_bpe_counts({"abcdef": 3, "abd": 2}, num_merges=4, progress=lambda d, t, m: calls.append((d, t, m)))
    assert calls[0][0] == 0 and calls[-1] == (4, 4, "done")
    assert all(t == 4 for _, t, _ in calls)


# ----------------------------------------------------------------------------- trace properties


@pytest.fixture(scope="module")
def multilingual_trace():
    counts = count_words(lines_of("multilingual"), pre_tokenizer=Whitespace())
    return counts, train_bpe_counts(counts, vocab_size=600, special_tokens=SPECIALS, top_k=5)


def test_trace_compression_curve_matches_segmentations(multilingual_trace):
    counts, r = multilingual_trace
    trace = r.trace
    assert len(trace) == len(r.merges) > 100
    for step in sorted({0, 1, 2, 7, 50, len(trace) // 2, len(trace)}):
        total = sum(c * len(trace.segment(w, step)) for w, c in counts.items())
        assert total == trace.tokens_at(step) == trace.compression_curve()[step]


def test_trace_records_are_consistent(multilingual_trace):
    _, r = multilingual_trace
    previous = None
    for rec in r.trace:
        assert (rec.left, rec.right) == r.merges[rec.step - 1]
        assert r.vocab[rec.token] == rec.token_id
        assert len(rec.runner_ups) <= 5
        assert all(u.count <= rec.count for u in rec.runner_ups)
        assert [u.count for u in rec.runner_ups] == sorted((u.count for u in rec.runner_ups), reverse=True)
        assert rec.tie == bool(rec.runner_ups and rec.runner_ups[0].count == rec.count)
        assert bool(rec.tie_break) == rec.tie
        if previous is not None:
            assert rec.count <= previous.count  # BPE merge counts never increase
            assert rec.tokens_after == previous.tokens_after - rec.count * 1 or rec.tokens_after < previous.tokens_after
        previous = rec
    assert r.trace.ties() and all(t.tie for t in r.trace.ties())
    row = r.trace.table(start=0, stop=1)[0]
    assert row["pair"] == list(r.merges[0]) and row["step"] == 1


def test_trace_runner_ups_are_the_true_next_best():
    counts = {"abab": 3, "cdcd": 2, "efg": 2, "hi": 1}
    r = train_bpe_counts(counts, num_merges=1, special_tokens=(), top_k=3)
    rec = r.trace[0]
    # windows: ab 6, ba 3, cd 4, dc 2, ef 2, fg 2, hi 1
    assert (rec.left, rec.right, rec.count) == ("a", "b", 6)
    assert [(u.left + u.right, u.count) for u in rec.runner_ups] == [("cd", 4), ("ba", 3), ("dc", 2)]


def test_trace_step_bounds():
    r = train_bpe_counts({"abc": 2}, num_merges=2, special_tokens=())
    with pytest.raises(TokenizerError, match="between 0 and 2"):
        r.trace.segment("abc", 3)
    assert r.trace.segment("abc", 0) == ["a", "b", "c"]
    assert r.trace.top_words(1) == [("abc", 2)]


# ----------------------------------------------------------------------------- word counting


def test_byte_level_counting_matches_the_pre_tokenizer_line_by_line():
    lines = lines_of("multilingual") + ["a  \n", "  b\n", "\n", "x \t\n", "  \n", "tail  "]
    expected: Counter[str] = Counter()
    for line in lines:
        expected.update(w for w, _ in hf_pre.ByteLevel(add_prefix_space=False).pre_tokenize_str(line))
    assert count_words(lines, pre_tokenizer=ByteLevel(), workers=1) == expected


def test_parallel_counting_equals_serial(monkeypatch):
    import tokenizer_core.text.counting as bt
    import tokenizer_core.text.line_chunks as chunks

    monkeypatch.setattr(chunks, "CHUNK_CHARS", 2000)
    monkeypatch.setattr(bt, "_PARALLEL_AFTER_CHARS", 4000)
    lines = lines_of("default")[:800]
    for pre in (ByteLevel(), Whitespace()):
        serial = count_words(lines, pre_tokenizer=pre, workers=1)
        parallel = count_words(lines, pre_tokenizer=pre, workers=2)
        assert parallel == serial and sum(serial.values()) > 5_000
    expected: Counter[str] = Counter()
    for line in lines:
        expected.update(Whitespace().words(line.lower()))
    assert count_words(lines, normalizer=Lowercase(), pre_tokenizer=Whitespace(), workers=2) == expected


# ----------------------------------------------------------------------------- parity with tokenizers


@pytest.fixture(scope="module")
def default_lines() -> list[str]:
    return lines_of("default")


@pytest.mark.parametrize("vocab_size", [1000, 8000])
@pytest.mark.parametrize("byte_level", [True, False])
def test_parity_default_corpus(default_lines, vocab_size, byte_level):
    tok, r = train_bpe(default_lines, options=TrainOptions(vocab_size=vocab_size, byte_level=byte_level))
    merges, vocab = hf_train(default_lines, byte_level=byte_level, vocab_size=vocab_size, special_tokens=list(SPECIALS))
    assert keep_last(r.merges) == merges
    assert r.vocab == vocab
    assert len(r.vocab) == vocab_size


@pytest.mark.parametrize("vocab_size", [1000, 8000])
@pytest.mark.parametrize("byte_level", [True, False])
def test_parity_multilingual(vocab_size, byte_level):
    lines = lines_of("multilingual")
    tok, r = train_bpe(lines, options=TrainOptions(vocab_size=vocab_size, byte_level=byte_level))
    merges, vocab = hf_train(lines, byte_level=byte_level, vocab_size=vocab_size, special_tokens=list(SPECIALS))
    assert keep_last(r.merges) == merges
    assert r.vocab == vocab
    if vocab_size == 8000:  # the sample is small: both stop when no pair is left
        assert len(r.vocab) < 8000 and "no pairs left" in r.trace.stop_reason


def test_parity_min_frequency_and_limit_alphabet():
    lines = lines_of("multilingual")
    # 52 characters occur 4+ times and the 53rd 3 times: no tie at the cut (tokenizers breaks
    # such ties in hash-map order).
    tok, r = train_bpe(lines, options=TrainOptions(vocab_size=2000, min_frequency=3, limit_alphabet=52))
    merges, vocab = hf_train(lines, byte_level=False, vocab_size=2000, min_frequency=3, limit_alphabet=52,
                             special_tokens=list(SPECIALS))
    assert len(r.trace.alphabet) == 52
    assert r.merges == merges
    assert set(r.vocab) == set(vocab)


@pytest.mark.parametrize("byte_level", [True, False])
def test_parity_lowercase(byte_level):
    lines = lines_of("multilingual") + ["ΟΔΟΣ ΣΟΦΙΑΣ Σ\n", "İSTANBUL ǅ\n"] * 3
    tok, r = train_bpe(lines, options=TrainOptions(vocab_size=900, byte_level=byte_level, lowercase=True))
    merges, vocab = hf_train(lines, byte_level=byte_level, lowercase=True, vocab_size=900,
                             special_tokens=list(SPECIALS))
    assert r.merges == merges and r.vocab == vocab


words = st.text(alphabet="abcde", min_size=1, max_size=7)


@settings(max_examples=60, deadline=None)
@given(st.dictionaries(words, st.integers(1, 6), min_size=1, max_size=12), st.integers(6, 40))
def test_parity_random_word_counts(counts, vocab_size):
    r = train_bpe_counts(counts, vocab_size=vocab_size, special_tokens=())
    merges, vocab = hf_train(word_items(counts), byte_level=False, vocab_size=vocab_size, pre=hf_pre.WhitespaceSplit())
    assert keep_last(r.merges) == merges
    assert r.vocab == vocab


# ----------------------------------------------------------------------------- the registered trainer


def test_registered_trainer_builds_a_working_tokenizer():
    lines = lines_of("multilingual")
    tok = train("bpe", lines, options=TrainOptions(vocab_size=500, byte_level=True))
    assert tok.model.training_trace is not None and tok.metadata["trainer"] == "bpe"
    text = "Le petit café 😀 naïve"
    assert tok.decode(tok.encode(text).ids) == text
    tok = train("bpe", lines, options=TrainOptions(vocab_size=500, end_of_word_suffix="</w>"))
    assert tok.decode(tok.encode("le petit café").ids) == "le petit café"
    assert tok.encode("zzzqqq ☃").tokens[-1] == "[UNK]"


@pytest.mark.parametrize(
    "options",
    [
        {"end_of_word_suffix": "</w>"},
        {"continuing_subword_prefix": "##"},
        {"pre_tokenizer": "metaspace"},
        {"lowercase": True, "pre_tokenizer": "bert"},
    ],
)
def test_exported_char_level_tokenizers_encode_identically(options, tmp_path):
    lines = lines_of("multilingual")
    tok = train("bpe", lines, options=TrainOptions(vocab_size=700, **options))
    path = tmp_path / "tokenizer.json"
    tok.save_hf(path)
    hf = HFTokenizer.from_file(str(path))
    for line in lines + ["unseen ☃ wörds zzz", "Ünïcödé ΟΔΟΣ"]:
        assert hf.encode(line, add_special_tokens=False).tokens == tok.encode(line).tokens, line
        assert hf.encode(line, add_special_tokens=False).ids == tok.encode(line).ids, line


def test_bpe_options_reach_the_trainer():
    lines = ["low " * 5 + "lower " * 2 + "newest " * 6 + "widest " * 3 + "\n"]
    opts = TrainOptions(num_merges=3, end_of_word_suffix="</w>", bpe=BpeOptions(tie_break="first", suffix_as_symbol=True))
    tok = train("bpe", lines, options=opts)
    assert tok.model.merges == [("e", "s"), ("es", "t"), ("est", "</w>")]
    assert tok.decode(tok.encode("lowest newest").ids) == "lowest newest"


@pytest.fixture(scope="module")
def small_byte_level():
    return train("bpe", lines_of("multilingual"), options=TrainOptions(vocab_size=700, byte_level=True))


@settings(max_examples=100, deadline=None)
@given(st.text(max_size=80))
def test_trained_byte_level_round_trips_any_text(small_byte_level, text):
    enc = small_byte_level.encode(text)
    assert small_byte_level.decode(enc.ids, skip_special_tokens=False) == text
    assert all(small_byte_level.id_to_token(i) == t for i, t in zip(enc.ids, enc.tokens))


def test_long_word_segmentations_are_remembered_and_stay_right():
    long_word = "ab" * 800 + "x" * 700
    result = train_bpe_counts({long_word: 1, "abab": 5}, num_merges=12, special_tokens=())
    trace, model = result.trace, result.model
    for step in (0, 3, 12, 3):
        first = trace.segment(long_word, step)
        again = trace.segment(long_word, step)
        assert first == again == model.segment(long_word, max_rank=step)
        again.append("mutating the copy")  # callers get a fresh list every time
        assert trace.segment(long_word, step) == first
