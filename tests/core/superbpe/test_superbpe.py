"""SuperBPE (tokenizer_core/superbpe): against the authors' algorithm written out literally.

The reference trains stage 1 with ``tokenizers``' own BpeTrainer and the authors' stage-1 pre-tokenizer,
then does what their fork's stage 2 does, with no shortcut: every inherited merge replayed over every
stage-2 word in order, then the most frequent pair (ties to the smallest ids) recounted from scratch at
each step. Our trainer's merges must be the reference's, merge for merge, on corpora made to hit the
hand-over's hard cases (runs of spaces, indentation, numbers, punctuation, accents, emoji).
"""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tokenizers import Regex, models, pre_tokenizers, trainers
from tokenizers import Tokenizer as HFTokenizer

from tokenizer_core.errors import TokenizerError
from tokenizer_core.options import SuperBpeOptions, TrainOptions
from tokenizer_core.superbpe.inherit import replay
from tokenizer_core.superbpe.stages import (
    DIGIT_GROUPS,
    STAGE1_PATTERN,
    RawStage2,
    crosses_space,
    raw_stage2,
    stage1_pieces,
)
from tokenizer_core.superbpe.trainer import train_superbpe, train_superbpe_parts
from tokenizer_core.text.splitting import Split
from tokenizer_core.training import train

SPECIALS = ("<|endoftext|>",)
PIECES = ["the", "of", "and", "cat", "sat", "on", "mat", "é", "naïve", "😀", ",", ".", "!", "12345", "7", "2024",
          "def", "x", "=", "(", ")", ":"]


def corpus(seed: int, n: int = 60) -> list[str]:
    rng = random.Random(seed)
    lines = []
    for _ in range(n):
        indent = rng.choice(["", "", "    ", "  ", "\t"])
        words = [rng.choice(PIECES) for _ in range(rng.randint(1, 9))]
        seps = [rng.choice([" ", " ", " ", "  ", ""]) for _ in words]
        lines.append(indent + "".join(w + s for w, s in zip(words, seps)).rstrip(" ") + rng.choice(["\n", " \n"]))
    return lines


def hf_stage1(lines: list[str], vocab_size: int) -> HFTokenizer:
    tok = HFTokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Digits(individual_digits=False),
        pre_tokenizers.Split(Regex(STAGE1_PATTERN), behavior="isolated"),
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)])
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=list(SPECIALS), show_progress=False,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok.train_from_iterator(lines, trainer)
    return tok


def hf_merges(tok: HFTokenizer) -> list[tuple[str, str]]:
    return [tuple(m) if isinstance(m, list) else tuple(m.split(" ")) for m in json.loads(tok.to_str())["model"]["merges"]]


STAGE2_HF = pre_tokenizers.Sequence([
    pre_tokenizers.Digits(individual_digits=False),
    pre_tokenizers.Split(Regex(DIGIT_GROUPS), behavior="isolated"),
    pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)])

STAGE2_RAW_HF = pre_tokenizers.Sequence([
    pre_tokenizers.Split("\n", behavior="merged_with_previous"),
    pre_tokenizers.Digits(individual_digits=False),
    pre_tokenizers.Split(Regex(DIGIT_GROUPS), behavior="isolated")])


def reference(lines: list[str], vocab_size: int, transition: int) -> list[tuple[str, str]]:
    """The paper's two stages, literally (stage 1 by tokenizers itself), every inherited merge replayed."""
    stage1 = hf_stage1(lines, transition)
    inherited = hf_merges(stage1)
    vocab = dict(json.loads(stage1.to_str())["model"]["vocab"])
    # Stage 2 starts from special tokens and the alphabet; inherited merges add their tokens again, in order.
    ids = {t: i for t, i in vocab.items() if i < len(SPECIALS) + 256}
    counts = Counter(w for line in lines for w, _ in STAGE2_HF.pre_tokenize_str(line))
    words = [list(w) for w in counts]
    freq = list(counts.values())

    def pairs() -> Counter:
        c: Counter = Counter()
        for w, f in zip(words, freq):
            for a, b in zip(w, w[1:]):
                c[(a, b)] += f
        return c

    def merge_everywhere(a: str, b: str) -> None:
        for k, w in enumerate(words):
            out, i = [], 0
            while i < len(w):
                if i + 1 < len(w) and w[i] == a and w[i + 1] == b:
                    out.append(a + b)
                    i += 2
                else:
                    out.append(w[i])
                    i += 1
            words[k] = out

    merges = []
    for a, b in inherited:
        # Replayed even where it no longer occurs (the fork would drop it: see docs/algorithms-2024.md).
        merge_everywhere(a, b)
        ids.setdefault(a + b, len(ids))
        merges.append((a, b))
    while len(ids) < vocab_size and transition < vocab_size:
        c = pairs()
        if not c:
            break
        (a, b), n = min(c.items(), key=lambda kv: (-kv[1], ids[kv[0][0]], ids[kv[0][1]]))
        if n < 1:
            break
        merge_everywhere(a, b)
        ids.setdefault(a + b, len(ids))
        merges.append((a, b))
    return merges


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("share", [0.0, 0.5, 0.8, 1.0])
def test_merges_are_the_authors_algorithm(seed, share):
    lines = corpus(seed)
    vocab_size = 257 + 120
    transition = 257 + int(120 * share)
    ours = train_superbpe(lines, vocab_size=vocab_size, transition=transition, special_tokens=SPECIALS)
    assert ours.merges == reference(lines, vocab_size, transition)
    assert ours.transition_step <= transition - 257  # a small corpus may run out of words to merge in stage 1


@pytest.mark.parametrize("seed", range(4))
def test_stage1_is_plain_bpe_and_a_full_transition_trains_nothing_across_spaces(seed):
    lines = corpus(seed, 80)
    plain = hf_merges(hf_stage1(lines, 257 + 150))
    ours = train_superbpe(lines, vocab_size=257 + 150, transition=257 + 150, special_tokens=SPECIALS)
    assert ours.merges == plain and ours.superwords() == []
    half = train_superbpe(lines, vocab_size=257 + 150, transition=257 + 75, special_tokens=SPECIALS)
    assert half.transition_step == min(75, len(plain))
    assert half.merges[:half.transition_step] == plain[:half.transition_step]


def test_no_first_stage_is_bpe_over_whole_lines_as_tokenizers_trains_it():
    lines = corpus(11, 80)
    tok = HFTokenizer(models.BPE())
    tok.pre_tokenizer = STAGE2_HF
    tok.train_from_iterator(lines, trainers.BpeTrainer(
        vocab_size=257 + 100, special_tokens=list(SPECIALS), show_progress=False,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    ours = train_superbpe(lines, vocab_size=257 + 100, transition=1, special_tokens=SPECIALS)
    assert ours.transition_step == 0 and ours.merges == hf_merges(tok)


def test_the_hand_over_replays_runs_of_spaces_across_piece_borders():
    # "a  b": stage 1 cuts "a", "Ġ", "Ġb"; once "ĠĠ" is a merge, stage 2's replay joins the two spaces.
    lines = ["a  b\n", "x    y\n"] * 20 + ["a b\n"] * 3
    r = train_superbpe(lines, vocab_size=262, transition=259, special_tokens=SPECIALS)
    assert ("Ġ", "Ġ") in r.merges[:r.transition_step] and r.clusters >= 2
    assert r.merges == reference(lines, 262, 259)


def test_replay_is_merge_order_not_lowest_rank_present():
    # "abc" exists (rank 2) before (a, bc) re-creates it (rank 3); rank 1's (abc, d) then never applies.
    ranks = {("a", "b"): 0, ("abc", "d"): 1, ("ab", "c"): 2, ("b", "c"): 3}
    assert replay("abcd", ranks) == ["abc", "d"]
    assert replay("xbcd", ranks) == ["x", "bc", "d"]


def test_the_tokenizer_file_encodes_as_tokenizers_encodes_it():
    lines = corpus(5, 120)
    opts = TrainOptions(vocab_size=257 + 160, special_tokens=SPECIALS, superbpe=SuperBpeOptions(transition_share=0.6))
    tok = train("superbpe", lines, options=opts)
    hf = HFTokenizer.from_str(json.dumps(tok.to_hf_json()))
    texts = corpus(99, 30) + ["the cat sat on the mat  and 1234567 naïve 😀\n\nof the", ""]
    for text in texts:
        ours = tok.encode(text)
        theirs = hf.encode(text, add_special_tokens=False)
        assert ours.ids == theirs.ids, text
        assert tok.decode(ours.ids) == text
    assert tok.metadata["superwords"] > 0


def test_superwords_bridge_whitespace():
    assert crosses_space(" of the") and crosses_space("the ") and crosses_space(",\tand")
    assert not crosses_space(" the") and not crosses_space("   ") and not crosses_space("")


def test_bad_settings_and_empty_corpora_are_told():
    with pytest.raises(TokenizerError, match="vocab_size"):
        train_superbpe(["a\n"], vocab_size=0, transition=1)
    with pytest.raises(TokenizerError, match="no words"):
        train_superbpe([], vocab_size=300, transition=280)
    with pytest.raises(TokenizerError, match="num_merges"):
        train_superbpe_parts(["a\n"], options=TrainOptions(num_merges=3))
    with pytest.raises(TokenizerError, match="transition_share"):
        SuperBpeOptions(transition_share=1.5)


@settings(max_examples=300, deadline=None)
@given(text=st.text(alphabet=st.sampled_from(list("ab Z\n\t.,'1234567890½²٣é😀 ")), max_size=40))
def test_the_fast_splits_are_the_pre_tokenizers_own(text):
    fast = RawStage2().words(text)
    assert fast == raw_stage2().words(text) == [w for w, _ in STAGE2_RAW_HF.pre_tokenize_str(text)]
    for piece in fast:
        assert stage1_pieces(piece) == Split(STAGE1_PATTERN, is_regex=True, behavior="isolated").words(piece)
