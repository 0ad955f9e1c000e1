"""The vocabulary-size sweep: train at several sizes, score each on held-out text, find the knee.

How each algorithm gets its sizes:

* **BPE** trains once, at the largest size, and reads every smaller size off the merge list
  (:func:`~tokenizer_core.analysis.prefixes.bpe_prefix`): the model with the first *k* merges and
  the vocabulary they reach is exactly what a training stopped at that size learns. Scoring is one
  traced encoding per distinct held-out piece for all sizes together
  (:meth:`~tokenizer_core.analysis.heldout.Heldout.score_bpe_prefixes`).
* **WordPiece** also trains once: its vocabulary is built in order too
  (:func:`~tokenizer_core.analysis.prefixes.wordpiece_prefix_vocab`); each size is then scored.
* **Unigram** trains once per size. Its pruning rounds are the same for every target until the
  last ones, which cut to ``1.1 × vocab_size``, so sharing them would mean forking the trainer's
  EM state mid-run; each size is trained on its own instead.
* **SuperBPE** trains once per size too: each size has its own transition (``transition_share``
  of it, 90% unless set), so a smaller size's merges are not a prefix of a larger one's (its stage 2
  starts earlier). Each size costs about one training: on the 2 MB default corpus about 1.3 s, nearly
  all of it the trainer's set-up (stage 1's pieces in bytes, the hand-over), which does not depend on
  the size, plus about 0.7 s to score the held-out lines (stage 2's pieces are whole lines, scored by
  the model one by one); 6 sizes about 12 s against about 1 s for plain BPE.

``should_stop()`` is polled between steps and at every progress report of a training; when it
returns True the sweep raises :class:`SweepCancelled`, whose ``rows`` holds the sizes finished.

>>> from tokenizer_core.options import TrainOptions
>>> lines = ["low lower lowest newer newest wider widest\\n"] * 3 + ["slow slower slowest\\n"]
>>> train, heldout = split_lines(lines, heldout_fraction=0.25)
>>> rows = sweep("bpe", train, heldout, sizes=[20, 30], options=TrainOptions())
>>> [(r.vocab_size, r.heldout_tokens, r.derived) for r in rows]
[(20, 20, True), (30, 7, False)]
>>> log_sizes(256, 32000, 8)
[256, 510, 1000, 2000, 4000, 8100, 16000, 32000]
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Literal, Optional

from tokenizer_core.analysis.heldout import Heldout, HeldoutScore
from tokenizer_core.analysis.metrics import chars_per_token, fertility, ratio, unk_rate, vocab_usage
from tokenizer_core.analysis.prefixes import bpe_prefix, wordpiece_prefix_tokenizer
from tokenizer_core.bpe.trainer import train_bpe
from tokenizer_core.errors import TokenizerError
from tokenizer_core.options import TrainOptions
from tokenizer_core.pipeline import Tokenizer
from tokenizer_core.training import train
from tokenizer_core.types import ProgressCallback, no_progress
from tokenizer_core.wordpiece.bert import train_bert_wordpiece

__all__ = ["SWEEP_MODELS", "SweepCancelled", "SweepRow", "knee", "log_sizes", "split_lines", "sweep"]

SWEEP_MODELS: tuple[str, ...] = ("bpe", "wordpiece", "unigram", "superbpe")


class SweepCancelled(TokenizerError):
    """The sweep stopped because ``should_stop()`` said so; ``rows`` holds the sizes finished."""

    def __init__(self, rows: list["SweepRow"]) -> None:
        super().__init__(f"the sweep was cancelled after {len(rows)} size(s)")
        self.rows = rows


@dataclass(frozen=True)
class SweepRow:
    """One size of a sweep, scored on the held-out text (ratios ``None`` when undefined).

    ``vocab_size`` is the tokenizer's actual size (a training may stop short of the target, or a
    target may be below the alphabet); ``requested_size`` the size asked for. ``utilization`` is
    distinct ids used / vocabulary size. ``seconds`` is the time spent training this size;
    ``derived`` sizes were read off a larger training and cost nothing more (0.0). ``note`` says,
    when ``vocab_size`` differs from ``requested_size``, why (in the trainer's words: the corpus ran
    out of pairs, Unigram's seed or pruning left fewer pieces, the alphabet alone is larger); "" when
    the size is the one asked for. ``tokens_per_byte``: held-out tokens per UTF-8 byte of the held-out
    text (lower is better; the measure SuperBPE's paper compares tokenizers by).
    """

    model: str
    vocab_size: int
    requested_size: int
    heldout_tokens: int
    chars_per_token: Optional[float]
    fertility: Optional[float]
    unk_rate: Optional[float]
    utilization: Optional[float]
    embedding_params: int
    seconds: float
    derived: bool
    note: str = ""
    tokens_per_byte: Optional[float] = None


def sweep(
    model: Literal["bpe", "wordpiece", "unigram", "superbpe"],
    train_lines: Sequence[str],
    heldout_lines: Sequence[str],
    *,
    sizes: Sequence[int],
    options: TrainOptions,
    progress: ProgressCallback = no_progress,
    should_stop: Callable[[], bool] = lambda: False,
    d_model: int = 768,
) -> list[SweepRow]:
    """Train ``model`` on ``train_lines`` at each of ``sizes`` (``options.vocab_size`` is ignored) and
    score each on ``heldout_lines``; one row per distinct size, smallest first."""
    if model not in SWEEP_MODELS:
        raise TokenizerError(f"the sweep trains {', '.join(SWEEP_MODELS)}, not {model!r}")
    if isinstance(d_model, bool) or not isinstance(d_model, int) or d_model < 1:
        raise TokenizerError(f"d_model must be a positive whole number, got {d_model!r}")
    targets = _checked_sizes(sizes)
    train_lines, heldout_lines = list(train_lines), list(heldout_lines)
    if not any(line.strip() for line in heldout_lines):
        raise TokenizerError("the held-out text is empty; hold out some lines (or give a held-out file)")
    run = _Run(model, train_lines, heldout_lines, targets, options, d_model, progress, should_stop)
    run.check()
    _SIZERS[model](run)
    progress(1, 1, "done")
    return run.rows


@dataclass
class _Run:
    """One sweep in progress: what it was asked, the rows finished so far, and its hooks."""

    model: str
    train_lines: list[str]
    heldout_lines: list[str]
    targets: list[int]
    options: TrainOptions
    d_model: int
    progress: ProgressCallback
    should_stop: Callable[[], bool]
    rows: list[SweepRow] = field(default_factory=list)

    def check(self) -> None:
        """Raise :class:`SweepCancelled` (with the rows finished) when the caller asked to stop."""
        if self.should_stop():
            raise SweepCancelled(self.rows)

    def report(self, done: int, total: int, message: str) -> None:
        """The progress callback for trainings: every report is also a chance to cancel."""
        self.check()
        self.progress(done, total, message)

    def largest(self) -> TrainOptions:
        """The options of the one training at the largest size (runner-ups only feed the trace)."""
        return replace(self.options, vocab_size=self.targets[-1], top_k=0)

    def add(self, requested: int, size: int, score: HeldoutScore, held: Heldout, seconds: float,
            derived: bool, why: str = "") -> None:
        self.rows.append(SweepRow(
            model=self.model, vocab_size=size, requested_size=requested, heldout_tokens=score.tokens,
            chars_per_token=chars_per_token(held.chars, score.tokens), fertility=fertility(score.tokens, held.words),
            unk_rate=unk_rate(score.unk_tokens, score.tokens), utilization=vocab_usage(score.distinct_ids, size),
            embedding_params=size * self.d_model, seconds=seconds, derived=derived,
            note=_note(requested, size, why), tokens_per_byte=ratio(score.tokens, held.bytes),
        ))

    def add_cut(self, requested: int, size: int, score: HeldoutScore, held: Heldout, seconds: float,
                why: str = "") -> None:
        """A size read off the training at the largest size: that training's time is the largest's only."""
        largest = requested == self.targets[-1]
        self.add(requested, size, score, held, seconds if largest else 0.0, not largest, why)


def _note(requested: int, size: int, why: str) -> str:
    """Why a size differs from the one asked for ("" when it does not).

    >>> _note(16000, 15028, "no pairs left to merge: every word is a single token")
    '972 fewer than asked: no pairs left to merge: every word is a single token'
    >>> _note(100, 300, "")
    'the alphabet and special tokens alone make 300 tokens'
    """
    if size == requested:
        return ""
    if size > requested:
        return f"the alphabet and special tokens alone make {size:,} tokens"
    return f"{requested - size:,} fewer than asked: {why or 'the training stopped early'}"


def _unigram_shortfall(tok: Tokenizer, requested: int) -> str:
    """Why a Unigram training kept fewer pieces than asked, from its trace (the seed, the pruning)."""
    meta = tok.metadata
    seed = meta.get("seed_size")
    rounds = meta.get("rounds") or []
    rare = sum(int(r.get("removed", {}).get("rare", 0)) for r in rounds if isinstance(r, dict))
    if isinstance(seed, int) and seed + len(tok.special_tokens) < requested:
        return f"the seed had only {seed:,} candidate pieces (the corpus' substrings)"
    if rare:
        return (f"EM dropped {rare:,} of the {seed:,} seed pieces as expected fewer than 0.5 times in the "
                "corpus; the rest is all the corpus supports" if isinstance(seed, int) else
                f"EM dropped {rare:,} pieces expected fewer than 0.5 times in the corpus")
    return "the corpus supports no more pieces"


def _sweep_bpe(run: _Run) -> None:
    """BPE: one training at the largest size; the smaller sizes are prefixes of its merges."""
    start = time.perf_counter()
    options = replace(run.largest(), bpe=replace(run.options.bpe, keep_words=0))
    parts, result = train_bpe(run.train_lines, options=options, progress=run.report)
    big, seconds = Tokenizer.from_parts(parts), time.perf_counter() - start
    held = Heldout(run.heldout_lines, big)
    cuts = [bpe_prefix(result, s, num_merges=run.options.num_merges) for s in run.targets]
    run.report(0, 1, "scoring the held-out text")
    scores = held.score_bpe_prefixes(big, [kept for kept, _ in cuts])
    for s, (_, size), score in zip(run.targets, cuts, scores):
        run.add_cut(s, size, score, held, seconds, result.stop_reason)


def _sweep_wordpiece(run: _Run) -> None:
    """WordPiece: one training at the largest size; each smaller vocabulary is a prefix of its own."""
    start = time.perf_counter()
    parts, training = train_bert_wordpiece(run.train_lines, options=run.largest(), progress=run.report)
    big, seconds = Tokenizer.from_parts(parts), time.perf_counter() - start
    held = Heldout(run.heldout_lines, big)
    for i, s in enumerate(run.targets):
        run.report(i, len(run.targets), f"scoring vocabulary size {s:,}")
        tok = wordpiece_prefix_tokenizer(big, training, s, num_merges=run.options.num_merges)
        run.add_cut(s, tok.vocab_size, held.score(tok), held, seconds, training.stop_reason)


def _sweep_unigram(run: _Run) -> None:
    """Unigram: one training per size (see the module's notes for why)."""
    held: Optional[Heldout] = None
    for s in run.targets:
        run.check()
        start = time.perf_counter()
        tok = train("unigram", run.train_lines, options=replace(run.options, vocab_size=s),
                    progress=lambda d, t, m, s=s: run.report(d, t, f"vocabulary size {s:,}: {m}"))
        seconds = time.perf_counter() - start
        held = held or Heldout(run.heldout_lines, tok)  # every size shares the pipeline stages
        why = _unigram_shortfall(tok, s) if tok.vocab_size < s else ""
        run.add(s, tok.vocab_size, held.score(tok), held, seconds, False, why)


def _sweep_superbpe(run: _Run) -> None:
    """SuperBPE: one training per size, each with its own transition (see the module's notes)."""
    held: Optional[Heldout] = None
    # Runner-ups and the step-through's words only feed the trace, which the sweep never reads.
    options = replace(run.options, top_k=0, bpe=replace(run.options.bpe, keep_words=0))
    for s in run.targets:
        run.check()
        start = time.perf_counter()
        tok = train("superbpe", run.train_lines, options=replace(options, vocab_size=s),
                    progress=lambda d, t, m, s=s: run.report(d, t, f"vocabulary size {s:,}: {m}"))
        seconds = time.perf_counter() - start
        held = held or Heldout(run.heldout_lines, tok)  # every size has the same stages
        run.report(0, 1, f"vocabulary size {s:,}: scoring the held-out text")
        run.add(s, tok.vocab_size, held.score(tok), held, seconds, False, str(tok.metadata.get("stop_reason", "")))


#: How each model's sizes are trained and scored.
_SIZERS: dict[str, Callable[[_Run], None]] = {"bpe": _sweep_bpe, "wordpiece": _sweep_wordpiece,
                                              "unigram": _sweep_unigram, "superbpe": _sweep_superbpe}


def _checked_sizes(sizes: Sequence[int]) -> list[int]:
    if isinstance(sizes, (str, bytes)) or not sizes:
        raise TokenizerError("give the sweep one or more vocabulary sizes, e.g. [500, 1000, 4000]")
    for s in sizes:
        if isinstance(s, bool) or not isinstance(s, int) or s < 1:
            raise TokenizerError(f"vocabulary sizes must be positive whole numbers, got {s!r}")
        if s > 10_000_000:
            raise TokenizerError(f"vocabulary size {s:,} is absurdly large; use at most 10,000,000")
    return sorted(set(sizes))


def split_lines(lines: Sequence[str], *, heldout_fraction: float = 0.1, seed: int = 0) -> tuple[list[str], list[str]]:
    """Split ``lines`` into (train, held-out), both in their original order; the same ``seed`` always
    holds out the same lines. At least one line goes to each side.

    >>> split_lines(["a", "b", "c", "d"], heldout_fraction=0.5, seed=1)
    (['b', 'c'], ['a', 'd'])
    """
    lines = list(lines)
    if not 0 < heldout_fraction < 1:
        raise TokenizerError(f"heldout_fraction must be between 0 and 1 (e.g. 0.1), got {heldout_fraction!r}")
    if len(lines) < 2:
        raise TokenizerError(f"need at least 2 lines to hold some out, got {len(lines)}")
    n = min(len(lines) - 1, max(1, round(len(lines) * heldout_fraction)))
    order = list(range(len(lines)))
    random.Random(seed).shuffle(order)
    held = set(order[:n])
    return ([line for i, line in enumerate(lines) if i not in held],
            [line for i, line in enumerate(lines) if i in held])


def log_sizes(lo: int = 256, hi: int = 32000, n: int = 8) -> list[int]:
    """``n`` sizes from ``lo`` to ``hi`` evenly spaced on a log scale, the inner ones rounded to two
    significant digits (sizes that round together appear once).

    >>> log_sizes(500, 8000, 5), log_sizes(1000, 1000, 3)
    ([500, 1000, 2000, 4000, 8000], [1000])
    """
    for name, value in (("lo", lo), ("hi", hi), ("n", n)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise TokenizerError(f"{name} must be a positive whole number, got {value!r}")
    if hi < lo:
        raise TokenizerError(f"hi ({hi}) must be at least lo ({lo})")
    if n == 1 or lo == hi:
        return [hi]
    out = [lo]
    for i in range(1, n - 1):
        x = lo * (hi / lo) ** (i / (n - 1))
        unit = 10 ** max(0, math.floor(math.log10(x)) - 1)
        out.append(min(hi, max(lo, round(x / unit) * unit)))
    out.append(hi)
    return sorted(set(out))


def knee(rows: Sequence[SweepRow], metric: str = "chars_per_token") -> Optional[int]:
    """The vocabulary size at the knee of ``metric`` against log(size): the point farthest from the
    chord joining the first and last points, both axes scaled to [0, 1]. None with fewer than three
    sizes, or when the curve is a straight line. Rows of several models: the first model's.

    >>> def row(size, cpt):
    ...     return SweepRow("bpe", size, size, 1, cpt, None, None, None, 0, 0.0, False)
    >>> knee([row(s, y) for s, y in [(250, 1.0), (500, 2.0), (1000, 3.0), (2000, 3.2), (4000, 3.3)]])
    1000
    """
    if not rows:
        return None
    points: dict[int, float] = {}
    for r in rows:
        value = getattr(r, metric)
        if r.model == rows[0].model and value is not None and r.vocab_size not in points:
            points[r.vocab_size] = float(value)
    if len(points) < 3:
        return None
    sizes = sorted(points)
    xs = [math.log(s) for s in sizes]
    ys = [points[s] for s in sizes]
    (x0, x1), (y0, y1) = (xs[0], xs[-1]), (min(ys), max(ys))
    if x1 == x0 or y1 == y0:
        return None
    nx = [(x - x0) / (x1 - x0) for x in xs]
    ny = [(y - y0) / (y1 - y0) for y in ys]
    # Distance to the chord, up to a constant factor (the chord is the same for every point).
    dist = [abs(ny[i] - (ny[0] + (ny[-1] - ny[0]) * nx[i])) for i in range(len(sizes))]
    best = max(range(1, len(sizes) - 1), key=dist.__getitem__)
    return sizes[best] if dist[best] > 1e-9 else None
