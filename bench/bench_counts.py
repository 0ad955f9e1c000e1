"""Counting throughput and memory on a generated corpus: the local engine and Dask workers.

Generates (once, cached in the temporary directory) a corpus of ``--size-mb`` MB in four files of
Zipf-distributed words, then counts it with ``python -m tokenizer_core count`` semantics:

- the local engine on 1 thread and on every core;
- a Dask ``LocalCluster`` of 1, 2, ... up to every core's worker processes (one thread each), the
  cluster started before the clock starts (its start-up is printed apart);

each in a fresh process, printing seconds, MB/s, the speed-up over one worker and its share of
linear (goal: at least 0.8 up to the machine's cores), the counting process's peak memory and the
largest worker's. Every run's counts must be the same (checked). ``--train VOCAB`` then trains BPE
from the counts file, showing that training needs memory for the distinct pieces, not the corpus.

Run: ``python -m bench.bench_counts [--size-mb 500] [--workers 1,2] [--train 32000]``
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.memory import peak_rss_mb

_FILES = 4


def _corpus(size_mb: float) -> Path:
    """A directory of ``_FILES`` files of generated text (cached): Zipf-like word frequencies over a
    vocabulary of 300,000 made-up words, lines of 4 to 20 words."""
    import numpy as np

    d = Path(tempfile.gettempdir()) / f"tokenizer-bench-counts-{size_mb:g}mb"
    done = d / "complete"
    if done.exists():
        return d
    d.mkdir(exist_ok=True)
    rng = np.random.default_rng(30)
    letters = np.array(list("etaoinshrdlucmfwypvbgkjqxzéü"))
    lengths = rng.integers(1, 12, size=300_000)
    vocab = np.array(["".join(rng.choice(letters, n)) for n in lengths.tolist()], dtype=object)
    weights = 1.0 / np.arange(1, len(vocab) + 1) ** 1.05
    weights /= weights.sum()
    per_file = int(size_mb * 1e6 / _FILES)
    for k in range(_FILES):
        with (d / f"part-{k}.txt").open("w", encoding="utf-8") as fh:
            written = 0
            while written < per_file:
                ids = rng.choice(len(vocab), size=200_000, p=weights)
                cuts = np.cumsum(rng.integers(4, 21, size=20_000))
                cuts = cuts[cuts < len(ids)]
                text = "\n".join(" ".join(chunk) for chunk in np.split(vocab[ids], cuts)) + "\n"
                fh.write(text)
                written += len(text.encode("utf-8"))
    done.touch()
    return d


def _children_peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024


def _worker(args: argparse.Namespace) -> int:
    """One configuration, in this fresh process: prints a JSON line of figures."""
    from tokenizer_core.counts.engines import CountJob, count_local, expand, partitions
    from tokenizer_core.counts.spec import CountSpec
    from tokenizer_core.counts.training import counts_file
    from tokenizer_core.counts.tsv import write_counts

    job = CountJob(CountSpec("bpe"), partitions(expand([args.corpus]), part_bytes=64 << 20))
    startup = 0.0
    if args.engine == "local":
        t0 = time.perf_counter()
        partial = count_local(job, threads=args.n)
        seconds = time.perf_counter() - t0
    else:
        import logging

        from dask.distributed import LocalCluster

        from tokenizer_core.counts.dask_engine import count_dask

        t0 = time.perf_counter()
        cluster = LocalCluster(n_workers=args.n, threads_per_worker=1, processes=True, dashboard_address=None,
                               silence_logs=logging.ERROR)
        startup = time.perf_counter() - t0
        try:
            t0 = time.perf_counter()
            partial = count_dask(job, scheduler=cluster.scheduler_address, threads=1)
            seconds = time.perf_counter() - t0
        finally:
            cluster.close()
    digest = hashlib.sha256(json.dumps(list(partial.counts.items())).encode()).hexdigest()[:16]
    if args.output:
        write_counts(args.output, counts_file(job.spec, partial))
    print(json.dumps({"seconds": seconds, "startup": startup, "bytes": job.total_bytes, "peak_mb": peak_rss_mb(),
                      "workers_peak_mb": _children_peak_mb(), "pieces": len(partial.counts), "digest": digest}))
    return 0


def _train_worker(args: argparse.Namespace) -> int:
    from tokenizer_core.counts.training import train_from_counts
    from tokenizer_core.counts.tsv import read_counts
    from tokenizer_core.options import TrainOptions

    t0 = time.perf_counter()
    data = read_counts(args.counts)
    tok = train_from_counts("bpe", data, options=TrainOptions(vocab_size=args.train, top_k=0))
    print(json.dumps({"seconds": time.perf_counter() - t0, "peak_mb": peak_rss_mb(), "vocab": tok.vocab_size}))
    return 0


def _run(argv: list[str]) -> dict:
    done = subprocess.run([sys.executable, "-m", "bench.bench_counts", *argv], capture_output=True, text=True,
                          check=False, cwd=Path(__file__).resolve().parents[1])
    if done.returncode != 0:
        raise SystemExit(f"run {argv} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--size-mb", type=float, default=500.0)
    ap.add_argument("--workers", help="comma-separated worker counts (default: 1, 2, 4, ... up to every core)")
    ap.add_argument("--train", type=int, default=0, help="then train BPE with this vocabulary from the counts")
    ap.add_argument("--worker", choices=["local", "dask", "train"], help=argparse.SUPPRESS)
    ap.add_argument("--n", type=int, default=1, help=argparse.SUPPRESS)
    ap.add_argument("--corpus", help=argparse.SUPPRESS)
    ap.add_argument("--output", help=argparse.SUPPRESS)
    ap.add_argument("--counts", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker == "train":
        return _train_worker(args)
    if args.worker:
        args.engine = args.worker
        return _worker(args)
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    if args.workers:
        counts = [int(x) for x in args.workers.split(",")]
    else:
        counts, n = [], 1
        while n < cores:
            counts.append(n)
            n *= 2
        counts.append(cores)
    t0 = time.perf_counter()
    corpus = _corpus(args.size_mb)
    size = sum(f.stat().st_size for f in corpus.glob("*.txt"))
    out = sys.stdout
    out.write(f"corpus: {size / 1e6:,.0f} MB in {_FILES} files ({corpus}, ready in {time.perf_counter() - t0:.0f} s); "
              f"{cores} cores\n")
    out.write(f"{'engine':22}{'seconds':>9}{'MB/s':>8}{'speed-up':>10}{'of linear':>11}{'peak MB':>9}"
              f"{'worker MB':>11}{'start s':>9}\n")
    digests = set()
    with tempfile.TemporaryDirectory() as tmp:
        counts_path = str(Path(tmp) / "counts.tsv")
        rows = [("local", 1), ("local", cores)] + [("dask", n) for n in counts]
        base = None
        for engine, n in dict.fromkeys(rows):
            extra = ["--output", counts_path] if (engine, n) == ("local", cores) else []
            r = _run(["--worker", engine, "--n", str(n), "--corpus", str(corpus), *extra])
            digests.add(r["digest"])
            mbps = r["bytes"] / 1e6 / r["seconds"]
            if engine == "dask" and base is None:
                base = r["seconds"]
            speedup = (base / r["seconds"]) if engine == "dask" and base else None
            label = f"{engine}, {n} {'thread' if engine == 'local' else 'worker'}{'s' if n > 1 else ''}"
            out.write(f"{label:22}{r['seconds']:>9.2f}{mbps:>8.1f}"
                      f"{(f'{speedup:.2f}x' if speedup else '-'):>10}{(f'{speedup / n:.2f}' if speedup else '-'):>11}"
                      f"{r['peak_mb']:>9.0f}{(r['workers_peak_mb'] if engine == 'dask' else 0):>11.0f}"
                      f"{r['startup']:>9.1f}\n")
            out.flush()
        out.write(f"every run's counts identical: {'yes' if len(digests) == 1 else 'NO'} "
                  f"({r['pieces']:,} distinct pieces)\n")
        if args.train:
            t = _run(["--worker", "train", "--counts", counts_path, "--train", str(args.train)])
            out.write(f"train BPE {t['vocab']:,} from the counts file: {t['seconds']:.1f} s, peak {t['peak_mb']:.0f} MB "
                      f"(corpus {size / 1e6:,.0f} MB)\n")
    return 0 if len(digests) == 1 else 1


if __name__ == "__main__":
    sys.exit(main())
