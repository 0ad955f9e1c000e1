"""Gemma's and Gemini's tokenizer.json shape on the fast path: Replace(" ", "▁"), one piece, BPE with
byte fallback. Chunks cut before runs of spaces equal the whole text's BPE, except where a token joins
a word to the space after it (">▁</" in Gemma 3) or a literal "▁" stands: the guard's texts take the
general path. Added tokens ("\\n" is one in Gemma) are cut out as the general path cuts them."""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from tokenizer_core.bpe.model import BPE
from tokenizer_core.bpe.options import BpeModelOptions
from tokenizer_core.fast.replaced_spaces import ReplacedSpacesFastPath
from tokenizer_core.pipeline import Tokenizer
from tokenizer_core.text.added_vocabulary import AddedToken
from tokenizer_core.text.edit_normalizers import Replace
from tokenizer_core.text.normalizers import NFC
from tokenizer_core.text.splitting import Split

BYTES = [f"<0x{b:02X}>" for b in range(256)]
BASE = ["<unk>", *BYTES, "▁", "a", "b", "x", "<", ">", "/"]
MERGES = [("▁", "a"), ("▁", "▁"), ("a", "b"), ("▁▁", "▁"), ("▁a", "b"), (">", "▁"), ("<", "/"), (">▁", "</"),
          ("▁", "x"), ("b", "▁")]


def _model(merges=MERGES, *, base=BASE) -> BPE:
    vocab = {t: i for i, t in enumerate(base)}
    for a, b in merges:
        vocab.setdefault(a + b, len(vocab))
    return BPE(vocab, merges, options=BpeModelOptions(unk_token="<unk>", byte_fallback=True, fuse_unk=True))


def _tok(pre=None, merges=MERGES, added=("\n",), *, base=BASE) -> Tokenizer:
    return Tokenizer(_model(merges, base=base), normalizer=Replace(" ", "▁"), pre_tokenizer=pre,
                     added_tokens=[AddedToken(t, normalized=False) for t in added])


def _general(tok, text):
    return tok._trace_text(text, split_special=True, sampling=None, sequence_id=0)[1]


PRES = [None, Split(" ", behavior="merged_with_previous"), Split(" ", behavior="isolated")]


@pytest.mark.parametrize("pre", PRES, ids=["none", "split-merged", "split-isolated"])
@settings(max_examples=120, deadline=None)
@given(texts=st.lists(st.text(alphabet=" ab▁<>/\n\tx😀é", max_size=40), min_size=1, max_size=5))
@example(texts=["ab > </b  a", "b a", "  ab\n\n a", "▁a b", "", " ", "😀 é"])
def test_the_fast_path_equals_the_general_path(pre, texts):
    tok = _tok(pre)
    assert tok.explain_fast_path().chosen == ReplacedSpacesFastPath.name
    for text in texts:
        assert tok.encode(text) == _general(tok, text), text
    assert tok.encode_batch(texts, add_special_tokens=False).encodings == [_general(tok, t) for t in texts]


def test_the_guard_names_joining_tokens_and_the_literal_space_symbol():
    fast = ReplacedSpacesFastPath.build(normalizer=Replace(" ", "▁"), pre_tokenizer=None, model=_model())
    assert fast.guard.search("x > </y") and fast.guard.search("x >▁</y") and fast.guard.search("a▁")
    assert fast.guard.search("ab a") and not fast.guard.search("a  xa")  # "b▁" joins too
    assert fast.limits()[0].startswith(f"A text in which {fast.guard.pattern!r} matches")


@settings(max_examples=150, deadline=None)
@given(texts=st.lists(st.text(alphabet=" ab▁<>/\n\x00x", max_size=12), max_size=8))
@example(texts=["x >", " </y", "a▁", "", "ab a", "b\x00 a", "> \x00</"])
def test_a_batch_searched_in_one_joined_text_finds_the_texts_each_search_finds(texts):
    fast = ReplacedSpacesFastPath.build(normalizer=Replace(" ", "▁"), pre_tokenizer=None, model=_model())
    assert fast.guard_separator == "\x00"
    each = {i for i, t in enumerate(texts) if fast.guard.search(t)}
    assert fast._guarded(list(texts)) == each
    fast.guard_separator = None  # the one-search-a-text reading, as for a guard of unknown matches
    assert fast._guarded(list(texts)) == each and fast._guarded([*texts, 3]) == each


@pytest.mark.parametrize("normalizer,pre,model,why", [
    (NFC(), None, None, "the normalizer (NFC) is not Replace(' ', '▁')"),
    (Replace(" ", "_"), None, None, "the normalizer (Replace) is not Replace(' ', '▁')"),
    (Replace(" ", "▁"), Split(r"\s", is_regex=True), None, "the pre-tokenizer (Split) may cut the text"),
    (Replace(" ", "▁"), None, BPE({"a": 0}), "its vocabulary has no '▁' token, so unknown characters could fuse across a cut"),
    (Replace(" ", "▁"), None, BPE({"▁": 0, "a": 1}, options=BpeModelOptions(ignore_merges=True)), "its BPE looks words up whole or marks word parts (ignore_merges, a prefix or a suffix)"),
])
def test_stages_it_cannot_prove_are_refused_with_a_reason(normalizer, pre, model, why):
    assert ReplacedSpacesFastPath.plan(normalizer=normalizer, pre_tokenizer=pre, model=model or _model()) == why


def test_an_added_id_past_the_int32_column_takes_the_list_path(monkeypatch):
    from tokenizer_core.fast.columns import ColumnBuilder
    from tokenizer_core.fast.packed import PackedEncoding

    tok = _tok()
    text = "a  x\nx\n\n a"  # (nothing the guard finds)
    assert type(tok.encode(text)) is PackedEncoding and tok.encode(text) == _general(tok, text)
    monkeypatch.setattr(ColumnBuilder, "id_max", 0)  # "\n"'s id is now "too large" for a column
    enc = tok.encode(text)
    assert type(enc) is not PackedEncoding and enc == _general(tok, text)


@settings(max_examples=120, deadline=None)
@given(text=st.text(alphabet=" ab▁<>\n\tx😀", max_size=60))
@example(text="a\n\n\tb \n")
@example(text="".join(f"ab {i % 7} a\n\t\n x  b\n" for i in range(800)))  # long: cut into shards
def test_added_tokens_the_model_knows_cut_the_text_in_one_kernel_call(text):
    """Gemma's "\n" is an added token its model also holds (so its id's string is its text): a whole
    text is cut at them and encoded in one call (kernels/src/chunks_joined.c), equal to the general path."""
    from tokenizer_core.fast.chunk_table import CompiledChunks

    tok = _tok(added=("\n", "\t"), base=[*BASE, "\n", "\t"])
    joined = []
    real = CompiledChunks.encode_joined
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(CompiledChunks, "encode_joined", lambda *a, **k: joined.append(real(*a, **k)) or joined[-1])
        assert tok.encode(text) == _general(tok, text), text
    if ("\n" in text or "\t" in text) and not ReplacedSpacesFastPath.build(
            normalizer=Replace(" ", "▁"), pre_tokenizer=None, model=_model()).guard.search(text):
        assert joined and joined[-1] is not None  # the kernel's answer, not a fallback's


def test_added_tokens_that_strip_white_space_are_cut_by_the_general_split():
    tok = Tokenizer(_model(base=[*BASE, "\n"]), normalizer=Replace(" ", "▁"),
                    added_tokens=[AddedToken("\n", normalized=False, lstrip=True)])
    assert tok.added.cut("a \nb", normalized=False) is None
    for text in ("a \nb", "ab  \n\n x", "\n a"):
        assert tok.encode(text) == _general(tok, text), text
