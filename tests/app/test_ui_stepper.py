"""The step controls' command handling: every click counts once, stale and foreign commands don't."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from ui.widgets import stepper

KEYS = stepper.StepperState(step="t_step", playing="t_playing", widget="t_stepper")


@pytest.fixture
def session(monkeypatch):
    state: dict = {KEYS.run: "run-a", KEYS.num_steps: 10, KEYS.step: 0, KEYS.playing: False}
    monkeypatch.setattr(stepper, "st", SimpleNamespace(session_state=state))
    return state


def cmd(seq, target, *, run="run-a", playing=False):
    return {"seq": seq, "run": run, "target": target, "playing": playing}


def test_commands_folded_together_still_move_every_click(session):
    # Five quick clicks on Next send targets 1..5; Streamlit may deliver only the last one.
    assert stepper.apply_command(KEYS, cmd(5, 5))
    assert session[KEYS.step] == 5 and session[KEYS.seq] == 5


def test_old_or_repeated_commands_are_ignored(session):
    assert stepper.apply_command(KEYS, cmd(2, 2))
    assert not stepper.apply_command(KEYS, cmd(2, 2))  # the same command again (a rerun)
    assert not stepper.apply_command(KEYS, cmd(1, 1))  # an older one arriving late
    assert session[KEYS.step] == 2


def test_commands_for_another_run_are_ignored(session):
    assert not stepper.apply_command(KEYS, cmd(3, 7, run="run-b"))
    assert session[KEYS.step] == 0
    assert session[KEYS.seq] == 3  # but counted, so the browser catches up


def test_targets_are_clamped_and_play_follows_the_command(session):
    assert stepper.apply_command(KEYS, cmd(1, 99, playing=True))
    assert session[KEYS.step] == 10 and session[KEYS.playing] is True
    assert stepper.apply_command(KEYS, cmd(2, -4))
    assert session[KEYS.step] == 0 and session[KEYS.playing] is False


@pytest.mark.parametrize("bad", [None, "next", {"seq": "1", "target": 2}, {"seq": 1, "target": None}, {}])
def test_malformed_commands_change_nothing(session, bad):
    assert not stepper.apply_command(KEYS, bad)
    assert session[KEYS.step] == 0


def test_the_old_step_echoed_back_just_after_a_command_is_not_a_move(session, monkeypatch):
    clock = [100.0]
    monkeypatch.setattr(stepper.time, "monotonic", lambda: clock[0])
    assert stepper.apply_command(KEYS, cmd(1, 10))  # Last: 0 -> 10
    assert stepper.is_stale_echo(KEYS, 0)  # a slider still drawn at 0 sends 0 back
    assert not stepper.is_stale_echo(KEYS, 4)  # a real move elsewhere
    assert not stepper.is_stale_echo(KEYS, 10)
    clock[0] += stepper.ECHO_WINDOW_S + 0.1
    assert not stepper.is_stale_echo(KEYS, 0)  # later, going back to 0 is the user's wish


def test_merges_jump_box_ignores_the_echo_but_follows_a_move(monkeypatch):
    from ui.merges import state as ms

    session_state = {ms.STEP: 0, ms.PLAYING: False, ms.STEPPER.run: "r", ms.STEPPER.num_steps: 50}
    fake = SimpleNamespace(session_state=session_state)
    monkeypatch.setattr(stepper, "st", fake)
    monkeypatch.setattr(ms, "st", fake)
    assert stepper.apply_command(ms.STEPPER, cmd(1, 50, run="r", playing=True))  # Last, playing
    session_state[ms.JUMP] = 0  # the stale jump-box value arrives with the next rerun
    ms.from_widget(ms.JUMP, 50)
    assert session_state[ms.STEP] == 50 and session_state[ms.PLAYING]
    session_state[ms.JUMP] = 17  # a number typed in the jump box is obeyed (and stops play)
    ms.from_widget(ms.JUMP, 50)
    assert session_state[ms.STEP] == 17 and not session_state[ms.PLAYING]


def test_a_speed_from_the_speed_box_is_kept_only_if_offered(monkeypatch):
    from ui.merges import state as ms

    session_state = {ms.STEPPER.widget: {"command": None, "speed": 2.0}}
    fake = SimpleNamespace(session_state=session_state)
    monkeypatch.setattr(stepper, "st", fake)
    monkeypatch.setattr(ms, "st", fake)
    assert stepper.apply_speed(ms.STEPPER, ms.SPEEDS, stepper._read_speed(ms.STEPPER))
    assert ms.speed() == 2.0
    session_state[ms.STEPPER.widget] = {"command": None, "speed": 0.001}  # not offered: a forged state
    assert not stepper.apply_speed(ms.STEPPER, ms.SPEEDS, stepper._read_speed(ms.STEPPER))
    session_state[ms.STEPPER.widget] = {"command": None, "speed": True}  # not a number
    assert stepper._read_speed(ms.STEPPER) is None
    assert ms.speed() == 2.0
    lessons = stepper.StepperState(step="s", playing="p", widget="w")  # a page with no speed box
    assert not stepper.apply_speed(lessons, ms.SPEEDS, 1.0)
