"""Chip colours stay apart for colour-blind viewers.

Colour-vision deficiency is simulated with the matrices of Machado, Oliveira & Fernandes (2009),
"A Physiologically-based Model for Simulation of Color Vision Deficiency", severity 1.0, applied
to linear sRGB; distances are CIEDE2000 (Sharma, Wu & Dalal 2005) in CIELAB under D65. Neighbouring
chips of a row must stay at least :data:`MIN_DELTA_E` apart under every simulation, and the
disagreement edge must stand out against every chip colour.
"""

from __future__ import annotations

import math
import re
from html import unescape

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tokenizer_core.analysis.compare import Segment
from ui.compare.align import aligned_html
from ui.widgets.tokens import CHIP_TEXT, EDGE_COLOUR, NO_ID_COLOUR, PALETTE, chips_html, row_colours, token_colour

MACHADO = {
    "protanopia": ((0.152286, 1.052583, -0.204868), (0.114503, 0.786281, 0.099216),
                   (-0.003882, -0.048116, 1.051998)),
    "deuteranopia": ((0.367322, 0.860646, -0.227968), (0.280085, 0.672501, 0.047413),
                     (-0.011820, 0.042940, 0.968881)),
    "tritanopia": ((1.255528, -0.076749, -0.178779), (-0.078411, 0.930809, 0.147602),
                   (0.004733, 0.691367, 0.303900)),
}
VISIONS = ("normal", *MACHADO)
#: Neighbouring chips differ by at least this much (CIEDE2000) under every simulation; the old
#: golden-angle HSL pastels came as close as 1.6 (deuteranopia) for ids 0..200.
MIN_DELTA_E = 15.0
#: The disagreement edge against any chip.
MIN_EDGE_DELTA_E = 30.0


def _linear(c: float) -> float:
    return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4


def _rgb(colour: str) -> tuple[float, float, float]:
    h = colour.lstrip("#")
    return tuple(int(h[i:i + 2], 16) / 255 for i in (0, 2, 4))  # type: ignore[return-value]


def simulate(colour: str, vision: str) -> tuple[float, float, float]:
    """Linear RGB of ``colour`` as seen with ``vision``."""
    lin = [_linear(c) for c in _rgb(colour)]
    if vision == "normal":
        return tuple(lin)  # type: ignore[return-value]
    m = MACHADO[vision]
    return tuple(min(1.0, max(0.0, sum(m[i][j] * lin[j] for j in range(3)))) for i in range(3))  # type: ignore


def lab(linear: tuple[float, float, float]) -> tuple[float, float, float]:
    r, g, b = linear
    x = (0.4124564 * r + 0.3575761 * g + 0.1804375 * b) / 0.95047
    y = 0.2126729 * r + 0.7151522 * g + 0.0721750 * b
    z = (0.0193339 * r + 0.1191920 * g + 0.9503041 * b) / 1.08883

    def f(t: float) -> float:
        return t ** (1 / 3) if t > 216 / 24389 else (24389 / 27 * t + 16) / 116

    fx, fy, fz = f(x), f(y), f(z)
    return 116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)


def ciede2000(lab1: tuple[float, float, float], lab2: tuple[float, float, float]) -> float:
    l1, a1, b1 = lab1
    l2, a2, b2 = lab2
    c_bar = (math.hypot(a1, b1) + math.hypot(a2, b2)) / 2
    g = 0.5 * (1 - math.sqrt(c_bar ** 7 / (c_bar ** 7 + 25 ** 7)))
    a1p, a2p = (1 + g) * a1, (1 + g) * a2
    c1p, c2p = math.hypot(a1p, b1), math.hypot(a2p, b2)
    h1p = math.degrees(math.atan2(b1, a1p)) % 360 if c1p else 0.0
    h2p = math.degrees(math.atan2(b2, a2p)) % 360 if c2p else 0.0
    dlp, dcp = l2 - l1, c2p - c1p
    dhp = 0.0
    if c1p * c2p:
        dhp = h2p - h1p
        dhp = dhp - 360 if dhp > 180 else dhp + 360 if dhp < -180 else dhp
    dhp_big = 2 * math.sqrt(c1p * c2p) * math.sin(math.radians(dhp / 2))
    l_bar, cp_bar = (l1 + l2) / 2, (c1p + c2p) / 2
    if not c1p * c2p:
        hp_bar = h1p + h2p
    elif abs(h1p - h2p) <= 180:
        hp_bar = (h1p + h2p) / 2
    else:
        hp_bar = (h1p + h2p + 360) / 2 if h1p + h2p < 360 else (h1p + h2p - 360) / 2
    t = (1 - 0.17 * math.cos(math.radians(hp_bar - 30)) + 0.24 * math.cos(math.radians(2 * hp_bar))
         + 0.32 * math.cos(math.radians(3 * hp_bar + 6)) - 0.20 * math.cos(math.radians(4 * hp_bar - 63)))
    d_theta = 30 * math.exp(-(((hp_bar - 275) / 25) ** 2))
    r_c = 2 * math.sqrt(cp_bar ** 7 / (cp_bar ** 7 + 25 ** 7))
    s_l = 1 + 0.015 * (l_bar - 50) ** 2 / math.sqrt(20 + (l_bar - 50) ** 2)
    s_c, s_h = 1 + 0.045 * cp_bar, 1 + 0.015 * cp_bar * t
    r_t = -math.sin(math.radians(2 * d_theta)) * r_c
    return math.sqrt((dlp / s_l) ** 2 + (dcp / s_c) ** 2 + (dhp_big / s_h) ** 2
                     + r_t * (dcp / s_c) * (dhp_big / s_h))


def delta_e(c1: str, c2: str, vision: str) -> float:
    return ciede2000(lab(simulate(c1, vision)), lab(simulate(c2, vision)))


def _contrast(c1: str, c2: str) -> float:
    def lum(c: str) -> float:
        r, g, b = (_linear(x) for x in _rgb(c))
        return 0.2126 * r + 0.7152 * g + 0.0722 * b
    hi, lo = sorted((lum(c1), lum(c2)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def test_ciede2000_reproduces_sharmas_test_pairs():
    assert ciede2000((50, 2.6772, -79.7751), (50, 0, -82.7485)) == pytest.approx(2.0425, abs=1e-4)
    assert ciede2000((50, -1.3802, -84.2814), (50, 0, -82.7485)) == pytest.approx(1.0000, abs=1e-4)
    assert ciede2000((50, 2.5, 0), (56, -27, -3)) == pytest.approx(31.9030, abs=1e-4)
    assert ciede2000((60.2574, -34.0099, 36.2677), (60.4626, -34.1751, 39.4387)) == pytest.approx(1.2644, abs=1e-4)


def test_the_simulation_confuses_what_deuteranopes_confuse():
    # Sanity of the matrices: red and green, far apart for normal vision, come close for deuteranopes.
    assert delta_e("#CC3333", "#669900", "normal") > 40
    assert delta_e("#CC3333", "#669900", "deuteranopia") < 15


@pytest.mark.parametrize("vision", VISIONS)
def test_every_two_palette_colours_stay_apart(vision):
    worst = min(delta_e(a, b, vision) for i, a in enumerate(PALETTE) for b in PALETTE[i + 1:])
    assert worst >= MIN_DELTA_E, (vision, worst)


@pytest.mark.parametrize("vision", VISIONS)
def test_the_disagreement_edge_stands_out_on_every_chip(vision):
    assert min(delta_e(EDGE_COLOUR, c, vision) for c in PALETTE) >= MIN_EDGE_DELTA_E


def test_chip_text_is_readable_on_every_chip():
    assert min(_contrast(CHIP_TEXT, c) for c in (*PALETTE, NO_ID_COLOUR)) >= 7.0


@given(st.lists(st.integers(min_value=0, max_value=200_000), min_size=2, max_size=40))
def test_neighbouring_tokens_never_share_a_colour(ids):
    colours = row_colours(ids)
    for (a, ca), (b, cb) in zip(zip(ids, colours), zip(ids[1:], colours[1:])):
        if a != b:
            assert min(delta_e(ca, cb, v) for v in VISIONS) >= MIN_DELTA_E
        else:
            assert ca == cb  # the same token keeps its colour


def _backgrounds(html: str) -> list[tuple[str, int]]:
    return [(bg, int(tid)) for tid, bg in re.findall(r'title="id (\d+)[^"]*"[^>]*background:(#[0-9A-Fa-f]{6})',
                                                      unescape(html).replace("&", ""))]


def test_rendered_rows_keep_neighbours_apart_under_simulation():
    # Ids that collide in the palette (6 apart) side by side, as chips and as an aligned row.
    ids = [6, 12, 18, 19, 25, 25, 31]
    chips = _backgrounds(chips_html([(i, f"t{i}") for i in ids]))
    assert [tid for _, tid in chips] == ids
    segs = [Segment(k, k + 1, f"t{i}", i) for k, i in enumerate(ids)]
    aligned = _backgrounds(aligned_html("abcdefg", [("row", segs)]))
    assert aligned == chips
    for (ca, a), (cb, b) in zip(chips, chips[1:]):
        if a != b:
            worst = min(delta_e(ca, cb, v) for v in VISIONS)
            assert worst >= MIN_DELTA_E, (a, b, worst)
    assert token_colour(6) == token_colour(12)  # the palette alone would have merged them


def test_the_old_palette_failed_this_check():
    # The figure the issue reported: golden-angle HSL pastels of neighbouring ids came close.
    import colorsys

    def old(token_id: int) -> str:
        hue = (token_id * 0.6180339887498949) % 1.0
        light = (82 + (token_id % 3) * 4) / 100
        r, g, b = colorsys.hls_to_rgb(hue, light, 0.7)
        return "#%02X%02X%02X" % (round(r * 255), round(g * 255), round(b * 255))

    worst = min(delta_e(old(i), old(j), "deuteranopia") for i in range(60) for j in range(i + 1, 60))
    assert worst < MIN_DELTA_E
