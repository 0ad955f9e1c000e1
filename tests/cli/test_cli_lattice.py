"""``python -m tokenizer_core lattice``: Viterbi, n-best, marginals and entropy of a Unigram lattice,
checked against ``sentencepiece``'s own n-best on an imported model, plus the output shapes and
the refusal of models that have no lattice."""

from __future__ import annotations

import json
import math
import random

import pytest

from tests._cli import run
from tokenizer_core.cli.lattice_command import lattice_reports
from tokenizer_core.corpus.loading import load_sample
from tokenizer_core.errors import TokenizerError
from tokenizer_core.pipeline import Tokenizer

spm = pytest.importorskip("sentencepiece")

from tokenizer_core.io.sentencepiece import import_sentencepiece_model  # noqa: E402

#: Words with several plausible segmentations (and one with a character the model never saw).
WORDS = ["unhappily", "tokenization", "hugging", "the", "internationalisation", "Python's",
         "rewriting", "subwords", "lattices", "probability", "segmentation", "naïve", "東京"]
NBEST = 8


@pytest.fixture(scope="module")
def sp_model(tmp_path_factory):
    lines = [ln.rstrip("\n") for ln in load_sample("default").lines()][:4000]
    folder = tmp_path_factory.mktemp("spm-lattice")
    spm.SentencePieceTrainer.train(sentence_iterator=iter(lines), model_prefix=str(folder / "m"), vocab_size=1000,
                                   model_type="unigram", minloglevel=2)
    return folder / "m.model"


@pytest.fixture(scope="module")
def own_model(tmp_path_factory):
    path = tmp_path_factory.mktemp("own-lattice") / "uni.json"
    code, _ = run(["train", "--sample", "default", "--model", "unigram", "--vocab-size", "600", "-o", str(path), "-q"])
    assert code == 0
    return path


def test_viterbi_and_nbest_equal_sentencepiece(sp_model):
    sp = spm.SentencePieceProcessor(model_file=str(sp_model))
    tok = import_sentencepiece_model(sp_model)
    for word in WORDS:
        report = lattice_reports(tok, word, nbest=NBEST, alpha=1.0)
        assert len(report["pieces"]) == 1  # SentencePiece segments the whole normalized text
        assert report["viterbi"]["pieces"] == sp.encode(word, out_type=str), word
        theirs = sp.NBestEncodeAsProto(word, NBEST).nbests
        assert [p["pieces"] for p in report["nbest"]] == [[x.piece for x in n.pieces] for n in theirs], word
        for ours, ref in zip(report["nbest"], theirs):
            # SentencePiece's n-best score is the sum of its pieces' scores (in 32-bit floats)
            assert ours["score"] == pytest.approx(ref.score, rel=1e-6, abs=1e-4), word
            # (each unknown character scores 10 below the least likely piece, not <unk>'s 0)
            piece_scores = [tok.model.unk_score * len(x.surface) if x.id == sp.unk_id() else sp.get_score(x.id)
                            for x in ref.pieces]
            assert ours["score"] == pytest.approx(math.fsum(piece_scores), rel=1e-6)
        probs = [p["probability"] for p in report["nbest"]]
        assert probs == sorted(probs, reverse=True) and 0 < sum(probs) <= 1 + 1e-9


def test_sampled_encoding_of_an_imported_model_is_a_segmentation(sp_model):
    # With a lattice, an imported SentencePiece model samples too (encode --sample).
    code, ids = run(["encode", "--sample", "--alpha", "0.1", "--seed", "4", "-t", str(_saved(sp_model))],
                    "unhappily hugging lattices\n")
    assert code == 0
    sp = spm.SentencePieceProcessor(model_file=str(sp_model))
    assert sp.decode([int(i) for i in ids.split()]) == "unhappily hugging lattices"


def _saved(sp_model):
    path = sp_model.with_suffix(".json")
    if not path.exists():
        import_sentencepiece_model(sp_model).save(path)
    return path


def test_sentencepiece_sample_distribution_follows_the_lattice(sp_model):
    tok = import_sentencepiece_model(sp_model)
    text = tok.normalizer.normalize_str("hugging")
    lattice = tok.model.lattice(text)
    rng = random.Random(0)
    from tokenizer_core.types import Sampling

    draws = [tuple(t.text for t in tok.model.tokenize_sampled(text, rng=rng, sampling=Sampling(alpha=1.0)))
             for _ in range(400)]
    best = tuple(lattice.viterbi().pieces)
    share = draws.count(best) / len(draws)
    assert abs(share - lattice.probability(list(best))) < 0.1


def test_json_shape_for_one_piece(own_model):
    code, out = run(["lattice", "-t", str(own_model), "--nbest", "3", "--json", "unhappily"])
    assert code == 0
    data = json.loads(out)
    assert set(data) == {"pieces", "text", "viterbi", "nbest", "marginals", "entropy"}
    assert data["pieces"][0]["viterbi"] == data["viterbi"]
    assert set(data["viterbi"]) == {"pieces", "score"} and "".join(data["viterbi"]["pieces"]) == "▁unhappily"
    assert len(data["nbest"]) == 3 and data["nbest"][0]["pieces"] == data["viterbi"]["pieces"]
    assert all(set(p) == {"pieces", "score", "probability"} for p in data["nbest"])
    assert all(set(m) == {"start", "end", "piece", "log_prob", "marginal", "unknown"} for m in data["marginals"])
    # the edges leaving the first node carry all the probability
    assert sum(m["marginal"] for m in data["marginals"] if m["start"] == 0) == pytest.approx(1.0)
    assert data["entropy"] >= 0.0


def test_several_pieces_from_stdin_and_the_table(own_model):
    code, out = run(["lattice", "-t", str(own_model), "--json"], stdin="hugging bears\n")
    data = json.loads(out)
    assert code == 0 and [p["text"] for p in data["pieces"]] == ["▁hugging", "▁bears"]
    assert "viterbi" not in data  # only one piece gets its keys lifted to the top level
    code, out = run(["lattice", "-t", str(own_model), "--nbest", "2", "--alpha", "0.5", "hugging bears"])
    assert code == 0
    assert out.count("viterbi") == 2 and "entropy" in out and '"▁bears"' in out


def test_alpha_zero_gives_uniform_probabilities(own_model):
    tok = Tokenizer.load(own_model)
    report = lattice_reports(tok, "hug", nbest=50, alpha=0.0)
    probs = {round(p["probability"], 12) for p in report["nbest"]}
    assert len(probs) == 1 and report["entropy"] == pytest.approx(math.log(1 / probs.pop()))


@pytest.mark.parametrize("args, message", [
    (["--nbest", "0"], "nbest must be"),
    (["--alpha", "-1"], "alpha must be"),
])
def test_bad_options_exit_2(own_model, capsys, args, message):
    assert run(["lattice", "-t", str(own_model), *args, "hug"])[0] == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_a_bpe_tokenizer_is_refused(tmp_path, capsys):
    path = tmp_path / "bpe.json"
    assert run(["train", "--sample", "hf-course-hug-pug", "--model", "bpe", "--vocab-size", "30",
                "-o", str(path), "-q"])[0] == 0
    assert run(["lattice", "-t", str(path), "hug"]) == (2, "")
    assert capsys.readouterr().err == "error: lattice needs a Unigram tokenizer; bpe.json is BPE\n"
    with pytest.raises(TokenizerError, match="needs a Unigram tokenizer"):
        lattice_reports(Tokenizer.load(path), "hug", nbest=1, alpha=1.0)
