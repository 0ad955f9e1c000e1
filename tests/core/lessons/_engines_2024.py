"""The superbpe_merges and pickybpe_events figures against the engines run directly: the trainers on
the same text (read here, not through the figure's code), and the held-out tokens counted by the
general pipeline (a Tokenizer of each trained model and its own pre-tokenizer)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from tokenizer_core.bpe.trainer import train_bpe_counts
from tokenizer_core.corpus.loading import load_sample
from tokenizer_core.parts import TokenizerParts
from tokenizer_core.pickybpe.trainer import train_pickybpe, train_pickybpe_counts
from tokenizer_core.pipeline import Tokenizer
from tokenizer_core.superbpe.stages import stage1_pre_tokenizer, stage2_pre_tokenizer
from tokenizer_core.superbpe.trainer import train_superbpe
from tokenizer_core.text.byte_level import byte_level_alphabet, bytes_to_symbols, unicode_to_bytes
from tokenizer_core.text.counting import count_words
from tokenizer_core.text.decoders import ByteLevelDecoder
from tokenizer_core.text.pre_tokenizers import ByteLevel


def texts(args: Mapping[str, Any]) -> tuple[list[str], list[str]]:
    """The figure's training lines (the sample's first ``max_chars`` characters) and held-out lines
    (the next tenth), read from the sample here."""
    train: list[str] = []
    held: list[str] = []
    for line in load_sample(args["corpus"]).lines():
        if sum(map(len, train)) < args["max_chars"]:
            train.append(line)
        elif sum(map(len, held)) < args["max_chars"] // 10:
            held.append(line)
        else:
            break
    return train, held


def pipeline_tokens(model: Any, pre_tokenizer: Any, lines: list[str]) -> int:
    tok = Tokenizer.from_parts(TokenizerParts(model=model, pre_tokenizer=pre_tokenizer, decoder=ByteLevelDecoder()))
    return sum(len(tok.encode(line).ids) for line in lines)


def decoded(token: str) -> str:
    """A byte-level token's text, each byte that is not part of a whole UTF-8 character as <0xNN>."""
    data = bytes(unicode_to_bytes()[c] for c in token).decode("utf-8", "backslashreplace")
    return re.sub(r"\\x([0-9a-f]{2})", lambda m: f"<0x{m.group(1).upper()}>", data)


def check_superbpe(args: Mapping[str, Any], values: Mapping[str, Any]) -> None:
    """Merges, stages and superwords as train_superbpe gives them; plain BPE is train_superbpe with
    the switch at the vocabulary size; tokens per byte as the pipeline encodes the held-out text."""
    if args["lines"]:
        train = [f"{line}\n" for line, n in args["lines"].items() for _ in range(n)]
        held = train
    else:
        assert args["corpus"] != "active"  # the built-in lessons name their sample
        train, held = texts(args)
    size = args["vocab_size"]
    switch = args["transition"] if args["transition"] is not None else round(size * args["transition_percent"] / 100)
    r = train_superbpe(train, vocab_size=size, transition=switch, special_tokens=())
    plain = train_superbpe(train, vocab_size=size, transition=size, special_tokens=())
    assert values["superwords"] == len(r.superwords()) and values["superword_list"] == r.superwords()
    assert values["merges_before"] == r.transition_step and values["merges"] == len(r.merges)
    assert values["stage2_merges"] == [[decoded(a), decoded(b)] for a, b in r.merges[r.transition_step:]]
    assert values["same_as_bpe"] == (r.merges == plain.merges)
    assert values["first_superword"] == (r.superwords() or [None])[0]
    data = sum(len(line.encode("utf-8")) for line in held)
    assert values["bytes"] == data
    assert values["tokens"] == pipeline_tokens(r.model, stage2_pre_tokenizer(), held)
    assert values["bpe_tokens"] == pipeline_tokens(plain.model, stage1_pre_tokenizer(), held)
    assert values["tokens_per_byte"] == values["tokens"] / data
    assert values["saving_percent"] == 100 * (1 - values["tokens"] / values["bpe_tokens"])
    text = args["text"]
    super_text = Tokenizer.from_parts(TokenizerParts(model=r.model, pre_tokenizer=stage2_pre_tokenizer(),
                                                     decoder=ByteLevelDecoder())).encode(text).tokens
    assert values["segmentation"] == [decoded(t) for t in super_text]


def check_pickybpe(args: Mapping[str, Any], values: Mapping[str, Any]) -> None:
    """Events, removals and comebacks as train_pickybpe's trace gives them; plain BPE as our BPE
    trainer on the same words; tokens per byte as the pipeline encodes the held-out text."""
    size, threshold = args["vocab_size"], args["threshold"]
    if args["words"]:
        counts = {bytes_to_symbols(w.encode("utf-8")): n for w, n in args["words"].items()}
        r = train_pickybpe_counts(counts, vocab_size=size, threshold=threshold, special_tokens=())
        held_tokens = sum(n * len(r.model.segment(w)) for w, n in counts.items())
        data = sum(n * len(w.encode("utf-8")) for w, n in args["words"].items())
    else:
        train, held = texts(args)
        r = train_pickybpe(train, vocab_size=size, threshold=threshold, special_tokens=())
        held_tokens = pipeline_tokens(r.model, ByteLevel(add_prefix_space=False), held)
        data = sum(len(line.encode("utf-8")) for line in held)
        counts = count_words(train, pre_tokenizer=ByteLevel(add_prefix_space=False))  # as train_pickybpe counts
    removals = r.trace.removals()
    assert values["removals"] == len(removals) and values["merges"] == len(r.merges)
    assert values["removed"] == [decoded(e.token) for e in removals]
    assert values["removal_ios"] == [e.ios for e in removals]
    assert values["removed_at_end"] == [decoded(t) for t in r.removed]
    restored = [decoded(e.token) for e in r.trace if e.kind == "merge" and e.status == "restored"]
    assert values["restored"] == list(dict.fromkeys(restored)) and values["comebacks"] == len(set(restored))
    for e in removals:  # each removed token's first removal
        first = next(x for x in removals if x.token == e.token)
        assert values[f"ios:{decoded(e.token)}"] == first.ios and values[f"removed_at:{decoded(e.token)}"] == first.step
    assert values["tokens"] == held_tokens and values["bytes"] == data
    bpe = train_bpe_counts(counts, vocab_size=size, special_tokens=(), initial_alphabet=byte_level_alphabet(), top_k=0)
    assert values["same_as_bpe"] == (r.merges == bpe.merges and not removals)
    if threshold == 1:  # nothing can be removed: plain BPE, merge for merge
        assert not removals and values["same_as_bpe"] and values["tokens"] == values["bpe_tokens"]

