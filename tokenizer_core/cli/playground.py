"""``tokenizer-playground``: start the app (``streamlit run`` on its router), wherever it is installed.

Every option other than ``--help`` and ``--version`` goes on to ``streamlit run`` (``--server.port
8502``, ``--server.address 0.0.0.0``, ``--theme.base dark`` ...). The app's settings
(``.streamlit/config.toml``) are passed as options too, first, so that they hold whatever the working
folder is and the user's own options still win (Streamlit takes the last value of an option).

The app's scripts are found beside the packages: in an installed wheel under ``ui/_app/`` (setup.py
copies them there), in a source checkout at its root. This module only computes paths and starts
Streamlit in a process of its own: ``tokenizer_core`` never imports ``streamlit`` or ``ui``.

>>> "--server.maxUploadSize=200" in settings_options(app_script().parent / ".streamlit" / "config.toml")
True
"""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Optional, TextIO

from tokenizer_core import __version__

PROG = "tokenizer-playground"
USAGE = f"""usage: {PROG} [--help] [--version] [STREAMLIT_OPTIONS ...]

Start Tokenizer Playground in Streamlit (http://localhost:8501 by default).

Every option is passed on to `streamlit run` (see `streamlit run --help`), e.g.
  {PROG} --server.port 8502 --server.address 0.0.0.0 --server.headless true

Environment: TOKENIZER_PLAYGROUND_DB (the workspace store: a SQLite path, a
postgresql:// URL, or `off`), TOKENIZER_PLAYGROUND_CACHE (cached files).
The command line without the app: python -m tokenizer_core --help
"""


def app_script() -> Path:
    """The router ``app.py``: the installed copy (``ui/_app``), else the source checkout's.

    >>> app_script().name
    'app.py'
    """
    root = Path(__file__).resolve().parents[2]  # site-packages, or the checkout
    installed = root / "ui" / "_app" / "app.py"
    return installed if installed.is_file() else root / "app.py"


def settings_options(config: Path) -> list[str]:
    """``--section.key=value`` options for every setting of a Streamlit ``config.toml`` (none when absent).

    >>> import tempfile; d = Path(tempfile.mkdtemp()); _ = (d / "c.toml").write_text('[server]\\nport = 1\\n')
    >>> settings_options(d / "c.toml")
    ['--server.port=1']
    """
    try:
        data = tomllib.loads(config.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError):
        return []
    return [f"--{section}.{key}={_option_value(value)}"
            for section, values in data.items() if isinstance(values, dict)
            for key, value in values.items()]


def _option_value(value: Any) -> str:
    if isinstance(value, bool):  # click reads true/false, not Python's True/False
        return "true" if value else "false"
    return str(value)


def streamlit_command(args: Sequence[str], *, script: Optional[Path] = None) -> list[str]:
    """The command that runs the app with ``args`` (the user's options, last so that they win).

    >>> cmd = streamlit_command(["--server.port", "9000"])
    >>> cmd[1:4], cmd[-2:]
    (['-m', 'streamlit', 'run'], ['--server.port', '9000'])
    """
    script = script or app_script()
    options = settings_options(script.parent / ".streamlit" / "config.toml")
    if script.parent.name == "_app":  # an installed copy never changes: no file watcher polling it
        options.append("--server.fileWatcherType=none")
    return [sys.executable, "-m", "streamlit", "run", str(script), *options, *args]


def main(argv: Optional[Sequence[str]] = None, *, stdout: Optional[TextIO] = None) -> int:
    """Entry point of the ``tokenizer-playground`` command; Streamlit's exit code, or 0 for help/version."""
    args = list(sys.argv[1:] if argv is None else argv)
    out = stdout or sys.stdout
    if any(a in ("-h", "--help") for a in args):
        out.write(USAGE)
        return 0
    if "--version" in args or "-V" in args:
        out.write(f"{PROG} {__version__}\n")
        return 0
    script = app_script()
    if not script.is_file():
        print(f"error: the app's scripts are missing ({script}); reinstall tokenizer-playground", file=sys.stderr)
        return 2
    command = streamlit_command(args, script=script)
    if os.name == "posix" and argv is None:
        # The server replaces this process: signals (a container's stop, Ctrl-C) reach it directly.
        os.execv(command[0], command)
    return subprocess.call(command)


if __name__ == "__main__":
    sys.exit(main())
