"""What the Batch page computes: templates swapped onto any tokenizer, random padding/truncation
configurations against ``tokenizers`` (property tests), position ids, packing and budgets."""

from __future__ import annotations

from typing import Optional

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from tokenizers import processors as hf_proc

from tests.core.pipeline.test_batching_parity import (
    SENTENCES,
    SPECIALS,
    VOCAB,
    _hf,
    hf_padding_kwargs,
    hf_truncation_kwargs,
    view,
)
from tokenizer_core.analysis.batch_templates import TEMPLATES, with_template
from tokenizer_core.batch.batching import PaddingParams, TruncationParams
from tokenizer_core.batch.packing import (
    pack,
    packed_mask,
    packed_position_ids,
    position_ids,
    token_budget_batches,
    waste_by_batch_size,
)
from tokenizer_core.classic.word import WordLevel
from tokenizer_core.errors import TokenizerError
from tokenizer_core.pipeline import Tokenizer
from tokenizer_core.text.pre_tokenizers import Whitespace

REFUSED: list = []
COMPARED: list = []
OURS = Tokenizer(WordLevel(VOCAB, unk_token="[UNK]"), pre_tokenizer=Whitespace(), special_tokens=SPECIALS)


def _hf_with(name: str):
    single, pair = TEMPLATES[name]
    words = sorted({w.split(":")[0] for w in (single + " " + pair).split() if not w.startswith("$")})
    hf = _hf(hf_proc.TemplateProcessing(single=single, pair=pair, special_tokens=[(w, VOCAB[w]) for w in words]))
    hf.add_special_tokens(SPECIALS)
    return hf


configs = st.fixed_dictionaries({
    "template": st.sampled_from(sorted(TEMPLATES)),
    "pairs": st.booleans(),
    "rows": st.integers(1, 6),
    "start": st.integers(0, len(SENTENCES) - 20),
    "truncation": st.one_of(st.none(), st.tuples(st.sampled_from(["longest_first", "only_first", "only_second"]),
                                                 st.integers(4, 30), st.integers(0, 6), st.sampled_from(["right", "left"]))),
    "padding": st.one_of(st.none(), st.tuples(st.sampled_from(["longest", "max_length"]), st.sampled_from(["right", "left"]),
                                              st.sampled_from([None, 2, 8]), st.integers(1, 40))),
})


@settings(max_examples=60)
@given(configs)
def test_random_batch_configurations_match_tokenizers(cfg) -> None:
    texts = SENTENCES[cfg["start"]:cfg["start"] + cfg["rows"]]
    pairs: Optional[list[str]] = SENTENCES[cfg["start"] + 10:cfg["start"] + 10 + cfg["rows"]] if cfg["pairs"] else None
    truncation = padding = None
    if cfg["truncation"] is not None:
        strategy, max_length, stride, side = cfg["truncation"]
        assume(pairs is not None or strategy != "only_second")
        truncation = TruncationParams(strategy=strategy, max_length=max_length, stride=stride, side=side)
    if cfg["padding"] is not None:
        strategy, side, multiple, length = cfg["padding"]
        padding = PaddingParams(strategy=strategy, side=side, pad_to_multiple_of=multiple,
                                max_length=length if strategy == "max_length" else None, pad_id=VOCAB["[PAD]"])
    tok = with_template(OURS, cfg["template"])
    try:
        got = tok.encode_batch(texts, pairs=pairs, truncation=truncation, padding=padding)
    except TokenizerError:
        # Ours refuses settings where tokenizers panics or cuts silently wrong (a stride as long as
        # the room left, max_length under the special tokens, only_second on a too-long first text).
        REFUSED.append(cfg)
        return
    COMPARED.append(cfg)
    hf = _hf_with(cfg["template"])
    if truncation is not None:
        hf.enable_truncation(**hf_truncation_kwargs(truncation))
    if padding is not None:
        hf.enable_padding(**hf_padding_kwargs(padding))
    expected = hf.encode_batch(list(zip(texts, pairs)) if pairs else texts)
    assert [view(e) for e in got.encodings] == [view(e) for e in expected]


def test_most_random_configurations_were_compared():
    # Runs after the property test (file order): the refusals must not hollow it out.
    assert len(COMPARED) >= 2 * len(REFUSED), (len(COMPARED), len(REFUSED))


def test_templates_need_their_tokens():
    bare = Tokenizer(WordLevel({"[UNK]": 0, "a": 1}, unk_token="[UNK]"), pre_tokenizer=Whitespace())
    for name in ("bert", "roberta", "llama"):
        with pytest.raises(TokenizerError, match=f"the {name} template needs"):
            with_template(bare, name)
    assert with_template(bare, "gpt2").encode("a").tokens == ["a"]
    assert with_template(bare, "none").post_processor is None and with_template(bare, "own") is bare
    with pytest.raises(TokenizerError, match="must contain \\$A"):
        with_template(bare, "custom", single="[UNK]")


@given(st.lists(st.integers(0, 1), min_size=1, max_size=30))
def test_generation_position_ids_follow_transformers(mask):
    # transformers: cumsum(mask) - 1, then positions of padding filled with 1.
    m = np.array(mask)
    expected = np.where(m == 0, 1, np.cumsum(m) - 1)
    assert position_ids(mask, generation=True) == expected.tolist()
    assert position_ids(mask) == list(range(len(mask)))


@given(st.lists(st.integers(0, 50), max_size=40), st.integers(50, 200))
def test_packing_fills_rows_without_splitting_or_losing_a_sequence(lengths, max_length):
    rows = pack(lengths, max_length=max_length)
    assert sorted(i for r in rows for i in r) == list(range(len(lengths)))
    assert all(sum(lengths[i] for i in r) <= max_length for r in rows)
    # First-fit decreasing never needs more than about 11/9 of the optimum; at least never more
    # rows than sequences, and one row whenever everything fits in one.
    if sum(lengths) <= max_length:
        assert len(rows) <= 1


@given(st.lists(st.integers(1, 12), min_size=1, max_size=6))
def test_packed_mask_is_block_diagonal_causal(docs):
    mask = packed_mask(docs)
    pos = packed_position_ids(docs)
    doc_of = [d for d, n in enumerate(docs) for _ in range(n)]
    for q in range(len(pos)):
        for k in range(len(pos)):
            assert mask[q, k] == int(doc_of[q] == doc_of[k] and k <= q)
    starts = [i for i, p in enumerate(pos) if p == 0]
    assert len(starts) == len(docs)


@given(st.lists(st.integers(1, 100), max_size=40), st.integers(1, 400))
def test_token_budget_batches_stay_within_the_budget(lengths, budget):
    batches = token_budget_batches(lengths, budget=budget)
    assert sorted(i for b in batches for i in b) == list(range(len(lengths)))
    for b in batches:
        assert len(b) == 1 or len(b) * max(lengths[i] for i in b) <= budget


def test_course_lengths_waste():
    one, three = waste_by_batch_size([10, 50, 500], [1, 3])
    assert one.pad_fraction == 0 and one.attention_cells == 10**2 + 50**2 + 500**2
    assert three.attention_cells == 3 * 500**2 and round(three.pad_fraction, 4) == round(940 / 1500, 4)
