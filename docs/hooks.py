"""MkDocs hooks: the command line's reference, generated from its parser when the site is built.

A page holding the line ``<!-- cli-reference -->`` gets, in its place, each subcommand's usage and
options as ``python -m tokenizer_core SUBCOMMAND --help`` prints them, so the reference cannot
drift from the code.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

MARKER = "<!-- cli-reference -->"
ROOT = Path(__file__).resolve().parents[1]


def cli_reference() -> str:
    """Markdown: one section per subcommand, its help text in a code block."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from tokenizer_core.cli import build_parser

    parser = build_parser()
    subparsers = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    parts = ["## Reference", "", "Generated from the parser when this site is built.", "",
             "```text", parser.format_help().rstrip(), "```", ""]
    for name, sub in subparsers.choices.items():
        parts += [f"### `{name}`", "", "```text", sub.format_help().rstrip(), "```", ""]
    return "\n".join(parts)


def on_page_markdown(markdown: str, page, config, files) -> str:  # noqa: ANN001 (MkDocs' objects)
    return markdown.replace(MARKER, cli_reference()) if MARKER in markdown else markdown
