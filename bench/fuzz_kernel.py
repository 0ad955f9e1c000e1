"""Differential fuzzing of the compiled kernel (``tokenizer_kernel``) against the pure-Python reference.

Each case draws hostile input from a seeded generator and computes the same thing twice, in C and
in Python, which must agree exactly:

- ``split``: the GPT-2 and cl100k_base pieces of random text against the ``regex`` module's matches;
- ``encode``: a random small byte-level BPE (merges ranked by list or by token, ``ignore_merges``
  on or off) encoding random text through the kernel against the pipeline's general path, field
  for field (ids, tokens, offsets, word ids), one text and a batch; ``encode_piece`` on raw bytes;
- ``spaces``: a random BPE over spaces written as "▁" (Gemma's and Gemini's tokenizer.json shape:
  ``Replace(" ", "▁")``, byte fallback, joining tokens, "\n" as an added token) encoding random
  text through the kernel's chunk table against the general path, one text and a batch;
- ``count``: a random corpus counted by ``PieceCounter`` (every split it knows) against the
  reference that pre-tokenizes line by line, counts and order of first appearance;
- ``train``: a random corpus trained to a random vocabulary size with the kernel and without it
  (byte-level BPE and whitespace BPE), merges and vocabularies equal.

Text is drawn by :mod:`bench.fuzz_texts`. ``tests/kernel/test_kernel_fuzz.py`` runs a fixed set of seeds in
CI (also under the sanitizers, ``scripts/sanitized_kernel.sh``); the long mode runs fresh seeds for a
while and reports cases, crashes and divergences:

    python -m bench.fuzz_kernel --minutes 30

A crash ends the child process that runs the cases; the parent reports it with the seed that
caused it (``--seed S --cases 1`` replays one case).

>>> rng = random.Random(1)
>>> isinstance(hostile_text(rng), str)
True
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import random
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import lru_cache
from typing import Any

import regex

from bench.fuzz_texts import hostile_text, random_corpus  # noqa: F401 (hostile_text: for the tests)

#: The case kinds, in the order a seed cycles through them.
KINDS = ("split", "encode", "count", "train", "spaces")

class Divergence(AssertionError):
    """The kernel and the reference disagree; the message says on what."""


def _same(kernel: Any, reference: Any, what: str, case: Any) -> None:
    if kernel != reference:
        raise Divergence(f"{what}: kernel {kernel!r:.300} != reference {reference!r:.300} for {case!r:.300}")


def outcome(fn: Callable[[], Any]) -> tuple[str, Any]:
    """``("returned", value)`` or ``("raised", exception type name)``: bad input must be refused
    the same way by both paths (and by a clear exception, not a crash)."""
    try:
        return "returned", fn()
    except Exception as err:  # noqa: BLE001 - compared, not swallowed
        return "raised", type(err).__name__


@contextmanager
def pure_python() -> Iterator[None]:
    """The reference path: the kernel switched off (tokenizer_core reads this on every call)."""
    saved = os.environ.get("TOKENIZER_CORE_PURE")
    os.environ["TOKENIZER_CORE_PURE"] = "1"
    try:
        yield
    finally:
        if saved is None:
            del os.environ["TOKENIZER_CORE_PURE"]
        else:
            os.environ["TOKENIZER_CORE_PURE"] = saved


# ----------------------------------------------------------------------------- the cases


@lru_cache(maxsize=2)
def _splitter(pattern: str) -> Any:
    from tokenizer_core.bpe import kernel
    from tokenizer_core.bpe.model import BPE
    from tokenizer_core.text.byte_level import ByteLevel, bytes_to_unicode

    vocab = {c: i for i, c in enumerate(bytes_to_unicode().values())}
    return kernel.kernel_encoder(ByteLevel(pattern=pattern), BPE(vocab, []))


def split_case(rng: random.Random) -> None:
    from tokenizer_core.text.byte_level import CL100K_PATTERN, GPT2_PATTERN

    text = hostile_text(rng)
    for pattern in (GPT2_PATTERN, CL100K_PATTERN):
        _same(_splitter(pattern).split(text), regex.findall(pattern, text), "split", text)


_LLAMA3_PATTERN = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*"
                   r"|\s*[\r\n]+|\s+(?!\S)|\s+")


def random_bpe(rng: random.Random, sample: str) -> Any:
    """A byte-level BPE tokenizer with random merges (or random tokens ranked by id, tiktoken's
    rule) drawn from the sample's bytes, so that many of them apply."""
    from tokenizer_core.bpe.model import BPE
    from tokenizer_core.bpe.options import BpeModelOptions
    from tokenizer_core.io.bpe_files import tiktoken_tokenizer
    from tokenizer_core.pipeline import Tokenizer
    from tokenizer_core.text.byte_level import CL100K_PATTERN, GPT2_PATTERN, ByteLevel, bytes_to_symbols

    data = sample.encode("utf-8", "replace") or b"ab"
    # The kernel's own patterns, compiled ones its matcher walks (Llama 3's, one that leaves gaps:
    # they become pieces of their own) and one whose pieces the regex module finds (encode_split).
    pattern = rng.choice([GPT2_PATTERN, CL100K_PATTERN, _LLAMA3_PATTERN, r"\p{L}+|\d{1,2}| ?[^\s\p{L}\d]",
                          r"\b\p{L}+\b|\p{N}+|\s+|."])  # the last is outside the matcher's subset (\b)
    if rng.random() < 0.3:  # ranked by token: random slices of the sample become tokens
        ranks = {bytes([b]): b for b in rng.sample(range(256), 256)}
        for _ in range(rng.randint(0, 60)):
            at = rng.randrange(len(data))
            piece = data[at:at + rng.randint(2, 8)]
            if len(piece) > 1 and piece not in ranks:
                ranks[piece] = len(ranks)
        return tiktoken_tokenizer(ranks, pattern=pattern, special_tokens={})
    symbols = list(bytes_to_symbols(bytes(range(256))))
    rng.shuffle(symbols)  # byte ids in random order
    vocab = {s: i for i, s in enumerate(symbols)}
    merges: list[tuple[str, str]] = []
    words = [bytes_to_symbols(data[i:i + 12]) for i in range(0, len(data), 12)]
    for _ in range(rng.randint(0, 80)):
        word = rng.choice(words)
        if len(word) < 2:
            continue
        # Split a random stretch of the sample into two known tokens: a merge that can fire.
        at, cut, end = sorted(rng.sample(range(len(word) + 1), 3))
        left, right = word[at:cut], word[cut:end]
        if left in vocab and right in vocab and left + right not in vocab:
            vocab[left + right] = len(vocab)
            merges.append((left, right))
    model = BPE(vocab, merges, options=BpeModelOptions(ignore_merges=rng.random() < 0.3))
    pre: Any = ByteLevel(add_prefix_space=False, pattern=pattern)
    if "\\b" not in pattern and rng.random() < 0.3:  # a tokenizer.json's Sequence of Splits: chained in the kernel
        from tokenizer_core.text.pre_tokenizers import Sequence
        from tokenizer_core.text.splitting import Split

        pre = Sequence([Split(r"\p{N}{1,3}", is_regex=True), Split(r"[一-龥]+", is_regex=True), pre])
    return Tokenizer(model, pre_tokenizer=pre, normalizer=_random_form(rng))


def _random_form(rng: random.Random) -> Any:
    """Mostly no normalizer; else one Unicode form (Qwen's NFC, Claude's NFKC) or DeepSeek's empty
    Sequence: the byte-level path normalizes texts not in the form first and maps offsets back."""
    from tokenizer_core.text import normalizers

    pick = rng.random()
    if pick < 0.7:
        return None
    if pick < 0.8:
        return normalizers.Sequence([])
    return rng.choice([normalizers.NFC, normalizers.NFKC, normalizers.NFD, normalizers.NFKD])()


def _fields(enc: Any) -> dict[str, Any]:
    return {f.name: getattr(enc, f.name) for f in dataclasses.fields(enc)}


def encode_case(rng: random.Random) -> None:
    from tokenizer_core.pipeline import _guarded
    from tokenizer_core.text.byte_level import bytes_to_symbols

    texts = [hostile_text(rng) for _ in range(rng.randint(1, 4))]
    tok = random_bpe(rng, "".join(texts))
    fast = tok._fast.get(tok.normalizer, tok.pre_tokenizer, tok.model)
    if fast is None or fast.kernel is None:
        raise Divergence(f"the kernel did not take model {tok.model!r:.200}")
    for text in texts:
        reference = _guarded(tok._trace_text, text, split_special=True, sampling=None, sequence_id=0)[1]
        _same(_fields(tok.encode_sequence(text)), _fields(reference), "encode", text)
    batch = tok.encode_batch(texts, threads=rng.choice([1, 2, 3]))  # windows on threads, without the GIL
    _same([e.ids for e in batch.encodings], [tok.encode(t).ids for t in texts], "encode_batch", texts)
    for _ in range(3):
        data = bytes(rng.randrange(256) for _ in range(rng.choice([1, 5, 47, 48, 49, 300])))
        _same(fast.kernel.encode_piece(data), [t.id for t in tok.model._encode(bytes_to_symbols(data))],
              "encode_piece", data)


def spaces_case(rng: random.Random) -> None:
    from tokenizer_core.bpe.model import BPE
    from tokenizer_core.bpe.options import BpeModelOptions
    from tokenizer_core.fast.replaced_spaces import ReplacedSpacesFastPath
    from tokenizer_core.pipeline import Tokenizer, _guarded
    from tokenizer_core.text.added_vocabulary import AddedToken
    from tokenizer_core.text.edit_normalizers import Replace

    texts = [hostile_text(rng, max_run=300) for _ in range(rng.randint(1, 4))]
    sample = "".join(texts).replace(" ", "▁")
    vocab = {"<unk>": 0, **{f"<0x{b:02X}>": b + 1 for b in range(256)}, "▁": 257}
    for c in dict.fromkeys(sample[:400]):  # some characters known, the rest spelled in bytes
        if rng.random() < 0.7 and not ("\ud800" <= c <= "\udfff"):
            vocab.setdefault(c, len(vocab))
    merges: list[tuple[str, str]] = []
    for _ in range(rng.randint(0, 60)):
        at = rng.randrange(len(sample)) if sample else 0
        piece = sample[at:at + rng.randint(2, 6)]
        cut = rng.randint(1, max(1, len(piece) - 1))
        left, right = piece[:cut], piece[cut:]
        if left in vocab and right in vocab and left + right not in vocab:
            vocab[left + right] = len(vocab)
            merges.append((left, right))
    model = BPE(vocab, merges, options=BpeModelOptions(unk_token="<unk>", byte_fallback=True, fuse_unk=True))
    added = [AddedToken(t, normalized=False) for t in rng.sample(["\n", "\t", "<b>", "  "], rng.randint(0, 3))]
    tok = Tokenizer(model, normalizer=Replace(" ", "▁"), added_tokens=added)
    fast = tok._fast.get(tok.normalizer, tok.pre_tokenizer, tok.model)
    if not isinstance(fast, ReplacedSpacesFastPath):
        raise Divergence(f"the replaced-spaces path did not take {tok.model!r:.200}")
    for text in texts:
        reference = _guarded(tok._trace_text, text, split_special=True, sampling=None, sequence_id=0)[1]
        _same(_fields(tok.encode_sequence(text)), _fields(reference), "spaces encode", text)
    batch = tok.encode_batch(texts, add_special_tokens=False, threads=rng.choice([1, 2]))
    _same([_fields(e) for e in batch.encodings], [_fields(tok.encode_sequence(t)) for t in texts],
          "spaces encode_batch", texts)


def count_case(rng: random.Random) -> None:
    from tokenizer_core.kernel.codes import PieceSplit
    from tokenizer_core.kernel.native import class_table, kernel
    from tokenizer_core.text.counting import _byte_mapped, _count_line_by_line
    from tokenizer_core.text.native_counting import count_native
    from tokenizer_core.text.pre_tokenizers import ByteLevel, Whitespace, WhitespaceSplit, WordSplit

    lines = random_corpus(rng)
    rng_threads = rng.choice([1, 2, 3])
    for how, pre in [(PieceSplit.GPT2, ByteLevel()), (PieceSplit.WHITESPACE, Whitespace()),
                     (PieceSplit.WORD_SPLIT, WordSplit()), (PieceSplit.WHITESPACE_SPLIT, WhitespaceSplit())]:
        def native(how: PieceSplit = how) -> list[tuple[str, int]]:
            # Small chunks on several threads: the chunk counters' merge is fuzzed too.
            counts = count_native(lines, how=how, threads=rng_threads)
            return list((_byte_mapped(counts) if how == PieceSplit.GPT2 else counts).items())

        def reference(pre: Any = pre) -> list[tuple[str, int]]:
            return list(_count_line_by_line(lines, normalizer=None, pre_tokenizer=pre, workers=None,
                                            progress=lambda *a: None).items())

        _same(outcome(native), outcome(reference), f"count {how.name}", lines)

    def spaces_native() -> list[tuple[str, int]]:
        return list(count_native(lines, how=PieceSplit.SPACES, threads=rng_threads).items())

    def spaces_reference() -> list[tuple[str, int]]:  # BERT's chunks: breaks at space, tab, LF and CR only
        seen: dict[str, int] = {}
        for chunk in regex.split(r"[ \t\n\r]+", "".join(lines)):
            if chunk:
                seen[chunk] = seen.get(chunk, 0) + 1
        return list(seen.items())

    _same(outcome(spaces_native), outcome(spaces_reference), "count SPACES", lines)
    words = kernel().WordSet(class_table())
    for line in lines:
        words.add(line)
    _same(words.distinct(), len(set(regex.findall(r"\S+", "".join(lines)))), "WordSet", lines)


def train_case(rng: random.Random) -> None:
    from tokenizer_core.bpe.trainer import train_bpe
    from tokenizer_core.options import TrainOptions

    lines = random_corpus(rng)
    options = TrainOptions(vocab_size=rng.randint(260, 700), byte_level=rng.random() < 0.6,
                           min_frequency=rng.choice([0, 0, 2]), top_k=0)
    def run() -> Any:
        result = train_bpe(lines, options=options)[1]
        return result.merges, result.vocab

    fast = outcome(run)
    with pure_python():
        slow = outcome(run)
    _same(fast, slow, "train", (options, lines))


CASES: dict[str, Callable[[random.Random], None]] = {
    "split": split_case, "encode": encode_case, "count": count_case, "train": train_case, "spaces": spaces_case,
}


def run_case(seed: int) -> str:
    """Run the case of this seed (its kind cycles with the seed); returns the kind."""
    kind = KINDS[seed % len(KINDS)]
    CASES[kind](random.Random(seed))
    return kind


# ----------------------------------------------------------------------------- the long mode


def _worker(first: int, deadline: float, cases: int) -> None:
    """Runs seeds from ``first`` until the deadline; prints one JSON line per case (the parent
    reads the last one to know which seed a crash interrupted)."""
    seed = first
    while (cases and seed < first + cases) or (not cases and time.time() < deadline):
        print(json.dumps({"start": seed}), flush=True)
        try:
            kind = run_case(seed)
            print(json.dumps({"done": seed, "kind": kind}), flush=True)
        except Divergence as err:
            print(json.dumps({"divergence": seed, "error": str(err)[:2000]}), flush=True)
        seed += 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=1.0, help="how long to fuzz (default 1)")
    parser.add_argument("--seed", type=int, default=None, help="first seed (default: from the clock)")
    parser.add_argument("--cases", type=int, default=0, help="run this many seeds instead of a time budget")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    first = args.seed if args.seed is not None else int(time.time()) % 1_000_000 * 1000
    deadline = time.time() + args.minutes * 60
    if args.worker:
        _worker(first, deadline, args.cases)
        return 0
    import tokenizer_kernel

    print(f"kernel {tokenizer_kernel.__file__}; first seed {first}", flush=True)
    runs: Counter[str] = Counter()
    crashes: list[tuple[int, int]] = []
    divergences: list[dict[str, Any]] = []
    seed = first
    while (args.cases and seed < first + args.cases) or (not args.cases and time.time() < deadline):
        left = max(deadline - time.time(), 1) / 60
        child = subprocess.Popen([sys.executable, "-m", "bench.fuzz_kernel", "--worker", "--seed", str(seed),
                                  "--minutes", str(left), "--cases", str(args.cases and first + args.cases - seed)],
                                 stdout=subprocess.PIPE, text=True)
        assert child.stdout is not None
        started = seed
        for line in child.stdout:
            event = json.loads(line)
            if "start" in event:
                started = event["start"]
            elif "done" in event:
                runs[event["kind"]] += 1
            else:
                divergences.append(event)
                print(f"DIVERGENCE seed {event['divergence']}: {event['error'][:500]}", flush=True)
        code = child.wait()
        if code == 0:
            break
        crashes.append((started, code))
        print(f"CRASH seed {started}: the child ended with {code}", flush=True)
        seed = started + 1  # go on after the seed that crashed
    total = sum(runs.values()) + len(divergences)
    print(f"cases run: {total} ({', '.join(f'{k} {runs[k]}' for k in KINDS)}); "
          f"crashes: {len(crashes)}; divergences: {len(divergences)}")
    return 1 if crashes or divergences else 0


if __name__ == "__main__":
    sys.exit(main())
