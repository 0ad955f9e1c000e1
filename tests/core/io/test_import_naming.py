"""Imported tokenizers are named from their files (issue 39): a tokenizer_config.json uploaded beside
a tokenizer.json names the model, the file's model type and vocabulary size follow; the stages of an
import are reported; a renamed shelf item keeps the links shared under its old name."""

from __future__ import annotations

import json

import pytest

from tokenizer_core.errors import FormatError
from tokenizer_core.io.naming import family, imported_name
from tokenizer_core.io.references import load_reference
from tokenizer_core.io.uploads import import_files


@pytest.fixture(scope="module")
def gpt2_json() -> bytes:
    return json.dumps(load_reference("gpt2").to_hf_json()).encode()


def test_a_config_beside_the_file_names_the_model(gpt2_json):
    config = json.dumps({"tokenizer_class": "GPT2TokenizerFast", "model_max_length": 1024,
                         "chat_template": "{{ messages }}", "added_tokens_decoder": {}}).encode()
    stages: list[str] = []
    tok = import_files([("tokenizer.json", gpt2_json), ("tokenizer_config.json", config)],
                       progress=lambda done, total, what: stages.append(f"{done}/{total} {what}"))
    # the name fields, and the chat template (the Chat page renders it); nothing else of the config
    assert tok.metadata["tokenizer_config"] == {"tokenizer_class": "GPT2TokenizerFast", "model_max_length": 1024,
                                                "chat_template": "{{ messages }}"}
    assert stages == ["0/3 Reading the files", "1/3 Building the model", "3/3 Done"]
    name = imported_name(["tokenizer.json", "tokenizer_config.json"], model_type=type(tok.model).__name__,
                         vocab_size=tok.vocab_size, config=tok.metadata["tokenizer_config"])
    assert name == "GPT2 · BPE 50,257"
    # The same file alone, and the file read once: ids equal to the general importer's.
    alone = import_files([("tokenizer.json", gpt2_json)])
    assert "tokenizer_config" not in alone.metadata
    assert alone.encode("Hello there, 12345!").ids == tok.encode("Hello there, 12345!").ids


def test_a_chat_template_jinja_and_the_configs_special_tokens_are_kept(gpt2_json):
    config = json.dumps({"chat_template": "from the config", "bos_token": {"content": "<|endoftext|>", "lstrip": False},
                         "eos_token": "<|endoftext|>", "pad_token": None, "additional_special_tokens": ["<a>", 3]}).encode()
    tok = import_files([("tokenizer.json", gpt2_json), ("tokenizer_config.json", config),
                        ("chat_template.jinja", "{{ bos_token }}{% for m in messages %}{{ m.content }}{% endfor %}".encode())])
    assert tok.metadata["tokenizer_config"] == {
        "chat_template": "{{ bos_token }}{% for m in messages %}{{ m.content }}{% endfor %}",  # the file wins
        "bos_token": "<|endoftext|>", "eos_token": "<|endoftext|>", "additional_special_tokens": ["<a>"]}
    named = [{"name": "default", "template": "d"}, {"name": "tool_use", "template": "t", "extra": 1}]
    tok = import_files([("tokenizer.json", gpt2_json), ("tokenizer_config.json", json.dumps({"chat_template": named}).encode())])
    assert tok.metadata["tokenizer_config"]["chat_template"] == [{"name": "default", "template": "d"},
                                                                 {"name": "tool_use", "template": "t"}]
    # a template alone beside the file is kept too; malformed ones are refused with a message
    assert import_files([("tokenizer.json", gpt2_json), ("chat_template.jinja", b"x")]).metadata["tokenizer_config"] == \
        {"chat_template": "x"}
    with pytest.raises(FormatError, match="must be UTF-8"):
        import_files([("tokenizer.json", gpt2_json), ("chat_template.jinja", b"\xff\xfe\x00")])
    with pytest.raises(FormatError, match="at most 1,000,000 bytes"):
        import_files([("tokenizer.json", gpt2_json), ("chat_template.jinja", b"x" * 1_000_001)])
    with pytest.raises(FormatError, match="one chat_template.jinja"):
        import_files([("tokenizer.json", gpt2_json), ("a.jinja", b"x"), ("b.jinja", b"y")])


def test_names_say_the_model_before_the_file():
    assert family(["tokenizer.json"], {"name_or_path": "google/gemma-3-4b-it"}) == "gemma-3-4b-it"
    assert family(["tokenizer.json"], {"tokenizer_class": "PreTrainedTokenizerFast"}) is None  # names no model
    assert family(["Llama-3.1-8B.tokenizer.json"]) == "Llama-3.1-8B"
    assert family(["tokenizer.json", "tokenizer_config.json"]) is None
    long = imported_name(["x" * 200 + ".json"], model_type="BPE", vocab_size=201_088)
    assert len(long) <= 60 and long.endswith(" · BPE 201,088")


def test_a_config_alone_or_two_configs_are_refused_with_a_message(gpt2_json):
    config = json.dumps({"tokenizer_class": "GPT2TokenizerFast"}).encode()
    with pytest.raises(FormatError, match="at most one tokenizer_config.json"):
        import_files([("tokenizer_config.json", config)])
    with pytest.raises(FormatError, match="at most one tokenizer_config.json"):
        import_files([("tokenizer.json", gpt2_json), ("a_config.json", config), ("b_config.json", config)])


def test_a_byte_order_mark_before_the_json_is_read(gpt2_json):
    tok = import_files([("tokenizer.json", b"\xef\xbb\xbf" + gpt2_json)])
    assert tok.vocab_size == 50_257


def test_rename_keeps_the_tokenizer_and_the_old_link():
    from streamlit.testing.v1 import AppTest

    def script():
        import streamlit as st

        from tokenizer_core.options import TrainOptions
        from tokenizer_core.training import train
        from ui.shelf import state as shelf

        tok = train("bpe", ["zorbluxian zorblux zorb"] * 3, options=TrainOptions(vocab_size=40))
        first = shelf.add(tok, name="BPE 40", kind="imported", detail="x")
        renamed = shelf.rename(first.key, "  my   model  ")
        st.text(repr((renamed.name, shelf.find(first.key) is None, shelf.tokenizer(renamed.key) is tok,
                      renamed.digest == first.digest, shelf.rename(renamed.key, "   ") is None)))

    at = AppTest.from_function(script).run()
    assert not at.exception, at.exception
    assert at.text[0].value == "('my model', True, True, True, True)"
