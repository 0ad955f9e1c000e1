"""``count``: count a corpus' pieces once (here or on a Dask cluster) into a counts file that
``train --from-counts`` trains from.

>>> import tempfile, pathlib, io, contextlib
>>> d = pathlib.Path(tempfile.mkdtemp()); _ = (d / "c.txt").write_text("low lower\\nlow\\n")
>>> from tokenizer_core.cli import main
>>> with contextlib.redirect_stderr(io.StringIO()):
...     main(["count", str(d / "c.txt"), "-o", str(d / "c.tsv"), "-q"])
0
>>> (d / "c.tsv").read_text().splitlines()[-2:]
['low\\t2', 'lower\\t1']
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

from tokenizer_core.cli.common import CliError
from tokenizer_core.counts.spec import COUNT_MODELS, DEFAULT_MAX_PIECES


def add_count_parser(sub: Any) -> None:
    c = sub.add_parser("count", help="count a corpus' pieces into a counts file (here or on a Dask cluster)",
                       description="Count the pre-tokenized pieces of any number of files, directories and globs "
                                   "(.txt .md, .jsonl .csv .tsv .parquet text columns, each optionally .gz .bz2 "
                                   ".xz .zst) as MODEL's trainer counts them, into a counts file for "
                                   "`train --from-counts`.")
    c.add_argument("files", nargs="+", help="files, directories (read recursively) or globs ('data/**/*.jsonl.gz')")
    c.add_argument("--model", default="bpe", choices=COUNT_MODELS, help="the trainer the counts are for (default bpe)")
    c.add_argument("--lowercase", action="store_true")
    c.add_argument("--pre-tokenizer", help="as train's --pre-tokenizer (default: the model's own)")
    c.add_argument("--byte-level", action="store_true", help="BPE on bytes (GPT-2 style)")
    c.add_argument("--max-sentence-length", type=int, help="Unigram: skip lines longer than this many UTF-8 bytes")
    c.add_argument("--text-column", help="column (csv/tsv/parquet) or field (jsonl) holding the text")
    c.add_argument("-o", "--output", required=True, help="the counts file to write (TSV)")
    c.add_argument("--engine", choices=["local", "dask"], default="local")
    c.add_argument("--scheduler", help="with --engine dask: an existing cluster's scheduler, e.g. tcp://host:8786 "
                                       "(default: a local cluster of worker processes)")
    c.add_argument("--connect-timeout", type=float, default=10.0,
                   help="with --scheduler: seconds to wait for the scheduler to answer (default 10)")
    c.add_argument("--workers", type=int, help="with --engine dask and no --scheduler: worker processes (default: cores)")
    c.add_argument("--threads", type=int, help="counting threads per process (local default: every core; dask: 1)")
    c.add_argument("--partition-mb", type=float, default=64.0,
                   help="large plain-text files are counted in ranges of this many MB (default 64)")
    c.add_argument("--max-pieces", type=int, default=DEFAULT_MAX_PIECES,
                   help=f"refuse a corpus with more distinct pieces (default {DEFAULT_MAX_PIECES:,}, what the "
                        f"trainers take)")
    c.add_argument("--min-count", type=int, default=1, help="leave out pieces seen fewer times (default 1: keep all)")
    c.add_argument("-q", "--quiet", action="store_true")


def _options(args: argparse.Namespace):
    from tokenizer_core.options import TrainOptions, UnigramOptions

    if args.max_sentence_length is not None and args.model != "unigram":
        raise CliError("--max-sentence-length applies to --model unigram only")
    if args.byte_level and args.model != "bpe":
        raise CliError("--byte-level applies to --model bpe only")
    unigram = UnigramOptions() if args.max_sentence_length is None else UnigramOptions(
        max_sentence_length=args.max_sentence_length)
    return TrainOptions(lowercase=args.lowercase, pre_tokenizer=args.pre_tokenizer, byte_level=args.byte_level,
                        unigram=unigram)


def _progress(quiet: bool, total_bytes: int, files: int):
    """Progress as files and MB done (a tqdm bar on a terminal, nothing otherwise)."""
    if quiet or not sys.stderr.isatty():
        return (lambda done, nbytes, message: None), (lambda: None)
    from tqdm import tqdm

    bar = tqdm(total=total_bytes, unit="B", unit_scale=True, desc=f"counting {files} file(s)", file=sys.stderr,
               leave=False, dynamic_ncols=True, mininterval=0.2)

    def report(done: int, nbytes: int, message: str) -> None:
        bar.n = nbytes
        bar.set_postfix_str(f"{done} part(s) done", refresh=False)
        bar.refresh()

    return report, bar.close


def cmd_count(args: argparse.Namespace) -> int:
    from tokenizer_core.counts.engines import CountJob, count_local, expand, partitions
    from tokenizer_core.counts.spec import CountSpec
    from tokenizer_core.counts.training import counts_file
    from tokenizer_core.counts.tsv import write_counts

    if args.engine != "dask" and (args.scheduler or args.workers):
        raise CliError("--scheduler and --workers apply to --engine dask only")
    for name in ("partition_mb", "max_pieces", "min_count"):
        if getattr(args, name) <= 0:
            raise CliError(f"--{name.replace('_', '-')} must be positive")
    spec = CountSpec(args.model, _options(args))
    spec.facts()  # a bad --pre-tokenizer is refused before anything is read
    sources = expand(args.files)
    job = CountJob(spec, partitions(sources, part_bytes=max(1, int(args.partition_mb * 2**20))),
                   text_column=args.text_column, max_pieces=args.max_pieces)
    report, close = _progress(args.quiet, job.total_bytes, job.files)
    t0 = time.perf_counter()
    try:
        if args.engine == "dask":
            from tokenizer_core.counts.dask_engine import count_dask

            partial = count_dask(job, scheduler=args.scheduler, workers=args.workers, threads=args.threads or 1,
                                 connect_timeout=args.connect_timeout, progress=report)
        else:
            partial = count_local(job, threads=args.threads, progress=report)
    except KeyboardInterrupt:
        close()
        print("interrupted: counting cancelled, nothing written", file=sys.stderr)
        return 130
    close()
    seconds = time.perf_counter() - t0
    if args.min_count > 1:
        partial.counts = {p: n for p, n in partial.counts.items() if n >= args.min_count}
        partial.line_final = {p: n for p, n in partial.line_final.items() if p in partial.counts}
        if not partial.counts:
            raise CliError(f"no piece is seen {args.min_count} times or more; lower --min-count")
    if not partial.counts:
        raise CliError("the files hold no pieces to count (only whitespace?)")
    extra = {"files": str(job.files), "bytes": str(job.total_bytes), "lines": str(partial.lines)}
    if args.min_count > 1:
        extra["min_count"] = str(args.min_count)
    write_counts(args.output, counts_file(spec, partial, extra=extra))
    if not args.quiet:
        mb = job.total_bytes / 1e6
        print(f"counted {len(partial.counts):,} distinct pieces ({sum(partial.counts.values()):,} in all) in "
              f"{job.files} file(s), {mb:,.1f} MB, in {seconds:.1f} s ({mb / max(seconds, 1e-9):,.1f} MB/s, "
              f"{args.engine}) -> {args.output}", file=sys.stderr)
    return 0
