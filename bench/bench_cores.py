"""Speed on every core (issue 29): BPE training against nanochat's ``rustbpe`` and ``tokenizers``,
encoding against ``tokenizers``, ``tiktoken`` and ``tokie``, all in one run on this machine.

Run from the repository root (offline; the corpora are built reproducibly on first use)::

    python -m bench.bench_cores                  # training at 10 and 50 MB, encoding 10 MB
    python -m bench.bench_cores --sizes 10       # training at 10 MB only

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
"""

from __future__ import annotations

import argparse
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


def training(sizes: list[int], vocab: int, workdir: Path) -> list[tuple[str, float, float]]:
    from bench.bench_bpe import _same_merges

    print(f"\n== BPE training, byte-level (GPT-2 split), vocab {vocab:,}: whole processes; {os.cpu_count()} cores ==")
    print(f"{'corpus':>7} | {'ours':>14} | {'rustbpe':>14} | {'tokenizers':>14} | vs rustbpe: time, memory | vs tokenizers: time | same merges")
    rows = []
    for mb in sizes:
        path = bench_corpus_path(mb)
        ours_json, hf_json, rust_json = workdir / "ours.json", workdir / "hf.json", workdir / "rust.json"
        ours = _best(OURS_CLI, ["train", str(path), "--model", "bpe", "--vocab-size", str(vocab), "--byte-level",
                                "-o", str(ours_json), "-q"])
        rust = _best(RUSTBPE_TRAIN, [str(path), str(vocab), str(rust_json), GPT2])
        hf = _best(HF_TRAIN, [str(path), str(vocab), "1", str(hf_json)])
        ours_merged = _merged_bytes_ours(ours_json)
        rust_merged = [bytes.fromhex(h) for h in json.loads(rust_json.read_text())]
        common = min(len(ours_merged), len(rust_merged))
        same_rust = ours_merged[:common] == rust_merged[:common]
        same_hf = _same_merges(ours_json, hf_json)
        print(f"{mb:>5} MB | {ours[0]:6.2f} s {ours[1]:4.0f} MB | {rust[0]:6.2f} s {rust[1]:4.0f} MB | "
              f"{hf[0]:6.2f} s {hf[1]:4.0f} MB | {ours[0] / rust[0]:5.2f}x, {ours[1] / rust[1]:5.2f}x"
              f"{'':>10} | {ours[0] / hf[0]:5.2f}x{'':>13} | tokenizers {'yes' if same_hf else 'NO'}, "
              f"rustbpe {'yes' if same_rust else 'NO'} (first {common:,})", flush=True)
        rows.append((f"BPE training {mb} MB vs rustbpe", ours[0] / rust[0], ours[1] / rust[1]))
    return rows


def page_training(mb: int, merges: int) -> None:
    """The BPE page's training (runner-ups recorded, top_k=10) against the command line's (none),
    in this process, on the same lines: the page trains in the kernel too."""
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


def encoding(mb: int, threads: int, workdir: Path) -> list[tuple[str, float]]:
    import tokie

    from tokenizer_core.io.references import load_reference

    path = bench_corpus_path(mb)
    text = path.read_text(encoding="utf-8")
    size = len(text.encode("utf-8"))
    lines = text.split("\n")
    tt, hf = _reference_encoders("gpt2")
    tok = load_reference("gpt2")
    json_path = workdir / "gpt2.json"
    tok.save_hf(json_path)
    tk = tokie.Tokenizer.from_json(str(json_path))

    def timed(fn, repeat: int = 3):
        return bench_timed(fn, repeat)

    reference = tt.encode_ordinary_batch(lines, num_threads=threads)
    rows = []
    secs, out = timed(lambda: tt.encode_ordinary_batch(lines, num_threads=threads))
    rows.append(("tiktoken encode_ordinary_batch (ids)", secs, out == reference))
    secs, out = timed(lambda: hf.encode_batch(lines, add_special_tokens=False))
    rows.append(("tokenizers encode_batch (Encodings)", secs, [e.ids for e in out] == reference))
    secs, out = timed(lambda: tk.encode_batch(lines))
    rows.append(("tokie encode_batch (Encodings)", secs, [list(e.ids) for e in out] == reference))
    for n in sorted({1, threads}):
        secs, out = timed(lambda n=n: tok.encode_batch(lines, threads=n))
        rows.append((f"ours Tokenizer.encode_batch, {n} thread{'s' if n > 1 else ''} (full Encodings)", secs,
                     [e.ids for e in out.encodings] == reference))
    best_ref = min(s for name, s, _ in rows[:3])
    print(f"\n== Encoding GPT-2, {mb} MB in {len(lines):,} lines, {threads} threads; {os.cpu_count()} cores ==")
    for name, secs, same in rows:
        print(f"{name:<62} {secs:7.3f} s {size / secs / 1e6:7.1f} MB/s  {secs / best_ref:5.2f}x the fastest "
              f"reference  ids {'identical' if same else 'DIFFER'}", flush=True)
    ours = min(s for name, s, _ in rows[3:])
    return [(f"GPT-2 encode_batch vs {name.split()[0]}", ours / s) for name, s, _ in rows[:3]]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="10,50", help="training corpora in MB (default 10,50)")
    parser.add_argument("--vocab", type=int, default=8192)
    parser.add_argument("--encode-mb", type=int, default=10)
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1, help="encoding threads (default: all)")
    parser.add_argument("--skip-training", action="store_true")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        if not args.skip_training:
            training([int(s) for s in args.sizes.split(",") if s], args.vocab, Path(tmp))
            page_training(max(int(s) for s in args.sizes.split(",") if s), 2000)
        encoding(args.encode_mb, args.threads, Path(tmp))
    return 0


if __name__ == "__main__":
    sys.exit(main())
