"""Round trips: decode(encode(text)) as `tokenizers` gives it, the changes between it and the text
(kept, lost, added runs that rebuild both), and the reasons named (a normalizer that lowercases, folds
with NFKC or strips accents; unknown tokens; a decoder's joins)."""

from __future__ import annotations

import json

import pytest
from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers

from tokenizer_core.analysis.round_trip import round_trip
from tokenizer_core.io.hf_json import tokenizer_from_hf
from tokenizer_core.io.references import load_reference

TEXTS = ["Hello, World!", "Ｈｅｌｌｏ  wörld ﬁne\tcafé  ,  ok 😀", "  leading and trailing  ", "ÉCOLE naïve", ""]


def _wordpiece(normalizer) -> Tokenizer:
    vocab = {t: i for i, t in enumerate(["[UNK]", "hello", ",", "world", "!", "ecole", "naive", "cafe", "fine",
                                         "ok", "##s", "leading", "and", "trailing", "e", "##cole", "hel", "##lo"])}
    tok = Tokenizer(models.WordPiece(vocab, unk_token="[UNK]"))
    tok.normalizer = normalizer
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tok.decoder = decoders.WordPiece()
    return tok


REFERENCES = {
    "bert-uncased": lambda: _wordpiece(normalizers.BertNormalizer(lowercase=True, strip_accents=True)),
    "nfkc-lowercase": lambda: _wordpiece(normalizers.Sequence([normalizers.NFKC(), normalizers.Lowercase()])),
    "cased": lambda: _wordpiece(normalizers.NFC()),
}


@pytest.mark.parametrize("name", sorted(REFERENCES))
@pytest.mark.parametrize("text", TEXTS)
def test_the_decoded_text_is_tokenizers_own_and_the_changes_rebuild_both(name, text):
    theirs = REFERENCES[name]()
    ours = tokenizer_from_hf(json.loads(theirs.to_str()))
    r = round_trip(ours, text)
    assert r.decoded == theirs.decode(theirs.encode(text, add_special_tokens=False).ids, skip_special_tokens=False)
    assert "".join(c.before for c in r.changes) == text and "".join(c.after for c in r.changes) == r.decoded
    assert r.lossless == (text == r.decoded) and (r.lossless == (not r.reasons))
    assert all(c.before == c.after for c in r.changes if c.kind == "equal")


def test_the_reasons_name_what_the_normalizer_does_and_the_unknown_tokens():
    bert = tokenizer_from_hf(json.loads(REFERENCES["bert-uncased"]().to_str()))
    r = round_trip(bert, "ÉCOLE naïve")
    assert r.decoded == "ecole naive" and any("lowercases" in x and "strips accents" in x for x in r.reasons)
    nfkc = tokenizer_from_hf(json.loads(REFERENCES["nfkc-lowercase"]().to_str()))
    r = round_trip(nfkc, "Ｈｅｌｌｏ ﬁne")
    assert r.decoded == "hello fine" and any("NFKC" in x for x in r.reasons)
    cased = tokenizer_from_hf(json.loads(REFERENCES["cased"]().to_str()))
    r = round_trip(cased, "hello zebra")
    assert r.unknown == 1 and r.reasons == ("1 unknown token stands for characters the vocabulary lacks",)
    r = round_trip(cased, "hello zebra , ok")  # an unknown token, and the decoder's join before ","
    assert r.reasons[-1] == "its decoder adds or drops spaces" and len(r.reasons) == 2
    r = round_trip(cased, "hello , world")  # only the decoder's join: no normalizer, no unknown
    assert not r.lossless and r.decoded == "hello, world" and "decoder" in r.reasons[0]


@pytest.mark.parametrize("name", ["gpt2", "llama3", "qwen", "mistral_v1", "tekken"])
def test_the_byte_level_and_byte_fallback_references_are_lossless(name):
    for text in TEXTS:
        r = round_trip(load_reference(name), text)
        assert r.lossless and r.reasons == () and r.unknown == 0, (name, text, r.decoded)
