"""Run the command line in-process and capture what it prints (shared by the CLI tests)."""

from __future__ import annotations

import io

from tokenizer_core.cli import main


def run(argv: list[str], stdin: str = "") -> tuple[int, str]:
    """Exit code and standard output of ``python -m tokenizer_core ARGV`` fed ``stdin``."""
    out = io.StringIO()
    code = main(argv, stdout=out, stdin=io.StringIO(stdin))
    return code, out.getvalue()
