"""Speed on every core (issue 29): BPE training against nanochat's ``rustbpe`` and ``tokenizers``,
encoding against ``tokenizers``, ``tiktoken`` and ``tokie``, all in one run on this machine.

Run from the repository root (offline; the corpora are built reproducibly on first use)::

    python -m bench.bench_cores                  # training at 10 and 50 MB, encoding 10 MB
    python -m bench.bench_cores --sizes 10       # training at 10 MB only
    python -m bench.bench_cores --record         # and keep the tables for the manual (docs/bench/cores*.json)

* **Training**, byte-level BPE (GPT-2 split), vocab 8,192: each trainer in a process of its own
  (start, imports, reading, training, saving), best of two; peak memory is each process's own
  ``VmHWM``. ``rustbpe`` (``train_from_iterator`` over the file's lines, the GPT-2 pattern, every
  core), ``tokenizers`` (``BpeTrainer``, every core) and our command line (counting on every core).
  The merges are compared: ours against ``tokenizers``' all of them, ours against ``rustbpe``'s as
  merged byte strings over the merges both learn (``rustbpe`` has no special tokens).
* **Encoding** GPT-2 on the 10 MB corpus split into lines, every core: ``tokenizers``
  ``encode_batch``, ``tiktoken`` ``encode_ordinary_batch``, ``tokie`` ``encode_batch`` (from the
  same ``tokenizer.json``), and ours, ``Tokenizer.encode_batch`` (tokens, offsets, word ids,
  masks) on ``threads`` threads; ids checked identical to ``tiktoken``'s.

Ratios are ours / theirs (below 1: ours is faster or smaller). The core count is printed with the tables.
A reference that is not installed (``pip install -r bench/requirements.txt``) is named in the output and
left out of the tables. With ``--record`` the training table (the BPE page's training as its caption) goes
to ``docs/bench/cores.json`` and the encoding table to ``docs/bench/cores-encoding.json``.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.bench_bpe import HF_TRAIN, OURS_CLI, _reference_encoders, run_process  # noqa: E402
from bench.bench_bpe import timed as bench_timed  # noqa: E402
from bench.corpus import bench_corpus_path  # noqa: E402
from bench.results import record  # noqa: E402

GPT2 = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""

RUSTBPE_TRAIN = """
import json, sys, rustbpe
path, vocab, out, pattern = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
def lines():
    with open(path, encoding="utf-8") as f:
        yield from f
tok = rustbpe.Tokenizer()
tok.train_from_iterator(lines(), vocab, pattern=pattern)
ranks = sorted(tok.get_mergeable_ranks(), key=lambda kv: kv[1])
with open(out, "w") as f:
    json.dump([b.hex() for b, r in ranks if r >= 256], f)
"""


def _merged_bytes_ours(path: Path) -> list[bytes]:
    """Our saved merges as the byte strings they make, in order."""
    from tokenizer_core.text.pre_tokenizers import unicode_to_bytes

    table = unicode_to_bytes()
    merges = json.loads(path.read_text(encoding="utf-8"))["model"]["merges"]
    pairs = [m if isinstance(m, list) else m.split(" ") for m in merges]
    return [bytes(table[c] for c in left + right) for left, right in pairs]


def _best(code: str, args: list[str], repeat: int = 2) -> tuple[float, float]:
    runs = [run_process(code, args) for _ in range(repeat)]
    return min(r[0] for r in runs), min(r[1] for r in runs)


def installed(module: str) -> bool:
    """Whether a reference library can be imported; says so once where it cannot (its figures are left out)."""
    if importlib.util.find_spec(module) is not None:
        return True
    print(f"\n({module} is not installed, pip install -r bench/requirements.txt: its figures are left out)", flush=True)
    return False


def _first_difference(a: list[bytes], b: list[bytes]) -> int | None:
    """Index of the first merge where two orders part, over the merges both learned; None if none does."""
    return next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), None)


def training_columns(*, rustbpe: bool) -> list[str]:
    """The manual's training table (``--record``): whole processes, ours / theirs in the same run."""
    refs = ["`rustbpe`", "`tokenizers`"] if rustbpe else ["`tokenizers`"]
    return (["corpus", "ours"] + refs + [f"ours / {r}: time, memory" for r in refs] + ["merges"])


def training(sizes: list[int], vocab: int, workdir: Path,
             table: list[list[str]] | None = None) -> list[tuple[str, float, float]]:
    """Print the training table; return (label, time ratio, memory ratio) rows against ``rustbpe`` (or
    ``tokenizers`` where it is not installed); ``table`` (when given) gets the manual's rows."""
    from bench.bench_bpe import _same_merges

    with_rust = installed("rustbpe")
    print(f"\n== BPE training, byte-level (GPT-2 split), vocab {vocab:,}: whole processes; {os.cpu_count()} cores ==")
    rows = []
    for mb in sizes:
        path = bench_corpus_path(mb)
        ours_json, hf_json, rust_json = workdir / "ours.json", workdir / "hf.json", workdir / "rust.json"
        ours = _best(OURS_CLI, ["train", str(path), "--model", "bpe", "--vocab-size", str(vocab), "--byte-level",
                                "-o", str(ours_json), "-q"])
        hf = _best(HF_TRAIN, [str(path), str(vocab), "1", str(hf_json)])
        refs = {"tokenizers": hf}
        # plain text, no Markdown: the manual's test finds each row's last cell as the page shows it
        merges = f"tokenizers' {'identical' if _same_merges(ours_json, hf_json) else 'DIFFER'}"
        if with_rust:
            refs = {"rustbpe": _best(RUSTBPE_TRAIN, [str(path), str(vocab), str(rust_json), GPT2]), **refs}
            ours_merged = _merged_bytes_ours(ours_json)
            rust_merged = [bytes.fromhex(h) for h in json.loads(rust_json.read_text())]
            common = min(len(ours_merged), len(rust_merged))
            first = _first_difference(ours_merged, rust_merged)
            merges += (f"; rustbpe's identical over {common:,}" if first is None else
                       f"; rustbpe's part at merge {first + 1:,} of {common:,} (ties ordered otherwise)")
        cells = [f"{t:.2f} s, {m:.0f} MB" for t, m in (ours, *refs.values())]
        ratios = [f"{ours[0] / t:.2f}x, {ours[1] / m:.2f}x" for t, m in refs.values()]
        print(f"{mb:>5} MB | ours {cells[0]} | " + " | ".join(f"{n} {c}" for n, c in zip(refs, cells[1:])) + " | "
              + " | ".join(f"vs {n}: {r}" for n, r in zip(refs, ratios)) + f" | {merges}", flush=True)
        if table is not None:
            table.append([f"{mb} MB", *cells, *ratios, merges])
        name, (t, m) = next(iter(refs.items()))
        rows.append((f"BPE training {mb} MB vs {name}", ours[0] / t, ours[1] / m))
    return rows


def page_training(mb: int, merges: int) -> str:
    """The BPE page's training (runner-ups recorded, top_k=10) against the command line's (none),
    in this process, on the same lines: the page trains in the kernel too. Returns the manual's sentence."""
    from tokenizer_core.bpe.trainer import train_bpe
    from tokenizer_core.corpus.streaming import stream_lines
    from tokenizer_core.options import TrainOptions

    path = bench_corpus_path(mb)
    times = {}
    for top_k in (10, 0):
        start = time.perf_counter()
        result = train_bpe(stream_lines(path), options=TrainOptions(num_merges=merges, byte_level=True, top_k=top_k))[1]
        times[top_k] = (time.perf_counter() - start, result.merges)
    same = times[10][1] == times[0][1]
    print(f"\n== The BPE page's training, {merges:,} merges on {mb} MB: with runner-ups {times[10][0]:.2f} s, "
          f"without {times[0][0]:.2f} s = {times[10][0] / times[0][0]:.2f}x; same merges {'yes' if same else 'NO'} ==",
          flush=True)
    return (f"The BPE page's training (ten runner-ups recorded a step) of {merges:,} merges on {mb} MB, in one "
            f"process: {times[10][0]:.2f} s against {times[0][0]:.2f} s without them "
            f"({times[10][0] / times[0][0]:.2f}x), {'the same' if same else 'DIFFERENT'} merges.")


def encoding(mb: int, threads: int, workdir: Path, table: dict | None = None) -> list[tuple[str, float]]:
    """Print the encoding table; return (label, ours / it) per reference; ``table`` (when given) gets the
    manual's ``columns`` and ``rows``."""
    from tokenizer_core.io.references import load_reference

    path = bench_corpus_path(mb)
    text = path.read_text(encoding="utf-8")
    size = len(text.encode("utf-8"))
    lines = text.split("\n")
    tt, hf = _reference_encoders("gpt2")
    tok = load_reference("gpt2")

    def timed(fn, repeat: int = 3):
        return bench_timed(fn, repeat)

    reference = tt.encode_ordinary_batch(lines, num_threads=threads)
    rows = []
    secs, out = timed(lambda: tt.encode_ordinary_batch(lines, num_threads=threads))
    rows.append(("tiktoken encode_ordinary_batch (ids)", secs, out == reference))
    secs, out = timed(lambda: hf.encode_batch(lines, add_special_tokens=False))
    rows.append(("tokenizers encode_batch (Encodings)", secs, [e.ids for e in out] == reference))
    if installed("tokie"):
        import tokie

        json_path = workdir / "gpt2.json"
        tok.save_hf(json_path)
        tk = tokie.Tokenizer.from_json(str(json_path))
        secs, out = timed(lambda: tk.encode_batch(lines))
        rows.append(("tokie encode_batch (Encodings)", secs, [list(e.ids) for e in out] == reference))
    refs = len(rows)
    for n in sorted({1, threads}):
        secs, out = timed(lambda n=n: tok.encode_batch(lines, threads=n))
        rows.append((f"ours Tokenizer.encode_batch, {n} thread{'s' if n > 1 else ''} (full Encodings)", secs,
                     [e.ids for e in out.encodings] == reference))
    best_ref = min(s for name, s, _ in rows[:refs])
    print(f"\n== Encoding GPT-2, {mb} MB in {len(lines):,} lines, {threads} threads; {os.cpu_count()} cores ==")
    for name, secs, same in rows:
        print(f"{name:<62} {secs:7.3f} s {size / secs / 1e6:7.1f} MB/s  {secs / best_ref:5.2f}x the fastest "
              f"reference  ids {'identical' if same else 'DIFFER'}", flush=True)
    ours = min(s for name, s, _ in rows[refs:])
    if table is not None:
        table["columns"] = [f"GPT-2 over {mb} MB in {len(lines):,} lines", "time", "MB/s",
                            "ours (fastest) / it", "ids against `tiktoken`'s"]
        table["rows"] = [[name, f"{secs:.3f} s", f"{size / secs / 1e6:.1f}", f"{ours / secs:.2f}x" if k < refs else "-",
                          "identical" if same else "DIFFER"] for k, (name, secs, same) in enumerate(rows)]
    return [(f"GPT-2 encode_batch vs {name.split()[0]}", ours / s) for name, s, _ in rows[:refs]]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="10,50", help="training corpora in MB (default 10,50)")
    parser.add_argument("--vocab", type=int, default=8192)
    parser.add_argument("--encode-mb", type=int, default=10)
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1, help="encoding threads (default: all)")
    parser.add_argument("--skip-training", action="store_true")
    parser.add_argument("--record", action="store_true",
                        help="keep the tables for the manual (docs/bench/cores.json, cores-encoding.json)")
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",") if s]
    train_rows: list[list[str]] = []
    enc_table: dict = {}
    caption = ""
    with tempfile.TemporaryDirectory() as tmp:
        if not args.skip_training:
            training(sizes, args.vocab, Path(tmp), train_rows)
            caption = page_training(max(sizes), 2000)
        encoding(args.encode_mb, args.threads, Path(tmp), enc_table)
    if args.record:
        note = f"bench_cores --sizes {args.sizes} --vocab {args.vocab} --encode-mb {args.encode_mb} --threads {args.threads}"
        if train_rows:
            columns = training_columns(rustbpe=importlib.util.find_spec("rustbpe") is not None)
            print("recorded in", record("cores", {"columns": columns, "rows": train_rows, "caption": caption},
                                        note=note))
        print("recorded in", record("cores-encoding", enc_table, note=note))
    return 0


if __name__ == "__main__":
    sys.exit(main())
