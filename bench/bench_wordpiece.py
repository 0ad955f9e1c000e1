"""Benchmark: WordPiece training (vocab 8k) and BERT-style encoding against Hugging Face ``tokenizers``.

Run from the repository root::

    python -m bench.bench_wordpiece            # ~10 MB corpus
    python -m bench.bench_wordpiece --size-mb 1 --vocab-size 2000

Both sides are measured in the same run on the same text and the script prints
ratios (ours / theirs; lower is better for ours). Keep in mind that the two
trainers do not solve the same problem: ``tokenizers``' ``WordPieceTrainer``
trains BPE (merge the most frequent pair) and only encodes WordPiece-style,
while ours merges by the WordPiece score ``count(ab) / (count(a) * count(b))``.
The encoders do the same work, so their outputs are also checked to agree.
``tokenizers`` is limited to one thread (``RAYON_NUM_THREADS=1``) to compare
like with like; its multi-threaded ``encode_batch`` is shown as well.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

os.environ.setdefault("RAYON_NUM_THREADS", "1")  # before tokenizers starts its thread pool
os.environ.setdefault("TOKENIZERS_PARALLELISM", "true")

from tokenizers import Tokenizer as HFTokenizer  # noqa: E402
from tokenizers import models, normalizers, pre_tokenizers, trainers  # noqa: E402

from bench.corpus import bench_corpus_path  # noqa: E402
from tokenizer_core.io.vocab_txt import bert_tokenizer
from tokenizer_core.text.counting import count_words
from tokenizer_core.text.normalizers import BertNormalizer  # noqa: E402
from tokenizer_core.text.pre_tokenizers import BertPreTokenizer  # noqa: E402
from tokenizer_core.training import TrainOptions  # noqa: E402
from tokenizer_core.wordpiece.bert import train_bert_wordpiece  # noqa: E402
from tokenizer_core.wordpiece.trainer import BERT_SPECIAL_TOKENS, train_wordpiece  # noqa: E402


def timed(fn, *args, **kwargs):
    start = time.perf_counter()
    result = fn(*args, **kwargs)
    return result, time.perf_counter() - start


def hf_pipeline(vocab=None) -> HFTokenizer:
    tok = HFTokenizer(models.WordPiece(vocab, unk_token="[UNK]") if vocab else models.WordPiece(unk_token="[UNK]"))
    tok.normalizer = normalizers.BertNormalizer(lowercase=True)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    return tok


_HF_ALL_THREADS = """
import sys, time
from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, trainers
lines = open(sys.argv[1], encoding="utf-8").read().splitlines(keepends=True)
tok = Tokenizer(models.WordPiece(unk_token="[UNK]"))
tok.normalizer = normalizers.BertNormalizer(lowercase=True)
tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
trainer = trainers.WordPieceTrainer(vocab_size=int(sys.argv[2]), special_tokens=sys.argv[3:], show_progress=False)
start = time.perf_counter()
tok.train_from_iterator(lines, trainer=trainer)
print(time.perf_counter() - start)
"""


def _hf_training_all_threads(path, vocab_size: int) -> float:
    """``tokenizers``' training time with its default thread pool (a child process: this one is
    pinned to one thread)."""
    import subprocess

    env = {k: v for k, v in os.environ.items() if k != "RAYON_NUM_THREADS"}
    out = subprocess.run([sys.executable, "-c", _HF_ALL_THREADS, str(path), str(vocab_size), *BERT_SPECIAL_TOKENS],
                         env=env, capture_output=True, text=True, check=True)
    return float(out.stdout.strip())


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size-mb", type=int, default=10)
    ap.add_argument("--vocab-size", type=int, default=8000)
    args = ap.parse_args(argv)

    path = bench_corpus_path(args.size_mb)
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines(keepends=True)
    mb = len(text.encode("utf-8")) / 1e6
    print(f"corpus: {path.name}, {mb:.1f} MB, {len(lines):,} lines; vocab_size={args.vocab_size}")

    # -- training --------------------------------------------------------------------------------
    options = TrainOptions(vocab_size=args.vocab_size, lowercase=True)
    (ours, trace), t_ours = timed(train_bert_wordpiece, lines, options=options)
    counts, t_count = timed(count_words, lines, normalizer=BertNormalizer(lowercase=True),
                            pre_tokenizer=BertPreTokenizer())
    _, t_merge = timed(train_wordpiece, counts, vocab_size=args.vocab_size, special_tokens=BERT_SPECIAL_TOKENS)
    hf = hf_pipeline()
    trainer = trainers.WordPieceTrainer(vocab_size=args.vocab_size, special_tokens=list(BERT_SPECIAL_TOKENS),
                                        show_progress=False)
    _, t_hf = timed(hf.train_from_iterator, lines, trainer=trainer)
    print("\ntraining (ours: WordPiece score; tokenizers: BPE counts)")
    print(f"  ours total        {t_ours:8.2f} s  ({len(trace.merges):,} merges, {len(counts):,} distinct words)")
    print(f"    counting words  {t_count:8.2f} s")
    print(f"    merging         {t_merge:8.2f} s  ({t_merge / max(1, len(trace.merges)) * 1e3:.2f} ms/merge)")
    print(f"  tokenizers        {t_hf:8.2f} s")
    t_hf_all = _hf_training_all_threads(path, args.vocab_size)
    print(f"  tokenizers, {os.cpu_count()} threads (own process, training only) {t_hf_all:8.2f} s")
    print(f"  ratio ours/tokenizers: {t_ours / t_hf:.2f}x (1 thread), {t_ours / t_hf_all:.2f}x ({os.cpu_count()} threads)")
    agree = sum(m.agrees_with_bpe for m in trace.merges)
    print(f"  steps where BPE would have merged the same pair: {agree}/{len(trace.merges)}")

    # -- encoding (same vocabulary on both sides) ---------------------------------------------------
    vocab = ours.model.get_vocab()
    mine = bert_tokenizer(vocab, lowercase=True, add_template=False)
    ref = hf_pipeline(vocab)
    enc_ours, t_enc_ours = timed(lambda: [mine.encode(line).ids for line in lines])
    enc_ref, t_enc_ref = timed(lambda: [ref.encode(line).ids for line in lines])
    _, t_batch = timed(ref.encode_batch, lines)
    same = sum(a == b for a, b in zip(enc_ours, enc_ref))
    n_tokens = sum(map(len, enc_ours))
    print("\nencoding, full BERT pipeline (normalize, pre-tokenize, WordPiece), same vocabulary")
    print(f"  ours              {t_enc_ours:8.2f} s  {mb / t_enc_ours:6.2f} MB/s  ({n_tokens:,} tokens)")
    print(f"  tokenizers 1 thr  {t_enc_ref:8.2f} s  {mb / t_enc_ref:6.2f} MB/s")
    print(f"  tokenizers batch  {t_batch:8.2f} s  (RAYON_NUM_THREADS={os.environ['RAYON_NUM_THREADS']})")
    print(f"  ratio ours/tokenizers (1 thread): {t_enc_ours / t_enc_ref:.1f}x")
    print(f"  identical ids on {same:,}/{len(lines):,} lines")

    # -- the model alone: greedy longest match over the distinct words ------------------------------
    model = mine.model
    distinct = list(counts)
    model._cache.clear()
    _, t_model = timed(lambda: [model._tokenize(w) for w in distinct])
    print(f"\nmodel only: {len(distinct):,} distinct words in {t_model:.2f} s "
          f"({len(distinct) / t_model / 1e3:.0f}k words/s, uncached)")
    return 0 if same == len(lines) else 1


if __name__ == "__main__":
    sys.exit(main())
