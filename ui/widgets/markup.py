"""Checked markup drawn by a small component instead of ``st.html``: for views redrawn on every click.

``st.html`` passes its body through the browser's HTML sanitizer and React mounts it again whenever it
changes: on the BPE page's step view that was most of a step's cost in the browser. This component
takes the same checked markup (:func:`ui.widgets.safe_html.markup_problems`: the app's tags only, no
event handler, no ``javascript:`` URL; a refused fragment is shown as text, as ``render_html`` does) and
sets it in place only when it changed, so an unchanged part of a view costs the browser nothing.

>>> element_data(["<b>a</b>", "<i>b</i>"])["html"]
'<b>a</b><i>b</i>'
>>> element_data('<img src=x onerror="alert(1)">')["refused"]
'tag <img>'
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import Any, Union

import streamlit as st

from ui.widgets.safe_html import markup_problems

_JS = r"""
export default function (component) {
  const { data, parentElement } = component;
  let box = parentElement.querySelector(":scope > .tp-markup");
  if (!box) {
    box = document.createElement("div");
    box.className = "tp-markup";
    parentElement.appendChild(box);
  }
  // Checked on the server (ui/widgets/safe_html.py): only the app's own tags, no handler, no script URL.
  if (box.__html !== data.html) { box.innerHTML = data.html; box.__html = data.html; }
}
"""

_COMPONENT: Any = None


def _component() -> Any:
    global _COMPONENT
    if _COMPONENT is None:  # registered once per process (holds no user data)
        _COMPONENT = st.components.v2.component("tp_markup", js=_JS, isolate_styles=False)
    return _COMPONENT


def element_data(fragment: Union[str, Sequence[str]]) -> dict[str, str]:
    """The component's data for ``fragment``: the markup itself, or, when the guard refuses it, the
    fragment as text (never as markup) and what was refused."""
    problems = markup_problems(fragment)
    text = fragment if isinstance(fragment, str) else "".join(fragment)
    if not problems:
        return {"html": text}
    return {"html": f"<div style='white-space:pre-wrap'>{html.escape(text)}</div>", "refused": problems[0]}


def render_markup(fragment: Union[str, Sequence[str]], *, key: str) -> None:
    """Draw checked ``fragment`` (a string or whole elements in parts); ``key`` names the element, so
    the browser keeps it from one run to the next and redraws it only when its markup changed. A
    fragment the guard refuses is shown as text under a warning, as :func:`render_html` does."""
    data = element_data(fragment)
    if "refused" in data:
        st.warning(f"Some of this view was not shown as formatting, because it held {data['refused']}; here it "
                   "is as text.", icon=":material/shield:")
    _component()(key=key, data=data, width="stretch")
