"""Lesson figures of two BPE variants of 2024-2025: SuperBPE's two stages, whose second learns tokens
across spaces (:mod:`tokenizer_core.superbpe`), and PickyBPE's removals of the tokens a merge used up
(:mod:`tokenizer_core.pickybpe`). Each trains on a toy corpus the lesson gives or on the start of a
corpus (a bundled sample or the active one), beside plain BPE at the same vocabulary size, and
measures tokens per byte on the corpus' held-out lines (on a toy corpus, on the toy text itself).

>>> r = superbpe_merges({**SUPERBPE_DEFAULTS, "lines": {"one of the best": 1, "most of the time": 1,
...                      "out of the box": 1}, "vocab_size": 264, "transition": 261}, Context())
>>> r.values["first_stage2_merge"], r.values["superwords"], r.values["merges_before"]
([' of', ' the'], 1, 5)
>>> p = pickybpe_events({**PICKYBPE_DEFAULTS, "words": {"abc": 10, "ab": 1}, "vocab_size": 258}, Context())
>>> p.values["removed"], round(p.values["ios:ab"], 3), p.values["restored"]
(['ab'], 0.909, ['ab'])
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from tokenizer_core.bpe.model import BPE
from tokenizer_core.bpe.trainer import train_bpe_counts
from tokenizer_core.corpus.loading import load_sample
from tokenizer_core.errors import TokenizerError
from tokenizer_core.lessons.figure_types import Chart, Context, FigureKind, FigureResult, Param, Table, TokenRow
from tokenizer_core.pickybpe.events import MergeEvent
from tokenizer_core.pickybpe.trainer import train_pickybpe_counts
from tokenizer_core.superbpe.stages import RawStage2, crosses_space, stage1_pieces
from tokenizer_core.superbpe.trainer import count_stage2, train_superbpe_counts
from tokenizer_core.text.byte_level import ByteLevel, byte_level_alphabet, bytes_to_symbols, unicode_to_bytes
from tokenizer_core.text.counting import count_words
from tokenizer_core.text.surrogates import utf8_of

#: Rows a table shows at most (a real corpus makes thousands of merges; the handout prints every row).
TABLE_ROWS = 120
#: Points a chart draws at most (every k-th merge beyond that).
CHART_POINTS = 150
#: Merges below which a PickyBPE figure draws no chart (its table says it all).
MIN_CHART_MERGES = 10
#: Stage 1's merges a SuperBPE chart shows before the switch.
SWITCH_WINDOW = 200
_RAW_STAGE2 = RawStage2()
SENTENCE = "The value of the function is one of the items in the list."


def text_of(symbols: str) -> str:
    """A byte-level token's text; bytes that are not whole UTF-8 characters as ``<0xNN>``, never as
    a replacement character.

    >>> text_of("ĠofĠthe"), text_of("Ãł"), text_of("â")
    (' of the', 'à', '<0xE2>')
    """
    to_byte = unicode_to_bytes()
    if any(c not in to_byte for c in symbols):  # not a byte-level token (a special token): as it is
        return symbols
    data = bytes(to_byte[c] for c in symbols).decode("utf-8", "surrogateescape")
    return "".join(f"<0x{ord(ch) - 0xDC00:02X}>" if 0xDC80 <= ord(ch) <= 0xDCFF else ch for ch in data)


def shown(symbols: str) -> str:
    """A token for a table: its text with spaces, newlines and tabs made visible (``·``, ``⏎``, ``⇥``).

    >>> shown("ĠofĠtheĊ")
    '·of·the⏎'
    """
    return text_of(symbols).replace(" ", "·").replace("\n", "⏎").replace("\t", "⇥")


def corpus_lines(args: Mapping[str, Any], ctx: Context) -> tuple[list[str], list[str], str]:
    """The training lines (the corpus' first ``max_chars`` characters), the held-out lines after
    them (a tenth as many characters; the training lines when the corpus has no more) and what
    they are, for the figure's title."""
    source = args["corpus"]
    lines: Iterable[str] = ctx.corpus_lines() if source == "active" else load_sample(source).lines()
    name = ctx.corpus_name if source == "active" else f"the {source} sample"
    train: list[str] = []
    held: list[str] = []
    size = held_size = 0
    for line in lines:
        if size < args["max_chars"]:
            train.append(line)
            size += len(line)
        elif held_size < args["max_chars"] // 10:
            held.append(line)
            held_size += len(line)
        else:
            break
    if not any(line.strip() for line in train):
        raise TokenizerError(f"{name} has no text to train on; pick a corpus of running text")
    if not any(line.strip() for line in held):
        return train, train, f"{name} ({size:,} characters; measured on the same text: nothing was left to hold out)"
    return train, held, f"{name} (first {size:,} characters; measured on the next {held_size:,})"


def _per_byte(tokens: int, data: int) -> float:
    return tokens / data if data else 0.0


def _plural(n: int, word: str) -> str:
    return f"{n:,} {word}{'' if n == 1 else 's'}"


def _chart_rows(points: Sequence[tuple[int, float, str]]) -> tuple[dict[str, Any], ...]:
    every = max(1, len(points) // CHART_POINTS)  # the last point always stays: it is where training ended
    return tuple({"x": x, "y": y, "series": s} for i, (x, y, s) in enumerate(points)
                 if i % every == 0 or i == len(points) - 1)


# ---------------------------------------------------------------------------------------------- SuperBPE


def _stage2_pieces(text: str) -> list[str]:
    """Stage 2's pieces of ``text`` (raw, no byte mapping): whole lines, numbers apart."""
    return _RAW_STAGE2.words(text)


@functools.lru_cache(maxsize=1 << 16)
def _mapped(piece: str) -> str:
    # A corpus repeats its pieces: each is byte-mapped once.
    return bytes_to_symbols(utf8_of(piece))


def _symbols(pieces: Iterable[str], *, stage1: bool) -> list[str]:
    """Byte-level pieces as SuperBPE (stage 2's pieces) or plain BPE (stage 1's, read off stage 2's: each
    stage-2 piece is a run of whole stage-1 pieces, as the trainer reads them) encodes them."""
    return [_mapped(q) for p in pieces for q in (stage1_pieces(p) if stage1 else (p,))]


def _stage1_counts(stage2_counts: Mapping[str, int]) -> Counter[str]:
    counts: Counter[str] = Counter()
    for piece, n in stage2_counts.items():
        for q in _symbols((piece,), stage1=True):
            counts[q] += n
    return counts


def _encoded(model: BPE, lines: Sequence[str], *, stage1: bool) -> int:
    return sum(len(model.tokenize(q)) for line in lines for q in _symbols(_stage2_pieces(line), stage1=stage1))


def _segment(model: BPE, text: str, *, stage1: bool) -> list[str]:
    return [t.text for q in _symbols(_stage2_pieces(text), stage1=stage1) for t in model.tokenize(q)]


def superbpe_merges(args: Mapping[str, Any], ctx: Context) -> FigureResult:
    """SuperBPE and plain BPE (SuperBPE whose switch is at the vocabulary size: stage 1 only) trained
    to ``vocab_size`` on the same text; the merges of both stages, the superwords, tokens per byte."""
    if args["lines"]:  # a toy corpus: each line as often as it is counted, measured on itself
        train = [f"{line}\n" for line, n in args["lines"].items() for _ in range(n)]
        held, name = train, "the toy corpus"
    else:
        train, held, name = corpus_lines(args, ctx)
    size = args["vocab_size"]
    switch = args["transition"] if args["transition"] is not None else round(size * args["transition_percent"] / 100)
    if switch > size:
        raise TokenizerError(f"the transition ({switch:,}) is past the vocabulary size ({size:,}); give one at most "
                             "vocab_size (at vocab_size, SuperBPE is plain BPE)")
    counts = count_stage2(train)
    sb = train_superbpe_counts(counts, vocab_size=size, transition=switch, special_tokens=(), top_k=0, keep_words=0)
    # Plain BPE at the same size is SuperBPE with the switch at the end (stage 1 only, the paper's
    # baseline): the compiled BPE trainer on stage 1's pieces learns the same merges, faster.
    bpe = train_bpe_counts(_stage1_counts(counts), vocab_size=size, special_tokens=(),
                           initial_alphabet=byte_level_alphabet(), top_k=0, keep_words=0)
    step = sb.transition_step
    stage1, stage2 = sb.merges[:step], sb.merges[step:]
    superwords = sb.superwords()
    data = sum(len(utf8_of(line)) for line in held)
    tokens, bpe_tokens = _encoded(sb.model, held, stage1=False), _encoded(bpe.model, held, stage1=True)
    seg, bpe_seg = _segment(sb.model, args["text"], stage1=False), _segment(bpe.model, args["text"], stage1=True)
    values: dict[str, Any] = {
        "vocab_size": len(sb.vocab), "transition": sb.transition, "transition_step": step, "merges": len(sb.merges),
        "merges_before": len(stage1), "merges_after": len(stage2),
        "stage1_merges": [[text_of(a), text_of(b)] for a, b in stage1],
        "stage2_merges": [[text_of(a), text_of(b)] for a, b in stage2],
        "first_stage2_merge": [text_of(stage2[0][0]), text_of(stage2[0][1])] if stage2 else None,
        "superwords": len(superwords), "superword_list": superwords,
        "first_superword": superwords[0] if superwords else None,
        "same_as_bpe": sb.merges == bpe.merges, "bytes": data, "tokens": tokens, "bpe_tokens": bpe_tokens,
        "tokens_per_byte": _per_byte(tokens, data), "bpe_tokens_per_byte": _per_byte(bpe_tokens, data),
        "saving_percent": 100 * (1 - tokens / bpe_tokens) if bpe_tokens else 0.0,
        "segmentation": [text_of(t) for t in seg], "bpe_segmentation": [text_of(t) for t in bpe_seg],
        "text_tokens": len(seg), "bpe_text_tokens": len(bpe_seg),
    }
    records = list(sb.trace)
    shown_records = records if len(records) <= TABLE_ROWS else records[max(step - 5, 0):][:TABLE_ROWS]
    merges = Table(f"Merges {shown_records[0].step:,}-{shown_records[-1].step:,} of {len(records):,}" if shown_records
                   and len(shown_records) < len(records) else "The merges",
                   ("step", "stage", "pair", "new token", "count", "crosses a space"),
                   tuple((r.step, 1 if r.step <= step else 2, f"{shown(r.left)} + {shown(r.right)}", shown(r.token),
                          r.count, "yes" if crosses_space(text_of(r.token)) else "") for r in shown_records))
    words = Table(f"Superwords in the order they were learned ({len(superwords):,})", ("#", "step", "superword", "count"),
                  tuple((i + 1, r.step, shown(r.token), r.count) for i, r in
                        enumerate(r for r in records[step:] if crosses_space(text_of(r.token))) if i < TABLE_ROWS))
    # Around the switch only: stage 1's first merges count thousands and would flatten the jump after it.
    near = records[max(step - SWITCH_WINDOW, 0):] if stage2 else records
    chart = Chart("How often each merged pair occurred" + (", around the switch" if len(near) < len(records) else ""),
                  "merge", "pair count",
                  _chart_rows([(r.step, r.count, f"stage {1 if r.step <= step else 2}") for r in near]),
                  mark_x=step + 0.5 if stage2 else None)
    rows = (TokenRow(f"Plain BPE, {size:,} tokens: {len(bpe_seg)} tokens", tuple(bpe_seg), scheme="byte-level"),
            TokenRow(f"SuperBPE, {size:,} tokens, switch at {sb.transition:,}: {len(seg)} tokens", tuple(seg),
                     scheme="byte-level"))
    notes = (sb.stop_reason,) if len(sb.vocab) < size else ()
    return FigureResult(f"SuperBPE on {name}: {len(stage1):,} merges within words, then {len(stage2):,} over whole "
                        f"lines, {_plural(len(superwords), 'superword')}", values, (merges, words), rows, (chart,), notes)


# ---------------------------------------------------------------------------------------------- PickyBPE


def _pieces(lines: Iterable[str]) -> Counter[str]:
    """Byte-level pieces as PickyBPE and our byte-level BPE cut text (GPT-2's regex)."""
    return count_words(lines, pre_tokenizer=ByteLevel(add_prefix_space=False))


def _tokens(segment: Any, counts: Mapping[str, int]) -> int:
    return sum(n * len(segment(piece)) for piece, n in counts.items())


def _comebacks(events: Sequence[Any]) -> tuple[dict[str, Any], list[str]]:
    """Per removed token (its text): the IoS and step of its first removal and the step it first came
    back at (``ios:T``, ``removed_at:T``, ``back_at:T``); and the tokens that came back, in order."""
    values: dict[str, Any] = {}
    back: list[str] = []
    for e in events:
        name = text_of(e.token)
        if e.kind == "remove" and f"ios:{name}" not in values:
            values.update({f"ios:{name}": e.ios, f"removed_at:{name}": e.step})
        elif isinstance(e, MergeEvent) and e.status == "restored" and f"back_at:{name}" not in values:
            values[f"back_at:{name}"] = e.step
            back.append(name)
    return values, back


def _event_row(e: Any) -> tuple[Any, ...]:
    if isinstance(e, MergeEvent):
        status = {"new": "", "restored": "back after a removal", "present": "made before by another pair"}[e.status]
        return (e.index + 1, e.step, "merge", shown(e.token), f"{shown(e.left)} + {shown(e.right)}", e.count, "",
                status)
    return (e.index + 1, e.step, "remove", shown(e.token), f"{shown(e.trigger[0])} + {shown(e.trigger[1])}",
            e.remaining, round(e.ios, 4), f"{e.merged} of {e.merged + e.remaining} used; the rest split into "
            + " + ".join(shown(t) for t in e.split))


def pickybpe_events(args: Mapping[str, Any], ctx: Context) -> FigureResult:
    """PickyBPE and plain BPE trained to ``vocab_size`` on the same words: the events in order, the
    removals with their IoS, the tokens that came back, tokens per byte."""
    if args["words"]:  # toy words, as text: each byte becomes its byte-level symbol ("ab" stays "ab")
        counts: Mapping[str, int] = {bytes_to_symbols(utf8_of(w)): n for w, n in args["words"].items()}
        held, name = counts, "the toy words"
    else:
        train, held_lines, name = corpus_lines(args, ctx)
        counts, held = _pieces(train), _pieces(held_lines)
    size, threshold = args["vocab_size"], args["threshold"]
    r = train_pickybpe_counts(counts, vocab_size=size, threshold=threshold, special_tokens=())
    bpe = train_bpe_counts(counts, vocab_size=size, special_tokens=(), initial_alphabet=byte_level_alphabet(),
                           top_k=0, keep_words=0)
    events, removals = list(r.trace), r.trace.removals()
    data = sum(n * len(piece) for piece, n in held.items())  # a byte-level piece has one symbol per byte
    tokens, bpe_tokens = _tokens(r.model.segment, held), _tokens(bpe.model.segment, held)
    pieces = ByteLevel(add_prefix_space=False).words(args["text"])
    seg = [t for p in pieces for t in r.model.segment(p)]
    bpe_seg = [t for p in pieces for t in bpe.model.segment(p)]
    per_token, back = _comebacks(events)
    values: dict[str, Any] = {
        "vocab_size": len(r.vocab), "events": len(events), "merges": len(r.merges), "removals": len(removals),
        "removed": [text_of(e.token) for e in removals], "removed_at_end": [text_of(t) for t in r.removed],
        "removal_ios": [e.ios for e in removals], "restored": back, "comebacks": len(back),
        "first_removed": text_of(removals[0].token) if removals else None,
        "first_ios": removals[0].ios if removals else None,
        "first_trigger": [text_of(t) for t in removals[0].trigger] if removals else None,
        "first_split": [text_of(t) for t in removals[0].split] if removals else None,
        "bpe_merges": len(bpe.merges), "same_as_bpe": r.merges == bpe.merges and not removals,
        "bytes": data, "tokens": tokens, "bpe_tokens": bpe_tokens,
        "tokens_per_byte": _per_byte(tokens, data), "bpe_tokens_per_byte": _per_byte(bpe_tokens, data),
        "saving_percent": 100 * (1 - tokens / bpe_tokens) if bpe_tokens else 0.0,
        "segmentation": [text_of(t) for t in seg], "bpe_segmentation": [text_of(t) for t in bpe_seg],
        "text_tokens": len(seg), "bpe_text_tokens": len(bpe_seg), **per_token,
    }
    columns = ("event", "merge", "kind", "token", "pair merged / merge that used it", "pair count / left",
               "IoS", "what happened")
    tables = [Table("The events in order" if len(events) <= TABLE_ROWS else
                    f"The first {TABLE_ROWS} of {len(events):,} events", columns,
                    tuple(_event_row(e) for e in events[:TABLE_ROWS]))]
    if len(events) > TABLE_ROWS and removals:  # a real corpus: the removals first, the merges are most events
        tables.insert(0, Table(f"The removals ({len(removals):,}" + (f", the first {TABLE_ROWS})" if len(removals) >
                                                                       TABLE_ROWS else ")"), columns,
                               tuple(_event_row(e) for e in removals[:TABLE_ROWS])))
    gone = 0
    points: list[tuple[int, float, str]] = []
    for e in events:
        gone += e.kind == "remove"
        if isinstance(e, MergeEvent):
            points.append((e.step, gone, "tokens removed so far"))
    # A toy's few events read better in the table alone.
    charts = (Chart("Removals as training goes on", "merge", "tokens removed", _chart_rows(points)),) \
        if len(points) >= MIN_CHART_MERGES else ()
    rows = (TokenRow(f"Plain BPE, {size:,} tokens: {len(bpe_seg)} tokens", tuple(bpe_seg), scheme="byte-level"),
            TokenRow(f"PickyBPE, {size:,} tokens, threshold {threshold:g}: {len(seg)} tokens", tuple(seg),
                     scheme="byte-level"))
    notes = (r.stop_reason,) if len(r.vocab) < size else ()
    return FigureResult(f"PickyBPE on {name}, threshold {threshold:g}: {_plural(len(r.merges), 'merge')}, "
                        f"{_plural(len(removals), 'removal')}", values, tuple(tables), rows, charts, notes)


_CORPUS = (Param("corpus", "str", default="default", choices=("active", "default", "multilingual")),
           Param("max_chars", "int", default=200_000, lo=1000, hi=300_000))
#: Vocabulary sizes a lesson may ask for: the 256 bytes and at least one merge, at most a size that
#: still trains in a fraction of a second on the largest corpus start allowed.
_VOCAB = Param("vocab_size", "int", default=2000, lo=257, hi=4000)
KINDS = (
    FigureKind("superbpe_merges", (Param("lines", "counts", default=None, lo=1, hi=1000, max_len=200), *_CORPUS, _VOCAB,
                                   Param("transition", "int", default=None, lo=256, hi=4000),
                                   Param("transition_percent", "int", default=90, lo=1, hi=100),
                                   Param("text", "str", default=SENTENCE, max_len=300)),
               superbpe_merges, "SuperBPE's merges within words, then across spaces (superwords), beside plain BPE",
               uses_corpus=True),
    FigureKind("pickybpe_events", (Param("words", "counts", default=None, lo=1, hi=10**6, max_len=40), *_CORPUS, _VOCAB,
                                   Param("threshold", "float", default=0.9, lo=0.01, hi=1.0),
                                   Param("text", "str", default=SENTENCE, max_len=300)),
               pickybpe_events, "PickyBPE's merges and removals (IoS above the threshold), beside plain BPE",
               uses_corpus=True),
)
SUPERBPE_DEFAULTS: dict[str, Any] = {p.name: p.default for p in KINDS[0].params}
PICKYBPE_DEFAULTS: dict[str, Any] = {p.name: p.default for p in KINDS[1].params}
