"""Loading corpora: formats, encodings, bad files, limits, and the Corpus type."""

from __future__ import annotations

import io
import json
import zipfile

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tokenizer_core.corpus.loading import (
    Corpus,
    columns_of,
    combine_corpora,
    corpus_from_text,
    decode_bytes,
    load_corpus,
)
from tokenizer_core.errors import CorpusError, TokenizerError

# Text without NUL (which marks binary files) and without lone surrogates (not encodable).
clean_text = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=200
)


def make_zip(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return buffer.getvalue()


# --------------------------------------------------------------------------- text files and encodings


def test_txt_from_path_is_one_document(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_bytes("low lower\nnewest widest\n".encode())
    corpus = load_corpus(path)
    assert corpus.name == "notes.txt"
    assert corpus.texts == ("low lower\nnewest widest\n",)
    assert corpus.replaced_bytes == 0
    assert corpus.word_counts is None


def test_markdown_and_str_path(tmp_path):
    path = tmp_path / "README.md"
    path.write_text("# Title\n\nSome *text*.", encoding="utf-8")
    assert load_corpus(str(path)).text == "# Title\n\nSome *text*."


def test_utf8_bom_is_removed():
    assert load_corpus(b"\xef\xbb\xbfcaf\xc3\xa9", name="bom.txt").text == "café"


@pytest.mark.parametrize("codec", ["utf-16", "utf-16-le", "utf-16-be"])
def test_utf16_with_bom(codec):
    text = "naïve 日本語 🙂\n"
    data = text.encode(codec)
    if codec != "utf-16":  # explicit byte order: add the BOM by hand
        data = ("\ufeff" + text).encode(codec)
    assert load_corpus(data, name="u16.txt").text == text


def test_utf16_without_bom_is_explained():
    with pytest.raises(CorpusError, match="UTF-16 text without a byte-order mark"):
        load_corpus("plain ascii text".encode("utf-16-le"), name="nobom.txt")


def test_utf32_is_refused_with_advice():
    with pytest.raises(CorpusError, match="UTF-32.*UTF-8"):
        load_corpus("hi".encode("utf-32"), name="u32.txt")


def test_invalid_utf8_names_file_offset_and_line():
    data = b"first line\nsecond \xff line"
    with pytest.raises(CorpusError) as info:
        load_corpus(data, name="latin.txt")
    message = str(info.value)
    assert "latin.txt" in message
    assert "byte offset 18" in message  # len(b"first line\nsecond ") == 18
    assert "line 2" in message
    assert "0xFF" in message
    assert isinstance(info.value, ValueError)


def test_invalid_utf8_offset_counts_the_bom():
    with pytest.raises(CorpusError, match="byte offset 4"):
        load_corpus(b"\xef\xbb\xbfa\x80", name="b.txt")


def test_truncated_multibyte_sequence_is_reported():
    with pytest.raises(CorpusError, match=r"0xE2 0x82 at byte offset 2"):
        load_corpus(b"ab\xe2\x82", name="cut.txt")


def test_invalid_utf16_reports_offset():
    data = codecs_bom_le() + "ab".encode("utf-16-le") + b"\x00\xd8" + "c".encode("utf-16-le")
    with pytest.raises(CorpusError, match=r"not valid UTF-16.*byte offset 6"):
        load_corpus(data, name="u16bad.txt")


def codecs_bom_le() -> bytes:
    return b"\xff\xfe"


def test_replace_counts_replaced_bytes():
    data = b"ab\xff\xfecd\xe2\x82"
    corpus = load_corpus(data, name="mixed.txt", errors="replace")
    assert corpus.text == data.decode("utf-8", "replace")
    assert corpus.replaced_bytes == 4  # 0xFF, 0xFE, and the two bytes of the cut sequence
    assert corpus.text.count("\ufffd") == 3


def test_replace_counts_bad_bytes_next_to_genuine_replacement_characters():
    data = b"\xef\xbf\xbd\xff\xe2\x82\xef\xbf\xbd!"  # U+FFFD, bad 0xFF, cut E2 82, U+FFFD, "!"
    text, replaced = decode_bytes(data, errors="replace")
    assert text == "\ufffd" * 4 + "!"
    assert replaced == 3


def test_utf16_replace_counts_lone_surrogates_and_odd_bytes():
    data = b"\xff\xfe" + "a".encode("utf-16-le") + b"\x00\xd8" + "b".encode("utf-16-le") + b"\x41"
    text, replaced = decode_bytes(data, errors="replace")
    assert text == "a\ufffdb\ufffd"
    assert replaced == 3  # two bytes of the lone surrogate, one trailing byte


def test_replace_keeps_genuine_replacement_characters_uncounted():
    corpus = load_corpus("already \ufffd here".encode(), name="r.txt", errors="replace")
    assert corpus.replaced_bytes == 0


@given(clean_text, st.sampled_from(["utf-8", "utf-8-sig", "utf-16"]))
def test_decode_round_trips_supported_encodings(text, codec):
    assert decode_bytes(text.encode(codec)) == (text, 0)


@settings(max_examples=200)
@given(st.binary(max_size=64).filter(lambda b: b"\x00" not in b and not b.startswith((b"\xff\xfe", b"\xfe\xff"))))
def test_replace_matches_python_and_counts_every_bad_byte(data):
    try:
        text, replaced = decode_bytes(data, errors="replace")
    except CorpusError as err:  # a binary signature (e.g. b"\x1f\x8b") is still refused
        assert "looks like" in str(err)
        return
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    assert text == data.decode("utf-8", "replace")
    if "\ufffd".encode() not in data:
        good = "".join(ch for ch in text if ch != "\ufffd").encode()
        assert replaced == len(data) - len(good)


@settings(max_examples=100)
@given(clean_text, st.binary(min_size=1, max_size=4), clean_text)
def test_strict_offset_is_the_first_undecodable_byte(before, junk, after):
    data = before.encode() + junk + after.encode()
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as err:
        expected = err.start
    else:
        return
    if b"\x00" in data or data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return
    try:
        decode_bytes(data, label="x.txt")
    except CorpusError as err:
        assert f"byte offset {expected} " in str(err) or "looks like" in str(err)
    else:  # pragma: no cover - the decode above proved the data invalid
        pytest.fail("invalid UTF-8 was accepted")


# --------------------------------------------------------------------------- binary, empty, size


@pytest.mark.parametrize(
    "data, what",
    [
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "PNG image"),
        (b"%PDF-1.7\n%\xe2\xe3\xcf\xd3", "PDF document"),
        (b"\x7fELF\x02\x01\x01", "ELF"),
        (b"\x1f\x8b\x08\x00abc", "gzip"),
    ],
)
def test_binary_signatures_are_refused(data, what):
    with pytest.raises(CorpusError, match=what):
        load_corpus(data, name="data.txt")


def test_nul_bytes_mean_binary():
    with pytest.raises(CorpusError, match=r"NUL byte at byte offset 5.*binary"):
        load_corpus(b"hello\x00world\x01\x02\x03 this is text, mostly", name="blob.txt")


def test_nul_inside_utf16_text_is_refused():
    with pytest.raises(CorpusError, match="NUL"):
        load_corpus("a\x00b".encode("utf-16"), name="nul16.txt")


@pytest.mark.parametrize("data", [b"", b"   \n\t\n", b"\xef\xbb\xbf", "\n".encode("utf-16")])
def test_empty_files_are_refused(data):
    with pytest.raises(CorpusError, match="empty"):
        load_corpus(data, name="empty.txt")


def test_oversize_bytes_are_refused_before_decoding():
    with pytest.raises(CorpusError, match=r"big\.txt is 11 bytes, over the limit of 10 bytes"):
        load_corpus(b"\xff" * 11, name="big.txt", max_bytes=10)


def test_oversize_file_is_refused_by_size(tmp_path):
    path = tmp_path / "big.txt"
    path.write_bytes(b"word " * 300_000)  # 1.5 MB
    with pytest.raises(CorpusError, match=r"1\.5 MB, over the limit of 1\.0 MB"):
        load_corpus(path, max_bytes=1_000_000)
    assert load_corpus(path, max_bytes=2_000_000).size_bytes == 1_500_000


def test_zip_unpacked_size_counts_against_the_limit():
    data = make_zip({"a.txt": b"a" * 100_000})
    assert len(data) < 10_000
    with pytest.raises(CorpusError, match=r"unpacked.*over the limit"):
        load_corpus(data, name="bomb.zip", max_bytes=50_000)


@pytest.mark.parametrize("bad", [0, -1, 1.5, True, "10"])
def test_max_bytes_must_be_positive_int(bad):
    with pytest.raises(CorpusError, match="max_bytes"):
        load_corpus(b"x", name="a.txt", max_bytes=bad)


def test_errors_option_is_checked():
    with pytest.raises(CorpusError, match='"strict" or "replace"'):
        load_corpus(b"x", name="a.txt", errors="ignore")


def test_missing_path_and_folder(tmp_path):
    with pytest.raises(CorpusError, match="does not exist"):
        load_corpus(tmp_path / "nope.txt")
    with pytest.raises(CorpusError, match="folder|not a file"):
        load_corpus(tmp_path)


def test_unsupported_extension_and_source_type():
    with pytest.raises(CorpusError, match=r"\.docx are not supported.*\.txt"):
        load_corpus(b"text", name="report.docx")
    with pytest.raises(CorpusError, match="path or bytes"):
        load_corpus(12345)  # type: ignore[arg-type]


def test_bytes_without_name_are_plain_text():
    corpus = load_corpus(b"a,b\n1,2")
    assert corpus.texts == ("a,b\n1,2",)


# --------------------------------------------------------------------------- csv / tsv / jsonl


def test_csv_column_rows_become_documents():
    data = b'id,text,lang\n1,"Hello, world",en\n2,"two\nlines",en\n3,,en\n4,   ,en\n'
    corpus = load_corpus(data, name="d.csv", text_column="text")
    assert corpus.texts == ("Hello, world", "two\nlines")
    assert "2 rows" in corpus.source


def test_csv_guesses_text_column_and_single_column():
    assert load_corpus(b"id,Text\n1,hug\n", name="a.csv").texts == ("hug",)
    assert load_corpus(b"sentence\nhug pug\n", name="b.csv").texts == ("hug pug",)


def test_csv_ambiguous_columns_ask_the_user():
    with pytest.raises(CorpusError, match=r"choose the column.*'a', 'b'"):
        load_corpus(b"a,b\n1,2\n", name="amb.csv")


def test_csv_missing_column_lists_columns():
    with pytest.raises(CorpusError) as info:
        load_corpus(b"id,body\n1,x\n", name="m.csv", text_column="text")
    assert str(info.value) == "m.csv has no column 'text'; its columns are: 'id', 'body'."


def test_csv_short_rows_are_skipped_and_tsv_uses_tabs():
    assert load_corpus(b"id,text\n1\n2,kept\n", name="s.csv", text_column="text").texts == ("kept",)
    assert load_corpus(b"id\ttext\n1\thug, pug\n", name="t.tsv", text_column="text").texts == ("hug, pug",)


def test_csv_without_header():
    with pytest.raises(CorpusError, match="header"):
        load_corpus(b"\n\n", name="h.csv")


def test_csv_with_only_empty_cells():
    with pytest.raises(CorpusError, match="no text"):
        load_corpus(b"id,text\n1,\n2,\n", name="e.csv", text_column="text")


def test_jsonl_field_and_nulls():
    lines = [{"text": "hug pug", "n": 1}, {"text": None}, {"text": "bun"}]
    data = "\n".join(json.dumps(x) for x in lines).encode() + b"\n\n"
    corpus = load_corpus(data, name="d.jsonl", text_column="text")
    assert corpus.texts == ("hug pug", "bun")
    assert "2 records" in corpus.source


def test_jsonl_of_plain_strings():
    assert load_corpus(b'"one"\n"two"\n', name="s.jsonl").texts == ("one", "two")


def test_jsonl_errors_name_the_line():
    with pytest.raises(CorpusError, match="line 2 is not valid JSON"):
        load_corpus(b'{"text": "a"}\n{oops\n', name="bad.jsonl", text_column="text")
    with pytest.raises(CorpusError, match=r"line 2 has no field 'text'"):
        load_corpus(b'{"text": "a"}\n{"body": "b"}\n', name="m.jsonl", text_column="text")
    with pytest.raises(CorpusError, match=r"line 1, field 'text' is a int"):
        load_corpus(b'{"text": 5}\n', name="n.jsonl", text_column="text")
    with pytest.raises(CorpusError, match="line 1 is not a JSON object"):
        load_corpus(b'[1, 2]\n', name="l.jsonl", text_column="text")


def test_columns_of_each_format():
    assert columns_of(b"id,text,lang\n1,a,en\n", name="a.csv") == ["id", "text", "lang"]
    assert columns_of(b"x\ty\n", name="a.tsv") == ["x", "y"]
    assert columns_of(b'{"a": "x", "n": 1}\n{"b": "y", "a": "z"}\n', name="a.jsonl") == ["a", "b"]
    assert columns_of(b"plain", name="a.txt") == []
    zipped = make_zip({"b.jsonl": b'{"body": "x"}\n', "a.csv": b"id,text\n", "c.txt": b"hi"})
    assert columns_of(zipped, name="z.zip") == ["id", "text", "body"]


# --------------------------------------------------------------------------- zip


def test_zip_with_mixed_members():
    data = make_zip(
        {
            "b/notes.md": b"# Notes\nhug pug",
            "a.txt": "caf\u00e9".encode("utf-16"),
            "rows.csv": b"id,text\n1,first row\n2,second row\n",
            "recs.jsonl": b'{"text": "a record"}\n',
            "picture.png": b"\x89PNG\r\n\x1a\n",
            "__MACOSX/._a.txt": b"\x00\x05\x16\x07",
            ".DS_Store": b"\x00\x00\x00\x01Bud1",
            "folder/": b"",
        }
    )
    corpus = load_corpus(data, name="bundle.zip", text_column="text")
    # Members in name order: a.txt, b/notes.md, recs.jsonl, rows.csv.
    assert corpus.texts == ("café", "# Notes\nhug pug", "a record", "first row", "second row")
    assert "picture.png" in corpus.source and "skipped" in corpus.source
    assert corpus.name == "bundle.zip"


def test_zip_member_errors_name_the_member():
    data = make_zip({"good.txt": b"fine", "bad.txt": b"oops \xff"})
    with pytest.raises(CorpusError, match=r"bundle\.zip:bad\.txt is not valid UTF-8.*byte offset 5"):
        load_corpus(data, name="bundle.zip")
    assert load_corpus(data, name="bundle.zip", errors="replace").replaced_bytes == 1


def test_zip_csv_member_missing_column():
    data = make_zip({"rows.csv": b"id,body\n1,x\n"})
    with pytest.raises(CorpusError, match=r"bundle\.zip:rows\.csv has no column 'text'"):
        load_corpus(data, name="bundle.zip", text_column="text")


def test_zip_without_text_members_and_broken_zip():
    with pytest.raises(CorpusError, match="holds no .*picture.png"):
        load_corpus(make_zip({"picture.png": b"\x89PNG"}), name="pics.zip")
    with pytest.raises(CorpusError, match="not a readable ZIP"):
        load_corpus(b"PK\x03\x04 broken", name="broken.zip")


def test_nested_zip_is_skipped():
    inner = make_zip({"inner.txt": b"hidden"})
    corpus = load_corpus(make_zip({"inner.zip": inner, "top.txt": b"top"}), name="outer.zip")
    assert corpus.texts == ("top",)
    assert "inner.zip" in corpus.source


# --------------------------------------------------------------------------- pasted text and Corpus


@pytest.mark.parametrize(
    "hostile",
    [
        '<script>window.__xss=1</script><img src=x onerror="window.__xss=1">',
        "\u202eevil\u202c \u200b\u200d\ufeff zero-width and bidi controls",
        "**bold** [link](javascript:alert(1)) $x^2$ :red[colour]",
        "a\x00b\x1b[31mred\x1b[0m",
    ],
)
def test_pasted_hostile_text_is_kept_exactly(hostile):
    corpus = corpus_from_text(hostile, name="  my\nname  ")
    assert corpus.text == hostile
    assert corpus.name == "my name"
    assert corpus.source == "pasted text"


def test_pasted_text_errors():
    with pytest.raises(CorpusError, match="empty"):
        corpus_from_text(" \n\t ")
    with pytest.raises(CorpusError, match=r"lone surrogate \(U\+D800\) at character 1"):
        corpus_from_text("a\ud800b")
    with pytest.raises(CorpusError, match="over the limit"):
        corpus_from_text("é" * 6, max_bytes=11)
    with pytest.raises(CorpusError, match="string"):
        corpus_from_text(b"bytes")  # type: ignore[arg-type]


def test_errors_are_tokenizer_errors():
    assert issubclass(CorpusError, TokenizerError)


def test_corpus_properties():
    corpus = Corpus("c", ["a é", "b\n"])  # a list is accepted and frozen into a tuple
    assert corpus.texts == ("a é", "b\n")
    assert corpus.text == "a é\nb\n"
    assert corpus.size_bytes == len(corpus.text.encode()) == 7  # a, space, é (2), \n, b, \n
    assert corpus.num_chars == len(corpus.text) == 6
    assert hash(corpus) == hash(Corpus("c", ("a é", "b\n")))
    with pytest.raises(CorpusError):
        Corpus("bad", "not a tuple")  # type: ignore[arg-type]


def test_lines_split_only_on_newline_and_keep_it():
    corpus = Corpus("c", ("one\r\ntwo\u2028still two\n\nlast", "next doc\n"))
    assert list(corpus.lines()) == ["one\r\n", "two\u2028still two\n", "\n", "last", "next doc\n"]


@given(st.lists(clean_text, min_size=1, max_size=5))
def test_lines_rebuild_every_document(texts):
    corpus = Corpus("c", tuple(texts))
    lines = list(corpus.lines())
    assert "".join(lines) == "".join(texts)
    assert all(line and line.count("\n") <= 1 for line in lines)
    assert all(line.endswith("\n") or "\n" not in line for line in lines)


def test_fingerprint_depends_on_content_and_boundaries():
    assert Corpus("a", ("xy",)).fingerprint() == Corpus("b", ("xy",)).fingerprint()
    assert Corpus("a", ("xy",)).fingerprint() != Corpus("a", ("x", "y")).fingerprint()


def test_combine_corpora():
    a = Corpus("a", ("x",), source="a.txt", replaced_bytes=2)
    b = Corpus("b", ("y", "z"), source="b.csv", replaced_bytes=1)
    both = combine_corpora([a, b], name="both")
    assert both.texts == ("x", "y", "z")
    assert both.replaced_bytes == 3
    assert both.name == "both"
    assert combine_corpora([a]) is a
    with pytest.raises(CorpusError):
        combine_corpora([])


@given(st.lists(clean_text, min_size=1, max_size=5), st.integers(min_value=-1, max_value=300))
def test_head_is_the_start_of_text(texts, n):
    corpus = Corpus("c", tuple(texts))
    assert corpus.head(n) == corpus.text[: max(n, 0)]
    assert corpus.size_bytes == len(corpus.text.encode()) and corpus.num_chars == len(corpus.text)


def test_a_stray_nul_is_reported_as_a_nul_not_as_utf16():
    with pytest.raises(CorpusError, match="NUL byte at byte offset 1"):
        load_corpus(b"a\x00b c", name="x.txt")
    with pytest.raises(CorpusError, match="UTF-16 text without a byte-order mark"):
        load_corpus("plain ASCII words in UTF-16".encode("utf-16-le"), name="y.txt")
