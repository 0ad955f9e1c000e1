"""Sampled encodings over whole runs (issue 27): a seed reproduces a run, it does not make equal
lines repeat, and the samples follow the exact distribution.

Unigram subword sampling with ``nbest_size=-1`` draws a segmentation with probability
``exp(alpha * score) / Z``; the exact distribution comes from enumerating every path of the word's
lattice (``tests/_stats.py``). 4,000 samples of one word, from our command line and from
SentencePiece's ``enable_sampling``, must each sit within total variation 0.05 of it and pass a
chi-square test at the 0.001 level (they give TV 0.006-0.023). With fixed seeds the figures are
deterministic; a sampler that always returns the Viterbi path (TV 0.21-0.74 on these words),
samples with alpha doubled (0.17-0.29), restarts its generator for every line (one segmentation
4,000 times) or weighs each edge with the wrong node's forward sum fails them.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path

import pytest

from tests._cli import run
from tests._stats import chi_square_fails, exact_distribution, tv_distance
from tokenizer_core.bpe.dropout import dropout_frequencies
from tokenizer_core.bpe.model import BPE
from tokenizer_core.pipeline import Tokenizer
from tokenizer_core.text.decoders import MetaspaceDecoder
from tokenizer_core.text.normalizers import NFKC
from tokenizer_core.text.pre_tokenizers import Metaspace, WhitespaceSplit
from tokenizer_core.text.pre_tokenizers import Sequence as PreSequence
from tokenizer_core.types import Sampling
from tokenizer_core.unigram.model import Unigram

spm = pytest.importorskip("sentencepiece")

from tokenizer_core.io.sentencepiece import import_sentencepiece_model  # noqa: E402

#: Words whose segmentations spread out at alpha 0.5 (Viterbi has 29-72% of the mass left over).
WORDS = ("unhappily", "tokenization", "lattices")
ALPHA = 0.5
DRAWS = 4000
#: Correct samplers give 0.006-0.023 here (the expected sampling noise is 0.009-0.017).
TV_LIMIT = 0.05


def _lines_of_tokens(out: str) -> Counter[tuple[str, ...]]:
    return Counter(tuple(line.split(" ")) for line in out.splitlines())


@pytest.fixture(scope="module")
def sp_model(tmp_path_factory) -> Path:
    from tokenizer_core.corpus.loading import load_sample

    lines = [ln.rstrip("\n") for ln in load_sample("default").lines()][:4000]
    folder = tmp_path_factory.mktemp("spm-sampling")
    spm.SentencePieceTrainer.train(sentence_iterator=iter(lines), model_prefix=str(folder / "m"), vocab_size=1000,
                                   model_type="unigram", minloglevel=2)
    return folder / "m.model"


@pytest.fixture(scope="module")
def own_model(sp_model, tmp_path_factory) -> Path:
    """Our own Unigram model (not the SentencePiece importer's) with SentencePiece's pieces and scores:
    a vocabulary that does not move when our trainer changes."""
    sp = spm.SentencePieceProcessor(model_file=str(sp_model))
    pieces = [(sp.id_to_piece(i), sp.get_score(i)) for i in range(sp.get_piece_size())
              if not (sp.is_control(i) or sp.is_unknown(i) or sp.is_unused(i))]
    tok = Tokenizer(Unigram([("<unk>", 0.0), *pieces], unk_id=0), normalizer=NFKC(),
                    pre_tokenizer=PreSequence([WhitespaceSplit(), Metaspace()]), decoder=MetaspaceDecoder())
    path = tmp_path_factory.mktemp("own-sampling") / "uni.json"
    tok.save(path)
    return path


def _sample_args(model: Path, seed: int, *extra: str) -> list[str]:
    return ["encode", "-t", str(model), "--sample", "--alpha", str(ALPHA), "--nbest-size", "-1",
            "--seed", str(seed), *extra]


# ------------------------------------------------------------------ Unigram: the exact distribution
@pytest.mark.parametrize("word", WORDS)
def test_a_cli_run_over_one_word_samples_the_exact_distribution(own_model, word):
    code, out = run(_sample_args(own_model, 7, "--tokens"), stdin=(word + "\n") * DRAWS)
    assert code == 0
    tok = Tokenizer.load(own_model)
    [piece] = tok.explain(word).pieces
    probs = exact_distribution(tok.model.lattice(piece.text), alpha=ALPHA)
    assert 1 - max(probs.values()) > 0.15  # always-Viterbi would be far off
    counts = _lines_of_tokens(out)
    assert tv_distance(counts, probs) < TV_LIMIT
    assert not chi_square_fails(counts, probs)


@pytest.mark.parametrize("word", WORDS)
def test_sentencepiece_and_an_imported_model_both_sample_the_exact_distribution(sp_model, word):
    tok = import_sentencepiece_model(sp_model)
    probs = exact_distribution(tok.model.lattice(tok.normalizer.normalize_str(word)), alpha=ALPHA)
    sp = spm.SentencePieceProcessor(model_file=str(sp_model))
    spm.set_random_generator_seed(7)
    theirs = Counter(tuple(sp.encode(word, out_type=str, enable_sampling=True, alpha=ALPHA, nbest_size=-1))
                     for _ in range(DRAWS))
    batch = tok.encode_batch([word] * DRAWS, sampling=Sampling(seed=7, alpha=ALPHA, nbest_size=-1))
    ours = Counter(tuple(e.tokens) for e in batch.encodings)
    for counts in (theirs, ours):
        assert tv_distance(counts, probs) < TV_LIMIT
        assert not chi_square_fails(counts, probs)


def test_the_statistical_check_rejects_broken_samplers(own_model):
    # The same figures, for samplers with the faults the tests above are meant to catch.
    tok = Tokenizer.load(own_model)
    [piece] = tok.explain("unhappily").pieces
    lattice = tok.model.lattice(piece.text)
    probs = exact_distribution(lattice, alpha=ALPHA)
    rng = random.Random(7)
    broken = {
        "always Viterbi": Counter({tuple(lattice.viterbi().pieces): DRAWS}),
        "alpha doubled": Counter(tuple(lattice.sample(rng=rng, alpha=2 * ALPHA).pieces) for _ in range(DRAWS)),
        "alpha 1": Counter(tuple(lattice.sample(rng=rng, alpha=1.0).pieces) for _ in range(DRAWS)),
        "a generator per line": Counter(tuple(lattice.sample(rng=random.Random(7), alpha=ALPHA).pieces)
                                        for _ in range(DRAWS)),
    }
    for name, counts in broken.items():
        assert tv_distance(counts, probs) > TV_LIMIT, name
        assert chi_square_fails(counts, probs), name


# ------------------------------------------------------------------ Unigram: what a seed means
def test_a_seed_reproduces_a_run_and_equal_lines_still_differ(own_model):
    stdin = "unhappily\n" * 200
    first = run(_sample_args(own_model, 7), stdin=stdin)[1]
    assert len(set(first.splitlines())) > 5  # not one segmentation repeated 200 times
    assert run(_sample_args(own_model, 7), stdin=stdin)[1] == first
    assert run(_sample_args(own_model, 8), stdin=stdin)[1] != first
    # --batch is the same run: one generator, the lines in order.
    code, batch = run(_sample_args(own_model, 7, "--batch", "--padding", "do_not_pad"), stdin=stdin)
    assert code == 0
    assert json.loads(batch)["input_ids"] == [[int(i) for i in line.split()] for line in first.splitlines()]


def test_nbest_size_one_is_viterbi_on_every_line(own_model):
    out = run(["encode", "-t", str(own_model), "--tokens", "--sample", "--nbest-size", "1", "--seed", "7"],
              stdin="unhappily\n" * 50)[1]
    viterbi = run(["encode", "-t", str(own_model), "--tokens"], stdin="unhappily\n")[1]
    assert set(out.splitlines()) == {viterbi.strip()}


def test_a_call_is_a_run_and_a_shared_generator_spans_calls(own_model):
    tok = Tokenizer.load(own_model)
    sampling = Sampling(seed=3, alpha=0.0)
    # One call with a seed is reproducible on its own...
    assert len({tuple(tok.encode("unhappily", sampling=sampling).tokens) for _ in range(20)}) == 1
    # ...and a generator made once draws on across calls.
    rng = sampling.generator()
    assert len({tuple(tok.encode("unhappily", sampling=sampling, rng=rng).tokens) for _ in range(20)}) > 1
    # Both texts of a pair draw from the call's one generator, so they are not copies of each other.
    pairs = [tok.encode("unhappily", "unhappily", sampling=Sampling(seed=s, alpha=0.0)) for s in range(20)]
    assert any(e.tokens[: len(e.tokens) // 2] != e.tokens[len(e.tokens) // 2:] for e in pairs)


# ------------------------------------------------------------------ BPE-dropout
#: Two merges in a row: "abc" keeps its characters when the first is dropped (p), stops at
#: "ab c" when only the second is ((1-p)p), and is one token otherwise ((1-p)^2).
CHAIN = BPE({"a": 0, "b": 1, "c": 2, "ab": 3, "abc": 4}, [("a", "b"), ("ab", "c")])


def _dropout_exact(p: float) -> dict[tuple[str, ...], float]:
    return {("a", "b", "c"): p, ("ab", "c"): (1 - p) * p, ("abc",): (1 - p) ** 2}


@pytest.fixture()
def chain_file(tmp_path) -> Path:
    path = tmp_path / "chain.json"
    Tokenizer(CHAIN).save(path)
    return path


@pytest.mark.parametrize("p", [0.1, 0.3, 0.6])
def test_dropout_rate_matches_on_a_chain_of_two_merges(p):
    batch = Tokenizer(CHAIN).encode_batch(["abc"] * DRAWS, sampling=Sampling(seed=11, dropout=p))
    counts = Counter(tuple(e.tokens) for e in batch.encodings)
    probs = _dropout_exact(p)
    assert abs(counts[("a", "b", "c")] / DRAWS - p) < 0.025  # the first merge dropped: 3.5 sd at most
    assert tv_distance(counts, probs) < 0.03
    assert not chi_square_fails(counts, probs)
    # The checks see a wrong rate: the same counts are far from the next rate tried.
    assert chi_square_fails(counts, _dropout_exact(p + 0.1))


def test_a_dropout_run_over_equal_lines_is_varied_and_reproducible(chain_file):
    stdin = "abc\n" * DRAWS
    args = ["encode", "-t", str(chain_file), "--tokens", "--dropout", "0.3"]
    code, first = run([*args, "--seed", "5"], stdin=stdin)
    assert code == 0
    counts = _lines_of_tokens(first)
    assert len(counts) == 3
    assert tv_distance(counts, _dropout_exact(0.3)) < 0.03 and not chi_square_fails(counts, _dropout_exact(0.3))
    assert run([*args, "--seed", "5"], stdin=stdin)[1] == first
    assert run([*args, "--seed", "6"], stdin=stdin)[1] != first


def test_the_lattice_pages_dropout_table_is_one_seeded_run():
    # The Lattice page's BPE-dropout tab counts its draws with dropout_frequencies.
    counts = dropout_frequencies(CHAIN, ["abc"], dropout=0.3, draws=DRAWS, seed=2)
    assert tv_distance(counts, _dropout_exact(0.3)) < 0.03 and not chi_square_fails(counts, _dropout_exact(0.3))
    assert dropout_frequencies(CHAIN, ["abc"], dropout=0.3, draws=DRAWS, seed=2) == counts
    assert dropout_frequencies(CHAIN, ["abc"], dropout=0.3, draws=DRAWS, seed=3) != counts
    # Two pieces of one word draw on from the same generator: their splits are independent.
    pairs = dropout_frequencies(CHAIN, ["abc", "abc"], dropout=0.5, draws=DRAWS, seed=2)
    split = _dropout_exact(0.5)
    both = {a + b: split[a] * split[b] for a in split for b in split}
    assert tv_distance(pairs, both) < 0.03 and not chi_square_fails(pairs, both)
