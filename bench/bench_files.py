"""Today's tokenizer files, every engine, same run: load, encode_batch and one whole text, ids checked.

For each tokenizer.json of ``bench/tokenizer_files.py`` (Gemma 3, Gemini, gpt-oss, Qwen 3, Llama 3.1,
DeepSeek V3, Claude, DeepSeek V4) and its mixed text (English, multilingual, Python source, emoji
lines: nothing our fast paths were tuned for), each engine that loads tokenizer.json (ours,
``tokenizers``, ``fastokens``, ``gigatoken``) is timed on:

* **load**: the file to a tokenizer, best of 2 (``gigatoken`` picks its backend from the file);
* **batch**: ``encode_batch`` over the lines, no special tokens added, every core;
* **whole**: the lines joined by newlines as one text.

Ids are checked line by line against ``tokenizers`` (``same``: lines with identical ids; the whole
text too). Ratios are ours / the engine (above 1: ours is slower). Our report of the fast path each
file runs on (``Tokenizer.explain_fast_path``) is printed beside, so a slow file says why.

    python -m bench.bench_files [--mb 2] [--files gpt-oss,qwen3] [--engines ours,tokenizers,fastokens]
    python -m bench.bench_files --one ours --files gpt-oss --op batch   # one engine, one op (whole-process timing)

The references are installed by ``pip install -r bench/requirements.txt``; a missing one is skipped.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Optional

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.bench_bpe import timed  # noqa: E402
from bench.results import record  # noqa: E402
from bench.tokenizer_files import FILES, FetchError, mixed_lines, tokenizer_file  # noqa: E402

ENGINES = ("ours", "tokenizers", "fastokens", "gigatoken")
OPS = ("load", "batch", "whole")


class Engine:
    """One engine on one file: load it, then encode a batch (id lists) and one text (ids)."""

    def __init__(self, name: str, path: Path) -> None:
        self.name, self.path = name, path
        self.tok: Any = None

    def load(self) -> None:
        if self.name == "ours":
            from tokenizer_core.io.importers import import_tokenizer

            self.tok = import_tokenizer("hf", self.path)
        elif self.name == "tokenizers":
            import tokenizers

            self.tok = tokenizers.Tokenizer.from_file(str(self.path))
        elif self.name == "fastokens":
            import fastokens

            self.tok = fastokens.Tokenizer.from_file(str(self.path))
        else:
            import gigatoken

            self.tok = gigatoken.Tokenizer(self.path)

    def batch(self, lines: Sequence[str]) -> list[list[int]]:
        if self.name == "gigatoken":
            return self.tok.encode_batch_list(list(lines))
        if self.name == "ours":
            return self.tok.encode_batch(list(lines), add_special_tokens=False).input_ids
        return [e.ids for e in self.tok.encode_batch(list(lines), add_special_tokens=False)]

    def whole(self, text: str) -> list[int]:
        if self.name == "gigatoken":
            return self.tok.encode(text).tolist()
        return list(self.tok.encode(text, add_special_tokens=False).ids)


def available(names: Sequence[str]) -> list[str]:
    """The engines of ``names`` that import here."""
    import importlib.util

    return [n for n in names if n == "ours" or importlib.util.find_spec(n) is not None]


def measure(file: str, engines: Sequence[str], lines: Sequence[str], *, repeat: int = 2) -> dict[str, Any]:
    """Every engine's times and ids checks on one file (see the module's docstring)."""
    path = tokenizer_file(file)
    text = "\n".join(lines)
    rows: dict[str, Any] = {}
    reference: Optional[tuple[list[list[int]], list[int]]] = None
    for name in engines:
        engine = Engine(name, path)
        try:
            load, _ = timed(engine.load, 2)
            batch, ids = timed(lambda e=engine: e.batch(lines), repeat)
            whole, one = timed(lambda e=engine: e.whole(text), repeat)
        except Exception as err:  # an engine that cannot run this file: said in its row
            rows[name] = {"error": f"{type(err).__name__}: {str(err).splitlines()[0][:120] if str(err) else ''}"}
            continue
        ids = [list(map(int, row)) for row in ids]
        if name == "tokenizers":
            reference = (ids, list(map(int, one)))
        rows[name] = {"load": load, "batch": batch, "whole": whole, "ids": ids, "one": list(map(int, one))}
        if name == "ours":
            rows[name]["path"] = " ".join(engine.tok.explain_fast_path().sentences()[:1])
    if reference is not None:
        for row in rows.values():
            if "ids" in row:
                row["same"] = sum(a == b for a, b in zip(row["ids"], reference[0]))
                row["same_whole"] = row["one"] == reference[1]
    return rows


def _fmt(seconds: float) -> str:
    return f"{seconds:8.3f}"


def report(file: str, rows: dict[str, Any], n_lines: int) -> list[str]:
    out = [f"\n{file}: {n_lines:,} lines"]
    ours = rows.get("ours", {})
    if "path" in ours:
        out.append(f"  ours: {ours['path']}")
    out.append(f"  {'engine':<11} {'load s':>8} {'batch s':>8} {'whole s':>8}  same lines / whole   ours / it: load batch whole")
    for name, row in rows.items():
        if "error" in row:
            out.append(f"  {name:<11} {row['error']}")
            continue
        same = f"{row.get('same', '?'):>6} / {'yes' if row.get('same_whole') else 'NO'}" if "same" in row else "  (no tokenizers)"
        ratios = ""
        if name != "ours" and "load" in ours:
            ratios = "   ".join(f"{ours[op] / row[op]:6.2f}x" for op in OPS)
        out.append(f"  {name:<11} {_fmt(row['load'])} {_fmt(row['batch'])} {_fmt(row['whole'])}  {same:<17} {ratios}")
    return out


def summary(file: str, rows: dict[str, Any]) -> Optional[str]:
    """One line for ``bench_speed``'s summary: ours against ``tokenizers`` and the fastest engine."""
    ours = rows.get("ours", {})
    if "load" not in ours:
        return None
    parts = [f"{file:<12}"]
    hf = rows.get("tokenizers", {})
    if "load" in hf:
        parts.append("vs tokenizers: " + " ".join(f"{op} {ours[op] / hf[op]:5.2f}x" for op in OPS))
    others = {n: r for n, r in rows.items() if n not in ("ours", "tokenizers") and "load" in r}
    if others:
        batch = min(others, key=lambda n: others[n]["batch"])
        whole = min(others, key=lambda n: others[n]["whole"])
        parts.append(f"vs fastest: batch {ours['batch'] / others[batch]['batch']:5.2f}x ({batch}) "
                     f"whole {ours['whole'] / others[whole]['whole']:6.2f}x ({whole})")
    return "   ".join(parts)


def run(mb: float = 1.0, files: Sequence[str] = tuple(FILES)) -> list[str]:
    """Every file's table printed, and the summary lines returned (for ``bench_speed``)."""
    lines = mixed_lines(mb)
    engines = available(ENGINES)
    print(f"\n== today's tokenizer files: {len(lines):,} mixed lines; {', '.join(engines)} ==", flush=True)
    out = []
    for file in files:
        try:
            rows = measure(file, engines, lines)
        except FetchError as err:
            print(f"\n{file}: {err}")
            continue
        print("\n".join(report(file, rows, len(lines))), flush=True)
        line = summary(file, rows)
        if line:
            out.append(line)
    return out


def figures(file: str, rows: dict[str, Any]) -> dict[str, Any]:
    """One file's row of the manual's table: our fast path, and ours / theirs for every engine that
    loaded the file (ids checked against ``tokenizers``), or why it could not."""
    ours = rows.get("ours", {})
    out: dict[str, Any] = {"file": file, "path": ours.get("path", ""), "engines": {}}
    for name, row in rows.items():
        if name == "ours":
            continue
        if "error" in row or "load" not in ours:
            out["engines"][name] = {"error": row.get("error", "ours failed")}
            continue
        out["engines"][name] = {op: ours[op] / row[op] for op in OPS}
        out["engines"][name]["same_ids"] = bool(row.get("same_whole")) and row.get("same") == len(row["ids"])
    return out


def one_op(engine: str, file: str, op: str, lines: Sequence[str]) -> None:
    """Load one file with one engine and run one op once (for whole-process timing from outside)."""
    e = Engine(engine, tokenizer_file(file))
    e.load()
    if op == "batch":
        e.batch(lines)
    elif op == "whole":
        e.whole("\n".join(lines))


def main(argv: Optional[list[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mb", type=float, default=2.0, help="size of the mixed text (MB)")
    ap.add_argument("--files", default=",".join(FILES), help="comma-separated: " + ", ".join(FILES))
    ap.add_argument("--engines", default=",".join(ENGINES))
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--one", choices=ENGINES, help="run only this engine, once (with --op), and print nothing")
    ap.add_argument("--op", choices=OPS, default="batch")
    ap.add_argument("--record", action="store_true", help="keep the ratios for the manual (docs/bench/files.json)")
    args = ap.parse_args(argv)
    files = [f for f in args.files.split(",") if f]
    unknown = [f for f in files if f not in FILES]
    if unknown:
        ap.error(f"unknown files {unknown}; choose from {', '.join(FILES)}")
    lines = mixed_lines(args.mb)
    if args.one:
        for file in files:
            one_op(args.one, file, args.op, lines)
        return 0
    engines = available([e for e in args.engines.split(",") if e])
    print(f"{len(lines):,} lines, {sum(map(len, lines)):,} characters; engines: {', '.join(engines)}; "
          f"{os.cpu_count()} cores")
    kept = []
    for file in files:
        try:
            rows = measure(file, engines, lines, repeat=args.repeat)
        except FetchError as err:
            print(f"\n{file}: {err}")
            continue
        print("\n".join(report(file, rows, len(lines))), flush=True)
        kept.append(figures(file, rows))
    if args.record:
        note = (f"bench_files --mb {args.mb:g} --repeat {args.repeat}: {len(lines):,} lines, "
                f"{sum(map(len, lines)):,} characters")
        print("recorded in", record("files", {"files": kept}, note=note))
    return 0


if __name__ == "__main__":
    sys.exit(main())
