"""A row of metrics as one piece of markup, for views redrawn on every click of a stepper.

Four ``st.metric`` elements in four columns cost the BPE page's step ~35 ms in the browser (nine
React elements with tooltips); this strip is one element that looks the same: a small label (its
explanation on hover), a large value and a coloured change under it. Sizes are in ``rem``, so
presenter mode's larger text grows them too; a value shrinks to fit a narrow column (a projector's
1024 px) rather than being cut.

>>> out = metric_strip_html([Metric("Vocabulary size", "1,024", delta="+1", tone="off", help="Tokens known")])
>>> 'data-label="Vocabulary size"' in out, "tp-metric-value" in out, "+1" in out
(True, True, True)
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import Literal, NamedTuple, Optional

#: How a change is coloured: "normal" green up / red down, "inverse" the other way, "off" grey.
Tone = Literal["normal", "inverse", "off"]
_GREEN, _RED, _GREY = "#09ab3b", "#ff2b2b", "rgba(128, 132, 149, 1)"

CSS = """<style>
.tp-metrics{display:grid;gap:1rem;margin:0.25rem 0 0.5rem}
.tp-metric{container-type:inline-size;min-width:0}
.tp-metric-label{font-size:0.875rem;opacity:0.8;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
.tp-metric-label[title]{cursor:help;text-decoration:underline dotted;text-underline-offset:3px}
.tp-metric-value{font-size:min(2.25rem, 17cqi);line-height:1.2;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
.tp-metric-delta{font-size:0.875rem;display:inline-block;padding:0 0.4em;border-radius:1em;white-space:nowrap}
</style>"""


class Metric(NamedTuple):
    """One metric: its label, its value as shown, an optional change and hover explanation."""

    label: str
    value: str
    delta: Optional[str] = None
    tone: Tone = "normal"
    help: str = ""


def _delta_look(delta: str, tone: Tone) -> tuple[str, str]:
    """The change's colour and arrow: grey and none when the tone is off.

    >>> _delta_look("-25", "inverse") == (_GREEN, "↓ "), _delta_look("+3", "inverse")[0] == _RED
    (True, True)
    >>> _delta_look("+1", "off"), _delta_look("+1", "normal") == (_GREEN, "↑ ")
    (('rgba(128, 132, 149, 1)', ''), True)
    """
    if tone == "off":
        return _GREY, ""
    down = delta.lstrip().startswith(("-", "−"))
    good = not down if tone == "normal" else down
    return (_GREEN if good else _RED), ("↓ " if down else "↑ ")


def metric_strip_html(metrics: Sequence[Metric]) -> str:
    """``metrics`` side by side in equal columns (escaped: labels and values may hold user text)."""
    cells = []
    for m in metrics:
        tip = f' title="{html.escape(m.help, quote=True)}"' if m.help else ""
        delta = ""
        if m.delta is not None:
            colour, arrow = _delta_look(m.delta, m.tone)
            delta = (f'<div><span class="tp-metric-delta" style="color:{colour};background:'
                     f'color-mix(in srgb, {colour} 12%, transparent)">{arrow}{html.escape(m.delta)}</span></div>')
        cells.append(f'<div class="tp-metric" data-label="{html.escape(m.label, quote=True)}">'
                     f'<div class="tp-metric-label"{tip}>{html.escape(m.label)}</div>'
                     f'<div class="tp-metric-value">{html.escape(m.value)}</div>{delta}</div>')
    columns = f"grid-template-columns:repeat({max(len(metrics), 1)}, minmax(0, 1fr))"
    return f'{CSS}<div class="tp-metrics" style="{columns}">{"".join(cells)}</div>'
