"""Every speed ratio of issues #18 and #29 in one run: training and encoding against the libraries the field uses.

Run from the repository root (offline; the corpora are built reproducibly on first use)::

    python -m bench.bench_speed                   # BPE 1/10/50 MB, WordPiece 10 MB, encoding 10 MB
    python -m bench.bench_speed --sizes 1,10      # smaller BPE runs
    python -m bench.bench_speed --unigram         # also Unigram against SentencePiece (1 MB, slower)
    python -m bench.bench_speed --record          # and keep its two tables for the manual (docs/bench/speed*.json)

* **BPE training**, vocab 8k, byte-level (GPT-2 split) and char-level (Whitespace split): our
  command line against ``tokenizers``, each a whole process (start, imports, reading, training,
  saving), best of a few runs; peak memory is each process's own ``VmHWM``. Merges are checked
  identical.
* **WordPiece training**, vocab 8k, BERT normalizer and pre-tokenizer, lowercase: our command
  line against ``tokenizers``' ``WordPieceTrainer`` (which trains by BPE counts; ours by the
  WordPiece score, so the vocabularies differ by design), whole processes.
* **Encoding** GPT-2, cl100k_base, o200k_base, Llama 3, Qwen and Tekken on the 10 MB text: ``tiktoken``
  (built from the same files for the last four), our full pipeline
  (``Tokenizer.encode``/``encode_batch``: tokens, offsets, word ids, masks), our ids-only path,
  and ``tokenizers``' ``encode_batch`` over the lines on every core; ids checked identical.
* **Every core** (``bench.bench_cores``): byte-level BPE training at vocab 8,192 against nanochat's
  ``rustbpe`` (and ``tokenizers``) at 10 and 50 MB, and GPT-2 ``encode_batch`` against ``tiktoken``,
  ``tokenizers`` and ``tokie``, all on every core (``--no-cores`` skips it).
* **Every other tokenizer** (``bench.bench_models``, 1 MB): SentencePiece BPE and Unigram, BERT
  WordPiece and a ``Digits``/``Punctuation``/``Metaspace`` chain, single text and ``encode_batch``
  against ``tokenizers`` (and ``sentencepiece``) (``--no-models`` skips it).
* **Today's tokenizer files** (``bench.bench_files``, 1 MB of mixed text): Gemma 3, Gemini, gpt-oss,
  Qwen 3, Llama 3.1, DeepSeek V3 and V4 and Claude's tokenizer.json, load, ``encode_batch`` and one
  whole text against ``tokenizers``, ``fastokens`` and ``gigatoken`` (``--no-files`` skips it).
* **Unigram** (``--unigram``): ``bench.bench_unigram --quick`` (held-out tokens, time, memory).

The references are installed by ``pip install -r bench/requirements.txt``.

Training runs before encoding, while this process is still small. Ratios are ours / theirs
(below 1: ours is faster or smaller). The machine's core count is printed with every table.

With ``--record`` the BPE training table (WordPiece's figures as its caption) goes to
``docs/bench/speed.json`` and the encoding table to ``docs/bench/speed-encoding.json``; the parts run from
other benches keep theirs with those benches' own ``--record`` (``bench_cores``, ``bench_models``,
``bench_files``).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.bench_bpe import OURS_CLI, encoding, run_process, train_pair  # noqa: E402
from bench.corpus import bench_corpus_path  # noqa: E402
from bench.results import record  # noqa: E402

HF_WORDPIECE = """
import sys
from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, trainers
path, vocab, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
tok = Tokenizer(models.WordPiece(unk_token="[UNK]"))
tok.normalizer = normalizers.BertNormalizer(lowercase=True)
tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
trainer = trainers.WordPieceTrainer(vocab_size=vocab, show_progress=False,
                                    special_tokens=["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"])
tok.train([path], trainer)
tok.save(out)
"""

#: Runs per BPE training case (the best is kept): small runs are noisier.
_REPEATS = {1: 3, 10: 2}

#: The manual's BPE training table (``--record``): ours / ``tokenizers``, whole processes, same run.
TRAINING_COLUMNS = ["corpus", "bytes (GPT-2 split): ours / `tokenizers`", "time", "memory",
                    "characters (Whitespace): ours / `tokenizers`", "time", "memory", "merges"]


def bpe_training(sizes: list[int], workdir: Path,
                 table: list[list[str]] | None = None) -> list[tuple[str, float, float]]:
    """Print the BPE training table; return (label, time ratio, memory ratio) rows; ``table`` (when
    given) gets the manual's rows (:data:`TRAINING_COLUMNS`)."""
    print(f"\n== BPE training, vocab 8000: whole processes, ours (CLI) vs tokenizers; {os.cpu_count()} cores ==")
    print(f"{'corpus':>7} {'mode':>5} {'ours s':>7} {'tokenizers s':>13} {'ratio':>6} {'ours MB':>8} "
          f"{'tok. MB':>8} {'ratio':>6} {'same merges':>12}")
    rows = []
    for mb in sizes:
        path = bench_corpus_path(mb)
        cells, same = [f"{mb} MB"], []
        for byte_level in (True, False):
            runs = [train_pair(path, 8000, byte_level, workdir) for _ in range(_REPEATS.get(mb, 1))]
            best = min(runs, key=lambda r: r["ours"] / r["hf"])
            mode = "byte" if byte_level else "char"
            ratio, mem = best["ours"] / best["hf"], best["ours_mb"] / best["hf_mb"]
            print(f"{path.stat().st_size / 1e6:6.0f}M {mode:>5} {best['ours']:7.2f} {best['hf']:13.2f} {ratio:5.2f}x "
                  f"{best['ours_mb']:8.0f} {best['hf_mb']:8.0f} {mem:5.2f}x {str(best['same_merges']):>12}", flush=True)
            rows.append((f"BPE training {mb} MB {mode}", ratio, mem))
            cells += [f"{best['ours']:.2f} / {best['hf']:.2f} s, {best['ours_mb']:.0f} / {best['hf_mb']:.0f} MB",
                      f"{ratio:.2f}x", f"{mem:.2f}x"]
            same.append(best["same_merges"])
        if table is not None:
            table.append(cells + ["identical to tokenizers'" if all(same) else "DIFFER"])  # plain: see bench_cores
    return rows


def wordpiece_training(mb: int, workdir: Path, caption: list[str] | None = None) -> list[tuple[str, float, float]]:
    """Print WordPiece training against ``tokenizers``; return its row; ``caption`` (when given) gets the
    manual's sentence."""
    path = bench_corpus_path(mb)
    print(f"\n== WordPiece training, vocab 8000, BERT normalizer (lowercase): whole processes; {os.cpu_count()} cores ==")
    hf_s, hf_mb = run_process(HF_WORDPIECE, [str(path), "8000", str(workdir / "hf-wp.json")])
    ours_s, ours_mb = run_process(OURS_CLI, ["train", str(path), "--model", "wordpiece", "--vocab-size", "8000",
                                             "--lowercase", "-o", str(workdir / "wp.json"), "-q"])
    print(f"{path.stat().st_size / 1e6:6.0f}M  ours {ours_s:.2f} s, {ours_mb:.0f} MB | tokenizers {hf_s:.2f} s, "
          f"{hf_mb:.0f} MB | ratio {ours_s / hf_s:.2f}x time, {ours_mb / hf_mb:.2f}x memory", flush=True)
    if caption is not None:
        caption.append(f"WordPiece training on {mb} MB (BERT normalizer, lowercase), whole processes: ours "
                       f"{ours_s:.2f} s, {ours_mb:.0f} MB against `tokenizers`' {hf_s:.2f} s, {hf_mb:.0f} MB on its default threads ({ours_s / hf_s:.2f}x time, "
                       f"{ours_mb / hf_mb:.2f}x memory).")
    return [(f"WordPiece training {mb} MB", ours_s / hf_s, ours_mb / hf_mb)]


#: The encoders of the encoding table, in its order.
ENCODERS = ("gpt2", "cl100k_base", "o200k_base", "llama3", "qwen", "tekken")


def encoding_ratios(mb: int, table: dict | None = None) -> list[tuple[str, float, float]]:
    """Print the encoding tables; return (label, ours / tiktoken, ours / tokenizers) for our cold full
    pipeline; ``table`` (when given) gets the manual's ``columns`` and ``rows``, one encoder a column."""
    path = bench_corpus_path(mb)
    print(f"\n== encoding, same text ({path.stat().st_size / 1e6:.1f} MB), one process; ids identical to tiktoken; "
          f"{os.cpu_count()} cores ==")
    rows = []
    lines = len(path.read_text(encoding="utf-8").split("\n"))
    manual: list[list[str]] = [
        ["`tiktoken` `encode_ordinary`, whole text, MB/s"],
        ["ours, `Tokenizer.encode` (an Encoding: tokens, offsets, word ids, masks), whole text, cold / `tiktoken`"],
        [f"ours, `Tokenizer.encode_batch` over {lines:,} lines, cold / `tokenizers`' `encode_batch`"],
        ["ours, ids only (`load_reference_encoder`), whole text, cold / `tiktoken`"],
        [f"`tokenizers` `encode_batch` over the lines, {os.cpu_count()} threads, MB/s"]]
    for name in ENCODERS:
        measured = encoding(path, name)
        tik = measured[0][1]
        hf = measured[-1][1]
        print(f"\n{name:<62} {'MB/s':>7} {'time / tiktoken':>16} {'time / tokenizers':>18}")
        for label, secs, nbytes, _ in measured:
            print(f"{label:<62} {nbytes / secs / 1e6:7.2f} {secs / tik:15.2f}x {secs / hf:17.2f}x", flush=True)
        for label, secs, _, _ in measured[1:-1]:
            if "cold" in label and "ids path" not in label:
                rows.append((f"{name} {label.split(': ', 1)[1]}", secs / tik, secs / hf))
        # rows 1-3 are ours cold (whole text, batch, ids path), as :func:`bench.bench_bpe.encoding` orders them
        size = measured[0][2]
        for cells, figure in zip(manual, (f"{size / tik / 1e6:.1f}", f"{measured[1][1] / tik:.2f}x",
                                          f"{measured[2][1] / hf:.2f}x", f"{measured[3][1] / tik:.2f}x",
                                          f"{size / hf / 1e6:.1f}")):
            cells.append(figure)
    if table is not None:
        table["columns"] = [f"{path.stat().st_size / 1e6:.0f} MB, one process",
                            "GPT-2", "cl100k_base", "o200k_base", "Llama 3", "Qwen", "Tekken"]
        table["rows"] = manual
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="1,10,50", help="BPE training corpus sizes in MB")
    ap.add_argument("--encode-mb", type=int, default=10)
    ap.add_argument("--wordpiece-mb", type=int, default=10)
    ap.add_argument("--unigram", action="store_true", help="also run bench.bench_unigram --quick")
    ap.add_argument("--no-cores", action="store_true", help="skip rustbpe training and tokie encoding (bench_cores)")
    ap.add_argument("--no-models", action="store_true", help="skip the other tokenizers (bench_models)")
    ap.add_argument("--no-files", action="store_true",
                    help="skip today's tokenizer.json files against tokenizers, fastokens and gigatoken (bench_files)")
    ap.add_argument("--record", action="store_true",
                    help="keep the training and encoding tables for the manual (docs/bench/speed.json, speed-encoding.json)")
    args = ap.parse_args(argv)
    sizes = [int(x) for x in args.sizes.split(",") if x]
    print(f"cores: {os.cpu_count()}; load average at start: {os.getloadavg()[0]:.2f}")
    cores: list[tuple[str, float]] = []
    train_rows: list[list[str]] = []
    caption: list[str] = []
    enc_table: dict = {}
    with tempfile.TemporaryDirectory() as tmp:
        training = bpe_training(sizes, Path(tmp), train_rows) + wordpiece_training(args.wordpiece_mb, Path(tmp), caption)
        if not args.no_cores:
            from bench import bench_cores

            training += bench_cores.training([s for s in sizes if s >= 10] or sizes, 8192, Path(tmp))
            cores = bench_cores.encoding(args.encode_mb, os.cpu_count() or 1, Path(tmp))
    enc = encoding_ratios(args.encode_mb, enc_table)
    if args.record:  # before the other benches' parts: those keep their own records
        note = f"bench_speed --sizes {args.sizes} --encode-mb {args.encode_mb} --wordpiece-mb {args.wordpiece_mb}"
        print("recorded in", record("speed", {"columns": TRAINING_COLUMNS, "rows": train_rows,
                                              "caption": " ".join(caption)}, note=note))
        print("recorded in", record("speed-encoding", enc_table, note=note))
    models = [] if args.no_models else __import__("bench.bench_models", fromlist=["run"]).run(1)
    files = [] if args.no_files else __import__("bench.bench_files", fromlist=["run"]).run(1.0)
    if args.unigram:
        print("\n== Unigram vs SentencePiece (bench.bench_unigram --quick) ==", flush=True)
        subprocess.run([sys.executable, "-m", "bench.bench_unigram", "--quick"], cwd=ROOT, check=True)
    print(f"\n== summary ({os.cpu_count()} cores): ours / theirs, below 1 is ours faster or smaller ==")
    for label, ratio, mem in training:
        print(f"{label:<48} time {ratio:5.2f}x   memory {mem:5.2f}x")
    for label, vs_tiktoken, vs_hf in enc:
        print(f"{label:<48} time {vs_tiktoken:5.2f}x tiktoken   {vs_hf:5.2f}x tokenizers encode_batch")
    for label, ratio in cores:
        print(f"{label:<48} time {ratio:5.2f}x")
    for label, single, batch in models:
        print(f"{label:<48} single text {single:5.2f}x   encode_batch {batch:5.2f}x tokenizers")
    for line in files:
        print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
