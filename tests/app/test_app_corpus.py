"""The app shell and the Corpus page, driven with Streamlit's AppTest."""

from __future__ import annotations

import io
import zipfile

import pytest
from streamlit.testing.v1 import AppTest

from tests._paths import APP
from tokenizer_core.corpus.loading import Corpus, list_samples
from tokenizer_core.errors import CorpusError
from ui import cache
from ui.corpus.upload import corpus_from_uploads, needs_column, upload_columns

TIMEOUT = 120  # the first run may build the default corpus (a few seconds on a busy machine)


def start() -> AppTest:
    at = AppTest.from_file(APP, default_timeout=TIMEOUT).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def metrics(at: AppTest) -> dict[str, str]:
    return {m.label: m.value.replace(",", "") for m in at.metric}  # numbers carry thousands commas


def sidebar_text(at: AppTest) -> str:
    # AppTest (Streamlit 1.67) drops sidebar elements written by the st.navigation
    # entry script from its tree on reruns, although the browser keeps showing them
    # (checked by the Playwright test); so only the first run's sidebar is checked.
    return " ".join(m.value for m in at.sidebar.markdown)


def active(at: AppTest):
    return at.session_state["state_active_corpus"]


def preview(at: AppTest) -> str:
    """The preview block's text, unescaped (its markup is the one text block the page writes)."""
    import html
    import re

    blocks = [h.proto.body for h in at.get("html") if 'class="tp-preview"' in h.proto.body]
    assert len(blocks) == 1, blocks
    inner = re.fullmatch(r'<div class="tp-preview" style="[^"]*">(.*)</div>', blocks[0], re.S)
    assert inner is not None and "<" not in inner.group(1), blocks[0]  # nothing but escaped text inside
    return html.unescape(inner.group(1))


def use_sample(at: AppTest, name: str) -> AppTest:
    at.radio(key="corpus_source").set_value("sample").run()
    at.selectbox(key="corpus_sample").set_value(name).run()
    at.button(key="corpus_use_sample").click().run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def upload(at: AppTest, *files: tuple[str, bytes]) -> AppTest:
    at.radio(key="corpus_source").set_value("upload").run()
    uploader = at.file_uploader(key="corpus_upload")
    uploader.set_value([(name, data, "application/octet-stream") for name, data in files]).run()
    return at


def test_default_corpus_is_active_when_a_session_starts():
    at = start()
    values = metrics(at)
    assert int(values["Words"]) > 100_000
    assert "English prose" in at.header[0].value
    assert "English prose" in sidebar_text(at)
    assert at.title[0].value == "Corpus"
    assert [s.value for s in at.subheader][:2] == ["Top words", "Rank–frequency (Zipf) plot"]
    assert len(at.dataframe) >= 3  # top words, inventory, scripts
    assert not at.error


# Hand-computed from the published counts.
EXPECTED = {
    "wikipedia-aaabdaaabac": {"Words": "1", "Distinct words": "1", "Characters": "11"},
    "sennrich-low-lower-newest-widest": {"Words": "16", "Distinct words": "4"},
    "hf-course-hug-pug": {"Words": "36", "Distinct words": "5"},
}


@pytest.mark.parametrize("name", [s.name for s in list_samples()])
def test_each_sample_can_be_chosen(name):
    at = use_sample(start(), name)
    title = next(s.title for s in list_samples() if s.name == name)
    assert at.success and title in at.success[0].value.replace("\\", "")
    assert title.split(" (")[0] in at.header[0].value.replace("\\", "")
    assert active(at).name == name
    values = metrics(at)
    for label, value in EXPECTED.get(name, {}).items():
        assert values[label] == value, label
    assert int(values["Words"]) >= 1
    assert not at.error


def test_counted_sample_shows_its_counts_and_preview():
    at = use_sample(start(), "hf-course-hug-pug")
    captions = " ".join(c.value for c in at.caption)
    assert "hug ×10" in captions and "hugs ×5" in captions
    assert preview(at).startswith("hug\nhug\n")
    top = at.dataframe[0].value
    assert list(top["word"][:2]) == ["pun", "hug"] and list(top["count"][:2]) == [12, 10]
    # Every table has its CSV button (top words, the character inventory, scripts).
    keys = {b.proto.id.rsplit("-", 1)[-1] for b in at.get("download_button")}
    assert {"corpus_top_words_csv", "corpus_inventory_csv", "corpus_scripts_csv"} <= keys


def test_pasted_hostile_text_is_shown_as_text():
    hostile = '<script>window.__xss=1</script> <img src=x onerror="window.__xss=1"> **x** $y$'
    at = start()
    at.radio(key="corpus_source").set_value("paste").run()
    at.text_area(key="corpus_paste").input(hostile).run()
    at.text_input(key="corpus_paste_name").input("<b>:red[evil]</b>").run()
    at.button(key="corpus_use_paste").click().run()
    assert not at.exception
    assert preview(at) == hostile  # escaped in the block, shown verbatim, never as HTML
    # script window __xss 1 script | img src x onerror window __xss 1 | x | y
    assert metrics(at)["Words"] == "14"
    # The user's name is kept as typed and escaped where markdown shows it.
    assert active(at).name == "<b>:red[evil]</b>"
    assert at.header[0].value == "Active corpus: \\<b\\>\\:red\\[evil\\]\\</b\\>"


def test_pasting_nothing_shows_an_error():
    at = start()
    at.radio(key="corpus_source").set_value("paste").run()
    at.text_area(key="corpus_paste").input("   ").run()
    at.button(key="corpus_use_paste").click().run()
    assert not at.exception
    assert "empty" in at.error[0].value
    assert active(at).name == "default"  # the active corpus did not change


def test_upload_text_file():
    at = upload(start(), ("notes.txt", "low lower newest widest\n".encode("utf-16")))
    at.button(key="corpus_use_upload").click().run()
    assert not at.exception and not at.error
    assert metrics(at)["Words"] == "4"
    assert active(at).name == "notes.txt"


def test_upload_csv_lets_the_user_pick_the_column():
    at = upload(start(), ("data.csv", b"id,body,lang\n1,hug pug,en\n2,pun bun hugs,en\n"))
    column = at.selectbox(key="corpus_column")
    assert column.options == ["id", "body", "lang"]
    column.set_value("body").run()
    at.button(key="corpus_use_upload").click().run()
    assert not at.exception and not at.error
    assert metrics(at)["Documents"] == "2"
    assert metrics(at)["Words"] == "5"


def test_csv_column_defaults_to_the_text_column():
    at = upload(start(), ("data.csv", b"id,label,text\n1,a,hug pug\n2,b,pun bun hugs\n"))
    assert at.selectbox(key="corpus_column").value == "text"  # not "id", the first column
    at.button(key="corpus_use_upload").click().run()
    assert not at.exception and not at.error
    assert metrics(at)["Words"] == "5"


def test_the_page_keeps_its_choices_after_a_visit_to_another_page():
    # Streamlit forgets the values of widgets a run does not draw: the pasted text came back empty
    # and the sample box showed the first sample while another corpus was in use.
    at = start()
    at.radio(key="corpus_source").set_value("paste").run()
    at.text_area(key="corpus_paste").input("hug pug pun").run()
    at.text_input(key="corpus_paste_name").input("my words").run()
    at.button(key="corpus_use_paste").click().run()
    at.switch_page("pages/merges.py").run()
    at.switch_page("pages/corpus.py").run()
    assert not at.exception
    assert at.radio(key="corpus_source").value == "paste"
    assert at.text_area(key="corpus_paste").value == "hug pug pun"
    assert at.text_input(key="corpus_paste_name").value == "my words"
    # An edit made after coming back survives hiding the text box (another source) and showing it again.
    at.text_area(key="corpus_paste").input("bun hugs").run()
    at.radio(key="corpus_source").set_value("upload").run()
    at.radio(key="corpus_source").set_value("paste").run()
    assert at.text_area(key="corpus_paste").value == "bun hugs"
    at = use_sample(at, "sennrich-low-lower-newest-widest")
    at.switch_page("pages/merges.py").run()
    at.switch_page("pages/corpus.py").run()
    assert at.radio(key="corpus_source").value == "sample"
    assert at.selectbox(key="corpus_sample").value == "sennrich-low-lower-newest-widest"
    assert "Sennrich" in at.header[0].value


@pytest.mark.parametrize(
    "name, data, words",
    [
        ("image.txt", b"\x89PNG\r\n\x1a\n\x00\x00", ["PNG image", "not a text file"]),
        ("latin1.txt", "caf\u00e9 cr\u00e8me".encode("latin-1"), ["not valid UTF-8", "byte offset 3", "latin1.txt"]),
        ("empty.txt", b"", ["empty"]),
    ],
)
def test_bad_upload_shows_a_plain_error(name, data, words):
    at = upload(start(), (name, data))
    at.button(key="corpus_use_upload").click().run()
    assert not at.exception  # no traceback
    message = at.error[0].value.replace("\\", "")
    for word in words:
        assert word in message
    assert active(at).name == "default"


def test_replace_invalid_bytes_option():
    at = upload(start(), ("latin1.txt", "caf\u00e9 cr\u00e8me".encode("latin-1")))
    at.checkbox(key="corpus_replace").check().run()
    at.button(key="corpus_use_upload").click().run()
    assert not at.exception and not at.error
    assert "2 invalid byte(s) were replaced" in at.warning[0].value


def test_bad_zip_columns_error_is_shown_before_use():
    at = upload(start(), ("broken.zip", b"PK\x03\x04 broken"))
    assert "not a readable ZIP" in at.error[0].value.replace("\\", "")
    assert at.button(key="corpus_use_upload").disabled


# --------------------------------------------------------------------------- the upload handler directly


def _zip(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def test_upload_handler_combines_files_in_order():
    corpus = corpus_from_uploads(
        [("b.txt", b"second"), ("a.jsonl", b'{"text": "first"}\n'), ("c.zip", _zip({"x.md": b"third"}))]
    )
    assert corpus.texts == ("second", "first", "third")
    assert corpus.name.startswith("3 files: b.txt, a.jsonl, c.zip")


def test_upload_handler_columns_and_limits():
    files = [("a.csv", b"id,text\n1,x\n"), ("b.jsonl", b'{"body": "y"}\n'), ("c.txt", b"z")]
    assert needs_column(name for name, _ in files) and not needs_column(["c.txt"])
    assert upload_columns(files) == ["id", "text", "body"]
    with pytest.raises(CorpusError, match="add up to"):
        corpus_from_uploads([("a.txt", b"x" * 8), ("b.txt", b"y" * 8)], max_bytes=10)
    with pytest.raises(CorpusError, match="No file"):
        corpus_from_uploads([])
    with pytest.raises(CorpusError, match=r"b\.csv has no column 'text'"):
        corpus_from_uploads([("b.csv", b"id,body\n1,x\n")], text_column="text")


def test_state_helpers_share_the_corpus_between_runs():
    def script():
        import streamlit as st

        from tokenizer_core.corpus.loading import corpus_from_text
        from ui import session as state

        if st.button("swap", key="t_swap"):
            state.set_active_corpus(corpus_from_text("hug pug", name="mine"))
        corpus = state.active_corpus()
        st.text(f"{corpus.name}|{state.corpus_version()}|{state.active_corpus_key()}")

    at = AppTest.from_function(script, default_timeout=TIMEOUT).run()
    name, version, key = at.text[0].value.split("|")
    assert (name, version) == ("default", "1") and key.startswith("corpus-")
    at.button(key="t_swap").click().run()
    name, version, mine = at.text[0].value.split("|")
    # The key is the content's digest: a name plays no part in it.
    assert (name, version) == ("mine", "2") and mine == cache.corpus_digest(Corpus("other name", ("hug pug",)))
    assert mine != key
    at.run()
    assert at.text[0].value.split("|")[:2] == ["mine", "2"]
