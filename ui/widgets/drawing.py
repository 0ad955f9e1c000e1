"""Draw a :class:`ui.widgets.quick_charts.Drawing` in the browser, as SVG built from data.

``st.html`` sanitizes SVG away, and a Vega-Lite chart costs a stepper's click ~30 ms; this
component builds the SVG itself: only the tags and attributes listed below, words set as text
(never parsed as markup). The drawing's ``base`` (axes, line) is rebuilt only when it changes (the
page sends a digest of it); the ``overlay`` (a step's marker) on every run.

>>> base_key([{"tag": "line", "x1": 0}]) == base_key([{"tag": "line", "x1": 0}])
True
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import streamlit as st

from ui.widgets.quick_charts import Drawing

#: Every tag and attribute a drawing may use; anything else in a shape is left out by the browser.
TAGS = ("line", "polyline", "circle", "text")
ATTRIBUTES = ("x", "y", "x1", "x2", "y1", "y2", "cx", "cy", "r", "points", "fill", "stroke", "stroke-width",
              "stroke-dasharray", "text-anchor", "transform")

_JS = r"""
const NS = "http://www.w3.org/2000/svg";
const TAGS = new Set(__TAGS__);
const ATTRIBUTES = new Set(__ATTRIBUTES__);

function shape(s) {
  if (!TAGS.has(s.tag)) return null;
  const el = document.createElementNS(NS, s.tag);
  for (const [k, v] of Object.entries(s)) if (ATTRIBUTES.has(k)) el.setAttribute(k, String(v));
  if (s.text !== undefined) el.textContent = String(s.text);   // words are text, never markup
  if (s.tip !== undefined) {
    const t = document.createElementNS(NS, "title");
    t.textContent = String(s.tip);
    el.appendChild(t);
  }
  return el;
}

function draw(group, shapes) { group.replaceChildren(...shapes.map(shape).filter(Boolean)); }

export default function (component) {
  const { data, parentElement } = component;
  let svg = parentElement.querySelector("svg.tp-drawing");
  if (!svg) {
    svg = document.createElementNS(NS, "svg");
    svg.setAttribute("class", "tp-drawing");
    svg.setAttribute("role", "img");
    svg.setAttribute("width", "100%");
    svg.style.fontFamily = "sans-serif";
    svg.style.display = "block";
    svg.append(document.createElementNS(NS, "g"), document.createElementNS(NS, "g"));
    parentElement.appendChild(svg);
  }
  svg.setAttribute("viewBox", `0 0 ${data.width} ${data.height}`);
  svg.setAttribute("aria-label", data.label);
  svg.style.maxWidth = `${data.width}px`;
  svg.style.fontSize = `${data.font}px`;
  const [base, overlay] = svg.children;
  if (svg.__base !== data.base_key) { draw(base, data.base); svg.__base = data.base_key; }
  draw(overlay, data.overlay);
}
"""

_COMPONENT: Any = None


def _component() -> Any:
    global _COMPONENT
    if _COMPONENT is None:  # registered once per process (holds no user data)
        js = _JS.replace("__TAGS__", json.dumps(TAGS)).replace("__ATTRIBUTES__", json.dumps(ATTRIBUTES))
        _COMPONENT = st.components.v2.component("tp_drawing", js=js, isolate_styles=False)
    return _COMPONENT


def base_key(shapes: list[dict[str, object]]) -> str:
    """A digest of a drawing's base shapes: equal shapes, equal key (the browser keeps what it drew)."""
    return hashlib.blake2b(json.dumps(shapes, separators=(",", ":")).encode(), digest_size=12).hexdigest()


def render_drawing(drawing: Drawing, *, key: str, font: int = 12) -> None:
    """Draw ``drawing`` (as wide as its column, at most its own width); ``key`` names the element."""
    _component()(
        key=key,
        data={"width": drawing.width, "height": drawing.height, "label": drawing.label, "font": font,
              "base": drawing.base, "base_key": base_key(drawing.base), "overlay": drawing.overlay},
        width="stretch",
    )
