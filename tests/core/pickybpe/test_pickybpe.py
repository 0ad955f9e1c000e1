"""PickyBPE (tokenizer_core/pickybpe): against the paper's definitions written out literally.

The reference trainer below recounts everything from scratch at each step: the pairs (the most
frequent merges, ties to the smallest ids), every occurrence of a token, the vocabulary (the tokens
present). After each merge of ``(x1, x2)`` it checks ``x1`` and then ``x2`` by the paper's
Intersection over Self, ``f(x1, x2) / f(x)`` with ``f(x)`` counted before the merge, evaluated as
the authors' code evaluates it: ``merged / (merged + what is left of x)``, which is that same number
except where ``x1 = x2`` or removing ``x1`` gave copies of ``x2`` back (the reference asserts the
equality everywhere else; the worked examples show both exceptions). A token goes when its IoS is
above the threshold (their code's ``>``), back into the pair it was first made from.
"""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tokenizers import Tokenizer as HFTokenizer

from tokenizer_core import load_sample
from tokenizer_core.bpe.trainer import train_bpe_counts
from tokenizer_core.errors import FormatError, TokenizerError
from tokenizer_core.options import PickyBpeOptions, TrainOptions
from tokenizer_core.pickybpe.model import PickyBPE
from tokenizer_core.pickybpe.state import TrainingState
from tokenizer_core.pickybpe.trainer import train_pickybpe, train_pickybpe_counts, train_pickybpe_parts
from tokenizer_core.pipeline import Tokenizer
from tokenizer_core.text.byte_level import byte_level_alphabet
from tokenizer_core.text.counting import count_words
from tokenizer_core.text.pre_tokenizers import ByteLevel
from tokenizer_core.training import MAX_DISTINCT_WORDS, TRAINERS, train

ALPHABET = byte_level_alphabet()


def merge_word(w: list[str], x1: str, x2: str) -> tuple[list[str], int]:
    out, i, done = [], 0, 0
    while i < len(w):
        if i + 1 < len(w) and w[i] == x1 and w[i + 1] == x2:
            out.append(x1 + x2)
            i += 2
            done += 1
        else:
            out.append(w[i])
            i += 1
    return out, done


def reference(word_counts: dict[str, int], vocab_size: int, threshold: float, specials: tuple[str, ...] = ()):
    """The events (``("merge", x1, x2, merged)``, ``("remove", x, split, ios)``) and the words after each."""
    ids = {t: i for i, t in enumerate(dict.fromkeys([*specials, *ALPHABET]))}
    atomic = set(ids)
    made_from: dict[str, tuple[str, str]] = {}
    present = set(ids)
    words = [list(w) for w in word_counts]
    counts = list(word_counts.values())
    events, snapshots = [], []

    def occurrences() -> Counter:
        f: Counter = Counter()
        for w, c in zip(words, counts):
            for t in w:
                f[t] += c
        return f

    def expand(t: str) -> list[str]:
        if t in present or t in atomic:
            return [t]
        return expand(made_from[t][0]) + expand(made_from[t][1])

    while len(present) < vocab_size:
        pairs: Counter = Counter()
        for w, c in zip(words, counts):
            for p in zip(w, w[1:]):
                pairs[p] += c
        if not pairs:
            break
        x1, x2 = min(pairs, key=lambda p: (-pairs[p], ids[p[0]], ids[p[1]]))
        before = occurrences()
        new = x1 + x2
        if new not in ids:
            ids[new] = len(ids)
            made_from[new] = (x1, x2)
        present.add(new)
        merged = 0
        for k, w in enumerate(words):
            words[k], done = merge_word(w, x1, x2)
            merged += done * counts[k]
        events.append(("merge", x1, x2, merged))
        snapshots.append([list(w) for w in words])
        removed_first = False
        for x in dict.fromkeys((x1, x2)):
            left = occurrences()[x]
            ios = merged / (merged + left)
            if x1 != x2 and not removed_first:
                assert ios == merged / before[x]  # the paper's f(x1, x2) / f(x), counts before the merge
            if x in atomic or ios <= threshold:
                continue
            present.discard(x)
            split = expand(x)
            words = [[s for t in w for s in (split if t == x else [t])] for w in words]
            events.append(("remove", x, tuple(split), ios))
            snapshots.append([list(w) for w in words])
            removed_first = True
    return events, snapshots, words


def ours(result) -> list[tuple]:
    return [("merge", e.left, e.right, e.merged) if e.kind == "merge" else ("remove", e.token, e.split, e.ios)
            for e in result.trace]


def random_counts(seed: int, letters: str = "abc", n: int = 30) -> dict[str, int]:
    rng = random.Random(seed)
    out: dict[str, int] = {}
    for _ in range(n):
        w = "".join(rng.choice(letters) for _ in range(rng.randint(1, 9)))
        out[w] = out.get(w, 0) + rng.choice([1, 1, 2, 3, 5, 8, 20])
    return out


def text_counts(lines: list[str]) -> dict[str, int]:
    return dict(count_words(lines, pre_tokenizer=ByteLevel(add_prefix_space=False)))


SENTENCES = ["the cat sat on the mat\n", "the cattle and the catalogue\n", "would could should\n",
             "should we? we would, we could.\n", "naïve café 😀 😀\n", "aaaa aaa aa a\n"]


def prose(n: int) -> list[str]:
    lines = list(load_sample("default").lines())
    return lines[:n]


CORPORA = [("random abc", random_counts(1), 280), ("random abc 2", random_counts(2, n=60), 300),
           ("random ab", random_counts(3, letters="ab", n=40), 290),
           ("sentences", text_counts(SENTENCES * 3), 300), ("prose", text_counts(prose(40)), 340)]


@pytest.mark.parametrize("threshold", [0.3, 0.6, 0.75, 0.9, 1.0])
@pytest.mark.parametrize("name,counts,vocab", CORPORA, ids=[c[0] for c in CORPORA])
def test_events_are_the_papers_algorithm_recounted_from_scratch(name, counts, vocab, threshold):
    result = train_pickybpe_counts(counts, vocab_size=vocab, threshold=threshold, special_tokens=("<s>",))
    events, _, words = reference(counts, vocab, threshold, specials=("<s>",))
    assert ours(result) == events
    assert result.segmentations() == {w: seg for w, seg in zip(counts, words)}
    present = set(ALPHABET) | {"<s>"} | {t for seg in words for t in seg}
    assert present <= set(result.vocab) and list(result.vocab.values()) == list(range(len(result.vocab)))
    if result.stop_reason.startswith("reached"):
        assert len(result.vocab) == vocab  # removals free room: the vocabulary counts present tokens


def test_the_corpora_remove_tokens_and_bring_some_back():
    """The comparison above is only worth something if removals (and returns) happen in it."""
    removed = restored = 0
    for _, counts, vocab in CORPORA:
        trace = train_pickybpe_counts(counts, vocab_size=vocab, threshold=0.6, special_tokens=()).trace
        removed += len(trace.removals())
        restored += sum(e.status == "restored" for e in trace.merges())
    assert removed > 30 and restored > 3


@pytest.mark.parametrize("name,counts,vocab", CORPORA, ids=[c[0] for c in CORPORA])
def test_each_event_leaves_the_words_as_replaying_the_events_does(name, counts, vocab):
    result = train_pickybpe_counts(counts, vocab_size=vocab, threshold=0.6, special_tokens=())
    _, snapshots, _ = reference(counts, vocab, 0.6)
    for k in range(0, len(snapshots), max(1, len(snapshots) // 12)):
        assert [result.model.segment(w, upto=k + 1) for w in counts] == snapshots[k]


@pytest.mark.parametrize("seed", range(4))
def test_a_threshold_of_one_is_our_plain_bpe(seed):
    counts = random_counts(seed, n=50) if seed < 2 else text_counts(prose(300 * seed))
    vocab = 300 if seed < 2 else 700
    bpe = train_bpe_counts(counts, vocab_size=vocab, special_tokens=("<|endoftext|>",), initial_alphabet=ALPHABET)
    picky = train_pickybpe_counts(counts, vocab_size=vocab, threshold=1.0)
    assert picky.merges == bpe.merges and picky.vocab == bpe.vocab and not picky.trace.removals()


def test_a_threshold_of_one_trains_our_byte_level_bpe_tokenizer():
    text = "the cattle would, 12 naïve 😀\n  indented"
    lines = [*SENTENCES, *prose(200)]
    bpe_tok = train("bpe", lines, options=TrainOptions(vocab_size=600, byte_level=True))
    picky_tok = train("pickybpe", lines, options=TrainOptions(vocab_size=600, pickybpe=PickyBpeOptions(threshold=1)))
    assert picky_tok.encode(text).ids == bpe_tok.encode(text).ids and picky_tok.get_vocab() == bpe_tok.get_vocab()


# ---------------------------------------------------------------------------------- worked examples


def test_worked_example_a_token_used_up_goes_and_a_later_merge_brings_it_back():
    # (a, b) 11 times -> ab; (ab, c) 10 times -> abc, which used 10 of ab's 11: IoS 10/11 = 0.909 > 0.9.
    r = train_pickybpe_counts({"abc": 10, "ab": 1}, vocab_size=258, threshold=0.9, special_tokens=())
    merge1, merge2, removal, merge3 = r.trace
    assert (merge1.token, merge1.merged, merge2.token, merge2.merged) == ("ab", 11, "abc", 10)
    assert (removal.token, removal.ios, removal.trigger, removal.remaining, removal.split) == \
        ("ab", 10 / 11, ("ab", "c"), 1, ("a", "b"))
    assert (removal.index, removal.step, removal.vocab_size) == (2, 2, 257)
    assert (merge3.left, merge3.right, merge3.status, merge3.count) == ("a", "b", "restored", 1)
    assert r.vocab["ab"] < r.vocab["abc"]  # it keeps its first place
    assert r.segmentations() == {"abc": ["abc"], "ab": ["ab"]} and r.stop_reason == "reached vocab_size 258"
    # 10/11 is not above 0.95: nothing goes, and the third merge is another pair.
    kept = train_pickybpe_counts({"abc": 10, "ab": 1}, vocab_size=258, threshold=0.95, special_tokens=())
    assert not kept.trace.removals() and kept.merges == [("a", "b"), ("ab", "c")]


def test_worked_example_a_pair_of_one_token_uses_two_of_it():
    # "aaaa" x5: (a, a) occurs 15 times, merges 10 -> "aa aa"; (aa, aa) merges 5 and leaves no aa:
    # IoS = 5 / (5 + 0) = 1, where the paper's formula read literally gives f(aa, aa) / f(aa) = 5/10.
    r = train_pickybpe_counts({"aaaa": 5}, vocab_size=300, threshold=0.9, special_tokens=())
    assert [(e.kind, e.token) for e in r.trace] == [("merge", "aa"), ("merge", "aaaa"), ("remove", "aa")]
    assert (r.trace[0].count, r.trace[0].merged, r.trace[1].merged) == (15, 10, 5)
    assert r.trace[2].ios == 1.0 and r.trace[2].remaining == 0
    assert r.stop_reason == "no pairs left to merge: every word is a single token"
    assert "aa" not in r.vocab and len(r.vocab) == 257


def test_worked_example_the_second_token_counts_what_the_first_gave_back():
    # (a, b) -> ab (32); (ab, ab) -> abab merges 11, leaves 10 ab: IoS 11/21, kept. (abab, ab) merges 10:
    # abab had 11, IoS 10/11 = 0.909 > 0.85: it goes, and the one left ("abab" x1) gives back two ab.
    # Then ab: 10 merged, 0 left before and 2 given back: IoS 10/12 = 0.833, kept (the paper's formula
    # with ab's count before the merge would give 10/10). One slot is free again: (ab, ab) once more
    # brings abab back and uses the last two ab (IoS 1/1), which go; nothing is left to merge.
    r = train_pickybpe_counts({"ababab": 10, "abab": 1}, vocab_size=259, threshold=0.85, special_tokens=())
    assert [(e.kind, e.token) for e in r.trace] == [("merge", "ab"), ("merge", "abab"), ("merge", "ababab"),
                                                  ("remove", "abab"), ("merge", "abab"), ("remove", "ab")]
    assert [r.trace[1].count, r.trace[1].merged] == [21, 11]
    assert (r.trace[3].ios, r.trace[3].remaining, r.trace[3].split) == (10 / 11, 1, ("ab", "ab"))
    assert (r.trace[4].status, r.trace[5].ios, r.trace[5].remaining, r.trace[5].trigger) == \
        ("restored", 1.0, 0, ("ab", "ab"))
    assert r.segmentations() == {"ababab": ["ababab"], "abab": ["abab"]} and len(r.vocab) == 258
    at_08 = train_pickybpe_counts({"ababab": 10, "abab": 1}, vocab_size=259, threshold=0.8, special_tokens=())
    assert [(e.token, e.ios, e.step) for e in at_08.trace.removals()[:2]] == [("abab", 10 / 11, 3), ("ab", 10 / 12, 3)]
    assert at_08.trace[4].split == ("a", "b") and at_08.trace[5].status == "restored"


def test_worked_example_the_papers_ould():
    # The paper's Figure 2: "ould" goes only after its third merge into a longer token, as its IoS
    # grows 10/24, 8/14, 6/6. Before it, ld and ou go at once (all 24 of each made ould: IoS 1).
    r = train_pickybpe_counts({"would": 10, "could": 8, "should": 6}, vocab_size=270, threshold=0.9,
                              special_tokens=())
    assert [(e.left, e.right, e.merged) for e in r.trace.merges()] == [
        ("l", "d", 24), ("o", "u", 24), ("ou", "ld", 24), ("w", "ould", 10), ("c", "ould", 8), ("h", "ould", 6),
        ("s", "hould", 6)]
    assert [(e.token, e.ios, e.trigger) for e in r.trace.removals()] == [
        ("ou", 1.0, ("ou", "ld")), ("ld", 1.0, ("ou", "ld")), ("ould", 1.0, ("h", "ould")),
        ("hould", 1.0, ("s", "hould"))]
    assert set(r.vocab) - set(ALPHABET) == {"would", "could", "should"}
    assert r.stop_reason == "no pairs left to merge: every word is a single token"


# ---------------------------------------------------------------------------------- encoding


def sequential(events: list[tuple], piece: str) -> list[str]:
    """Each event in order over the piece, with nothing skipped: what training does to a word."""
    w = list(piece)
    for e in events:
        if e[0] == "merge":
            w = merge_word(w, e[1], e[2])[0]
        else:
            w = [s for t in w for s in (e[2] if t == e[1] else [t])]
    return w


@pytest.fixture(scope="module")
def picky_prose():
    return train_pickybpe_counts(text_counts(prose(400)), vocab_size=800, threshold=0.6, special_tokens=())


def test_encoding_replays_the_events_in_training_order(picky_prose):
    model = picky_prose.model
    assert picky_prose.trace.removals()
    held = count_words(list(load_sample("default").lines())[400:900], pre_tokenizer=ByteLevel(add_prefix_space=False))
    for piece in list(held)[:1500]:
        assert model.segment(piece) == sequential(model.events, piece), piece
    # and some removed tokens are still merge inputs, which a plain merge list could not hold
    removed = set(model.removed_tokens())
    assert any(a in removed or b in removed for a, b in model.merges)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="abcĠ", max_size=40))
def test_encoding_any_piece_is_the_events_in_order(piece):
    result = train_pickybpe_counts(random_counts(7, letters="abcĠ", n=60), vocab_size=300, threshold=0.5,
                                   special_tokens=())
    tokens = result.model.tokenize(piece)
    assert [t.text for t in tokens] == sequential(result.model.events, piece)
    assert "".join(t.text for t in tokens) == piece
    assert all(piece[s:e] == t.text for t, (s, e) in zip(tokens, [t.offsets for t in tokens]))


def test_ignore_merges_is_the_authors_whole_word_lookup():
    # bb goes (used up by bbc) before ba is learned, so "bba" never holds ba when (b, ba) comes: the
    # events leave it b b a, though b + ba made the token bba in other words.
    events = [("merge", "b", "b"), ("merge", "b", "a"), ("merge", "bb", "c"), ("remove", "bb", ("b", "b")),
              ("merge", "b", "ba")]
    vocab = {t: i for i, t in enumerate(["a", "b", "c", "ba", "bbc", "bba"])}
    assert PickyBPE(vocab, events).segment("bba") == ["b", "b", "a"] == sequential(events, "bba")
    whole = PickyBPE.from_dict(PickyBPE(vocab, events, ignore_merges=True).to_dict())
    assert [t.text for t in whole.tokenize("bba")] == ["bba"]
    assert whole.segment("bbac") == ["b", "b", "a", "c"] == sequential(events, "bbac")  # whole pieces only
    assert whole.segment("bba", upto=5) == ["b", "b", "a"]  # a step-through replays the events only




# ---------------------------------------------------------------------------------- the counts


@pytest.mark.parametrize("seed", range(6))
def test_the_counts_stay_exact_through_merges_and_removals(seed):
    rng = random.Random(seed)
    counts = random_counts(seed, letters="ab", n=25)
    words = [[ord(ch) - 97 for ch in w] for w in counts]
    state = TrainingState([list(w) for w in words], list(counts.values()), n_tokens=2)
    made: list[int] = []
    present = [True, True]
    for _ in range(40):
        best = state.best()
        if made and (best is None or rng.random() < 0.3):
            t = rng.choice(made)
            made.remove(t)
            present[t] = False
            state.remove(t, state.expand(t, present))
        elif best is not None:
            a, b = state.pair(best[0])
            new = state.add_token((a, b))
            present.append(True)
            state.merge(a, b, new)
            made.append(new)
        pairs: Counter = Counter()
        freq: Counter = Counter()
        for w, c in zip(state.words, counts.values()):
            for p in zip(w, w[1:]):
                pairs[p[0] << 32 | p[1]] += c
            for t in w:
                freq[t] += c
        assert state.pair_counts == dict(pairs)
        assert state.freq == [freq[t] for t in range(len(state.freq))]
        assert state.tokens == sum(freq.values())
        best = state.best()
        assert best == (None if not pairs else min(((k, c) for k, c in pairs.items()), key=lambda kc: (-kc[1], kc[0])))


# ---------------------------------------------------------------------------------- the tokenizer


def test_the_registered_trainer_saves_a_file_that_loads_and_encodes_as_training_left_it(tmp_path):
    assert "pickybpe" in TRAINERS and "pickybpe" in MAX_DISTINCT_WORDS
    lines = [*SENTENCES, *prose(300)]
    opts = TrainOptions(vocab_size=700, special_tokens=("<|endoftext|>",), pickybpe=PickyBpeOptions(threshold=0.7))
    tok = train("pickybpe", lines, options=opts)
    assert tok.model.removed_tokens() and tok.vocab_size == 700
    path = tmp_path / "picky.json"
    tok.save(path)
    back = Tokenizer.load(path)
    assert back.model.to_dict() == tok.model.to_dict() and type(back.model) is PickyBPE
    text = "".join(lines[:40]) + "naïve café 😀 <|endoftext|> tabs\tand  spaces\n"
    assert back.encode(text).ids == tok.encode(text).ids
    assert back.decode(back.encode(text).ids, skip_special_tokens=False) == text
    # every training word encodes as training left it
    counts = count_words(lines, pre_tokenizer=ByteLevel(add_prefix_space=False))
    result = train_pickybpe_counts(counts, vocab_size=700, threshold=0.7)
    assert result.model.to_dict() == tok.model.to_dict()
    left = result.segmentations()
    assert all(back.model.segment(w) == seg for w, seg in left.items())
    assert back.metadata["trainer"] == "pickybpe" and back.metadata["removals"] == len(result.trace.removals())


def test_the_command_line_writes_every_event(tmp_path):
    from tokenizer_core.cli import main

    corpus = tmp_path / "corpus.txt"
    corpus.write_text("".join(prose(200)), encoding="utf-8")
    out, trace = tmp_path / "tok.json", tmp_path / "trace.jsonl"
    args = ["train", "--model", "pickybpe", str(corpus), "--vocab-size", "600", "-o", str(out), "--trace", str(trace)]
    assert main([*args, "-q"]) == 0
    rows = [json.loads(line) for line in trace.read_text(encoding="utf-8").splitlines()]
    removals = [r for r in rows if r["kind"] == "remove"]
    assert removals and all(0.9 < r["ios"] <= 1 and r["trigger"] for r in removals)
    assert [r["index"] for r in rows] == list(range(len(rows))) and Tokenizer.load(out).vocab_size == 600


@settings(max_examples=60, deadline=None)
@given(st.text(max_size=60))
def test_decode_encode_round_trips(text):
    tok = _small_tokenizer()
    assert tok.decode(tok.encode(text).ids) == text


_SMALL: list = []


def _small_tokenizer() -> Tokenizer:
    if not _SMALL:
        _SMALL.append(train("pickybpe", [*SENTENCES, *prose(100)], options=TrainOptions(
            vocab_size=500, special_tokens=(), pickybpe=PickyBpeOptions(threshold=0.6))))
    return _SMALL[0]


def test_tokenizers_gets_the_file_only_when_nothing_was_removed(tmp_path):
    lines = [*SENTENCES, *prose(100)]
    with pytest.raises(TokenizerError, match="removed tokens during training, which tokenizers' BPE model cannot"):
        _small_tokenizer().save_hf(tmp_path / "no.json")
    plain = train("pickybpe", lines, options=TrainOptions(vocab_size=500, pickybpe=PickyBpeOptions(threshold=1.0)))
    plain.save_hf(tmp_path / "plain.json")
    hf = HFTokenizer.from_file(str(tmp_path / "plain.json"))
    text = "".join(lines[:20])
    assert hf.encode(text).ids == plain.encode(text).ids
    assert json.loads((tmp_path / "plain.json").read_text())["model"]["type"] == "BPE"


def test_a_saved_model_is_checked_when_loaded():
    good = {"type": "PickyBPE", "vocab": {"a": 0, "b": 1, "ab": 2}, "events": [["merge", "a", "b"]]}
    assert PickyBPE.from_dict(good).segment("abab") == ["ab", "ab"]
    bad = [
        ({**good, "events": [["merge", "ab", "b"]]}, "uses a token that does not exist then"),
        ({**good, "events": [["merge", "a", "b"], ["remove", "ab", ["a"]]]}, "split into two or more"),
        ({**good, "events": [["remove", "ab", ["a", "b"]]]}, "needs an existing token"),
        ({**good, "vocab": {"a": 0, "b": 1}}, "made by event 0 is not in the vocabulary"),
        ({**good, "events": [["split", "a", "b"]]}, "must be"),
        ({"type": "PickyBPE", "events": []}, "needs a \"vocab\""),
    ]
    for data, message in bad:
        with pytest.raises(FormatError, match=message):
            PickyBPE.from_dict(data)
    with pytest.raises(TokenizerError, match="not in this PickyBPE vocabulary"):
        PickyBPE.from_dict(good).tokenize("abc")


# ---------------------------------------------------------------------------------- bad settings


@pytest.mark.parametrize("threshold", [0, 0.0, -0.5, 1.0000001, 2, True, "0.9", None, float("nan")])
def test_a_threshold_outside_0_to_1_is_refused(threshold):
    with pytest.raises(TokenizerError, match="threshold must be above 0 and at most 1"):
        PickyBpeOptions(threshold=threshold)
    with pytest.raises(TokenizerError, match="threshold must be above 0 and at most 1"):
        train_pickybpe(["abc\n"], vocab_size=300, threshold=threshold)


def test_bad_settings_and_empty_corpora_are_told():
    for lines in ([], [""]):
        with pytest.raises(TokenizerError, match="no words"):
            train_pickybpe(lines, vocab_size=300, threshold=0.9)
    with pytest.raises(TokenizerError, match="no words"):
        train("pickybpe", [], options=TrainOptions(vocab_size=300))
    for size in (0, -3, 2.5, True):
        with pytest.raises(TokenizerError, match="vocab_size must be a positive whole number"):
            train_pickybpe_counts({"ab": 1}, vocab_size=size, threshold=0.9)
    with pytest.raises(TokenizerError, match="give vocab_size, not num_merges"):
        train_pickybpe_parts(["abc\n"], options=TrainOptions(num_merges=5))
    with pytest.raises(TokenizerError, match="is not a byte symbol"):
        train_pickybpe_counts({"a b": 1}, vocab_size=300, threshold=0.9)
    zero = train_pickybpe_counts({"ab": 0, "cd": 2}, vocab_size=300, threshold=0.9, special_tokens=())
    assert zero.merges == [("c", "d")] and zero.segmentations() == {"cd": ["cd"]}
    small = train_pickybpe_counts({"ab": 3}, vocab_size=200, threshold=0.9)
    assert small.merges == [] and "leaves no room for merges" in small.stop_reason
