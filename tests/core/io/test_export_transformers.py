"""``export --format transformers`` (issue 32): the folder loads in ``transformers.AutoTokenizer`` and
gives what our own pipeline gives: ids, attention mask and token type ids of a padded, truncated batch
(pairs too), and the decoded text; the config's model_max_length and padding side are the ones
transformers uses. Tokenizers trained here (byte-level BPE, WordPiece with [CLS]/[SEP]/[PAD], Unigram),
a BERT vocab.txt imported, and offline references (GPT-2, Llama 3, Mistral's SentencePiece model).
Bad input ends with exit code 2 and one line, nothing written.
"""

from __future__ import annotations

import json

import pytest

from tests._cli import run
from tokenizer_core import TrainOptions, load_sample, train
from tokenizer_core.batch.batching import PaddingParams, TruncationParams
from tokenizer_core.io.importers import import_tokenizer
from tokenizer_core.io.references import load_reference
from tokenizer_core.io.transformers_export import (
    NO_MAX_LENGTH,
    TransformersOptions,
    save_transformers,
    special_token_roles,
)

transformers = pytest.importorskip("transformers")

MAX_LENGTH = 24


def _texts() -> list[str]:
    lines = [line for line in load_sample("multilingual").lines() if line.strip()][:14]
    return [*lines, "  spaces   around  ", "tab\there\nand a newline", "Ünïcödé — “quotes” 🤗 ok", "a", "",
            "[CLS] [SEP] [PAD] <|endoftext|> <s> inside the text"]


TEXTS = _texts()
PAIRS = list(reversed(TEXTS))


@pytest.fixture(scope="module")
def corpus_lines():
    return list(load_sample("default").lines())[:4000]


@pytest.fixture(scope="module")
def trained(corpus_lines, tmp_path_factory):
    wordpiece = train("wordpiece", corpus_lines, options=TrainOptions(vocab_size=1500, lowercase=True))
    vocab_txt = tmp_path_factory.mktemp("bert") / "vocab.txt"
    by_id = sorted(wordpiece.get_vocab().items(), key=lambda kv: kv[1])
    vocab_txt.write_text("".join(token + "\n" for token, _ in by_id), encoding="utf-8")
    return {
        "bpe": train("bpe", corpus_lines, options=TrainOptions(vocab_size=1500, byte_level=True)),
        "wordpiece": wordpiece,
        "unigram": train("unigram", corpus_lines, options=TrainOptions(vocab_size=1500)),
        "bert-vocab": import_tokenizer("bert-vocab", vocab_txt),
    }


def _tokenizer(name: str, trained):
    return trained[name] if name in trained else load_reference(name)


def _load(tok, tmp_path, **options):
    folder = tmp_path / "exported"
    save_transformers(tok, folder, options=TransformersOptions(**options))
    return transformers.AutoTokenizer.from_pretrained(str(folder)), folder


def _pad_token(tok) -> str:
    roles = special_token_roles(tok)
    return roles.get("pad_token") or roles.get("eos_token") or roles["unk_token"]


def _assert_same_batch(hf_out, ours):
    assert hf_out["input_ids"] == ours.input_ids
    assert hf_out["attention_mask"] == ours.attention_mask
    assert hf_out["token_type_ids"] == ours.token_type_ids


CASES = ["bpe", "wordpiece", "unigram", "bert-vocab", "gpt2", "llama3", "mistral_v1"]


@pytest.mark.parametrize("name", CASES)
def test_padded_truncated_batch_and_decoding_equal_ours(name, trained, tmp_path):
    tok = _tokenizer(name, trained)
    pad = _pad_token(tok)
    hf, _ = _load(tok, tmp_path, pad_token=pad)
    assert type(hf).__name__ in ("PreTrainedTokenizerFast", "TokenizersBackend")
    got = hf(TEXTS, padding="longest", truncation=True, max_length=MAX_LENGTH, return_token_type_ids=True)
    ours = tok.encode_batch(TEXTS, padding=PaddingParams(pad_id=tok.token_to_id(pad), pad_token=pad),
                            truncation=TruncationParams(max_length=MAX_LENGTH))
    _assert_same_batch(got, ours)
    assert any(0 in mask for mask in ours.attention_mask) and any(all(mask) for mask in ours.attention_mask)
    for ids, mask in zip(ours.input_ids, ours.attention_mask):
        real = ids[: sum(mask)] if hf.padding_side == "right" else ids[len(ids) - sum(mask):]
        assert hf.decode(real, skip_special_tokens=True) == tok.decode(real)
        assert hf.decode(real, skip_special_tokens=False) == tok.decode(real, skip_special_tokens=False)


@pytest.mark.parametrize("name", ["wordpiece", "bert-vocab"])
def test_pairs_give_the_same_type_ids(name, trained, tmp_path):
    tok = trained[name]
    hf, _ = _load(tok, tmp_path)
    got = hf(TEXTS, PAIRS, padding="longest", truncation="longest_first", max_length=MAX_LENGTH)
    ours = tok.encode_batch(TEXTS, pairs=PAIRS, padding=PaddingParams(pad_id=tok.token_to_id("[PAD]")),
                            truncation=TruncationParams(max_length=MAX_LENGTH))
    _assert_same_batch(got, ours)
    assert any(1 in row for row in ours.token_type_ids)


def test_the_config_sets_max_length_and_padding_side(trained, tmp_path):
    tok = trained["wordpiece"]
    hf, folder = _load(tok, tmp_path, model_max_length=16, padding_side="left")
    assert hf.model_max_length == 16 and hf.padding_side == "left"
    got = hf(TEXTS, padding=True, truncation=True)  # the config's length and side, nothing given here
    ours = tok.encode_batch(TEXTS, padding=PaddingParams(side="left", pad_id=tok.token_to_id("[PAD]")),
                            truncation=TruncationParams(max_length=16))
    _assert_same_batch(got, ours)
    config = json.loads((folder / "tokenizer_config.json").read_text(encoding="utf-8"))
    assert config["tokenizer_class"] == "PreTrainedTokenizerFast"
    assert {config[k] for k in ("cls_token", "sep_token", "pad_token", "unk_token", "mask_token")} == \
        {"[CLS]", "[SEP]", "[PAD]", "[UNK]", "[MASK]"}
    specials = json.loads((folder / "special_tokens_map.json").read_text(encoding="utf-8"))
    assert specials["cls_token"] == "[CLS]" and hf.cls_token == "[CLS]" and hf.pad_token == "[PAD]"


def test_roles_come_from_the_template_and_the_names(trained):
    assert special_token_roles(load_reference("llama3"))["bos_token"] == "<|begin_of_text|>"
    assert special_token_roles(load_reference("gpt2")) == {"eos_token": "<|endoftext|>"}
    roles = special_token_roles(trained["bpe"])
    assert roles["pad_token"] == "[PAD]" and roles["unk_token"] == "[UNK]" and roles["bos_token"] == "[BOS]"


def test_cli_writes_the_folder(trained, tmp_path):
    path = tmp_path / "wp.json"
    trained["wordpiece"].save(path)
    out = tmp_path / "folder"
    assert run(["export", "-t", str(path), "--format", "transformers", "-o", str(out), "--model-max-length", "512",
                "--padding-side", "left"])[0] == 0
    assert sorted(p.name for p in out.iterdir()) == ["special_tokens_map.json", "tokenizer.json",
                                                     "tokenizer_config.json"]
    hf = transformers.AutoTokenizer.from_pretrained(str(out))
    assert hf.model_max_length == 512 and hf.padding_side == "left"
    assert run(["export", "--reference", "gpt2", "--format", "transformers", "-o", str(tmp_path / "g2"),
                "--pad-token", "<|endoftext|>"])[0] == 0
    assert json.loads((tmp_path / "g2" / "tokenizer_config.json").read_text())["model_max_length"] == NO_MAX_LENGTH


@pytest.mark.parametrize("args, message", [
    (["--pad-token", "nope"], "pad token 'nope' is not in the vocabulary"),
    (["--model-max-length", "0"], "model_max_length must be a positive number"),
])
def test_cli_refuses_bad_options(args, message, tmp_path, capsys):
    out = tmp_path / "g"
    code, _ = run(["export", "--reference", "gpt2", "--format", "transformers", "-o", str(out), *args])
    err = capsys.readouterr().err
    assert code == 2 and message in err and "Traceback" not in err and not out.exists()


def test_cli_refuses_a_non_empty_folder_and_a_file(tmp_path, capsys):
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "keep.txt").write_text("mine")
    assert run(["export", "--reference", "gpt2", "--format", "transformers", "-o", str(tmp_path / "full")])[0] == 2
    assert "is not empty" in capsys.readouterr().err
    assert [p.name for p in (tmp_path / "full").iterdir()] == ["keep.txt"]
    (tmp_path / "file").write_text("x")
    assert run(["export", "--reference", "gpt2", "--format", "transformers", "-o", str(tmp_path / "file")])[0] == 2
    assert "is a file" in capsys.readouterr().err
    (tmp_path / "empty").mkdir()  # an empty folder is fine
    assert run(["export", "--reference", "gpt2", "--format", "transformers", "-o", str(tmp_path / "empty")])[0] == 0


def test_cli_refuses_transformers_options_with_other_formats(tmp_path, capsys):
    code, _ = run(["export", "--reference", "gpt2", "--format", "hf", "-o", str(tmp_path / "t.json"),
                   "--padding-side", "left"])
    assert code == 2 and "--padding-side applies to --format transformers only" in capsys.readouterr().err
    assert not (tmp_path / "t.json").exists()


def test_a_tokenizer_transformers_cannot_express_is_refused(corpus_lines, tmp_path, capsys):
    """A BPE whose end-of-word marker is a symbol of its own has no tokenizer.json form."""
    from tokenizer_core.options import BpeOptions

    try:
        tok = train("bpe", corpus_lines[:200], options=TrainOptions(vocab_size=300, end_of_word_suffix="</w>",
                                                                    bpe=BpeOptions(suffix_as_symbol=True)))
    except TypeError:
        pytest.skip("this BPE has no suffix-as-symbol option")
    path = tmp_path / "bpe.json"
    tok.save(path)
    code, _ = run(["export", "-t", str(path), "--format", "transformers", "-o", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert code == 2 and "tokenizers cannot express" in err and not (tmp_path / "out").exists()


def test_an_imported_chat_template_travels_with_the_export_and_renders_the_same(tmp_path):
    """A model imported with its chat template exports it in tokenizer_config.json: transformers
    renders it there as the Chat page renders it here, and the folder reads back the same template."""
    from tokenizer_core.chat import ChatTemplate
    from tokenizer_core.chat.builtin import CHATML
    from tokenizer_core.io.uploads import import_files

    qwen = load_reference("qwen")
    config = {"chat_template": CHATML, "eos_token": "<|im_end|>"}
    tok = import_files([("tokenizer.json", json.dumps(qwen.to_hf_json()).encode()),
                        ("tokenizer_config.json", json.dumps(config).encode())])
    folder = tmp_path / "qwen"
    save_transformers(tok, folder)
    chat = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "2+2?"}]
    hf = transformers.AutoTokenizer.from_pretrained(str(folder))
    ours = ChatTemplate.from_folder(folder)
    assert hf.apply_chat_template(chat, tokenize=False, add_generation_prompt=True) == \
        ours.render(chat, add_generation_prompt=True) == \
        "<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\n2+2?<|im_end|>\n<|im_start|>assistant\n"
    ids = hf.apply_chat_template(chat, tokenize=True, add_generation_prompt=True)
    ids = ids if isinstance(ids, list) else ids["input_ids"]
    assert ids == tok.encode(ours.render(chat, add_generation_prompt=True), add_special_tokens=False).ids
