"""Normalizers agree with tokenizers' and keep offsets into the original text."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from tokenizers import normalizers as hf

from tests._texts import TRICKY, real_lines
from tokenizer_core.registry import build
from tokenizer_core.text import normalizers as ours

PAIRS = [
    (ours.NFC(), hf.NFC()),
    (ours.NFD(), hf.NFD()),
    (ours.NFKC(), hf.NFKC()),
    (ours.NFKD(), hf.NFKD()),
    (ours.Lowercase(), hf.Lowercase()),
    (ours.Sequence([ours.NFD(), ours.StripAccents()]), hf.Sequence([hf.NFD(), hf.StripAccents()])),
    (ours.BertNormalizer(), hf.BertNormalizer()),
    (ours.BertNormalizer(lowercase=False), hf.BertNormalizer(lowercase=False)),
    (ours.BertNormalizer(strip_accents=False), hf.BertNormalizer(strip_accents=False)),
    (ours.Replace(" ", "▁"), hf.Replace(" ", "▁")),
]


@pytest.mark.parametrize("pair", PAIRS, ids=lambda p: repr(p[0]))
def test_same_as_tokenizers_on_real_text(pair):
    mine, theirs = pair
    for line in real_lines(800):
        assert mine.normalize_str(line) == theirs.normalize_str(line), line


@pytest.mark.parametrize("pair", PAIRS, ids=lambda p: repr(p[0]))
def test_aligned_normalize_gives_the_same_text(pair):
    mine, _ = pair
    for line in TRICKY:
        ns = mine.normalize(line)
        assert ns.text == mine.normalize_str(line)
        assert len(ns.align) == len(ns.text)
        for a, b in ns.align:
            assert 0 <= a <= b <= len(line)


@given(st.text(max_size=40))
def test_alignment_is_monotone_and_in_bounds(text):
    ns = ours.Sequence([ours.NFKC(), ours.Lowercase()]).normalize(text)
    assert ns.text == ours.Lowercase().normalize_str(ours.NFKC().normalize_str(text))
    starts = [a for a, _ in ns.align]
    assert starts == sorted(starts)
    assert all(0 <= a <= b <= len(text) for a, b in ns.align)


@given(st.text(max_size=40))
def test_lowercase_matches_tokenizers_on_any_text(text):
    assert ours.Lowercase().normalize_str(text) == hf.Lowercase().normalize_str(text)


@given(st.text(max_size=30))
def test_nfkc_matches_tokenizers_on_any_text(text):
    assert ours.NFKC().normalize_str(text) == hf.NFKC().normalize_str(text)
    assert ours.NFKC().normalize(text).text == hf.NFKC().normalize_str(text)


def test_ligature_maps_back_to_its_one_character():
    ns = ours.NFKC().normalize("ﬁx")
    assert ns.text == "fix"
    assert ns.align == [(0, 1), (0, 1), (1, 2)]


def test_cjk_spaces_point_at_empty_spans():
    ns = ours.BertNormalizer().normalize("a中b")
    assert ns.text == "a 中 b"
    assert ns.align == [(0, 1), (1, 1), (1, 2), (2, 2), (2, 3)]


def test_final_sigma_is_lowered_character_by_character():
    assert ours.Lowercase().normalize_str("ΟΔΟΣ") == "οδοσ"


@pytest.mark.parametrize("pair", PAIRS, ids=lambda p: repr(p[0]))
def test_round_trip_through_dict(pair):
    mine, _ = pair
    again = build("normalizer", mine.to_dict())
    assert again == mine
    assert again.normalize_str("Héllo ＡＢＣ") == mine.normalize_str("Héllo ＡＢＣ")


def test_empty_replace_pattern_is_refused():
    with pytest.raises(ValueError, match="non-empty"):
        ours.Replace("", "x")


_MARKS = st.sampled_from(["\n", "\r\n", " ", "e", "\u0301", "\u0327", "\u0344", "\u1100", "\u1161", "\u11a8", "ﬁ",
                          "Å", "\u212b", "①", "Ａ", "x"])


@pytest.mark.parametrize("form", ["NFC", "NFD", "NFKC", "NFKD"])
@given(parts=st.lists(_MARKS, max_size=24))
def test_unicode_forms_line_by_line_equal_the_whole_text_at_once(form, parts):
    """A line feed is a boundary no Unicode change crosses: normalizing line by line (lines already
    in the form kept in one go) gives the text and alignment of the chunk rule over the whole text."""
    text = "".join(parts)
    normalizer = getattr(ours, form)()
    ns = normalizer.normalize(text)
    whole = ours.NormalizedString.from_str(text).transform(normalizer._line_units(text, 0, len(text)))
    assert (ns.text, ns.align) == (whole.text, whole.align)
    assert ns.text == __import__("unicodedata").normalize(form, text)


def test_both_charsmap_readers_share_one_trie_and_its_errors():
    import struct

    from tokenizer_core.errors import FormatError
    from tokenizer_core.text.precompiled import CharsMap, charsmap_blob
    from tokenizer_core.unigram.charsmap import PrecompiledCharsmap

    blob = charsmap_blob({"ab": "x", "a": "y", "\ufb01": "fi"})
    hf, sp = CharsMap(blob), PrecompiledCharsmap(blob)
    assert (hf.first_match("abc"), sp.longest_match("abc", 0)) == ("y", ("x", 2))  # shortest / longest key
    assert (hf.first_match("\ufb01"), sp.longest_match("\ufb01", 0)) == ("fi", ("fi", 1))
    assert (hf.first_match("b"), sp.longest_match("b", 0)) == (None, None)
    (size,) = struct.unpack_from("<I", blob)
    cut = blob[:4 + size]  # the trie without its strings: every leaf points outside them
    for read in (lambda: CharsMap(cut).first_match("a"), lambda: PrecompiledCharsmap(cut).longest_match("a", 0)):
        with pytest.raises(FormatError, match="outside its strings"):
            read()
    for bad in (b"\x01", struct.pack("<I", 6) + b"\x00" * 8):
        for make in (CharsMap, PrecompiledCharsmap):
            with pytest.raises(FormatError, match="normalization table"):
                make(bad)
