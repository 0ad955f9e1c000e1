"""The Cancel button's callback: a note for the next run's toast, and the page's own follow-up."""

from __future__ import annotations

from types import SimpleNamespace

from ui.merges import state as ms
from ui.widgets import cancel


def test_a_cancelled_bpe_training_leaves_a_note_and_reopens_the_settings(monkeypatch):
    session: dict = {ms.SETTINGS_OPEN: False}  # Train folded the settings away
    fake = SimpleNamespace(session_state=session)
    monkeypatch.setattr(cancel, "st", fake)
    monkeypatch.setattr(ms, "st", fake)
    cancel._leave_note("Training", ms.open_settings)
    assert session[ms.SETTINGS_OPEN] is True
    assert cancel.pop_note() == "Training cancelled."
    assert cancel.pop_note() is None  # shown once
