"""The Tokenizers page in Chromium: import a tokenizer.json whose tokens are HTML, explore it, download it."""

from __future__ import annotations

import json
import re

import pytest

from tests._pages import goto_page

pytestmark = pytest.mark.browser

HOSTILE_WORDS = ["<script>window.__xss=1</script>", '<img src=x onerror="window.__xss=1">', "hug", "pug"]


def wait_idle(page) -> None:
    page.wait_for_selector("[data-testid='stApp'][data-test-script-state='notRunning']", timeout=90_000)


def upload(page, base: str, path) -> None:
    """Open the Tokenizers page, its upload tab, and put ``path`` in the upload box."""
    from playwright.sync_api import expect

    page.goto(base + "/tokenizers")
    expect(page.get_by_role("heading", name="Tokenizers", exact=True)).to_be_visible(timeout=60_000)
    wait_idle(page)
    page.get_by_text("Add a tokenizer to the shelf").click()
    page.get_by_role("tab", name="Upload a file").click()
    page.locator(".st-key-tokenizers_upload input[type=file]").set_input_files(str(path))
    expect(page.locator(".st-key-tokenizers_import button")).to_be_enabled(timeout=30_000)  # the upload arrived
    page.locator(".st-key-tokenizers_import button").click()


def _hostile_tokenizer_json(path) -> None:
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers

    tok = Tokenizer(models.WordLevel(unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    tok.train_from_iterator([" ".join(HOSTILE_WORDS)] * 3, trainers.WordLevelTrainer(special_tokens=["[UNK]"]))
    tok.save(str(path))


def test_import_explore_and_download_a_hostile_tokenizer(streamlit_server, browser_page, tmp_path):
    from playwright.sync_api import expect

    page = browser_page
    path = tmp_path / "tokenizer.json"
    _hostile_tokenizer_json(path)
    upload(page, streamlit_server, path)
    expect(page.get_by_test_id("stAlertContentSuccess")).to_contain_text("Imported tokenizer.json", timeout=30_000)
    expect(page.get_by_role("combobox", name="Tokenizer")).to_have_value(re.compile("^tokenizer.json · WordLevel [0-9,]+ · imported"))

    # The pipeline on a text made of the hostile words: chips show them as text.
    page.get_by_role("tab", name="Pipeline on a text").click()
    area = page.locator(".st-key-tokenizers_pipeline_text textarea")
    area.fill(" ".join(HOSTILE_WORDS))
    area.press("Control+Enter")
    expect(page.locator(".tp-chip", has_text="<script>window.__xss=1</script>").first).to_be_visible(timeout=30_000)
    expect(page.locator(".tp-chip", has_text="<img").first).to_be_visible()

    # The vocabulary table lists them too (as cell text).
    page.get_by_role("tab", name="Vocabulary").click()
    search = page.locator(".st-key-tokenizers_search input")
    search.fill("onerror")
    search.press("Enter")
    expect(page.get_by_text(re.compile(r"^1 tokens$"))).to_be_visible(timeout=30_000)

    # Download: the tokenizer.json that comes back loads in tokenizers and keeps the words.
    with page.expect_download() as info:
        page.locator(".st-key-tokenizers_dl_hf").get_by_role("button", name="tokenizer.json").click()
    saved = tmp_path / "downloaded.json"
    info.value.save_as(str(saved))
    from tokenizers import Tokenizer

    again, original = Tokenizer.from_file(str(saved)), Tokenizer.from_file(str(path))
    text = " ".join(HOSTILE_WORDS)
    assert again.encode(text).ids == original.encode(text).ids
    assert "<script>window.__xss=1</script>" in again.encode(text).tokens
    assert json.loads(saved.read_text())["model"]["type"] == "WordLevel"

    assert page.evaluate("typeof window.__xss") == "undefined"
    assert page.locator("img[src='x']").count() == 0
    assert page.locator("script", has_text="__xss").count() == 0
    assert page.console_errors == []


def test_a_bad_upload_gets_a_message_not_a_traceback(streamlit_server, browser_page, tmp_path):
    from playwright.sync_api import expect

    page = browser_page
    bad = tmp_path / "broken.model"
    bad.write_bytes(b"\x00\xffnot a model at all")
    upload(page, streamlit_server, bad)
    expect(page.get_by_test_id("stAlertContentError")).to_contain_text("broken.model is not a SentencePiece",
                                                                       timeout=30_000)
    assert page.get_by_test_id("stException").count() == 0
    assert page.console_errors == []


def test_a_training_can_be_cancelled_and_keeps_nothing(streamlit_server, browser_page):
    """Cancel under the progress bar stops the job at its next update: a toast says so, nothing
    goes on the shelf, and the page is usable at once."""
    from playwright.sync_api import Error as PlaywrightError
    from playwright.sync_api import expect

    page = browser_page
    page.goto(streamlit_server + "/tokenizers")
    expect(page.get_by_role("heading", name="Tokenizers", exact=True)).to_be_visible(timeout=60_000)
    wait_idle(page)
    page.get_by_text("Add a tokenizer to the shelf").click()
    wait_idle(page)
    picker = page.locator(".st-key-tokenizers_algorithm").get_by_role("combobox")
    option = page.get_by_role("option", name="Unigram (SentencePiece style)")
    for _ in range(5):  # a list opened while the page redraws can close again: open it until it stays
        picker.click()
        try:
            option.click(timeout=3_000)
            break
        except PlaywrightError:
            page.keyboard.press("Escape")
    wait_idle(page)  # (the Cancel button's key below names the algorithm that trains)
    size = page.locator(".st-key-tokenizers_vocab_size input")
    size.fill("1000")  # the smallest sizes take Unigram the most pruning rounds: about 3.5 s here
    size.press("Enter")
    wait_idle(page)
    page.locator(".st-key-tokenizers_train button").click()
    cancel = page.locator(".st-key-tokenizers_cancel_unigram button").first
    expect(cancel).to_be_visible(timeout=30_000)  # drawn before the job starts
    cancel.click()
    expect(page.get_by_test_id("stToast")).to_contain_text("Training Unigram (SentencePiece style) cancelled",
                                                          timeout=30_000)
    wait_idle(page)
    assert page.get_by_text("put on the shelf").count() == 0
    assert page.locator("[data-testid=stSidebar]").get_by_text("Unigram 1,000").count() == 0
    assert page.get_by_test_id("stException").count() == 0
    assert page.console_errors == []


def test_the_residue_view_puts_gpt2s_glitch_tokens_first_in_its_csv(streamlit_server, browser_page, tmp_path):
    """GPT-2 on the Residue & glitch tokens view: the figures are drawn, and the table's CSV download
    starts with the known glitch tokens, marked, then the rest ranked by residue."""
    import csv

    from playwright.sync_api import expect

    from tokenizer_core.analysis.residue import GPT2_GLITCH_TOKENS

    page = browser_page
    url = (f"{streamlit_server}/tokenizers?corpus=hf-course-hug-pug&tokenizers_selected=gpt2+%C2%B7+reference"
           "&tokenizers_tab=Residue+%26+glitch+tokens")
    main = goto_page(page, url, "Tokenizers")
    expect(main.get_by_test_id("stMetric").filter(has_text="Residue tokens")).to_be_visible(timeout=90_000)
    button = page.get_by_role("tabpanel", name="Residue & glitch tokens").get_by_role("button", name="CSV", exact=True)
    expect(button).to_be_visible(timeout=60_000)
    with page.expect_download() as info:
        button.click()
    saved = tmp_path / "residue.csv"
    info.value.save_as(saved)
    rows = list(csv.DictReader(saved.open(encoding="utf-8")))
    top = rows[: len(GPT2_GLITCH_TOKENS)]
    assert all(r["glitch"] == "True" for r in top) and rows[len(GPT2_GLITCH_TOKENS)]["glitch"] == "False"
    assert any("SolidGoldMagikarp" in r["token"] for r in top)
    assert len(rows) == 50_256  # every token but the special one
