"""Lesson figures of entropy patching (the Byte Latent Transformer): a text's next-byte entropy under
a byte n-gram model of a corpus (a bundled sample, the active corpus, or a toy text the lesson gives),
the patches the global or relative rule cuts, and the space-patching baseline beside them
(:mod:`tokenizer_core.patches`).

>>> r = entropy_patches_figure({"text": "abab", "corpus": "default", "train_text": "ab", "repeat": 4,
...                             "order": 2, "threshold": 2.0, "rule": "global"}, Context())
>>> r.values["patches"], r.values["first_start"], round(r.values["entropy:1"], 2)  # byte 1: "b" after "a"
(1, 0, 0.96)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tokenizer_core.corpus.loading import load_sample
from tokenizer_core.lessons.figure_types import Chart, Context, FigureKind, FigureResult, Param, Table, TokenRow
from tokenizer_core.patches import ByteNgramModel, joined_bytes, patch_starts, patches_of

TRAIN_BYTES = 10 * 2**20


def _corpus(args: Mapping[str, Any], ctx: Context) -> tuple[bytes, str]:
    if args["train_text"]:
        return args["train_text"].encode("utf-8") * args["repeat"], f"“{args['train_text']}” ×{args['repeat']}"
    if args["corpus"] == "active":
        return joined_bytes(ctx.corpus_lines(), limit=TRAIN_BYTES), ctx.corpus_name
    return joined_bytes(load_sample(args["corpus"]).texts, limit=TRAIN_BYTES), f"the {args['corpus']} sample"


def _space_starts(data: bytes) -> list[int]:
    """The paper's space-patching baseline: a patch starts at the first byte and after each space."""
    return [0] + [i for i in range(1, len(data)) if data[i - 1:i] == b" " and data[i:i + 1] != b" "] if data else []


def entropy_patches_figure(args: Mapping[str, Any], ctx: Context) -> FigureResult:
    """``text`` cut into patches by a byte ``order``-gram model of the corpus and rule ``rule``."""
    corpus, name = _corpus(args, ctx)
    model = ByteNgramModel.train(corpus, order=args["order"])
    data = args["text"].encode("utf-8")
    h = model.entropies(data).tolist()
    starts = patch_starts(h, threshold=args["threshold"], mode=args["rule"])
    patches = patches_of(data, starts)
    space = patches_of(data, _space_starts(data))
    after_space = [s for s in starts if s and data[s - 1:s] == b" "]
    values: dict[str, Any] = {
        "bytes": len(data), "patches": len(patches), "bytes_per_patch": len(data) / max(len(patches), 1),
        "space_patches": len(space), "first_start": starts[0] if starts else None,
        "mean_entropy": sum(h) / max(len(h), 1), "max_entropy": max(h, default=0.0),
        "starts_after_space": len(after_space), "patch_texts": [p.text for p in patches],
    }
    values.update({f"entropy:{i}": v for i, v in enumerate(h)})  # each byte's, for a claim about one
    chart = Chart("Next-byte entropy of each byte", "byte", "bits",
                  tuple({"x": i, "y": round(v, 3), "series": "starts a patch" if i in set(starts) else "entropy"}
                        for i, v in enumerate(h)), mark="bar")
    table = Table("The patches", ("patch", "bytes", "first byte's entropy (bits)"),
                  tuple((p.text, len(p.data), round(h[p.start], 2)) for p in patches))
    rule = f"entropy above {args['threshold']:g} bits" if args["rule"] == "global" else \
        f"entropy rising by more than {args['threshold']:g} bits"
    rows = (TokenRow(f"Entropy patches ({rule})", tuple(p.text for p in patches)),
            TokenRow("Space patches (a patch after each space)", tuple(p.text for p in space)))
    return FigureResult(f"{len(patches)} patches of {len(data)} bytes, a {args['order']}-gram model of {name}",
                        values, (table,), rows, (chart,))


KINDS = (
    FigureKind("entropy_patches", (Param("text", "str", max_len=300),
                                   Param("corpus", "str", default="default",
                                         choices=("active", "default", "multilingual")),
                                   Param("train_text", "str", default="", max_len=200),
                                   Param("repeat", "int", default=1, lo=1, hi=1000),
                                   Param("order", "int", default=4, lo=1, hi=6),
                                   Param("threshold", "float", default=2.0, lo=-1.0, hi=8.0),
                                   Param("rule", "str", default="global", choices=("global", "relative"))),
               entropy_patches_figure, "a text's next-byte entropy and its entropy patches (Byte Latent Transformer)"),
)
