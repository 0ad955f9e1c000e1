"""Step controls that never lose a click: First, Previous, Next, Last, Play/Pause and their keys.

Streamlit buttons send one-shot triggers, and two triggers that arrive while the script is still
running are folded into one: five quick clicks on a Next button could move four steps. This
widget keeps the count in the browser instead: each click or key press moves a local step and
sends the *target* step with a sequence number as component state. Whatever Streamlit folds
together, the newest state holds the sum of every click; the server applies a command only if
its sequence number is new and it was made for the run on show (a retrain resets the step).

Keys (ignored while typing in a field): Right/N next, Left/P previous, Home/End first/last,
Space/K play or pause. Play is timed in the browser, so it runs to the end at any speed.

The buttons are the component's HTML, drawn with the element; its script comes a moment later and
takes them over (a click in between is queued and replayed), and can tell the page it is mounted.

>>> clamp_step(7, num_steps=5), clamp_step(-2, num_steps=5)
(5, 0)
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Optional

import streamlit as st

_JS = r"""
const EARLY_KEY_MS = 15000;  // a key older than this was not meant for the controls now mounting

export default function (component) {
  const { data, setStateValue, parentElement } = component;
  // The buttons are the component's HTML (drawn as soon as the element is): this script, loaded
  // after, takes them over. A click it missed was queued by the buttons themselves (see _HTML).
  let root = parentElement.querySelector(".tp-stepper");
  if (!root) {
    const holder = document.createElement("div");
    holder.innerHTML = __HTML__;
    root = holder.firstElementChild;
    parentElement.appendChild(root);
  }
  if (!root.__s) {
    root.__s = { seq: data.seq, local: data.step, run: data.run, playing: data.playing, timer: null };
    root.addEventListener("click", (e) => {
      const b = e.target.closest("button[data-action]");
      if (b && !b.disabled) act(root, b.dataset.action);
    });
    // The scrubber moves nothing on the server while it is dragged (its label follows the thumb);
    // letting go sends the step it rests on, as a command like any button's.
    const range = root.querySelector(".tp-step-range");
    range.addEventListener("input", () => { root.__s.dragging = true; label(root, Number(range.value)); });
    range.addEventListener("change", () => {
      const s = root.__s;
      s.dragging = false;
      const target = Math.min(Math.max(Number(range.value), 0), s.n);
      setPlaying(root, false);
      if (target !== s.local) { s.local = target; send(root); } else refresh(root);
    });
    root.querySelector(".tp-step-speed").addEventListener("change", (e) => {
      const v = Number(e.target.value);
      if (Number.isFinite(v)) root.__s.send("speed", v);
    });
    if (data.report) setStateValue("mounted", true);  // the page draws the rest of its view now
    // Step keys pressed on this page before this script listened (kept by ui/widgets/presenter.py).
    const waiting = (window.__tpEarlyStepKeys || []).filter(
      (k) => k.path === location.pathname && Date.now() - k.at < EARLY_KEY_MS);
    window.__tpEarlyStepKeys = [];
    if (waiting.length) root.__early = (root.__early || []).concat(waiting.map((k) => k.action));
  }
  const s = root.__s;
  s.send = setStateValue;
  s.n = data.n;
  s.interval = data.interval;
  setExtras(root, data);
  if (s.timer && s.timerInterval !== s.interval) { clearInterval(s.timer); s.timer = null; setPlaying(root, s.playing); }
  if (data.run !== s.run) {            // another training run: start from the server's step
    s.run = data.run; s.seq = Math.max(s.seq, data.seq); s.local = data.step; setPlaying(root, data.playing);
  } else if (data.seq >= s.seq) {      // the server has applied every command sent: follow it
    s.seq = data.seq; s.local = data.step; setPlaying(root, data.playing);
  }
  const early = root.__early || [];
  root.__early = null;
  for (const action of early) act(root, action);
  refresh(root);
  window.__tpStepperRoot = root;
  if (!window.__tpStepperKeys) {
    window.__tpStepperKeys = (e) => {
      const r = window.__tpStepperRoot;
      if (!r || !r.isConnected || e.altKey || e.ctrlKey || e.metaKey) return;
      const el = document.activeElement;
      if (el && (el.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(el.tagName))) return;
      const map = __KEYS__;
      const action = map[e.key];
      if (!action) return;
      e.preventDefault();
      act(r, action);
    };
    document.addEventListener("keydown", window.__tpStepperKeys);
  }
  return () => { clearInterval(s.timer); s.timer = null; };
}

function act(root, action) {
  const s = root.__s;
  if (action === "play") { setPlaying(root, !s.playing); if (s.playing && s.local >= s.n) s.local = 0; send(root); return; }
  const target = { first: 0, prev: s.local - 1, next: s.local + 1, last: s.n }[action];
  const clamped = Math.min(Math.max(target, 0), s.n);
  const wasPlaying = s.playing;
  setPlaying(root, false);
  if (clamped === s.local && !wasPlaying) return;
  s.local = clamped;
  send(root);
}

function send(root) {
  const s = root.__s;
  s.seq += 1;
  s.send("command", { seq: s.seq, run: s.run, target: s.local, playing: s.playing });
  refresh(root);
}

function setPlaying(root, playing) {
  const s = root.__s;
  s.playing = playing;
  if (playing && !s.timer) {
    s.timer = setInterval(() => {
      if (!root.isConnected) { clearInterval(s.timer); s.timer = null; return; }
      if (s.local >= s.n) { setPlaying(root, false); send(root); return; }
      s.local += 1;
      if (s.local >= s.n) setPlaying(root, false);
      send(root);
    }, Math.max(50, s.interval * 1000));
    s.timerInterval = s.interval;
  } else if (!playing && s.timer) {
    clearInterval(s.timer); s.timer = null;
  }
}

function setExtras(root, data) {
  const scrub = root.querySelector(".tp-step-scrub");
  scrub.hidden = !data.scrubber;
  const speed = root.querySelector(".tp-step-speed-box");
  const speeds = data.speeds || [];
  speed.hidden = speeds.length === 0;
  const select = speed.querySelector("select");
  const wanted = speeds.map(String).join(",");
  if (select.dataset.options !== wanted) {
    select.replaceChildren(...speeds.map((v) => {
      const o = document.createElement("option"); o.value = String(v); o.textContent = v + " s per step"; return o;
    }));
    select.dataset.options = wanted;
  }
  if (speeds.length) select.value = String(data.interval);
}

function label(root, step) {
  root.querySelector(".tp-step-where").textContent = "Step " + step.toLocaleString("en-US") + " of " +
    root.__s.n.toLocaleString("en-US");
}

function refresh(root) {
  const s = root.__s;
  const range = root.querySelector(".tp-step-range");
  range.max = String(s.n);
  if (!s.dragging) { range.value = String(s.local); label(root, s.local); }
  const q = (name) => root.querySelector(".tp-step-" + name);
  q("first").disabled = s.local <= 0; q("prev").disabled = s.local <= 0;
  q("next").disabled = s.local >= s.n; q("last").disabled = s.local >= s.n;
  const play = q("play");
  play.querySelector(".tp-step-icon").textContent = s.playing ? "||" : "▶";
  play.querySelector(".tp-step-label").textContent = s.playing ? "Pause" : "Play";
  play.setAttribute("aria-pressed", s.playing ? "true" : "false");
  root.dataset.step = String(s.local);
}
"""

# Theme variables keep the buttons readable in light and dark themes.
_CSS = """
.tp-stepper { display: flex; gap: 0.4rem; flex-wrap: wrap; align-items: center; }
.tp-step-speed-box { display: inline-flex; align-items: center; gap: 0.35rem; margin-left: 0.4rem; }
.tp-step-speed-box[hidden], .tp-step-scrub[hidden] { display: none; }
.tp-step-speed { min-height: 2.5rem; border-radius: 0.5rem; padding: 0 0.5rem; font: inherit;
  border: 1px solid var(--st-border-color, rgba(128,128,128,.4));
  background: var(--st-secondary-background-color, #f0f2f6); color: var(--st-text-color, inherit); }
.tp-step-scrub { flex-basis: 100%; display: flex; align-items: center; gap: 0.75rem; margin-top: 0.3rem; }
.tp-step-range { flex: 1; accent-color: var(--st-primary-color, #ff4b4b); min-height: 1.5rem; }
.tp-step-where { font-variant-numeric: tabular-nums; white-space: nowrap; opacity: 0.8; min-width: 9em; }
.tp-step-icon { font-weight: 700; }
.tp-step-btn {
  display: inline-flex; align-items: center; gap: 0.35rem; min-height: 2.5rem; padding: 0.25rem 0.8rem;
  border-radius: 0.5rem; border: 1px solid var(--st-border-color, rgba(128,128,128,.4));
  background: var(--st-secondary-background-color, #f0f2f6); color: var(--st-text-color, inherit);
  font: inherit; cursor: pointer; white-space: nowrap;
}
.tp-step-btn:hover:not(:disabled) { border-color: var(--st-primary-color, #ff4b4b); }
.tp-step-btn:focus-visible { outline: 2px solid var(--st-primary-color, #ff4b4b); outline-offset: 1px; }
.tp-step-btn:disabled { opacity: 0.45; cursor: default; }
.tp-step-next { background: var(--st-primary-color, #ff4b4b); color: #fff; border-color: transparent; }
"""

#: The buttons (action, icon, label, keys), in order.
_BUTTONS = (("first", "«", "First", "Home"), ("prev", "‹", "Previous", "← or P"), ("next", "›", "Next", "→ or N"),
            ("last", "»", "Last", "End"), ("play", "▶", "Play", "Space or K"))
# Until the script above has run, a click is queued on the toolbar (and replayed by the script), so
# no click is lost in the moment between the buttons' appearance and the script's.
_QUEUE = "var r=this.parentNode;if(!r.__s){(r.__early=r.__early||[]).push(this.dataset.action)}"
#: The controls' markup: static (the same for every step), so the browser never replaces it.
#: The scrubber (a range over every step) and the play speed box are hidden until the script shows
#: the ones the page asked for.
_HTML = ('<div class="tp-stepper" role="toolbar" aria-label="Step controls">' + "".join(
    f'<button type="button" class="tp-step-btn tp-step-{name}" data-action="{name}" title="{label} ({keys})" '
    f'onclick="{_QUEUE}"><span class="tp-step-icon">{icon}</span><span class="tp-step-label">{label}</span></button>'
    for name, icon, label, keys in _BUTTONS)
    + '<label class="tp-step-speed-box" hidden><span>Speed</span>'
      '<select class="tp-step-speed" aria-label="Play speed"></select></label>'
    + '<div class="tp-step-scrub" hidden><input type="range" class="tp-step-range" min="0" max="0" value="0" '
      'step="1" aria-label="Step"><span class="tp-step-where"></span></div>'
    + "</div>")

#: The keys the controls take (outside text fields), and the action of each. ui/early_keys.py
#: keeps the same keys pressed before the controls' script has loaded.
STEP_KEYS = {"ArrowRight": "next", "n": "next", "N": "next", "ArrowLeft": "prev", "p": "prev", "P": "prev",
             "Home": "first", "End": "last", " ": "play", "k": "play", "K": "play"}

_COMPONENT: Any = None


def _component() -> Any:
    global _COMPONENT
    if _COMPONENT is None:  # registered once per process: Streamlit warns about re-registration
        _COMPONENT = st.components.v2.component("tp_stepper", html=_HTML, js=_JS.replace("__HTML__", json.dumps(_HTML)).replace("__KEYS__", json.dumps(STEP_KEYS)),
                                                css=_CSS, isolate_styles=False)
    return _COMPONENT


def clamp_step(step: int, *, num_steps: int) -> int:
    """``step`` kept within ``0..num_steps``."""
    return min(max(int(step), 0), num_steps)


@dataclass(frozen=True)
class StepperState:
    """Session-state keys the stepper reads and writes (the page owns them)."""

    step: str  # the current step (an int)
    playing: str  # whether play is on (a bool)
    widget: str  # the component's own key
    speed: str = ""  # where a play speed chosen in the speed box goes (seconds per step)

    @property
    def seq(self) -> str:
        return f"{self.widget}_seq"

    @property
    def run(self) -> str:
        return f"{self.widget}_run"

    @property
    def num_steps(self) -> str:
        return f"{self.widget}_num_steps"

    @property
    def moved(self) -> str:
        return f"{self.widget}_moved"  # (step before the last command, time.monotonic() of it)


#: How long after a button or key moved the step a widget still showing the old step is believed
#: to be an echo: the browser sends every widget's value with each rerun, and one that has not yet
#: drawn the new step sends the old one back, as if the user had moved the slider there.
ECHO_WINDOW_S = 2.0


def is_stale_echo(keys: StepperState, value: int) -> bool:
    """Whether a slider or jump-box change to ``value`` is the old step echoed back, not a move.

    >>> import time
    >>> keys = StepperState(step="s", playing="p", widget="w")
    >>> st.session_state.update({"s": 7, "w_moved": (6, time.monotonic())})  # Next: 6 -> 7
    >>> is_stale_echo(keys, 6), is_stale_echo(keys, 5)
    (True, False)
    """
    ss = st.session_state
    before, at = ss.get(keys.moved, (None, 0.0))
    return (value == before and value != ss.get(keys.step)
            and time.monotonic() - at < ECHO_WINDOW_S)


def apply_command(keys: StepperState, command: Optional[Mapping[str, Any]]) -> bool:
    """Apply a command sent by the browser; returns whether it changed anything.

    Commands carry a sequence number (old or repeated ones are ignored) and the id of the run
    they were made for (commands for a run no longer on show are ignored).
    """
    ss = st.session_state
    if not isinstance(command, Mapping):
        return False
    seq, run, target = command.get("seq"), command.get("run"), command.get("target")
    if not isinstance(seq, int) or not isinstance(target, int) or seq <= ss.get(keys.seq, 0):
        return False
    ss[keys.seq] = seq
    if run != ss.get(keys.run):
        return False
    before = ss.get(keys.step, 0)
    ss[keys.step] = clamp_step(target, num_steps=ss.get(keys.num_steps, 0))
    ss[keys.playing] = bool(command.get("playing", False))
    if ss[keys.step] != before:
        ss[keys.moved] = (before, time.monotonic())
    return True


def _state_field(keys: StepperState, name: str) -> Any:
    """One field of the component's state as the browser last sent it (None before it sent any)."""
    value = st.session_state.get(keys.widget)
    if isinstance(value, Mapping):
        return value.get(name)
    return getattr(value, name, None)


def _read_command(keys: StepperState) -> Optional[Mapping[str, Any]]:
    return _state_field(keys, "command")


def _read_speed(keys: StepperState) -> Optional[float]:
    speed = _state_field(keys, "speed")
    return float(speed) if isinstance(speed, (int, float)) and not isinstance(speed, bool) else None


def apply_speed(keys: StepperState, speeds: Sequence[float], value: Optional[float]) -> bool:
    """Keep a speed the browser's speed box sent, if it is one of ``speeds``; returns whether it did.

    >>> keys = StepperState(step="s", playing="p", widget="w", speed="seconds")
    >>> apply_speed(keys, (0.5, 1.0), 1.0), st.session_state["seconds"], apply_speed(keys, (0.5, 1.0), 9.0)
    (True, 1.0, False)
    """
    if not keys.speed or value is None or value not in speeds:
        return False
    st.session_state[keys.speed] = value
    return True


def render_stepper_controls(keys: StepperState, *, num_steps: int, run_id: str, interval: float,
                            report_mounted: bool = False, scrubber: bool = False,
                            speeds: Sequence[float] = ()) -> None:
    """Draw the controls for steps ``0..num_steps`` of the run ``run_id`` (play: ``interval`` s per step).

    ``report_mounted``: once the browser has drawn the controls and started their script, it says so
    (the component's ``mounted`` state), which reruns the page's fragment: a page that drew only its
    skeleton (see :func:`ui.merges.state.skeleton_first`) then draws the rest.

    ``scrubber``: a range over every step under the buttons, drawn and moved in the browser (a
    Streamlit slider beside the component cost the browser ~40 ms of every step, and its value
    came back as an echo after each button press). ``speeds``: a play-speed box with these seconds
    per step; a choice lands in ``session_state[keys.speed]``."""
    ss = st.session_state
    if ss.get(keys.run) != run_id:
        ss[keys.run] = run_id
    ss[keys.num_steps] = num_steps
    step = clamp_step(ss.get(keys.step, 0), num_steps=num_steps)
    _component()(
        key=keys.widget,
        data={"step": step, "n": num_steps, "seq": ss.get(keys.seq, 0), "run": run_id,
              "playing": bool(ss.get(keys.playing, False)), "interval": interval, "report": report_mounted,
              "scrubber": scrubber, "speeds": list(speeds)},
        default={"command": None, "speed": None},
        on_command_change=lambda: apply_command(keys, _read_command(keys)),
        on_speed_change=lambda: apply_speed(keys, speeds, _read_speed(keys)),
        width="stretch",
    )
