"""Where things are, for tests in any folder under tests/: the project root and the app's script."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
APP = str(ROOT / "app.py")
