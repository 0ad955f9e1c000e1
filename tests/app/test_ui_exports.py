"""Charts without a browser: theme colours readable in both themes, presenter-mode text, whole-number
axes, the knee in every sweep panel, the waste chart's coinciding lines, and the exports' bytes."""

from __future__ import annotations

import json
import re
from types import SimpleNamespace

import altair as alt
import pandas as pd
import pytest

from tests.browser.test_browser_contrast import contrast
from tokenizer_core.analysis.sweep import SweepRow, knee
from tokenizer_core.batch.packing import waste_by_batch_size
from tokenizer_core.unigram.explain import course_model
from ui.batch.views import coincide, heatmap, waste_figure, waste_sizes
from ui.compare.sweep_chart import shortfalls, size_ticks, sweep_figure, sweep_frame
from ui.compare.sweep_view import SIZE_CHOICES
from ui.lattice.graph import PRESENTER_MAX_HEIGHT, VITERBI_COLOUR, lattice_figure
from ui.lattice.views import sampling_figure, training_figure
from ui.widgets import export
from ui.widgets.charts import compression_chart
from ui.widgets.export_theme import ChartStyle, style_altair, style_plotly, style_spec

STYLES = [ChartStyle(dark=False), ChartStyle(dark=True)]


def _rgb(hex_colour: str) -> str:
    h = hex_colour.lstrip("#")
    return "rgb({}, {}, {})".format(*(int(h[i:i + 2], 16) for i in (0, 2, 4)))


@pytest.mark.parametrize("style", STYLES, ids=["light", "dark"])
def test_every_text_colour_reads_on_its_theme_background(style):
    for name in ("text", "muted", "accent", "blue", "second", "node"):
        assert contrast(_rgb(getattr(style, name)), _rgb(style.background)) >= 4.5, name


def rows_of(sizes, cpt, *, asked=None):
    asked = asked or sizes
    return [SweepRow("bpe", s, a, 100, y, 1.0 / y, 0.0, 0.5, s * 768, 0.0, False,
                     note="" if s == a else "no pairs left to merge", tokens_per_byte=0.9 / y)
            for s, a, y in zip(sizes, asked, cpt)]


def test_sweep_axes_are_whole_numbers_and_the_knee_is_in_every_panel():
    rows = rows_of([500, 1000, 2000, 4000, 8000, 15028], [2.0, 2.7, 3.3, 3.9, 4.1, 4.2],
                   asked=[500, 1000, 2000, 4000, 8000, 16000])
    at = knee(rows)
    fig = sweep_figure(rows, title="t")
    for axis in ("xaxis", "xaxis2", "xaxis3", "xaxis4", "xaxis5"):
        ticks = list(fig.layout[axis].ticktext)
        assert "15,028" in ticks and at is not None and f"{at:,}" in ticks
        assert all(re.fullmatch(r"\d{1,3}(,\d{3})*", t) for t in ticks), ticks  # never 15.028k
    knees = [t for t in fig.data if t.name == "knee"]
    assert len(knees) == 5 and all(list(t.x) == [at] for t in knees)
    assert sum(f"knee ≈ {at:,}" in (a.text or "") for a in fig.layout.annotations) == 5
    assert len(fig.layout.shapes) == 5  # a dashed line in each panel
    # Each knee's mark sits in its own panel (the annotation's axes are the panel's).
    marks = [a for a in fig.layout.annotations if "knee" in (a.text or "")]
    assert [a.xref for a in marks] == ["x", "x2", "x3", "x4", "x5"]
    assert shortfalls(rows) == ["asked for 16,000, got 15,028: no pairs left to merge"]
    frame = sweep_frame(rows)
    assert frame["knee"].sum() == 1 and frame.loc[frame["knee"], "vocab_size"].item() == at
    assert frame["note"].iloc[-1] == "no pairs left to merge"


@pytest.mark.parametrize("presenter", [False, True])
def test_sweep_tick_labels_never_overlap(presenter):
    font = ChartStyle(presenter=presenter).font
    sizes = sorted(set(SIZE_CHOICES + [15028, 24000, 300, 700, 1400, 2800, 5600, 11000]))
    ticks = size_ticks(sizes, font_px=font, keep=2800)
    assert ticks[0] == sizes[0] and ticks[-1] == sizes[-1] and 2800 in ticks
    import math
    span = math.log(sizes[-1] / sizes[0])
    px = [300 * math.log(t / sizes[0]) / span for t in ticks]
    widths = [0.62 * font * len(f"{t:,}") for t in ticks]
    for i in range(len(ticks) - 1):
        assert px[i + 1] - px[i] >= (widths[i] + widths[i + 1]) / 2, (ticks[i], ticks[i + 1])


def test_waste_chart_has_integer_batch_sizes_and_says_when_its_lines_coincide():
    lengths = [3, 6, 14]  # already in length order: sorting changes nothing
    sizes = waste_sizes(len(lengths))
    rows = waste_by_batch_size(lengths, sizes)
    fig = waste_figure(sizes, rows)
    assert list(fig.layout.xaxis.tickvals) == [1, 2, 3] and list(fig.layout.xaxis.ticktext) == ["1", "2", "3"]
    assert coincide(rows) and any("coincide" in a.text for a in fig.layout.annotations)
    rows = waste_by_batch_size([500, 10, 480, 12], waste_sizes(4))
    fig = waste_figure(waste_sizes(4), rows)
    assert not coincide(rows) and not fig.layout.annotations
    assert fig.data[1].line.dash == "dash"  # the second line stays visible where they meet


@pytest.mark.parametrize("style", STYLES, ids=["light", "dark"])
def test_lattice_takes_the_theme_and_grows_in_presenter_mode(style):
    lattice = course_model().lattice("unhugs")
    fig = lattice_figure(lattice, style=style)
    chars, nodes = fig.data[-1], fig.data[-2]
    assert chars.textfont.color == style.text and nodes.marker.color == style.node
    assert nodes.textfont.color == style.muted
    assert fig.layout.plot_bgcolor == "rgba(0,0,0,0)"  # the page's background, whatever the theme
    big = lattice_figure(lattice, style=ChartStyle(dark=style.dark, presenter=True))
    assert big.data[-1].textfont.size == 1.5 * chars.textfont.size
    assert big.layout.height > fig.layout.height


def _hue(hex_colour: str) -> float:
    import colorsys

    h = hex_colour.lstrip("#")
    return 360 * colorsys.rgb_to_hls(*(int(h[i:i + 2], 16) / 255 for i in (0, 2, 4)))[0]


@pytest.mark.parametrize("style", STYLES, ids=["light", "dark"])
def test_the_viterbi_path_is_the_colour_the_caption_names(style):
    fig = lattice_figure(course_model().lattice("unhug"), style=style)
    path = next(t for t in fig.data if t.name == "Viterbi path")
    assert path.line.color == style.accent
    assert VITERBI_COLOUR == "orange" and 15 <= _hue(style.accent) <= 40  # orange, not red (0°) or yellow (60°)


@pytest.mark.parametrize("word", ["hugs", "unhugs", "pug", "hugs" * 15])
def test_the_presenter_lattice_fits_the_first_screen(word):
    lattice = course_model().lattice(word)
    big = lattice_figure(lattice, style=ChartStyle(presenter=True))
    assert big.layout.height <= PRESENTER_MAX_HEIGHT
    assert big.layout.height >= lattice_figure(lattice).layout.height  # still no smaller than on a desk


@pytest.mark.parametrize("style", STYLES, ids=["light", "dark"])
def test_lattice_sampling_and_training_charts_take_the_theme(style):
    sampling = sampling_figure(["un | hug", "<u> | n"], [0.7, 0.3], [0.69, 0.31], draws=1000, style=style)
    assert [bar.marker.color for bar in sampling.data] == [style.blue, style.accent]
    assert sampling.data[0].x[1] == "&lt;u&gt; | n"  # token text escaped (plotly draws it as markup)
    rounds = [SimpleNamespace(round=i, vocab_size=1000 - 100 * i, loss=5.0 - 0.1 * i) for i in range(3)]
    training = training_figure(rounds, style=style)
    assert [t.line.color for t in training.data] == [style.blue, style.accent]
    presenter = ChartStyle(dark=style.dark, presenter=True)
    assert sampling_figure(["a"], [1.0], [1.0], draws=1, style=presenter).layout.height > sampling.layout.height
    assert training_figure(rounds, style=presenter).layout.height > training.layout.height


def test_plotly_styling_sets_unset_colours_and_keeps_the_charts_own():
    fig = heatmap(pd.DataFrame([[1, 0], [1, 1]]).to_numpy(), ["a", "b"], "mask", style=STYLES[1])
    fig.add_annotation(text="own", font=dict(color="#123456"))
    style_plotly(fig, STYLES[1])
    assert fig.layout.font.color == STYLES[1].text and fig.layout.xaxis.tickfont.color == STYLES[1].text
    assert fig.layout.annotations[0].font.color == "#123456"
    assert fig.data[0].colorscale[0][1] == STYLES[1].empty_cell


@pytest.mark.parametrize("style", STYLES, ids=["light", "dark"])
def test_altair_charts_take_the_theme_and_draw_as_svg(style):
    chart = alt.Chart(pd.DataFrame({"x": [1, 2]})).mark_bar().encode(x="x:Q")
    spec = style_altair(chart, style).to_dict()
    assert spec["config"]["axis"]["labelColor"] == style.text
    assert spec["usermeta"]["embedOptions"]["renderer"] == "svg"
    assert spec["config"]["background"] == "transparent"
    assert style_altair(chart, style, background=True).to_dict()["config"]["background"] == style.background
    # The same theme merged into a spec written as a dict (the BPE page's charts), as Altair's config.
    styled = style_spec(compression_chart([10, 8, 7, 7], 2, style=style), style)
    # All but Altair's default view size (300 x 300), which these charts set themselves.
    assert styled["config"] == {**spec["config"], "view": {"strokeWidth": 0}}
    assert styled["usermeta"] == spec["usermeta"]
    assert style_spec({"config": {"axis": {"labelAngle": 45}}}, style)["config"]["axis"]["labelAngle"] == 45
    assert style_spec({}, style, background=True)["config"]["background"] == style.background


def test_altair_exports_are_png_and_svg_in_the_theme():
    dark = STYLES[1]
    for chart in (compression_chart([10, 8, 7, 7], 2, style=dark),  # a spec written as a dict
                  alt.Chart(pd.DataFrame({"x": [1, 2]})).mark_bar().encode(x="x:Q", y="x:Q")):
        svg = export.altair_image(chart, "svg", dark).decode("utf-8")
        png = export.altair_image(chart, "png", dark)
        _readable_in(svg, png, dark)


def _readable_in(svg: str, png: bytes, dark) -> None:
    assert svg.lstrip().startswith("<svg") and dark.background in svg
    fills = set(re.findall(r'<text[^>]*fill="(#[0-9a-fA-F]{6})"', svg))
    assert fills and all(contrast(_rgb(f), _rgb(dark.background)) >= 4.5 for f in fills), fills
    assert png[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.skipif(not export.plotly_export_available(), reason="no Chromium for kaleido")
def test_plotly_exports_are_png_and_svg():
    fig = waste_figure([1, 2, 3], waste_by_batch_size([3, 6, 14], [1, 2, 3]))
    svg = export.plotly_image(fig, "svg", STYLES[1])
    assert b"<svg" in svg[:400] and b"coincide" in svg
    assert export.plotly_image(fig, "png", STYLES[0])[:8] == b"\x89PNG\r\n\x1a\n"
    assert fig.layout.paper_bgcolor is None  # the shown figure is left as it was


def test_a_shown_charts_downloads_draw_the_chart_as_built_not_as_themed(monkeypatch):
    """plotly_chart themes the shown figure and keeps only its built layout for the downloads: the
    figure a download draws has every trace and the layout without the theme's colours."""
    fig = waste_figure([1, 2, 3], waste_by_batch_size([3, 6, 14], [1, 2, 3]))
    built = fig.to_plotly_json()
    drawn, makers = [], []
    monkeypatch.setattr(export, "plotly_image", lambda f, fmt, style: drawn.append(f.to_plotly_json()) or b"")
    monkeypatch.setattr(export, "plotly_export_available", lambda: True)
    monkeypatch.setattr(export, "_buttons", lambda key, name, make, where: makers.append(make))
    shown = SimpleNamespace(plotly_chart=lambda f, **kw: None, caption=lambda *a: None)
    export.plotly_chart(fig, key="k", name="waste", container=shown, style=STYLES[1])
    assert fig.layout.font.color == STYLES[1].text  # the shown chart took the theme
    makers[0]("svg")
    assert drawn == [built]
    assert export.csv_bytes(pd.DataFrame({"token": ["é,<b>"]})).decode("utf-8-sig") == 'token\n"é,<b>"\n'
    rows = rows_of([500, 1000, 2000], [2.0, 3.0, 3.2])
    assert json.loads(json.dumps({"rows": [r.__dict__ for r in rows]}))["rows"][0]["note"] == ""
    assert export.file_stem("Sweep: <b>BPE</b>") == "sweep-b-bpe-b"
