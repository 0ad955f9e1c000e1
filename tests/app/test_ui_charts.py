"""Charts read from zero: a size or a count on a cut axis exaggerates every change."""

from __future__ import annotations

from ui.widgets.charts import compression_chart


def test_the_compression_chart_starts_its_length_axis_at_zero():
    spec = compression_chart([1000, 900, 850, 820], 2)
    line = spec["layer"][0]["encoding"]["y"]
    assert line["field"] == "tokens" and line["scale"]["zero"] is True
    assert spec["layer"][0]["encoding"]["x"]["scale"]["domain"] == [0, 3]
