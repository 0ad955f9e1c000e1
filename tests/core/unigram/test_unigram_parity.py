"""Parity on real text: SentencePiece models imported here segment like ``sentencepiece``,
and exported ``tokenizer.json`` files encode identically in Hugging Face ``tokenizers``.

SentencePiece adds path scores in 32-bit floats over the whole sentence, so where two
segmentations tie exactly (e.g. a 16-dash piece before or after nine single dashes)
its choice follows rounding noise. Imported models search the same way
(:mod:`tokenizer_core.unigram.sentencepiece_unigram`), so every line must agree; the
score checks below say which segmentation is optimal should one ever differ.
"""

from __future__ import annotations

import math

import pytest

spm = pytest.importorskip("sentencepiece")
hf = pytest.importorskip("tokenizers")

import tokenizer_core.io.sentencepiece  # noqa: E402,F401  (registers the importer)
import tokenizer_core.unigram.model  # noqa: E402,F401  (registers the trainer)
from tokenizer_core.errors import FormatError  # noqa: E402
from tokenizer_core.io.importers import import_tokenizer  # noqa: E402
from tokenizer_core.training import TrainOptions, train  # noqa: E402

FLOAT32_EPS = 2.0**-23


@pytest.fixture(scope="module")
def lines() -> list[str]:
    from tokenizer_core.corpus.loading import load_sample

    return [ln.rstrip("\n") for ln in load_sample("default").lines()]


@pytest.fixture(scope="module")
def sp_model(lines, tmp_path_factory):
    folder = tmp_path_factory.mktemp("spm")
    spm.SentencePieceTrainer.train(sentence_iterator=iter(lines), model_prefix=str(folder / "m"), vocab_size=8000,
                                   model_type="unigram", minloglevel=2)
    return folder / "m.model"


@pytest.fixture(scope="module")
def imported(sp_model):
    return import_tokenizer("sentencepiece", sp_model)


def test_imported_pieces_scores_and_specials(sp_model, imported):
    sp = spm.SentencePieceProcessor(model_file=str(sp_model))
    assert imported.vocab_size == sp.get_piece_size() == 8000
    for i in range(sp.get_piece_size()):
        assert imported.id_to_token(i) == sp.id_to_piece(i)
        # scores are kept to 15 significant digits (see Unigram)
        assert imported.model.score(sp.id_to_piece(i)) == pytest.approx(sp.get_score(i), rel=1e-14)
    assert imported.model.unk_id == sp.unk_id() == 0
    assert imported.model.special_tokens == ["<unk>", "<s>", "</s>"]
    assert imported.special_tokens == []  # sentencepiece never matches "<s>" typed in the text


@pytest.mark.slow
def test_viterbi_equals_sentencepiece_on_every_line(sp_model, imported, lines):
    sp = spm.SentencePieceProcessor(model_file=str(sp_model))
    model, norm, pre = imported.model, imported.normalizer, imported.pre_tokenizer
    refs = sp.encode(lines, out_type=str)
    ref_ids = sp.encode(lines)
    ties = 0
    for line, ref, rid in zip(lines, refs, ref_ids):
        normalized = norm.normalize_str(line)
        tokens = [t for w in (pre.words(normalized) if pre else [normalized]) for t in model.tokenize(w)]
        ours = [t.text for t in tokens]
        if ours == ref:
            assert [t.id for t in tokens] == rid
            continue
        ties += 1
        ours_score = math.fsum(model.score(p) for p in ours)
        ref_score = math.fsum(model.score(p) for p in ref)
        assert "".join(ours) == "".join(ref), line
        assert ours_score >= ref_score - 1e-9, (line, ours, ref)  # ours is optimal
        bound = len(ref) * FLOAT32_EPS * abs(ref_score)  # 32-bit rounding over the sentence
        assert ours_score - ref_score <= bound, (line, ours, ref)
    assert ties == 0, f"{ties} near-tie lines out of {len(lines)}"


@pytest.fixture(scope="module")
def our_encodings(imported, lines):
    return [imported.encode(line, add_special_tokens=False) for line in lines]


@pytest.mark.slow
def test_full_pipeline_matches_sentencepiece_ids(sp_model, our_encodings, lines):
    sp = spm.SentencePieceProcessor(model_file=str(sp_model))
    same = sum(enc.ids == ref for enc, ref in zip(our_encodings, sp.encode(lines)))
    assert same == len(lines)


def _hf_encodings(tok, lines, tmp_path):
    path = tmp_path / "tokenizer.json"
    tok.save_hf(path)
    return hf.Tokenizer.from_file(str(path)).encode_batch(lines, add_special_tokens=False)


@pytest.mark.slow
def test_exported_import_encodes_identically_in_tokenizers(imported, our_encodings, lines, tmp_path):
    theirs = _hf_encodings(imported, lines, tmp_path)
    for line, ours, ref in zip(lines, our_encodings, theirs):
        assert (ours.tokens, ours.ids) == (ref.tokens, ref.ids), line


@pytest.fixture(scope="module")
def trained(lines):
    return train("unigram", lines, options=TrainOptions(vocab_size=8000))


@pytest.mark.slow
def test_exported_trained_tokenizer_encodes_identically_in_tokenizers(trained, lines, tmp_path):
    texts = lines[::3] + ["  Hello\tworld  ", "naïve café ☃ 日本語", "", "x", "[UNK] and [PAD] literally"]
    theirs = _hf_encodings(trained, texts, tmp_path)
    for text, ref in zip(texts, theirs):
        ours = trained.encode(text, add_special_tokens=False)
        assert (ours.tokens, ours.ids) == (ref.tokens, ref.ids), text


def test_exported_offsets_match_tokenizers(trained, lines, tmp_path):
    texts = lines[:2000]
    theirs = _hf_encodings(trained, texts, tmp_path)
    for text, ref in zip(texts, theirs):
        assert trained.encode(text, add_special_tokens=False).offsets == ref.offsets, text


def test_byte_fallback_model_imports_and_matches(tmp_path):
    text = ["the quick brown fox jumps over the lazy dog"] * 50 + ["pack my box with five dozen liquor jugs"] * 50
    spm.SentencePieceTrainer.train(sentence_iterator=iter(text), model_prefix=str(tmp_path / "b"), vocab_size=290,
                                   model_type="unigram", byte_fallback=True, minloglevel=2)
    sp = spm.SentencePieceProcessor(model_file=str(tmp_path / "b.model"))
    tok = import_tokenizer("sentencepiece", tmp_path / "b.model")
    assert tok.model.byte_fallback
    for s in ["the quick fox", "naïve ☃ jumps", "Zebra QUIZ"]:
        assert tok.encode(s, add_special_tokens=False).ids == sp.encode(s)
        assert tok.decode(tok.encode(s).ids) == sp.decode(sp.encode(s))


def test_word_models_and_broken_files_are_refused(tmp_path):
    text = ["the quick brown fox jumps over the lazy dog"] * 20
    spm.SentencePieceTrainer.train(sentence_iterator=iter(text), model_prefix=str(tmp_path / "word"), vocab_size=11,
                                   model_type="word", minloglevel=2)
    with pytest.raises(FormatError, match="word"):
        import_tokenizer("sentencepiece", tmp_path / "word.model")
    junk = tmp_path / "junk.model"
    junk.write_bytes(b"\xff\x00 definitely not a protobuf \x12\x34")
    with pytest.raises(FormatError):
        import_tokenizer("sentencepiece", junk)
