"""The Batch page under AppTest: rows from the URL, templates, padding, truncation with overflow,
masks, waste and exports, each checked against the core or by hand."""

from __future__ import annotations

import io

import numpy as np
from streamlit.testing.v1 import AppTest

from tests import _pages as pages
from tests._pages import ok
from tokenizer_core.analysis.batch_templates import with_template
from tokenizer_core.batch.batching import PaddingParams, TruncationParams
from tokenizer_core.io.references import load_reference
from ui.batch.views import npz_bytes
from ui.url_state import MAX_URL_TEXT

PAGE = "pages/batch.py"
ROWS = "<script>alert(1)</script> hi\nshort\na somewhat longer row of plain text"


def open_page(text: str = ROWS) -> AppTest:
    """The page on ``text``: from the address when a link can carry it, else typed into the rows box
    (a longer ``?text=`` is refused: links carry at most ``MAX_URL_TEXT`` characters)."""
    if len(text) <= MAX_URL_TEXT:
        return pages.open_page(PAGE, text=text)
    at = pages.open_page(PAGE)
    at.session_state["batch_rows"] = text  # as a long paste would: past the box's max_chars, cut by rows
    return ok(at.run())


def show(at: AppTest, tab: str) -> AppTest:
    """Open ``tab`` (only the open tab is drawn) and rerun, as a click on it does."""
    at.session_state["batch_tab"] = tab
    return ok(at.run())


def grid(at: AppTest, field: str):
    at.radio(key="batch_field").set_value(field).run()
    return ok(at).dataframe[0].value


def test_url_rows_padded_like_the_core():
    at = open_page()
    gpt2 = load_reference("gpt2")
    texts = ROWS.split("\n")
    expected = gpt2.encode_batch(texts, padding=PaddingParams(pad_id=gpt2.token_to_id("<|endoftext|>"),
                                                               pad_token="<|endoftext|>"))
    assert grid(at, "input_ids").values.tolist() == expected.input_ids
    assert grid(at, "attention_mask").values.tolist() == expected.attention_mask
    tokens = grid(at, "tokens")
    assert tokens.iloc[0, 0] == "<"  # shown as cell text, markers translated
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Padded length"] == str(expected.padded_length)


def test_left_padding_generation_positions_and_truncation_windows():
    at = open_page()
    at.radio(key="batch_padding_side").set_value("left").run()
    positions = grid(at, "generation position_ids").values.tolist()
    mask = grid(at, "attention_mask").values.tolist()
    for row, m in zip(positions, mask):
        real = [p for p, k in zip(row, m) if k]
        assert real == list(range(len(real))) and all(p == 1 for p, k in zip(row, m) if not k)
    at.selectbox(key="batch_truncation").set_value("longest_first").run()
    at.number_input(key="batch_max_length").set_value(4).run()
    at.number_input(key="batch_stride").set_value(1).run()
    ids = grid(at, "input_ids")
    gpt2 = load_reference("gpt2")
    expected = gpt2.encode_batch(ROWS.split("\n"), truncation=TruncationParams(max_length=4, stride=1),
                                 padding=PaddingParams(side="left", pad_id=gpt2.token_to_id("<|endoftext|>"),
                                                       pad_token="<|endoftext|>"), return_overflowing=True)
    assert ids.values.tolist() == expected.input_ids
    assert len(ids) > 3 and any("(text 0)" in i for i in ids.index)


def test_bert_template_on_a_tokenizer_without_its_tokens_says_so():
    at = open_page()
    at = ok(at.selectbox(key="batch_template").set_value("bert").run())
    assert any("needs the token" in e.value and "CLS" in e.value and "SEP" in e.value for e in at.error)


def test_custom_template_pairs_and_the_equivalent_call():
    at = open_page("first a ||| second b\nthird ||| fourth")
    at.selectbox(key="batch_template").set_value("custom").run()
    at.text_input(key="batch_single").input("<|endoftext|> $A").run()
    at.text_input(key="batch_pair").input("<|endoftext|> $A <|endoftext|>:1 $B:1").run()
    types = grid(at, "token_type_ids").values.tolist()
    gpt2 = load_reference("gpt2")
    tok = with_template(gpt2, "custom", single="<|endoftext|> $A", pair="<|endoftext|> $A <|endoftext|>:1 $B:1")
    expected = tok.encode_batch(["first a", "third"], pairs=["second b", "fourth"],
                                padding=PaddingParams(pad_id=50256, pad_token="<|endoftext|>"))
    assert types == expected.token_type_ids
    code = next(c.value for c in show(at, "Export").code)
    assert "TemplateProcessing(single='<|endoftext|> $A'" in code and "[('<|endoftext|>', 50256)]" in code
    assert "encode_batch(list(zip(texts, pairs)))" in code


def test_masks_and_waste_start_from_the_batch_and_the_course_lengths_are_one_click_away():
    at = open_page()
    padding = next(m.value for m in at.metric if m.label == "Padding")
    assert len(show(at, "Masks").get("plotly_chart")) == 4  # three masks of the row, the packed mask
    text = " ".join(m.value for m in show(at, "Waste and throughput").markdown)
    assert f"**{padding}** of the positions are padding" in text  # the same share as the batch above
    assert text.count("This batch of 3: padded to") == 1
    ok(at.button(key="batch_course_lengths").click().run())
    text = " ".join(m.value for m in at.markdown)
    assert "**63%** of the positions are padding" in text  # 940 of 1,500 for 10, 50 and 500 tokens
    assert "Σ n² = 750,000 computed for 252,600 useful" in text
    assert at.text_input(key="batch_lengths").value == "10, 50, 500"
    ok(at.button(key="batch_use_lengths").click().run())
    assert at.text_input(key="batch_lengths").value == ""
    assert f"**{padding}** of the positions are padding" in " ".join(m.value for m in at.markdown)


def test_exports_are_offered_and_the_npz_is_the_batch():
    at = show(open_page(), "Export")
    labels = {b.proto.label for b in at.get("download_button")}
    assert {"Download JSON", "Download NumPy (.npz)"} <= labels
    gpt2 = load_reference("gpt2")
    batch = gpt2.encode_batch(ROWS.split("\n"), padding=PaddingParams(pad_id=50256, pad_token="<|endoftext|>"))
    arrays = np.load(io.BytesIO(npz_bytes(batch)))
    assert arrays["input_ids"].tolist() == batch.input_ids
    assert arrays["attention_mask"].tolist() == batch.attention_mask


def test_a_big_batch_stays_bounded():
    # 64 rows of ~600 tokens: the mask heatmaps would be 600 x 600 and the packed row 38,000 wide.
    at = open_page("\n".join(("word " * 600).strip() for _ in range(64)))
    assert {m.label: m.value for m in at.metric}["Rows"] == "64"
    captions = " ".join(c.value for c in show(at, "Masks").caption)
    assert "The first 128 of 600 positions are drawn." in captions
    assert "Documents of at most 64 tokens, 256 in all" in captions
