"""The Entropy patches page under AppTest: the default text cut by the corpus' byte model (the page's
counts equal the engines' own), the threshold and the rule moving the cut, patches beside the shelf's
token counts, the settings in the address, hostile text shown as text, a long text cut, no text."""

from __future__ import annotations

import re

from tests._pages import html_bodies, ok, open_page
from tokenizer_core.io.references import load_reference
from tokenizer_core.patches import ByteNgramModel, patch_starts
from ui.patches.page import DEFAULT_TEXT, MAX_TEXT_BYTES, TRAIN_BYTES, corpus_bytes
from ui.session import DEFAULT_SAMPLE

PAGE = "pages/patches.py"


def _patches(at) -> int:
    """The patches drawn (the chips of the patches block)."""
    block = next(h.proto.body for h in at.get("html") if "tp-patches" in h.proto.body)
    return len(re.findall(r'class="tp-chip[" ]', block))


def _engines(text: str, *, order: int, threshold: float, mode: str) -> list[int]:
    from tokenizer_core.corpus.loading import load_sample

    model = ByteNgramModel.train(corpus_bytes(load_sample(DEFAULT_SAMPLE), TRAIN_BYTES), order=order)
    return patch_starts(model.entropies(text.encode()).tolist(), threshold=threshold, mode=mode)


def test_the_default_text_is_cut_where_the_engines_cut_it_and_the_settings_move_the_cut():
    at = open_page(PAGE)
    starts = _engines(DEFAULT_TEXT, order=4, threshold=2.0, mode="global")
    assert 1 < len(starts) < len(DEFAULT_TEXT.encode())
    assert _patches(at) == len(starts)
    table = at.dataframe[0].value
    assert table["count"].iloc[0] == len(starts)
    gpt2 = len(load_reference("gpt2").encode(DEFAULT_TEXT, add_special_tokens=False).ids)
    assert gpt2 in set(table["count"])  # gpt2 is picked first: its tokens on the same text
    at.slider(key="patches_threshold").set_value(4.0)
    at = ok(at.run())
    fewer = _engines(DEFAULT_TEXT, order=4, threshold=4.0, mode="global")
    assert _patches(at) == len(fewer) < len(starts)
    at.radio(key="patches_rule").set_value("Relative")
    at = ok(at.run())
    assert _patches(at) == len(_engines(DEFAULT_TEXT, order=4, threshold=4.0, mode="relative"))
    assert at.query_params["rule"] == "Relative" and float(at.query_params["theta"]) == 4.0
    at.selectbox(key="patches_order").set_value(2)
    at = ok(at.run())
    assert _patches(at) == len(_engines(DEFAULT_TEXT, order=2, threshold=4.0, mode="relative"))


def test_a_link_restores_the_settings():
    from streamlit.testing.v1 import AppTest

    from tests._pages import APP, TIMEOUT

    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    for name, value in {"patch_text": "aaaa bbbb", "order": "3", "rule": "Relative", "theta": "0.5"}.items():
        at.query_params[name] = value
    ok(at.run())
    at = ok(at.switch_page(PAGE).run())
    assert at.session_state["patches_order"] == 3 and at.session_state["patches_rule"] == "Relative"
    assert _patches(at) == len(_engines("aaaa bbbb", order=3, threshold=0.5, mode="relative"))


def test_hostile_text_is_shown_as_text_and_a_long_text_is_cut():
    at = open_page(PAGE)
    at.text_area(key="patches_text").set_value("<img src=x onerror=alert(1)> é" * 5)
    at = ok(at.run())
    body = html_bodies(at)
    assert "&lt;" in body and "<img" not in body and "onerror=alert(1)>" not in body  # cut or whole: text
    at.text_area(key="patches_text").set_value("é" * MAX_TEXT_BYTES)
    at = ok(at.run())
    assert any(f"the first {MAX_TEXT_BYTES:,} are drawn" in c.value for c in at.caption)
    assert "\ufffd" not in html_bodies(at)  # cut between characters, never inside one
    at.text_area(key="patches_text").set_value("")
    at = ok(at.run())
    assert any("Type a text" in i.value for i in at.info)
