"""The pipeline: offsets into the original text, special tokens, save/load, tokenizers export."""

from __future__ import annotations

import json

import pytest
import tokenizers
from hypothesis import given
from hypothesis import strategies as st

from tests._texts import TRICKY, real_lines
from tokenizer_core.classic.word import WordLevel
from tokenizer_core.errors import FormatError, TokenizerError
from tokenizer_core.pipeline import Tokenizer
from tokenizer_core.text.normalizers import NFKC, Lowercase, Sequence
from tokenizer_core.text.pre_tokenizers import Whitespace
from tokenizer_core.training import TrainOptions, train
from tokenizer_core.types import Sampling


def _word_tokenizer() -> Tokenizer:
    vocab = {"[UNK]": 0, "[CLS]": 1, "ﬁne": 2, "fine": 3, "day": 4, "!": 5}
    return Tokenizer(WordLevel(vocab), normalizer=Sequence([NFKC(), Lowercase()]),
                     pre_tokenizer=Whitespace(), special_tokens=["[UNK]", "[CLS]"])


def test_offsets_point_into_the_original_text_after_normalisation():
    tok = _word_tokenizer()
    text = "ＦＩＮＥ ﬁne Day!"
    enc = tok.encode(text)
    assert enc.tokens == ["fine", "fine", "day", "!"]
    assert [text[s:e] for s, e in enc.offsets] == ["ＦＩＮＥ", "ﬁne", "Day", "!"]
    assert enc.word_ids == [0, 1, 2, 3]


def test_special_tokens_in_the_text_stay_whole():
    tok = _word_tokenizer()
    enc = tok.encode("[CLS] fine[CLS]day")
    assert enc.tokens == ["[CLS]", "fine", "[CLS]", "day"]
    # As tokenizers: a special token typed in the text is a word of its own, and only tokens a
    # post-processor adds are marked in special_tokens_mask.
    assert enc.special_tokens_mask == [0, 0, 0, 0]
    assert enc.word_ids == [0, 1, 2, 3]
    assert tok.decode(enc.ids) == "fine day"
    assert tok.decode(enc.ids, skip_special_tokens=False) == "[CLS] fine [CLS] day"


def test_explain_shows_every_stage():
    trace = _word_tokenizer().explain("Fine DAY")
    assert trace.normalized == "fine day"
    assert [(p.text, p.offsets) for p in trace.pieces] == [("fine", (0, 4)), ("day", (5, 8))]


def test_pair_gets_type_ids_without_a_post_processor():
    enc = _word_tokenizer().encode("fine", "day")
    assert enc.tokens == ["fine", "day"]
    assert enc.type_ids == [0, 1]


def test_decode_rejects_unknown_ids():
    with pytest.raises(TokenizerError, match="not in the vocabulary"):
        _word_tokenizer().decode([99])
    with pytest.raises(TokenizerError, match="integers"):
        _word_tokenizer().decode(["1"])  # type: ignore[list-item]


def test_encode_rejects_non_text():
    with pytest.raises(TokenizerError, match="str"):
        _word_tokenizer().encode(b"bytes")  # type: ignore[arg-type]


@pytest.mark.parametrize("model", ["word", "char", "byte"])
def test_save_and_load_round_trip(tmp_path, model):
    lines = real_lines(300)
    tok = train(model, [line + "\n" for line in lines], options=TrainOptions(lowercase=model == "word"))
    path = tmp_path / "tok.json"
    tok.save(path)
    again = Tokenizer.load(path)
    assert again.get_vocab() == tok.get_vocab()
    for line in lines[:200] + TRICKY:
        assert again.encode(line).ids == tok.encode(line).ids


@pytest.mark.parametrize("model", ["word", "char", "byte"])
def test_exported_tokenizer_json_encodes_identically_in_tokenizers(tmp_path, model):
    lines = real_lines(800)
    tok = train(model, [line + "\n" for line in lines[:600]], options=TrainOptions(vocab_size=3000))
    path = tmp_path / "tokenizer.json"
    tok.save_hf(path)
    theirs = tokenizers.Tokenizer.from_file(str(path))
    for line in lines + TRICKY:
        ours = tok.encode(line)
        enc = theirs.encode(line)
        assert enc.ids == ours.ids, line
        if model == "byte":
            assert theirs.decode(enc.ids) == tok.decode(ours.ids) == line


@given(st.text(max_size=30))
def test_offsets_are_ordered_and_in_bounds(text):
    tok = _word_tokenizer()
    enc = tok.encode(text)
    for s, e in enc.offsets:
        assert 0 <= s <= e <= len(text)
    assert [s for s, _ in enc.offsets] == sorted(s for s, _ in enc.offsets)


def test_malformed_files_raise_format_errors(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_bytes(b"\xff\xfe not json")
    with pytest.raises(FormatError, match="not UTF-8"):
        Tokenizer.load(bad)
    bad.write_text("{not json", encoding="utf-8")
    with pytest.raises(FormatError, match="not valid JSON"):
        Tokenizer.load(bad)
    bad.write_text(json.dumps({"hello": 1}), encoding="utf-8")
    with pytest.raises(FormatError, match="not a tokenizer-playground"):
        Tokenizer.load(bad)
    good = _word_tokenizer().to_dict()
    bad.write_text(json.dumps({**good, "version": 99}), encoding="utf-8")
    with pytest.raises(FormatError, match="newer"):
        Tokenizer.load(bad)
    bad.write_text(json.dumps({**good, "model": {"type": "Alien"}}), encoding="utf-8")
    with pytest.raises(FormatError, match="unknown model type 'Alien'"):
        Tokenizer.load(bad)
    bad.write_text(json.dumps({**good, "model": {"type": "WordLevel"}}), encoding="utf-8")
    with pytest.raises(FormatError, match="malformed model"):
        Tokenizer.load(bad)
    with pytest.raises(FormatError, match="cannot read"):
        Tokenizer.load(tmp_path / "missing.json")


def test_sampling_and_split_at_are_part_of_every_component_contract():
    import tokenizer_core.io.importers  # noqa: F401  (registers every component)
    from tokenizer_core.model_base import SamplingModel
    from tokenizer_core.registry import REGISTRY
    from tokenizer_core.text.pre_tokenizer_base import PreTokenizer

    models = [cls for (kind, _), cls in REGISTRY.items() if kind == "model"]
    pre = [cls for (kind, _), cls in REGISTRY.items() if kind == "pre_tokenizer"]
    assert len(models) >= 6 and len(pre) >= 8
    assert all(issubclass(cls, SamplingModel) for cls in models)
    assert all(issubclass(cls, PreTokenizer) for cls in pre)
    tok = Tokenizer(WordLevel({"[UNK]": 0, "hi": 1}, unk_token="[UNK]"), pre_tokenizer=Whitespace())
    with pytest.raises(TokenizerError, match="WordLevel model cannot sample"):
        tok.encode("hi", sampling=Sampling(dropout=0.1))
