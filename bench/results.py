"""A bench run's figures kept for the manual: ``docs/bench/<name>.json``, written by a bench run with
``--record`` and drawn as tables by the docs' build (``docs/hooks.py``). The manual shows the last
recorded run, never a hand-kept figure.

>>> import tempfile; folder = Path(tempfile.mkdtemp())
>>> path = record("demo", {"rows": [1]}, folder=folder, note="--mb 1")
>>> load("demo", folder=folder)["rows"], load("demo", folder=folder)["note"]
([1], '--mb 1')
"""

from __future__ import annotations

import datetime
import json
import os
import platform
from pathlib import Path
from typing import Any

FOLDER = Path(__file__).resolve().parents[1] / "docs" / "bench"


def record(name: str, figures: dict[str, Any], *, note: str, folder: Path = FOLDER) -> Path:
    """Write ``figures`` with the date, the machine and ``note`` (how the bench was run)."""
    folder.mkdir(parents=True, exist_ok=True)
    data = {"bench": name, "date": datetime.date.today().isoformat(), "note": note,
            "machine": f"{os.cpu_count()} cores, {platform.machine()}, Python {platform.python_version()}",
            **figures}
    path = folder / f"{name}.json"
    path.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


def load(name: str, *, folder: Path = FOLDER) -> dict[str, Any]:
    """The last recorded run of bench ``name``."""
    return json.loads((folder / f"{name}.json").read_text(encoding="utf-8"))
