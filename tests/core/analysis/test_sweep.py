"""The vocabulary-size sweep: sizes read off one training equal separate trainings, exactly; held-out
scores equal encoding every line; cancelling; the helpers (split, log-spaced sizes, knee)."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tokenizer_core.analysis.compare import unk_id
from tokenizer_core.analysis.heldout import Heldout, _PrefixSegmenter
from tokenizer_core.analysis.metrics import compute_metrics
from tokenizer_core.analysis.prefixes import bpe_prefix_tokenizer, wordpiece_prefix_tokenizer
from tokenizer_core.analysis.sweep import SweepCancelled, SweepRow, knee, log_sizes, split_lines, sweep
from tokenizer_core.bpe.trainer import train_bpe
from tokenizer_core.corpus.loading import load_sample
from tokenizer_core.errors import TokenizerError
from tokenizer_core.options import BpeOptions, TrainOptions
from tokenizer_core.pipeline import Tokenizer
from tokenizer_core.training import train
from tokenizer_core.wordpiece.bert import train_bert_wordpiece


@pytest.fixture(scope="module")
def split():
    lines = list(load_sample("default").lines())[:2500]
    lines += list(load_sample("multilingual").lines())  # characters seen once: unknown when held out
    return split_lines(lines, heldout_fraction=0.15, seed=3)


def encoded(tok: Tokenizer, lines: list[str]):
    """Metrics of encoding every line, the slow way the sweep must agree with."""
    encs = [tok.encode(line, add_special_tokens=False) for line in lines]
    return compute_metrics(encs, lines, vocab_size=tok.vocab_size, unk_token=None, unk_id=unk_id(tok))


def assert_row_matches(row: SweepRow, tok: Tokenizer, heldout: list[str]) -> None:
    m = encoded(tok, heldout)
    assert row.vocab_size == tok.vocab_size
    assert row.heldout_tokens == m.tokens
    assert row.chars_per_token == m.chars_per_token
    assert row.fertility == m.fertility
    assert row.unk_rate == m.unk_rate
    assert row.utilization == m.vocab_usage
    assert row.embedding_params == tok.vocab_size * 768


BPE_SETUPS = {
    "char-level": (TrainOptions(), [60, 120, 300, 700, 1500]),
    "byte-level": (TrainOptions(byte_level=True, special_tokens=("<|endoftext|>",), unk_token=None),
                   [200, 300, 600, 1500]),
    "suffix, lowercase": (TrainOptions(end_of_word_suffix="</w>", lowercase=True), [100, 400, 1200]),
    "prefix, num_merges": (TrainOptions(continuing_subword_prefix="##", num_merges=500), [150, 400, 900]),
    "Sennrich, first-seen ties": (TrainOptions(end_of_word_suffix="</w>", bpe=BpeOptions(tie_break="first",
                                                                                      suffix_as_symbol=True)),
                                  [150, 500]),
}


@pytest.mark.parametrize("setup", list(BPE_SETUPS))
def test_bpe_sizes_equal_separate_trainings_exactly(split, setup):
    options, sizes = BPE_SETUPS[setup]
    train_lines, heldout = split
    rows = sweep("bpe", train_lines, heldout, sizes=sizes, options=options)
    assert [r.requested_size for r in rows] == sizes
    assert [r.derived for r in rows] == [True] * (len(sizes) - 1) + [False]
    parts, result = train_bpe(train_lines, options=replace(options, vocab_size=sizes[-1]))
    big = Tokenizer.from_parts(parts)
    for row, size in zip(rows, sizes):
        alone = train("bpe", train_lines, options=replace(options, vocab_size=size))
        assert_row_matches(row, alone, heldout)
        derived = bpe_prefix_tokenizer(big, result, size, num_merges=options.num_merges)
        assert derived.model.merges == alone.model.merges
        assert derived.get_vocab() == alone.get_vocab()


def test_a_merge_spelling_a_special_token_takes_no_new_id():
    # "ab" is a special token and also the first merge, which reuses its id: that merge adds
    # nothing to the vocabulary, so every size below must keep one more merge than it would
    # if each merge counted as a new token.
    lines = ["abx abx abx xab abab cd cd cdab\n"] * 3
    options = TrainOptions(special_tokens=("[UNK]", "ab"), unk_token="[UNK]")
    parts, result = train_bpe(lines, options=replace(options, vocab_size=14))
    assert result.merges[0] == ("a", "b") and result.trace.new_token_flags()[:2] == [False, True]
    big = Tokenizer.from_parts(parts)
    for size in range(6, 15):
        alone = train("bpe", lines, options=replace(options, vocab_size=size))
        derived = bpe_prefix_tokenizer(big, result, size)
        assert (derived.model.merges, derived.get_vocab()) == (alone.model.merges, alone.get_vocab()), size


def test_byte_level_sizes_below_the_alphabet_keep_no_merge(split):
    train_lines, heldout = split
    options = BPE_SETUPS["byte-level"][0]
    rows = sweep("bpe", train_lines, heldout, sizes=[10, 257, 400], options=options)
    assert [r.vocab_size for r in rows] == [257, 257, 400]  # 256 bytes + 1 special
    assert rows[0].heldout_tokens == rows[1].heldout_tokens == sum(len(line.encode()) for line in heldout)


def test_wordpiece_sizes_equal_separate_trainings_exactly(split):
    train_lines, heldout = split
    options, sizes = TrainOptions(lowercase=True), [120, 400, 1000]
    rows = sweep("wordpiece", train_lines, heldout, sizes=sizes, options=options)
    parts, training = train_bert_wordpiece(train_lines, options=replace(options, vocab_size=sizes[-1]))
    big = Tokenizer.from_parts(parts)
    for row, size in zip(rows, sizes):
        alone = train("wordpiece", train_lines, options=replace(options, vocab_size=size))
        assert_row_matches(row, alone, heldout)
        assert wordpiece_prefix_tokenizer(big, training, size).get_vocab() == alone.get_vocab()
    assert rows[0].unk_rate > 0  # the multilingual lines bring characters training never saw


@pytest.mark.slow
def test_unigram_rows_score_each_training(split):
    train_lines, heldout = split
    options, sizes = TrainOptions(special_tokens=("<unk>",), unk_token="<unk>"), [400, 900]
    rows = sweep("unigram", train_lines[:600], heldout, sizes=sizes, options=options)
    assert [r.derived for r in rows] == [False, False] and all(r.seconds > 0 for r in rows)
    for row, size in zip(rows, sizes):
        assert_row_matches(row, train("unigram", train_lines[:600], options=replace(options, vocab_size=size)),
                           heldout)


def test_heldout_special_tokens_are_cut_out_like_the_pipeline():
    tok = train("bpe", ["hello world<|endoftext|>hello\n"] * 3,
                options=TrainOptions(byte_level=True, special_tokens=("<|endoftext|>",), unk_token=None,
                                     vocab_size=280))
    lines = ["hello<|endoftext|>world\n", "<|endoftext|>\n", "hi there\n"]
    score = Heldout(lines, tok).score(tok)
    m = encoded(tok, lines)
    assert (score.tokens, score.distinct_ids) == (m.tokens, m.distinct_tokens)


WORDS = st.text(alphabet="lowernstid", min_size=1, max_size=40)


@pytest.fixture(scope="module")
def decorated_models():
    corpus = ["low lower lowest newer newest wider widest slow slowly\n"] * 4 + ["wind dew stone\n"]
    out = []
    for opts in (TrainOptions(end_of_word_suffix="</w>"), TrainOptions(continuing_subword_prefix="##"),
                 TrainOptions(end_of_word_suffix="</w>", bpe=replace(TrainOptions().bpe, suffix_as_symbol=True)),
                 TrainOptions()):
        out.append(train("bpe", corpus, options=replace(opts, vocab_size=80)).model)
    return out


@given(word=WORDS, cuts=st.lists(st.integers(0, 90), min_size=1, max_size=5))
def test_prefix_segmenter_equals_the_encoder_with_max_rank(decorated_models, word, cuts):
    for model in decorated_models:
        assert [list(s) for s in _PrefixSegmenter(model, cuts)(word)] == [model.segment(word, max_rank=k)
                                                                          for k in cuts]


def test_cancelling_raises_with_the_rows_done(split):
    train_lines, heldout = split
    with pytest.raises(SweepCancelled) as info:
        sweep("bpe", train_lines, heldout, sizes=[100, 200], options=TrainOptions(), should_stop=lambda: True)
    assert info.value.rows == [] and isinstance(info.value, TokenizerError)
    seen: list[str] = []
    with pytest.raises(SweepCancelled) as info:
        sweep("wordpiece", train_lines, heldout, sizes=[100, 200, 300], options=TrainOptions(),
              progress=lambda d, t, m: seen.append(m), should_stop=lambda: "scoring vocabulary size 200" in seen)
    assert [r.requested_size for r in info.value.rows] == [100, 200]


def test_progress_is_reported_and_ends_done(split):
    train_lines, heldout = split
    seen: list[tuple[int, int, str]] = []
    sweep("bpe", train_lines, heldout, sizes=[100, 200], options=TrainOptions(),
          progress=lambda d, t, m: seen.append((d, t, m)))
    assert seen[-1] == (1, 1, "done") and any(m == "merging pairs" for _, _, m in seen)


@pytest.mark.parametrize("kwargs, message", [
    ({"model": "word"}, "the sweep trains"),
    ({"sizes": []}, "one or more vocabulary sizes"),
    ({"sizes": [0, 10]}, "positive whole numbers"),
    ({"heldout": ["\n"]}, "held-out text is empty"),
    ({"d_model": 0}, "d_model"),
])
def test_bad_sweep_input(kwargs, message):
    args = {"model": "bpe", "train": ["a b c\n"], "heldout": ["a b\n"], "sizes": [10], "d_model": 8, **kwargs}
    with pytest.raises(TokenizerError, match=message):
        sweep(args["model"], args["train"], args["heldout"], sizes=args["sizes"], options=TrainOptions(),
              d_model=args["d_model"])


# ------------------------------------------------------------------------------------- helpers


@given(n=st.integers(2, 500), fraction=st.floats(0.01, 0.99), seed=st.integers(0, 5))
def test_split_lines_is_a_deterministic_partition(n, fraction, seed):
    lines = [f"line {i}\n" for i in range(n)]
    train_part, held = split_lines(lines, heldout_fraction=fraction, seed=seed)
    assert (train_part, held) == split_lines(lines, heldout_fraction=fraction, seed=seed)
    assert sorted(train_part + held) == sorted(lines) and train_part and held
    assert train_part == sorted(train_part, key=lines.index) and held == sorted(held, key=lines.index)
    assert len(held) == min(n - 1, max(1, round(n * fraction)))


@pytest.mark.parametrize("lines, fraction", [(["one\n"], 0.1), (["a", "b"], 0.0), (["a", "b"], 1.0)])
def test_split_lines_refuses(lines, fraction):
    with pytest.raises(TokenizerError):
        split_lines(lines, heldout_fraction=fraction)


@given(lo=st.integers(1, 5000), span=st.integers(0, 100_000), n=st.integers(1, 12))
def test_log_sizes_are_log_spaced(lo, span, n):
    hi = lo + span
    sizes = log_sizes(lo, hi, n)
    assert sizes[-1] == hi and sizes == sorted(set(sizes)) and len(sizes) <= n
    if n > 1 and hi > lo:
        assert sizes[0] == lo
        ideal = [lo * (hi / lo) ** (i / (n - 1)) for i in range(n)]
        for s in sizes:  # each size is within rounding (two significant digits) of a log-spaced point
            assert min(abs(s - x) - max(0.5, 0.05 * x) for x in ideal) <= 1e-9


def test_log_sizes_defaults_and_errors():
    assert log_sizes() == [256, 510, 1000, 2000, 4000, 8100, 16000, 32000]
    with pytest.raises(TokenizerError):
        log_sizes(100, 50)
    with pytest.raises(TokenizerError):
        log_sizes(0, 50)


def rows_of(points: list[tuple[int, float]], metric: str = "chars_per_token") -> list[SweepRow]:
    return [SweepRow("bpe", s, s, 1, y if metric == "chars_per_token" else None,
                     y if metric == "fertility" else None, None, None, 0, 0.0, False) for s, y in points]


def test_knee_of_a_synthetic_saturating_curve():
    # chars/token grows by 1 per doubling up to 4000, then by 0.05 per doubling: the knee is 4000.
    sizes = [250 * 2 ** i for i in range(9)]
    ys = [1 + min(i, 4) + 0.05 * max(0, i - 4) for i in range(9)]
    assert knee(rows_of(list(zip(sizes, ys)))) == 4000
    # The same bend in a falling metric (tokens per word), unordered rows.
    falling = [(s, 10 - y) for s, y in zip(sizes, ys)][::-1]
    assert knee(rows_of(falling, "fertility"), metric="fertility") == 4000


def test_knee_ignores_the_metric_scale_and_other_models():
    sizes = log_sizes(100, 100_000, 13)
    curve = [(s, 1 - math.exp(-s / 3000)) for s in sizes]
    at = knee(rows_of(curve))
    assert at in sizes and at == knee(rows_of([(s, 5 + 40 * y) for s, y in curve]))
    other = [replace(r, model="unigram", chars_per_token=1.0) for r in rows_of(curve)]
    assert knee(rows_of(curve) + other) == at


def test_no_knee_without_a_bend_or_enough_points():
    sizes = [100, 200, 400, 800]
    assert knee(rows_of([(s, math.log(s)) for s in sizes])) is None  # straight in log-size
    assert knee(rows_of([(s, 3.0) for s in sizes])) is None  # flat
    assert knee(rows_of([(100, 1.0), (200, 2.0)])) is None
    assert knee([]) is None


def test_rows_say_why_a_size_differs_from_the_one_asked_for():
    """The trainers know why they stopped short: BPE ran out of pairs; a size below the alphabet is
    larger than asked; sizes reached say nothing."""
    lines = list(load_sample("hf-course-hug-pug").lines())
    rows = sweep("bpe", lines, lines, sizes=[5, 12, 100], options=TrainOptions())
    by_size = {r.requested_size: r for r in rows}
    assert by_size[12].vocab_size == 12 and by_size[12].note == ""
    assert by_size[100].vocab_size < 100
    assert by_size[100].note == (f"{100 - by_size[100].vocab_size:,} fewer than asked: "
                                 "no pairs left to merge: every word is a single token")
    assert by_size[5].vocab_size > 5 and by_size[5].note.startswith("the alphabet and special tokens alone make")
    unigram = sweep("unigram", lines, lines, sizes=[200], options=TrainOptions())[0]
    assert unigram.vocab_size < 200 and "fewer than asked" in unigram.note
    assert "seed" in unigram.note
