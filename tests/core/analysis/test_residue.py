"""Residue and glitch tokens (tokenizer_core/analysis/residue.py): the intermediate counts derived from
one trace per final token equal a direct simulation of every pre-token of the corpus; unreachable and
non-round-tripping tokens are found; GPT-2's known glitch tokens are in its vocabulary and on top."""

from __future__ import annotations

from collections import Counter

import pytest

from tokenizer_core.analysis.residue import GPT2_GLITCH_TOKENS, residue_rows
from tokenizer_core.bpe.model import BPE
from tokenizer_core.corpus.loading import load_sample
from tokenizer_core.errors import TokenizerError
from tokenizer_core.io.references import load_reference
from tokenizer_core.options import TrainOptions
from tokenizer_core.training import train


def _simulated(tok, lines: list[str]) -> tuple[Counter, Counter]:
    """Final and intermediate counts by tracing every pre-token of every line (the slow, direct way)."""
    finals: Counter = Counter()
    made: Counter = Counter()
    for line in lines:
        for piece in tok.explain(line).pieces:
            trace = tok.model.encode_trace(piece.text, max_rank=1 << 40)
            for step in trace.steps:
                made[step.token] += 1
            for t in trace.tokens:
                finals[t.text] += 1
    return finals, made - finals


@pytest.mark.parametrize("name", ["gpt2", "cl100k_base"])
def test_intermediate_counts_equal_a_direct_simulation_of_every_pre_token(name):
    tok = load_reference(name)
    lines = [line for line in load_sample("default").lines()][:300]
    finals, intermediates = _simulated(tok, lines)
    rows = {r.token: r for r in residue_rows(tok, lines, check_round_trips=False)}
    assert {t: r.final for t, r in rows.items() if r.final} == {t: c for t, c in finals.items() if c}
    assert {t: r.intermediate for t, r in rows.items() if r.intermediate} == {t: c for t, c in intermediates.items() if c}
    assert sum(1 for r in rows.values() if r.intermediate) > 50  # the corpus has residues to find


def test_a_token_no_merge_order_reaches_is_unreachable_and_does_not_round_trip():
    # "abc" is in the vocabulary, but the merges make "ab" then stop: nothing merges "ab"+"c".
    model = BPE({"a": 0, "b": 1, "c": 2, "ab": 3, "bc": 4, "abc": 5}, [("a", "b"), ("b", "c")])
    tok = train("bpe", ["ab\n"], options=TrainOptions(num_merges=1, special_tokens=()))
    tok.model = model
    rows = {r.token: r for r in residue_rows(tok, ["abc abc"])}
    assert rows["abc"].reachable is False and rows["abc"].round_trips is False and rows["abc"].final == 0
    assert rows["bc"].reachable is True and rows["bc"].final == 0  # "ab" goes first: "bc" is never made here
    assert rows["ab"].final == 2 and rows["ab"].round_trips


def test_gpt2s_known_glitch_tokens_are_in_its_vocabulary_and_ranked_first():
    tok = load_reference("gpt2")
    vocab_texts = {tok.decode([i]) for i in tok.get_vocab().values()}
    assert set(GPT2_GLITCH_TOKENS) <= vocab_texts
    rows = residue_rows(tok, ["The cat sat on the mat."])
    top = rows[: len(GPT2_GLITCH_TOKENS)]
    assert all(r.glitch for r in top) and {tok.decode([r.id]) for r in top} == set(GPT2_GLITCH_TOKENS)
    assert not any(r.glitch for r in rows[len(GPT2_GLITCH_TOKENS):])
    after = rows[len(GPT2_GLITCH_TOKENS):]
    assert [r.residue for r in after] == sorted((r.residue for r in after), reverse=True)


def test_a_tokenizer_without_a_vocabulary_is_refused():
    class Empty:
        def get_vocab(self):
            return {}

    with pytest.raises(TokenizerError, match="no vocabulary"):
        residue_rows(Empty(), ["x"])
