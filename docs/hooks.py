"""MkDocs hooks: what the manual shows is generated when the site is built, never kept by hand.

* ``<!-- cli-reference -->``: each subcommand's usage and options as ``python -m tokenizer_core
  SUBCOMMAND --help`` prints them, so the reference cannot drift from the code.
* ``<!-- bench:files -->``: the last recorded run of ``bench_files --record`` (``docs/bench/files.json``,
  :mod:`bench.results`) as a table of ratios.
* ``<!-- bench:NAME -->``: any other bench's last recorded run (``docs/bench/NAME.json``, written with
  ``--record``): its ``columns`` and ``rows`` as a table, under when, where and how it was run, and its
  ``caption`` (figures of the same run that are not a row, optional) as a paragraph below it; a line
  saying so where that run has not been recorded yet.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any

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


def _ratio(value: float) -> str:
    return f"{value:.2f}x" if value < 2 else f"{value:.1f}x"


def _cells(engine: dict[str, Any], ops: tuple[str, ...]) -> str:
    if "error" in engine:
        return "cannot load: " + engine["error"].split(":")[0]
    same = "" if engine.get("same_ids") else " (ids differ)"
    return " · ".join(_ratio(engine[op]) for op in ops) + same


def files_table() -> str:
    """The tokenizer files' table: ours / theirs per engine and operation (below 1: ours is faster)."""
    data = json.loads((ROOT / "docs" / "bench" / "files.json").read_text(encoding="utf-8"))
    engines = [e for e in ("tokenizers", "fastokens", "gigatoken") if any(e in f["engines"] for f in data["files"])]
    ops = {"tokenizers": ("load", "batch", "whole")}
    head = ["file", "our fast path"] + [f"vs `{e}`: " + " · ".join(ops.get(e, ("batch", "whole"))) for e in engines]
    rows = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for f in data["files"]:
        cells = [f["file"], f["path"].removeprefix("Fast path: ").rstrip(".") or "-"]
        cells += [_cells(f["engines"][e], ops.get(e, ("batch", "whole"))) if e in f["engines"] else "-" for e in engines]
        rows.append("| " + " | ".join(cells) + " |")
    return (f"Recorded {data['date']} on {data['machine']} ({data['note']}); ours / theirs, below 1 ours is "
            "faster, in the same run.\n\n" + "\n".join(rows))


def recorded_table(name: str, *, folder: Path = ROOT / "docs" / "bench") -> str:
    """A recorded bench run's ``columns`` and ``rows`` as a Markdown table, its ``caption`` (if any) below.

    >>> import tempfile; from bench.results import record
    >>> folder = Path(tempfile.mkdtemp()); _ = record("t", {"columns": ["a", "b"], "rows": [[1, "x|y"]]},
    ...                                                  note="--demo", folder=folder)
    >>> print(recorded_table("t", folder=folder).splitlines()[-1])
    | 1 | x\\|y |
    >>> _ = record("c", {"columns": ["a"], "rows": [[2]], "caption": "Also: 3 MB."}, note="--demo", folder=folder)
    >>> print(recorded_table("c", folder=folder).splitlines()[-3:])
    ['| 2 |', '', 'Also: 3 MB.']
    >>> recorded_table("never", folder=folder)
    '*Not recorded yet: `docs/bench/never.json` is written by its bench run with `--record`.*'
    """
    path = folder / f"{name}.json"
    if not path.is_file():  # a bench whose first record is still to be made (tests/project/test_docs.py lists them)
        return f"*Not recorded yet: `docs/bench/{name}.json` is written by its bench run with `--record`.*"
    data = json.loads(path.read_text(encoding="utf-8"))

    def cell(value: Any) -> str:
        return (f"{value:,}" if isinstance(value, int) else str(value)).replace("|", "\\|")

    rows = ["| " + " | ".join(map(cell, data["columns"])) + " |", "|" + "---|" * len(data["columns"])]
    rows += ["| " + " | ".join(map(cell, row)) + " |" for row in data["rows"]]
    caption = f"\n\n{data['caption']}" if data.get("caption") else ""
    return f"Recorded {data['date']} on {data['machine']} (`{data['note']}`).\n\n" + "\n".join(rows) + caption


GENERATED = {MARKER: cli_reference, "<!-- bench:files -->": files_table}
_RECORDED = re.compile(r"<!-- bench:([a-z0-9_-]+) -->")


def on_page_markdown(markdown: str, page, config, files) -> str:  # noqa: ANN001 (MkDocs' objects)
    for marker, make in GENERATED.items():
        if marker in markdown:
            markdown = markdown.replace(marker, make())
    return _RECORDED.sub(lambda m: recorded_table(m.group(1)), markdown)
