"""Counts files in the app (issue #30), under AppTest: uploaded on the Corpus page they become the
session's corpus (statistics, header facts, top pieces, Zipf plot; kept in the workspace store and
restored from the link), the Tokenizers and BPE pages train from them exactly as the core's
``train_from_counts`` does, a header that contradicts the options is said with the options that fit,
and the views that need running text (Compare's corpus lines, metrics and sweep; Batch's corpus rows)
say so instead of failing."""

from __future__ import annotations

import io

import pytest
from streamlit.testing.v1 import AppTest

from tests._pages import APP, TIMEOUT, ok
from tokenizer_core.corpus.loading import load_sample
from tokenizer_core.counts.spec import CountSpec
from tokenizer_core.counts.training import counts_file, train_from_counts
from tokenizer_core.counts.tsv import CountsFile, read_counts, write_counts
from tokenizer_core.options import TrainOptions
from ui.corpus.counts import CountsCorpus, counts_from_bytes
from ui.merges.settings import MergeSettings
from ui.merges.training import train_run
from ui.tokenizers.add import Algorithm, TrainRequest

HOSTILE = "<img src=x onerror=alert(1)>"


def counts_bytes(model: str = "bpe", options: TrainOptions | None = None, *, sample: str = "sennrich-low-lower-newest-widest",
                 extra_pieces: dict[str, int] | None = None, drop: tuple[str, ...] = ()) -> bytes:
    """A counts file of a bundled sample, as ``python -m tokenizer_core count`` writes it."""
    spec = CountSpec(model, options or TrainOptions())
    data = counts_file(spec, spec.count(load_sample(sample).lines()), extra={"files": "1", "bytes": "99", "lines": "16"})
    data.counts.update(extra_pieces or {})
    for fact in drop:
        data.facts.pop(fact)
    out = io.StringIO()
    write_counts(out, data)
    return out.getvalue().encode("utf-8")


def upload(data: bytes, name: str = "counts.tsv", at: AppTest | None = None) -> AppTest:
    """The app with ``data`` uploaded and used on the Corpus page."""
    at = at or ok(AppTest.from_file(APP, default_timeout=TIMEOUT).run())
    at.radio(key="corpus_source").set_value("upload").run()
    at.file_uploader(key="corpus_upload").set_value([(name, data, "text/tab-separated-values")]).run()
    return ok(at.button(key="corpus_use_upload").click().run())


def metrics(at: AppTest) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def active(at: AppTest):
    return at.session_state["state_active_corpus"]


def shelf_tokenizers(at: AppTest) -> dict[str, object]:
    return {item.name: tok for item, tok in at.session_state["shelf_items"].values()}


# ------------------------------------------------------------------------------------ Corpus page
def test_an_uploaded_counts_file_is_the_corpus_with_its_numbers_pieces_and_zipf_plot():
    at = upload(counts_bytes(extra_pieces={HOSTILE: 50}))
    assert not at.error and "Now using “counts.tsv”" in at.success[0].value
    assert isinstance(active(at), CountsCorpus)
    values = metrics(at)
    # Sennrich's corpus: low 5, lower 2, newest 6, widest 3 -> 4 words, 16 occurrences; + the hostile piece.
    assert values["Distinct pieces"] == "5" and values["Total occurrences"] == "66" and values["Seen once"] == "0"
    assert (values["Files counted"], values["Lines counted"], values["Bytes counted"]) == ("1", "16", "99")
    assert [s.value for s in at.subheader] == ["How it was counted", "Top pieces", "Rank–frequency (Zipf) plot"]
    facts, top = at.dataframe[0].value, at.dataframe[1].value
    assert dict(zip(facts["fact"], facts["value"]))["pre-tokenizer"] == '{"type": "Whitespace"}'
    assert dict(zip(facts["fact"], facts["value"]))["model"] == "bpe"
    # The hostile piece is a cell of text (spaces made visible), the most frequent first.
    assert list(top["piece"][:2]) == ["<img·src=x·onerror=alert(1)>", "newest"] and list(top["count"][:2]) == [50, 6]
    assert len(at.get("vega_lite_chart")) == 1
    keys = {b.proto.id.rsplit("-", 1)[-1] for b in at.get("download_button")}
    assert {"corpus_counts_top_csv", "corpus_counts_zipf_chart_png"} <= keys
    assert not any("<img" in m.value for m in at.markdown)  # never in Markdown (escaped or not)


def test_a_counts_file_is_kept_in_the_store_and_a_link_restores_it():
    at = upload(counts_bytes())
    link = at.query_params["corpus"]
    link = link[0] if isinstance(link, list) else link
    digest = active(at).fingerprint()
    fresh = AppTest.from_file(APP, default_timeout=TIMEOUT)
    fresh.query_params["corpus"] = link
    fresh = ok(fresh.run())
    restored = active(fresh)
    assert isinstance(restored, CountsCorpus) and restored.fingerprint() == digest and restored.name == "counts.tsv"
    assert metrics(fresh)["Distinct pieces"] == "4"


@pytest.mark.parametrize("data, words", [
    (b"# tokenizer-playground counts 1\n# model: bpe\nlow\t5\nlower\tmany\n", ["line 4", "not a whole number"]),
    (b"# tokenizer-playground counts 1\nlow\t5\t1\n", ["line 2", "expected 2 tab-separated columns"]),
    (b"# tokenizer-playground counts 7\nlow\t5\n", ["version 7"]),
    (b"# tokenizer-playground counts 1\n# model: bpe\n", ["no pieces"]),
    (b"# tokenizer-playground counts 1\nlo\xffw\t5\n", ["not UTF-8"]),
], ids=["count", "columns", "version", "empty", "encoding"])
def test_a_malformed_counts_file_is_a_clear_error(data, words):
    at = upload(data, name="bad.tsv")
    assert at.error and all(word in at.error[0].value for word in words), at.error[0].value
    assert "bad.tsv" in at.error[0].value.replace("\\", "")
    assert active(at).name == "default"  # the corpus in use is kept


def test_a_counts_file_goes_alone_and_other_tsv_files_stay_tables():
    at = ok(AppTest.from_file(APP, default_timeout=TIMEOUT).run())
    at.radio(key="corpus_source").set_value("upload").run()
    at.file_uploader(key="corpus_upload").set_value([
        ("counts.tsv", counts_bytes(), "text/tab-separated-values"),
        ("notes.txt", b"hug pug", "text/plain")]).run()
    assert any("is a counts file" in c.value for c in at.caption)
    ok(at.button(key="corpus_use_upload").click().run())
    assert "on its own" in at.error[0].value and active(at).name == "default"
    at.file_uploader(key="corpus_upload").set_value([("table.tsv", b"id\ttext\n1\thug pug\n", "text/plain")]).run()
    assert at.selectbox(key="corpus_column").value == "text"  # a table of text: its column is picked
    ok(at.button(key="corpus_use_upload").click().run())
    assert not isinstance(active(at), CountsCorpus) and active(at).texts == ("hug pug",)


# ------------------------------------------------------------------------------------ training
def _train_on_tokenizers_page(at: AppTest, algorithm: str, vocab: int = 300) -> AppTest:
    at = ok(at.switch_page("pages/tokenizers.py").run())
    at.selectbox(key="tokenizers_algorithm").set_value(algorithm).run()
    at.number_input(key="tokenizers_vocab_size").set_value(vocab).run()
    return ok(at.button(key="tokenizers_train").click().run())


def test_tokenizers_page_trains_bpe_from_the_counts_as_the_core_does():
    data = counts_bytes(sample="hf-course-hug-pug")
    at = upload(data)
    captions = " ".join(c.value for c in ok(at.switch_page("pages/tokenizers.py").run()).caption).replace("\\", "")
    assert "Its header matches: BPE on characters." in captions
    at = _train_on_tokenizers_page(at, "bpe-chars")
    assert any("put on the shelf" in s.value for s in at.success), [e.value for e in at.error]
    trained = next(tok for name, tok in shelf_tokenizers(at).items() if name.startswith("BPE on characters 300"))
    request = TrainRequest(Algorithm.BPE_CHARS, 300)
    expected = train_from_counts("bpe", read_counts(io.StringIO(data.decode())), options=request.options())
    assert trained.get_vocab() == expected.get_vocab() and trained.model.merges == expected.model.merges
    # Usage on the corpus needs running text: said, not shown as 0 %.
    assert metrics(at)["Corpus use"] == "—"


def test_a_header_that_contradicts_the_options_is_said_with_the_choices_that_fit():
    at = _train_on_tokenizers_page(upload(counts_bytes()), "bpe-bytes")
    message = at.error[0].value.replace("\\", "")
    assert "does not fit these options" in message and "pre tokenizer" in message
    assert "This file can train: BPE on characters." in message
    assert not any(item.kind == "trained" for item, _ in at.session_state["shelf_items"].values())


def test_a_header_that_leaves_stages_unsaid_trains_with_notes():
    at = _train_on_tokenizers_page(upload(counts_bytes(drop=("normalizer",))), "bpe-chars")
    assert any("does not say its normalizer" in i.value for i in at.info)
    assert any("put on the shelf" in s.value for s in at.success)


def test_unigram_trains_from_its_counts_on_the_tokenizers_page():
    data = counts_bytes("unigram", sample="hf-course-hug-pug")
    at = _train_on_tokenizers_page(upload(data), "unigram", vocab=300)
    assert any("put on the shelf" in s.value for s in at.success), [e.value for e in at.error]
    request = TrainRequest(Algorithm.UNIGRAM, 300)
    expected = train_from_counts("unigram", read_counts(io.StringIO(data.decode())), options=request.options())
    trained = next(tok for name, tok in shelf_tokenizers(at).items() if name.startswith("Unigram 300"))
    assert trained.get_vocab() == expected.get_vocab()


def test_the_bpe_page_trains_from_the_counts_as_from_the_text():
    at = ok(upload(counts_bytes(sample="hf-course-hug-pug")).switch_page("pages/merges.py").run())
    assert "settings that fit it: BPE · characters · Words and punctuation" in at.info[0].value.replace("\\", "")
    at = ok(at.button(key="merges_train").click().run())
    assert not at.error, [e.value for e in at.error]
    trained = next(tok for name, tok in shelf_tokenizers(at).items() if name.startswith("BPE"))
    from_text = train_run(load_sample("hf-course-hug-pug"), MergeSettings()).tokenizer
    assert trained.get_vocab() == from_text.get_vocab()


def test_the_bpe_page_says_which_settings_fit_a_counts_file():
    at = ok(upload(counts_bytes("wordpiece")).switch_page("pages/merges.py").run())
    at = ok(at.button(key="merges_train").click().run())
    message = at.error[0].value.replace("\\", "")
    assert "does not fit these settings" in message and "WordPiece · characters · BERT" in message


# ------------------------------------------------------------------------------- running text only
def test_compare_and_batch_say_that_a_counts_file_has_no_running_text():
    at = ok(upload(counts_bytes()).switch_page("pages/compare.py").run())
    at = ok(at.radio(key="compare_source").set_value("corpus").run())
    infos = " ".join(i.value for i in at.info)
    assert "Taking lines of the corpus needs running text" in infos and "counts file" in infos
    assert at.multiselect(key="compare_granularities").disabled
    captions = " ".join(c.value for c in at.caption)
    assert "baselines are built from running text" in captions
    assert "counts file\\: BPE chars train from it here" in captions  # the one Train choice that fits
    at.session_state["compare_tab"] = "Metrics"
    at = ok(at.run())
    assert any("Measuring on the corpus needs running text" in i.value for i in at.info)
    at.session_state["compare_tab"] = "Vocabulary-size sweep"
    at = ok(at.run())
    assert any("sweep" in i.value and "needs running text" in i.value for i in at.info)
    at = ok(at.switch_page("pages/lattice.py").run())
    assert any("counted with other stages" in c.value for c in at.caption)  # a BPE count: no Unigram from it
    at = ok(at.switch_page("pages/batch.py").run())
    at = ok(at.radio(key="batch_source").set_value("corpus").run())
    assert any("Taking rows from the corpus needs running text" in i.value for i in at.info)
    assert not any("Give at least one row" in i.value for i in at.info)  # said once, not twice


def test_counts_corpora_of_different_content_never_share_a_key():
    a = counts_from_bytes("same.tsv", counts_bytes())
    b = counts_from_bytes("same.tsv", counts_bytes(extra_pieces={"x": 1}))
    c = counts_from_bytes("other.tsv", counts_bytes())
    assert a.fingerprint() != b.fingerprint() and a.fingerprint() == c.fingerprint()
    assert a != b and isinstance(a.counts, CountsFile)


def test_two_sessions_with_files_of_one_name_each_see_their_own():
    first = upload(counts_bytes(sample="hf-course-hug-pug"))
    second = upload(counts_bytes(sample="sennrich-low-lower-newest-widest"))
    assert metrics(first)["Distinct pieces"] == "5" and metrics(second)["Distinct pieces"] == "4"
    first = ok(first.run())  # the server-wide tables now hold both: each session still reads its own
    assert metrics(first)["Distinct pieces"] == "5" and list(first.dataframe[1].value["piece"][:1]) == ["pun"]
