"""SentencePiece's fast path (tokenizer_core/fast/sentencepiece.py) gives the general path's encoding,
field for field, on hostile texts, for BPE and Unigram models with and without the nmt_nfkc rule table,
the dummy prefix and the removal of extra spaces; and sentencepiece's own ids."""

from __future__ import annotations

import copy
import dataclasses
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests._texts import real_lines
from tokenizer_core.fast.sentencepiece import SentencePieceFastPath
from tokenizer_core.io.importers import import_tokenizer
from tokenizer_core.io.references import load_reference
from tokenizer_core.pipeline import Tokenizer

spm = pytest.importorskip("sentencepiece")

_ALPHABET = list("aAbé\u0301中文!,.-") + [
    " ", "  ", "\t", "\n", "\r\n", "\x0b", "\u00a0", "\u3000", "\u200b", "\u00ad", "\x00", "\ufeff",
    "\U0001F600", "…", "ﬁ", "½", "①", "Ａ", "▁", "the", " the", "ing", "  x"]
TEXTS = st.lists(st.sampled_from(_ALPHABET), max_size=40).map("".join)


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("sp")


@pytest.fixture(scope="module")
def models(folder: Path) -> dict[str, Tokenizer]:
    corpus = folder / "corpus.txt"
    corpus.write_text("\n".join(real_lines(2000)) + "\nnaïve café ① Ａ … ﬁne 中文字\n" * 20, encoding="utf-8")
    out: dict[str, Tokenizer] = {"mistral_v1": load_reference("mistral_v1")}
    for kind in ("unigram", "bpe"):
        spm.SentencePieceTrainer.train(input=str(corpus), model_prefix=str(folder / kind), vocab_size=700,
                                       model_type=kind, minloglevel=2)
        out[f"sp-{kind}"] = import_tokenizer("sentencepiece", folder / f"{kind}.model")
    # The same Unigram with the other settings of the normalizer.
    for name, changes in (("keep-spaces", {"remove_extra_whitespaces": False}),
                          ("no-dummy", {"add_dummy_prefix": False}),
                          ("no-dummy-keep-spaces", {"add_dummy_prefix": False, "remove_extra_whitespaces": False})):
        tok = copy.deepcopy(out["sp-unigram"])
        for key, value in changes.items():
            setattr(tok.normalizer, key, value)
        out[f"sp-unigram-{name}"] = tok
    return out


def _general(tok: Tokenizer, text: str):  # noqa: ANN202
    return tok._trace_text(text, split_special=True, sampling=None, sequence_id=0)[1]


def _fields(enc) -> dict:  # noqa: ANN001
    return {f.name: getattr(enc, f.name) for f in dataclasses.fields(enc)}


NAMES = ["mistral_v1", "sp-unigram", "sp-bpe", "sp-unigram-keep-spaces", "sp-unigram-no-dummy",
         "sp-unigram-no-dummy-keep-spaces"]


@pytest.mark.parametrize("name", NAMES)
def test_the_fast_path_is_taken(models, name: str) -> None:
    tok = models[name]
    assert isinstance(tok._fast.get(tok.normalizer, tok.pre_tokenizer, tok.model), SentencePieceFastPath)
    fast = tok._fast.get(tok.normalizer, tok.pre_tokenizer, tok.model)
    for text in ("plain words here, and … more", "\tﬁne\u00a0 café ① Ａ\n\n", "  lead and trail  "):
        assert fast.encode(text, added=tok.added, split_special=True, sequence_id=0) is not None, text
    # What the chunks cannot hold takes the general path: a typed "▁" (it joins the runs of "▁").
    assert fast.encode("a ▁b", added=tok.added, split_special=True, sequence_id=0) is None


@pytest.mark.parametrize("name", NAMES)
@given(text=TEXTS)
@settings(max_examples=80, deadline=None)
def test_fast_equals_general(models, name: str, text: str) -> None:
    tok = models[name]
    assert _fields(tok.encode(text)) == _fields(_general(tok, text))


@pytest.mark.parametrize("kind", ["unigram", "bpe"])
def test_ids_equal_sentencepiece_on_real_lines(models, folder: Path, kind: str) -> None:
    tok = models[f"sp-{kind}"]
    sp = spm.SentencePieceProcessor(model_file=str(folder / f"{kind}.model"))
    for line in real_lines(300):
        for text in (line, "  " + line + "\t", line.replace(" ", "\u00a0 ")):
            assert tok.encode(text, add_special_tokens=False).ids == sp.encode(text), text


def test_a_repeated_chunk_is_segmented_once(folder: Path, models) -> None:
    tok = import_tokenizer("sentencepiece", folder / "unigram.model")  # nothing remembered yet
    calls: list[str] = []
    inner = tok.model.viterbi_margin
    tok.model.viterbi_margin = lambda text: calls.append(text) or inner(text)  # type: ignore[method-assign]
    tok.encode("the cat the cat the cat")
    # " cat" once; "▁the" twice: the text's first chunk "the" has an entry of its own, " the" another.
    assert calls.count("▁cat") == 1 and calls.count("▁the") == 2, calls


def test_unigram_near_ties_follow_the_score_of_the_text_so_far() -> None:
    """x + xxx and xxx + x score the same in exact arithmetic; which one sentencepiece's float32 path keeps
    depends on the score accumulated before the chunk. The fast path must segment such chunks again from
    that score (a cached segmentation from a score of 0 differs for 61 of these 143 prefixes)."""
    from tokenizer_core.unigram.sentencepiece_normalizer import SentencePieceNormalizer
    from tokenizer_core.unigram.sentencepiece_unigram import SentencePieceUnigram

    vocab = [("<unk>", 0.0, "unknown"), ("▁", -3.0, "normal"), ("x", -2.1, "normal"), ("xxx", -4.3, "normal"),
             ("▁w", -1.7, "normal"), ("▁xxx", -5.9, "normal"), ("▁x", -3.7, "normal"), ("xx", -4.2, "normal")]
    tok = Tokenizer(SentencePieceUnigram(vocab), normalizer=SentencePieceNormalizer())
    for n in range(0, 3000, 21):
        text = "w " * n + "xxxx xxxxx xxxxxxx"
        assert _fields(tok.encode(text)) == _fields(_general(tok, text)), n


@pytest.mark.parametrize("name", ["mistral_v1", "sp-unigram", "sp-bpe", "sp-unigram-keep-spaces",
                                  "sp-unigram-no-dummy"])
@given(texts=st.lists(TEXTS, max_size=10))
@settings(max_examples=30, deadline=None)
def test_batches_equal_the_general_path_text_by_text(models, name: str, texts: list[str]) -> None:
    """Rows assembled on threads by the kernel's chunk table (the rule table's spaces found once for
    the batch) are each text's general-path encoding."""
    tok = models[name]
    rows = tok._encode_sequences(texts, threads=2)
    assert [_fields(r) for r in rows] == [_fields(_general(tok, t)) for t in texts]


def test_batches_follow_near_ties_row_by_row() -> None:
    """A row whose chunk is a near tie at its running score is segmented again (the kernel stops the
    row there): the rows equal the general path's, prefixes that fail without the running score included."""
    from tokenizer_core.unigram.sentencepiece_normalizer import SentencePieceNormalizer
    from tokenizer_core.unigram.sentencepiece_unigram import SentencePieceUnigram

    vocab = [("<unk>", 0.0, "unknown"), ("▁", -3.0, "normal"), ("x", -2.1, "normal"), ("xxx", -4.3, "normal"),
             ("▁w", -1.7, "normal"), ("▁xxx", -5.9, "normal"), ("▁x", -3.7, "normal"), ("xx", -4.2, "normal")]
    tok = Tokenizer(SentencePieceUnigram(vocab), normalizer=SentencePieceNormalizer())
    texts = ["w " * n + "xxxx xxxxx xxxxxxx" for n in range(0, 3000, 63)]
    rows = tok._encode_sequences(texts, threads=2)
    assert [_fields(r) for r in rows] == [_fields(_general(tok, t)) for t in texts]


def test_unknown_characters_add_the_unknown_score_to_the_running_score() -> None:
    """A path's unknown character (id -1) adds the unknown score to the score carried along the text,
    not the last piece's: the near ties after it are decided from the right score. Fails when
    piece_score(-1) reads the vocabulary's last piece (as it did)."""
    from tokenizer_core.unigram.sentencepiece_normalizer import SentencePieceNormalizer
    from tokenizer_core.unigram.sentencepiece_unigram import SentencePieceUnigram

    vocab = [("<unk>", 0.0, "unknown"), ("▁", -3.0, "normal"), ("x", -2.1, "normal"), ("xxx", -4.3, "normal"),
             ("▁w", -1.7, "normal"), ("▁xxx", -5.9, "normal"), ("▁x", -3.7, "normal"), ("xx", -4.2, "normal"),
             ("q", -0.01, "normal")]
    model = SentencePieceUnigram(vocab)
    tok = Tokenizer(model, normalizer=SentencePieceNormalizer())
    texts = ["w " * n + "中" * (n % 5) + " xxxx xxxxx xxxxxxx" for n in range(0, 3000, 21)]
    assert [_fields(tok.encode(t)) for t in texts] == [_fields(_general(tok, t)) for t in texts]
    assert [_fields(r) for r in tok._encode_sequences(texts, threads=2)] == [_fields(_general(tok, t)) for t in texts]


@pytest.mark.parametrize("name", ["mistral_v1", "sp-unigram", "sp-bpe"])
def test_chunks_too_long_for_the_kernels_table(models, name: str) -> None:
    """A chunk over 1,024 characters is never stored: the Python side encodes it inside the
    kernel's row (a BPE model's entry as it is, a Unigram model's from the running score)."""
    tok = models[name]
    texts = ["ab " + "x" * 1500 + " cd", "y" * 2000, "the " + "é" * 1100, "  " + "z" * 1030 + "  "]
    assert [_fields(tok.encode(t)) for t in texts] == [_fields(_general(tok, t)) for t in texts]
    assert [_fields(r) for r in tok._encode_sequences(texts, threads=2)] == [_fields(_general(tok, t)) for t in texts]
