"""Charts read from zero: a size or a count on a cut axis exaggerates every change."""

from __future__ import annotations

from ui.widgets.charts import compression_chart


def test_the_compression_chart_starts_its_length_axis_at_zero():
    spec = compression_chart([1000, 900, 850, 820], 2)
    line = spec["layer"][0]["encoding"]["y"]
    assert line["field"] == "tokens" and line["scale"]["zero"] is True
    assert spec["layer"][0]["encoding"]["x"]["scale"]["domain"] == [0, 3]


def test_a_lesson_charts_spec_is_built_once_per_content_and_style_and_handed_out_as_a_copy(monkeypatch):
    """A class of forty reruns one step at once: the Altair build runs once per chart content and style
    (server-wide, keyed by content, never by a lesson's name), and each caller gets its own copy."""
    from tokenizer_core.lessons.figure_types import Chart
    from ui import cache
    from ui.lessons import charts
    from ui.widgets.export_theme import ChartStyle

    builds = []
    real = charts.altair_of
    monkeypatch.setattr(charts, "altair_of", lambda chart, *, style: builds.append(chart.name) or real(chart, style=style))
    monkeypatch.setattr(cache, "LESSON_CHARTS", cache.Table("lesson-charts-test", max_entries=8, holds="this test's"))

    def chart(y: int, name: str = "merges") -> Chart:
        return Chart(name, "step", "tokens", ({"x": 1, "y": y, "series": "corpus"}, {"x": 2, "y": 3, "series": "corpus"}),
                     mark_x=2)

    light, dark, big = ChartStyle(), ChartStyle(dark=True), ChartStyle(presenter=True)
    first = charts.lesson_spec(chart(5), style=light)
    first["title"] = "changed by one caller"
    again = charts.lesson_spec(chart(5), style=light)
    assert again["title"] == "merges" and builds == ["merges"]
    assert charts.lesson_spec(chart(6), style=light) != again  # other data: its own spec
    assert charts.lesson_spec(chart(5, "other"), style=light)["title"] == "other"
    assert charts.lesson_spec(chart(5), style=dark) != again and charts.lesson_spec(chart(5), style=big) != again
    assert len(builds) == 5
