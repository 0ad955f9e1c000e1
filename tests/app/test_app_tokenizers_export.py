"""The Tokenizers page's transformers download (issue 32): a button beside tokenizer.json whose zip,
made on click, unpacks to a folder ``transformers.AutoTokenizer`` loads and that encodes as ours."""

from __future__ import annotations

import io
import zipfile

import pytest

from tests.app.test_app_tokenizers import open_page
from tokenizer_core.io.references import load_reference
from ui.tokenizers.page import _transformers_zip


def test_the_page_offers_the_transformers_zip():
    at = open_page()
    buttons = {b.proto.id.rsplit("-", 1)[-1]: b for b in at.get("download_button")}
    assert buttons["tokenizers_dl_transformers"].proto.label == "transformers (zip)"
    assert "tokenizers_dl_hf" in buttons


def test_the_zip_loads_in_transformers(tmp_path):
    transformers = pytest.importorskip("transformers")
    tok = load_reference("gpt2")
    data = _transformers_zip(tok, "gpt2")
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        assert sorted(archive.namelist()) == ["gpt2/special_tokens_map.json", "gpt2/tokenizer.json",
                                              "gpt2/tokenizer_config.json"]
        archive.extractall(tmp_path)
    hf = transformers.AutoTokenizer.from_pretrained(str(tmp_path / "gpt2"))
    text = "Hello world, héllo 🤗"
    assert hf(text)["input_ids"] == tok.encode(text).ids
