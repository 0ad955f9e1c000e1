"""Token display: escaping, visible whitespace, byte tokens, stable colours."""

from __future__ import annotations

import re

from hypothesis import assume, given
from hypothesis import strategies as st

from tokenizer_core.text.pre_tokenizers import bytes_to_symbols
from ui.widgets.tokens import (
    CHIP_CSS,
    MAX_SHOWN,
    PALETTE,
    bytes_display,
    chip_html,
    chips_html,
    display_text,
    shown_text,
    token_colour,
)


@given(st.text(max_size=30), st.integers(min_value=0, max_value=10**6))
def test_chip_never_contains_raw_markup(text, tid):
    out = chip_html(tid, text)
    # The only tags are our own span; the token text cannot open or close a tag or an attribute.
    assert re.findall(r"<(/?)(\w+)", out) == [("", "span"), ("/", "span")]
    assert out.count('"') % 2 == 0


def test_hostile_tokens_are_escaped():
    out = chips_html([(1, "<script>alert(1)</script>"), (2, '<img src=x onerror="alert(1)">'), (3, "&amp;")])
    assert "<script" not in out and "<img" not in out
    assert "&lt;script&gt;" in out and "&amp;amp;" in out


def test_whitespace_is_visible():
    assert display_text(" a\tb\n") == "·a→b⏎"


def test_markers_shown_or_translated():
    assert display_text("Ġthe", scheme="byte-level", translate=False) == "Ġthe"
    assert display_text("Ġthe", scheme="byte-level") == "·the"
    assert display_text("▁the", scheme="metaspace") == "·the"
    assert display_text("##ing", scheme="wordpiece") == "‿ing"
    assert display_text("##ing", scheme="wordpiece", translate=False) == "##ing"
    assert display_text("low</w>", scheme="suffix") == "low⟩"
    assert display_text("low</w>", scheme="suffix", translate=False) == "low</w>"


def test_each_marker_has_its_own_translation():
    """</w> must not look like a space, nor ## like an ellipsis or like </w>."""
    shown = {
        "space": display_text(" ", scheme="plain"),
        "##": display_text("##x", scheme="wordpiece")[0],
        "</w>": display_text("x</w>", scheme="suffix")[-1],
    }
    assert len(set(shown.values())) == 3
    assert display_text("Ġx", scheme="byte-level")[0] == display_text("▁x", scheme="metaspace")[0] == shown["space"]


def test_partial_utf8_is_shown_as_bytes_never_as_replacement():
    euro = "€".encode()
    assert display_text(bytes_to_symbols(euro[:2]), scheme="byte-level") == "<0xE2><0x82>"
    assert display_text(bytes_to_symbols(euro), scheme="byte-level") == "€"
    assert "\ufffd" not in bytes_display(b"\xff\xfeok")
    assert bytes_display(b"\xff\xfeok") == "<0xFF><0xFE>ok"


@given(st.binary(max_size=12))
def test_bytes_display_is_lossless(data):
    text = data.decode("utf-8", errors="ignore")
    assume("<" not in text and all(ord(c) < 0xF0000 for c in text))
    shown = bytes_display(data)
    rebuilt = re.sub(r"<0x([0-9A-F]{2})>", lambda m: chr(0xF0000 + int(m.group(1), 16)), shown)
    back = b"".join(bytes([ord(c) - 0xF0000]) if ord(c) >= 0xF0000 else c.encode() for c in rebuilt)
    assert back == data


def test_colour_is_a_function_of_the_id():
    assert token_colour(42) == token_colour(42)
    assert all(token_colour(i) != token_colour(i + 1) for i in range(50))  # the bytes of one character differ
    assert {token_colour(i) for i in range(50)} == set(PALETTE)


def test_invisible_and_bidi_characters_are_shown_by_code_point():
    # A right-to-left override inside a token would reverse the chips after it; NUL, zero-width
    # joiners and no-break spaces would be invisible.
    assert display_text("\u202eabc") == "⟨U+202E⟩abc"
    assert display_text("a\x00b\u200dc\u00a0") == "a⟨U+0000⟩b⟨U+200D⟩c⟨U+00A0⟩"
    assert display_text("\u200f", scheme="byte-level", translate=False) == "⟨U+200F⟩"
    assert display_text(bytes_to_symbols("\u200d".encode()), scheme="byte-level") == "⟨U+200D⟩"
    assert display_text("שלום 👍 日本") == "שלום·👍·日本"  # visible characters are left alone
    assert 'class="tp-chip"' in chip_html(1, "שלום") and "unicode-bidi: isolate" in CHIP_CSS  # every chip isolated


def test_a_lone_combining_mark_sits_on_a_dotted_circle():
    assert display_text("\u0301") == "◌\u0301"
    assert display_text("e\u0301") == "e\u0301"
    assert display_text(bytes_to_symbols("\u093f".encode()), scheme="byte-level") == "◌\u093f"


def test_long_tokens_are_cut_for_display():
    token = "x" * 200_000
    chip = chip_html(5, token)
    assert len(chip) < 1_000 and f"(+{200_000 - MAX_SHOWN:,} more)" in chip
    assert shown_text("##" + "ab" * 30, scheme="wordpiece", limit=6) == "‿abab… (+56 more)"
    assert shown_text("short") == "short"
