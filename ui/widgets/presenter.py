"""Presenter mode as a slide mode: a small bar, always on screen, to switch pages and leave, and its keys.

Presenter mode folds the sidebar, so the bar is the way around: one icon per page (the page on
show marked) and **Exit**, fixed at the top right of every page. The same moves have keys, listened
to on the whole document and ignored while typing in a field or while a dialog or menu is open:

- **F** turns presenter mode on or off (on every page, presenting or not);
- **Esc** leaves it;
- **1** to **9** open the pages in menu order (while presenting).

A key press goes to the server with a sequence number (applied once, whatever reruns send it
again), in a callback, so the page config of that very run already knows the new mode: the bar's
links and button and the keys do the same thing.

>>> key_of_page(0), key_of_page(5)
('1', '6')
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Optional

import streamlit as st

from ui.navigation import PAGES
from ui.widgets import display

BAR = "display_presenter_bar"  # the bar's container key (its CSS class is st-key-display_presenter_bar)
EXIT = "display_presenter_exit"
KEYS = "display_presenter_keys"
_GOTO = "display_presenter_goto"  # a page asked for by a key, opened by :func:`open_requested_page`
_SEQ = "display_presenter_seq"  # the sequence number of the last key press applied

TOGGLE_KEY = "F"
EXIT_KEY = "Esc"
EXIT_HELP = f"Leave presenter mode ({EXIT_KEY} or {TOGGLE_KEY}); the sidebar comes back."

_JS = r"""
export default function (component) {
  const { data, setStateValue } = component;
  const seq = Math.max(data.seq, (window.__tpPresenter || { seq: 0 }).seq);
  window.__tpPresenter = { send: setStateValue, presenting: data.presenting, pages: data.pages, seq };
  if (!window.__tpPresenterKeys) {
    window.__tpPresenterKeys = (e) => {
      const s = window.__tpPresenter;
      if (!s || e.altKey || e.ctrlKey || e.metaKey || e.repeat) return;
      const el = document.activeElement;
      if (el && (el.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(el.tagName))) return;
      // A dialog, popover or open menu takes Esc (and every key) for itself.
      if (document.querySelector("[role=dialog], [role=listbox], [data-baseweb=popover]")) return;
      let action = null;
      if (e.key === "f" || e.key === "F") action = "toggle";
      else if (e.key === "Escape" && s.presenting) action = "exit";
      else if (s.presenting && /^[1-9]$/.test(e.key) && Number(e.key) <= s.pages.length) action = "page:" + e.key;
      if (!action) return;
      e.preventDefault();
      s.seq += 1;
      s.send("action", { seq: s.seq, name: action });
    };
    document.addEventListener("keydown", window.__tpPresenterKeys);
  }
}
"""

_COMPONENT: Any = None


def _component() -> Any:
    global _COMPONENT
    if _COMPONENT is None:  # registered once per process: Streamlit warns about re-registration
        _COMPONENT = st.components.v2.component("tp_presenter_keys", js=_JS, isolate_styles=False)
    return _COMPONENT


def key_of_page(index: int) -> str:
    """The key that opens page ``index`` (0-based, menu order) in presenter mode."""
    return str(index + 1)


def _set(on: bool) -> None:
    st.session_state[display.PRESENTER] = on


def apply_action(action: Optional[str]) -> None:
    """Apply a key's action: ``toggle``, ``exit`` or ``page:N`` (N counted from 1)."""
    if action == "toggle":
        _set(not display.presenter())
    elif action == "exit":
        _set(False)
    elif isinstance(action, str) and action.startswith("page:") and action[5:].isdigit():
        index = int(action[5:]) - 1
        if 0 <= index < len(PAGES):
            st.session_state[_GOTO] = PAGES[index].script


def _read_action() -> Optional[str]:
    """The action of the key pressed, once: each press carries a sequence number; an old one
    (sent again with a rerun) is ignored."""
    value = st.session_state.get(KEYS)
    sent = value.get("action") if isinstance(value, Mapping) else getattr(value, "action", None)
    if not isinstance(sent, Mapping) or not isinstance(sent.get("seq"), int):
        return None
    if sent["seq"] <= st.session_state.get(_SEQ, 0):
        return None
    st.session_state[_SEQ] = sent["seq"]
    name = sent.get("name")
    return name if isinstance(name, str) else None


def open_requested_page() -> None:
    """Open the page a key asked for in the last run (call after ``st.navigation``, before the page)."""
    script = st.session_state.pop(_GOTO, None)
    if script is not None:
        st.switch_page(script)


def render_keys() -> None:
    """The key listener (nothing to see; draw it on every page, presenting or not)."""
    with st.container(key=KEYS + "_box"):  # hidden by display's CSS: it takes no room on the page
        _component()(key=KEYS, data={"presenting": display.presenter(), "pages": [p.url_path for p in PAGES],
                                     "seq": st.session_state.get(_SEQ, 0)},
                     default={"action": None}, on_action_change=lambda: apply_action(_read_action()),
                     width="stretch")


def render_bar() -> None:
    """The presenter bar (only in presenter mode): one link per page, and Exit."""
    if not display.presenter():
        return
    with st.container(key=BAR, horizontal=True, gap="small", vertical_alignment="center", width="content"):
        for i, spec in enumerate(PAGES):
            st.page_link(spec.script, label=spec.title, icon=spec.icon,
                         help=f"{spec.title} (key {key_of_page(i)})")
        st.button(f"Exit ({EXIT_KEY})", key=EXIT, icon=":material/close_fullscreen:", on_click=_set, args=(False,),
                  help=EXIT_HELP)


def render() -> None:
    """The keys, and the bar in presenter mode (call once per run, before the page)."""
    render_keys()
    render_bar()
