"""BoundlessBPE (tokenizer_core/boundless): against the paper's definitions written out literally.

The reference trainer below keeps the corpus as the paper describes it, runs of pretokens, each
pretoken split into tokens, and recounts everything from scratch at each step. Two kinds of pair
compete: a pair of tokens inside a pretoken, counted over every occurrence of every pretoken (the
authors' first state, which superword merges leave alone), and a pair of two *complete* units side
by side: a superword, or a pretoken that may join (a letter; otherwise only letters, marks, spaces,
underscores, apostrophes) and is one token now. Each side's best is its highest count, ties to the
smallest ids; the pretokens' pair wins only with a higher count. After a merge inside pretokens of
``(x1, x2)``, ``x1`` then ``x2`` goes when ``merged / f(x)`` (``f`` counted before the merge) is at
or above the threshold, its remaining occurrences split into bytes.
"""

from __future__ import annotations

import json
import random
import unicodedata
from collections import Counter

import pytest
import regex
from hypothesis import given, settings
from hypothesis import strategies as st
from tokenizers import Tokenizer as HFTokenizer

from tokenizer_core import load_sample
from tokenizer_core.boundless.model import BoundlessBPE
from tokenizer_core.boundless.recipe import train_boundless_from_counts, train_boundless_parts
from tokenizer_core.boundless.runs import BoundlessRuns, split_run
from tokenizer_core.boundless.trainer import count_runs, train_boundless, train_boundless_counts
from tokenizer_core.bpe.trainer import train_bpe_counts
from tokenizer_core.errors import FormatError, TokenizerError
from tokenizer_core.options import BoundlessOptions, TrainOptions
from tokenizer_core.pipeline import Tokenizer
from tokenizer_core.text.byte_level import CL100K_PATTERN, byte_level_alphabet, bytes_to_unicode
from tokenizer_core.text.counting import count_words
from tokenizer_core.text.pre_tokenizers import ByteLevel
from tokenizer_core.training import MAX_DISTINCT_WORDS, TRAINERS, train

ALPHABET = byte_level_alphabet()
GPT2 = regex.compile(r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+""")
SYMBOL = bytes_to_unicode()
BYTE = {c: b for b, c in SYMBOL.items()}


# ---------------------------------------------------------------------------------- the reference


def pretokens_of(run: str) -> list[str]:
    """A counted piece's pretokens, from its text and GPT-2's regex (written out here)."""
    text = bytes(BYTE[c] for c in run).decode("utf-8")
    return ["".join(SYMBOL[b] for b in m.encode("utf-8")) for m in GPT2.findall(text)]


def may_join(pretoken: str) -> bool:
    """A letter, and nothing but letters (each with its marks), spaces, underscores and apostrophes."""
    text = bytes(BYTE[c] for c in pretoken).decode("utf-8")
    ok_mark = False
    for ch in text:
        cat = unicodedata.category(ch)
        if cat.startswith("L"):
            ok_mark = True
        elif cat.startswith("M") and ok_mark:
            continue
        elif ch in " _'\u2019":
            ok_mark = False
        else:
            return False
    return any(unicodedata.category(ch).startswith("L") for ch in text)


def merge_units(units: list, match, make) -> tuple[list, int]:
    out, i, done = [], 0, 0
    while i < len(units):
        if i + 1 < len(units) and match(units[i], units[i + 1]):
            out.append(make(units[i], units[i + 1]))
            i += 2
            done += 1
        else:
            out.append(units[i])
            i += 1
    return out, done


def reference(run_counts: dict[str, int], vocab_size: int, threshold, superwords: bool = True,
              specials: tuple[str, ...] = ()):
    """The events and, after each, every run's tokens."""
    ids = {t: i for i, t in enumerate(dict.fromkeys([*specials, *ALPHABET]))}
    atomic, present = set(ids), set(ids)
    totals: Counter = Counter()
    runs = []  # [units, count]: a unit is ("p", pretoken) or ("s", superword)
    for run, c in run_counts.items():
        units = [("p", p) for p in pretokens_of(run)]
        runs.append([units, c])
        for _, p in units:
            totals[p] += c
    seg = {p: list(p) for p in totals}
    events, snapshots = [], []

    def complete(u) -> bool:
        return u[0] == "s" or (may_join(u[1]) and len(seg[u[1]]) == 1)

    def token_of(u) -> str:
        return u[1] if u[0] == "s" else seg[u[1]][0]

    def corpus() -> list[list[str]]:
        return [[t for u in units for t in ([u[1]] if u[0] == "s" else seg[u[1]])] for units, _ in runs]

    def tokens_now() -> int:
        return sum(len(toks) * c for toks, (_, c) in zip(corpus(), runs))

    def best(pairs: Counter):
        if not pairs:
            return None
        return max(pairs.items(), key=lambda kv: (kv[1], -ids[kv[0][0]], -ids[kv[0][1]]))

    def new_token(text: str) -> str:
        status = "present" if text in present else "restored" if text in ids else "new"
        ids.setdefault(text, len(ids))
        present.add(text)
        return status

    merges = 0
    while len(present) < vocab_size:
        inside: Counter = Counter()
        for p, c in totals.items():
            for x, y in zip(seg[p], seg[p][1:]):
                inside[(x, y)] += c
        side_by_side: Counter = Counter()
        if superwords:
            for units, c in runs:
                for u, v in zip(units, units[1:]):
                    if complete(u) and complete(v):
                        side_by_side[(token_of(u), token_of(v))] += c
        bw, bs = best(inside), best(side_by_side)
        if bw is None and bs is None:
            break
        merges += 1
        if bs is None or (bw is not None and bw[1] > bs[1]):
            (a, b), count = bw
            f: Counter = Counter()
            for p, c in totals.items():
                for t in seg[p]:
                    f[t] += c
            merged = 0
            for p, c in totals.items():
                seg[p], done = merge_units(seg[p], lambda x, y, a=a, b=b: (x, y) == (a, b), lambda x, y: x + y)
                merged += done * c
            status = new_token(a + b)
            events.append(("within", a, b, count, merged, status, len(present), tokens_now()))
            snapshots.append(corpus())
            for x in dict.fromkeys((a, b)):
                if threshold is None or x in atomic or merged / f[x] < threshold:
                    continue
                remaining = sum(c * seg[p].count(x) for p, c in totals.items())
                for p in seg:
                    seg[p] = [s for t in seg[p] for s in (list(t) if t == x else [t])]
                present.discard(x)
                events.append(("remove", x, merged / f[x], merged, f[x], remaining, tuple(x), (a, b), len(present),
                               tokens_now()))
                snapshots.append(corpus())
        else:
            (a, b), count = bs
            merged = 0
            for r in runs:
                r[0], done = merge_units(r[0], lambda u, v, a=a, b=b: complete(u) and complete(v)
                                         and (token_of(u), token_of(v)) == (a, b), lambda u, v, t=a + b: ("s", t))
                merged += done * r[1]
            status = new_token(a + b)
            events.append(("across", a, b, count, merged, status, len(present), tokens_now()))
            snapshots.append(corpus())
    return events, snapshots, corpus()


def ours(result) -> list[tuple]:
    out = []
    for e in result.trace:
        if e.kind == "remove":
            out.append(("remove", e.token, e.ios, e.merged, e.before, e.remaining, e.split, e.trigger, e.vocab_size,
                        e.tokens_after))
        else:
            out.append((e.kind, e.left, e.right, e.count, e.merged, e.status, e.vocab_size, e.tokens_after))
    return out


def prose(n: int, start: int = 0) -> list[str]:
    return list(load_sample("default").lines())[start:start + n]


def random_lines(seed: int, n: int = 40) -> list[str]:
    """Lines of a few short words (some of one letter), with commas and digits between some."""
    rng = random.Random(seed)
    words = ["a", "ab", "ba", "abc", "I", "the", "of", "cab", "it's", "naïve"]
    lines = []
    for _ in range(n):
        out = []
        for _ in range(rng.randint(1, 8)):
            out.append(rng.choice(words))
            out.append(rng.choice([" ", " ", " ", ", ", " 12 ", "  "]))
        lines.append("".join(out).rstrip() + "\n")
    return lines


LOCKING = {"ĠabĠx": 2, "ĠxĠabĠx": 1, "Ġabc": 30, "Ġx": 3}  # Ġab is whole in runs, then used up by Ġabc

CORPORA = [("random 1", dict(count_runs(random_lines(1))), 300), ("random 2", dict(count_runs(random_lines(2, 80))), 330),
           ("random 3", dict(count_runs(random_lines(3, 60))), 320), ("locking", LOCKING, 264),
           ("prose", dict(count_runs(prose(30))), 400)]


@pytest.mark.parametrize("superwords", [True, False])
@pytest.mark.parametrize("threshold", [None, 0.5, 0.75, 0.9, 1.0])
@pytest.mark.parametrize("name,counts,vocab", CORPORA, ids=[c[0] for c in CORPORA])
def test_events_are_the_papers_algorithm_recounted_from_scratch(name, counts, vocab, threshold, superwords):
    result = train_boundless_counts(counts, vocab_size=vocab, threshold=threshold, superwords=superwords,
                                    special_tokens=("<s>",))
    events, _, final = reference(counts, vocab, threshold, superwords, specials=("<s>",))
    assert ours(result) == events
    assert result.segmentations() == dict(zip(counts, final))
    assert [k for k in result.kinds] == [e[0] for e in events if e[0] != "remove"]
    present = set(ALPHABET) | {"<s>"} | {t for toks in final for t in toks}
    assert present <= set(result.vocab) and list(result.vocab.values()) == list(range(len(result.vocab)))
    if result.stop_reason.startswith("reached"):
        assert len(result.vocab) == vocab


def test_the_corpora_make_superwords_remove_tokens_and_lock_pretokens_again():
    """The comparison above is only worth something if every case happens in it."""
    across = removed = restored = locked = 0
    for _, counts, vocab in CORPORA:
        r = train_boundless_counts(counts, vocab_size=vocab, threshold=0.75, special_tokens=())
        across += len(r.trace.across())
        removed += len(r.trace.removals())
        restored += sum(e.status == "restored" for e in r.trace.merges())
        # a removal that split a complete pretoken: it may not join again until made whole again
        locked += sum(e.token in {p for run in counts for p in split_run(run)} for e in r.trace.removals())
    assert across > 60 and removed > 20 and restored > 2 and locked > 0


@pytest.mark.parametrize("name,counts,vocab", CORPORA, ids=[c[0] for c in CORPORA])
def test_each_event_leaves_the_runs_as_replaying_the_events_does(name, counts, vocab):
    result = train_boundless_counts(counts, vocab_size=vocab, threshold=0.75, special_tokens=())
    _, snapshots, _ = reference(counts, vocab, 0.75)
    for k in range(0, len(snapshots), max(1, len(snapshots) // 15)):
        assert [result.model.segment(run, upto=k + 1) for run in counts] == snapshots[k], k
    assert [result.model.segment(run) for run in counts] == snapshots[-1]


# ---------------------------------------------------------------------------------- plain BPE


@pytest.mark.parametrize("seed", range(3))
def test_without_superwords_and_removals_it_is_our_plain_bpe(seed):
    lines = random_lines(seed, 100) if seed < 2 else prose(400)
    vocab = 320 if seed < 2 else 900
    pieces = count_words(lines, pre_tokenizer=ByteLevel(add_prefix_space=False))
    bpe = train_bpe_counts(pieces, vocab_size=vocab, special_tokens=("<|endoftext|>",), initial_alphabet=ALPHABET)
    ours_ = train_boundless_counts(count_runs(lines), vocab_size=vocab, threshold=None, superwords=False)
    assert ours_.merges == bpe.merges and ours_.vocab == bpe.vocab and set(ours_.kinds) == {"within"}


def test_a_corpus_of_single_words_never_merges_across_and_is_plain_bpe():
    words = [w + "\n" for line in prose(300) for w in line.split()]
    vocab = 800
    pieces = count_words(words, pre_tokenizer=ByteLevel(add_prefix_space=False))
    bpe = train_bpe_counts(pieces, vocab_size=vocab, special_tokens=("<|endoftext|>",), initial_alphabet=ALPHABET)
    ours_ = train_boundless(words, vocab_size=vocab, threshold=None)
    assert ours_.merges == bpe.merges and ours_.vocab == bpe.vocab and not ours_.trace.across()


def test_both_off_trains_our_byte_level_bpe_tokenizer():
    text = "the cattle would, 12 naïve 😀\n  indented of the"
    lines = prose(200)
    bpe_tok = train("bpe", lines, options=TrainOptions(vocab_size=600, byte_level=True))
    plain = BoundlessOptions(superwords=False, threshold=None)
    ours_tok = train("boundless", lines, options=TrainOptions(vocab_size=600, boundless=plain))
    assert ours_tok.encode(text).ids == bpe_tok.encode(text).ids and ours_tok.get_vocab() == bpe_tok.get_vocab()


# ---------------------------------------------------------------------------------- worked examples


def test_worked_example_of_the():
    # "of the" x5 and " the" x1: 34 bytes. h+e (6 times: 28 tokens), t+he (22), Ġ+the (16): " the" is
    # now one token in all 6 pretokens, "of" not yet. o+f (5: 11 tokens) makes "of" whole, and the
    # only pair left is the two complete pretokens side by side: (of, Ġthe), 5 times (6 tokens).
    r = train_boundless_counts({"ofĠthe": 5, "Ġthe": 1}, vocab_size=300, threshold=None, special_tokens=())
    assert [(e.kind, e.left, e.right, e.count, e.tokens_after) for e in r.trace] == [
        ("within", "h", "e", 6, 28), ("within", "t", "he", 6, 22), ("within", "Ġ", "the", 6, 16),
        ("within", "o", "f", 5, 11), ("across", "of", "Ġthe", 5, 6)]
    assert r.superwords() == ["of the"] and r.segmentations() == {"ofĠthe": ["ofĠthe"], "Ġthe": ["Ġthe"]}
    assert r.stop_reason.startswith("no pairs left") and r.vocab["ofĠthe"] == 260


def test_worked_example_a_tie_goes_to_the_superword():
    # o+f and Ġ+a (7 each) make "of" and " a" whole; then (x, y) inside a pretoken and (of, Ġa) across
    # both occur 3 times: the superword wins the tie, as the authors' code compares (words > superwords).
    r = train_boundless_counts({"ofĠa": 3, "of": 4, "Ġa": 4, "xyz": 3}, vocab_size=261, threshold=None,
                               special_tokens=())
    assert [(e.kind, e.left + e.right, e.count) for e in r.trace] == [
        ("within", "of", 7), ("within", "Ġa", 7), ("across", "ofĠa", 3), ("within", "xy", 3), ("within", "xyz", 3)]
    # With "of a" twice, the pair inside "xyz" is the more frequent and goes first.
    r = train_boundless_counts({"ofĠa": 2, "of": 5, "Ġa": 5, "xyz": 3}, vocab_size=261, threshold=None,
                               special_tokens=())
    assert [(e.kind, e.left + e.right, e.count) for e in r.trace] == [
        ("within", "of", 7), ("within", "Ġa", 7), ("within", "xy", 3), ("within", "xyz", 3), ("across", "ofĠa", 2)]


def test_worked_example_a_one_letter_pretoken_is_complete_from_the_start():
    # "I" is one byte, so one token before any merge: (I, Ġam) joins once Ġam is whole. (The authors'
    # code only marked pretokens whole when a merge made them so; their later code calls that a bug.)
    r = train_boundless_counts({"IĠam": 4}, vocab_size=300, threshold=None, special_tokens=())
    assert [(e.kind, e.left, e.right) for e in r.trace] == [("within", "a", "m"), ("within", "Ġ", "am"),
                                                          ("across", "I", "Ġam")]


def test_worked_example_runs_of_one_superword_merge_left_to_right():
    # Ġa Ġa Ġa: the pair (Ġa, Ġa) occurs twice side by side (counted overlapping, as our BPE counts
    # pairs) but one merge joins the first two; then (ĠaĠa, Ġa) once.
    r = train_boundless_counts({"ĠaĠaĠa": 1}, vocab_size=300, threshold=None, special_tokens=())
    assert [(e.kind, e.left, e.right, e.count, e.merged) for e in r.trace] == [
        ("within", "Ġ", "a", 3, 3), ("across", "Ġa", "Ġa", 2, 1), ("across", "ĠaĠa", "Ġa", 1, 1)]
    assert r.model.segment("ĠaĠaĠaĠa") == ["ĠaĠa", "ĠaĠa"]  # the second merge finds no (ĠaĠa, Ġa)


def test_worked_example_a_removal_locks_a_complete_pretoken():
    # " ab x" x3 and " abc" x30, 135 bytes. a+b (33: 102 tokens), Ġ+ab (33: 69): ab used up (IoS 33/33)
    # goes, with nothing left to split. Ġab+c (30: 39 tokens): Ġab's IoS is 30/33 = 0.909 >= 0.9, so it
    # goes and its 3 occurrences split into bytes (45 tokens). Those pretokens are no longer one token:
    # when Ġ+x makes " x" whole, (Ġab, Ġx) may not join; only once a+b and Ġ+ab are made again does the
    # superword come (the authors' code would have joined them at once, a tie won by the superword,
    # though its " ab" was three bytes by then).
    r = train_boundless_counts({"ĠabĠx": 3, "Ġabc": 30}, vocab_size=263, threshold=0.9, special_tokens=())
    assert [(e.kind, e.token, e.tokens_after) for e in r.trace] == [
        ("within", "ab", 102), ("within", "Ġab", 69), ("remove", "ab", 69), ("within", "Ġabc", 39),
        ("remove", "Ġab", 45), ("within", "ab", 42), ("within", "Ġx", 39), ("within", "Ġab", 36), ("remove", "ab", 36),
        ("across", "ĠabĠx", 33)]
    removal = r.trace[4]
    assert (removal.ios, removal.merged, removal.before, removal.remaining, removal.split, removal.trigger) == \
        (30 / 33, 30, 33, 3, ("Ġ", "a", "b"), ("Ġab", "c"))
    assert [r.trace[k].status for k in (5, 7)] == ["restored", "restored"]
    assert r.segmentations() == {"ĠabĠx": ["ĠabĠx"], "Ġabc": ["Ġabc"]}
    assert r.model.segment("ĠabĠx", upto=7) == ["Ġ", "ab", "Ġx"]


def test_pretokens_that_may_not_join_cut_the_runs():
    assert BoundlessRuns().words("of the, café 2024 don't_\n") == \
        ["ofĠthe", ",", "ĠcafÃ©", "Ġ2024", "Ġdon't", "_", "Ċ"]
    assert split_run("Ġdon't") == ["Ġdon", "'t"]
    r = train_boundless(["of, the\n"] * 5, vocab_size=300, threshold=None)
    assert not r.trace.across()  # the comma between them: of and the are never side by side


# ---------------------------------------------------------------------------------- encoding


def sequential(events: list[tuple], run: str) -> list[str]:
    """Each event in order over a run's pretokens, with nothing skipped: what training does."""
    chunks = [list(p) for p in pretokens_of(run)]
    joinable = [may_join(p) for p in pretokens_of(run)]
    done = [False] * len(chunks)  # a superword
    for kind, a, b in events:
        if kind == "merge":
            chunks = [c if d else merge_units(c, lambda x, y, a=a, b=b: (x, y) == (a, b), lambda x, y: x + y)[0]
                      for c, d in zip(chunks, done)]
        elif kind == "remove":
            chunks = [c if d else [s for t in c for s in (b if t == a else [t])] for c, d in zip(chunks, done)]
        else:
            units = list(zip(chunks, done, joinable))
            units, _ = merge_units(units, lambda u, v, a=a, b=b: u[2] and v[2] and len(u[0]) == len(v[0]) == 1
                                   and (u[0][0], v[0][0]) == (a, b), lambda u, v, t=a + b: ([t], True, True))
            chunks, done, joinable = [u[0] for u in units], [u[1] for u in units], [u[2] for u in units]
    return [t for c in chunks for t in c]


@pytest.fixture(scope="module")
def trained():
    counts = count_runs(prose(300))
    return counts, train_boundless_counts(counts, vocab_size=900, threshold=0.6, special_tokens=())


def test_encoding_replays_the_events_in_training_order(trained):
    _, result = trained
    model = result.model
    assert model.supermerges and model.removed_tokens()
    held = count_runs(prose(400, start=300))
    for run in list(held)[:500]:
        assert model.segment(run) == sequential(model.events, run), run


def test_the_model_encodes_the_training_corpus_as_training_left_it(trained):
    counts, result = trained
    left = result.segmentations()
    assert all(result.model.segment(run) == seg for run, seg in left.items())
    tokens = sum(len(seg) * counts[run] for run, seg in left.items())
    assert tokens == result.trace[-1].tokens_after


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(["a", "ab", "ba", "abc", "I", "the", "of", "it's", " ", ",", "1", "é"]), max_size=12))
def test_encoding_any_run_is_the_events_in_order(words):
    result = _random_result()
    text = " ".join(words)
    for piece in BoundlessRuns().split(text):
        tokens = result.model.tokenize(piece.text)
        assert [t.text for t in tokens] == sequential(result.model.events, piece.text)
        assert all(piece.text[s:e] == t.text for t, (s, e) in zip(tokens, [t.offsets for t in tokens]))


_CACHE: dict = {}


def _random_result():
    if "random" not in _CACHE:
        _CACHE["random"] = train_boundless(random_lines(9, 120), vocab_size=330, threshold=0.6, special_tokens=())
    return _CACHE["random"]


def _small_tokenizer() -> Tokenizer:
    if "small" not in _CACHE:
        _CACHE["small"] = train("boundless", prose(150), options=TrainOptions(vocab_size=600, special_tokens=()))
    return _CACHE["small"]


@settings(max_examples=80, deadline=None)
@given(st.text(max_size=60))
def test_decode_encode_round_trips(text):
    tok = _small_tokenizer()
    enc = tok.encode(text)
    assert tok.decode(enc.ids) == text
    assert all(0 <= s <= e <= len(text) for s, e in enc.offsets)


def test_offsets_point_at_the_text_of_each_token():
    tok = _small_tokenizer()
    text = "It is one of the best of the naïve ones, and it's in the café.\n"
    enc = tok.encode(text)
    assert any(" " in tok.decode([i]).strip(" ") for i in enc.ids)  # a superword crossing a space
    for i, (s, e) in zip(enc.ids, enc.offsets):
        assert tok.decode([i]) == text[s:e] or not text[s:e].isascii()


# ---------------------------------------------------------------------------------- the tokenizer


def test_the_registered_trainer_saves_a_file_that_loads_and_encodes_as_training_left_it(tmp_path):
    assert "boundless" in TRAINERS and "boundless" in MAX_DISTINCT_WORDS
    lines = prose(300)
    opts = TrainOptions(vocab_size=800, special_tokens=("<|endoftext|>",), boundless=BoundlessOptions(threshold=0.7))
    tok = train("boundless", lines, options=opts)
    assert tok.model.supermerges and tok.model.removed_tokens() and tok.vocab_size == 800
    path = tmp_path / "boundless.json"
    tok.save(path)
    back = Tokenizer.load(path)
    assert back.model.to_dict() == tok.model.to_dict() and type(back.model) is BoundlessBPE
    assert type(back.pre_tokenizer) is BoundlessRuns
    text = "".join(lines[:40]) + "naïve café 😀 <|endoftext|> tabs\tand  spaces of the\n"
    assert back.encode(text).ids == tok.encode(text).ids
    assert back.encode_batch([text, text[:50]]).encodings[0].ids == tok.encode(text).ids
    assert back.decode(back.encode(text).ids, skip_special_tokens=False) == text
    parts, result = train_boundless_from_counts(count_runs(lines), options=opts)
    assert result.model.to_dict() == tok.model.to_dict() and parts.metadata == tok.metadata
    assert all(back.model.segment(run) == seg for run, seg in result.segmentations().items())
    assert back.metadata["superword_merges"] == len(result.trace.across()) > 0


def test_the_cl100k_pattern_and_lowercase_are_kept(tmp_path):
    opts = TrainOptions(vocab_size=500, special_tokens=(), lowercase=True, pre_tokenizer="cl100k-regex")
    tok = Tokenizer.from_parts(train_boundless_parts(prose(100), options=opts))
    tok.save(tmp_path / "t.json")
    back = Tokenizer.load(tmp_path / "t.json")
    assert back.model.pattern == CL100K_PATTERN == back.pre_tokenizer.pattern
    text = "Of The People, 12345 ones\n"
    assert back.encode(text).tokens == tok.encode(text).tokens and tok.decode(tok.encode(text).ids) == text.lower()


def test_tokenizers_gets_the_file_only_without_superwords_and_removals(tmp_path):
    with pytest.raises(TokenizerError, match="merged whole pretokens into superwords.*tokenizers' BPE model cannot"):
        _small_tokenizer().save_hf(tmp_path / "no.json")
    lines = prose(100)
    plain = train("boundless", lines, options=TrainOptions(
        vocab_size=500, boundless=BoundlessOptions(superwords=False, threshold=None)))
    plain.save_hf(tmp_path / "plain.json")
    hf = HFTokenizer.from_file(str(tmp_path / "plain.json"))
    text = "".join(lines[:20])
    assert hf.encode(text).ids == plain.encode(text).ids
    removals_only = train("boundless", lines, options=TrainOptions(
        vocab_size=500, boundless=BoundlessOptions(superwords=False, threshold=0.6)))
    with pytest.raises(TokenizerError, match="removed tokens during training"):
        removals_only.save_hf(tmp_path / "no2.json")


def test_a_saved_model_is_checked_when_loaded():
    vocab = {"o": 0, "f": 1, "Ġ": 2, "a": 3, "of": 4, "Ġa": 5, "ofĠa": 6}
    good = {"type": "BoundlessBPE", "vocab": vocab,
            "events": [["merge", "o", "f"], ["merge", "Ġ", "a"], ["supermerge", "of", "Ġa"]]}
    assert BoundlessBPE.from_dict(good).segment("ofĠaĠa") == ["ofĠa", "Ġa"]
    bad = [
        ({**good, "events": [["supermerge", "of", "Ġa"]]}, "uses a token that does not exist then"),
        ({**good, "events": [["merge", "o", "f"], ["remove", "of", ["o"]]]}, "split into two or more"),
        ({**good, "vocab": {k: v for k, v in vocab.items() if k != "ofĠa"}}, "made by event 2 is not in the vocab"),
        ({**good, "events": [["join", "o", "f"]]}, "must be"),
        ({**good, "pattern": r"\w+"}, "GPT-2's or cl100k's pattern"),
        ({"type": "BoundlessBPE", "events": []}, "needs a \"vocab\""),
    ]
    for data, message in bad:
        with pytest.raises(FormatError, match=message):
            BoundlessBPE.from_dict(data)
    with pytest.raises(TokenizerError, match="not in this BoundlessBPE vocabulary"):
        BoundlessBPE.from_dict(good).tokenize("ofx")


def test_the_command_line_trains_it(tmp_path):
    from tokenizer_core.cli import main

    corpus = tmp_path / "corpus.txt"
    corpus.write_text("".join(prose(200)), encoding="utf-8")
    out, trace = tmp_path / "tok.json", tmp_path / "trace.jsonl"
    args = ["train", "--model", "boundless", str(corpus), "--vocab-size", "600", "-o", str(out), "--trace", str(trace)]
    assert main([*args, "-q"]) == 0
    tok = Tokenizer.load(out)
    assert tok.vocab_size == 600 and tok.metadata["superword_merges"] > 0
    rows = [json.loads(line) for line in trace.read_text(encoding="utf-8").splitlines()]
    assert [r["index"] for r in rows] == list(range(len(rows)))
    assert sum(r["kind"] == "across" for r in rows) == tok.metadata["superword_merges"]
    assert all(r["ios"] >= 0.9 for r in rows if r["kind"] == "remove")


# ---------------------------------------------------------------------------------- bad settings


@pytest.mark.parametrize("threshold", [0, 0.0, -0.5, 1.0000001, 2, True, "0.9", float("nan")])
def test_a_threshold_outside_0_to_1_is_refused(threshold):
    with pytest.raises(TokenizerError, match="removal threshold must be above 0 and at most 1"):
        BoundlessOptions(threshold=threshold)
    with pytest.raises(TokenizerError, match="removal threshold must be above 0 and at most 1"):
        train_boundless(["abc\n"], vocab_size=300, threshold=threshold)


def test_bad_settings_and_empty_corpora_are_told():
    for lines in ([], [""]):
        with pytest.raises(TokenizerError, match="no words"):
            train_boundless(lines, vocab_size=300)
    with pytest.raises(TokenizerError, match="no words"):
        train("boundless", [], options=TrainOptions(vocab_size=300))
    for size in (0, -3, 2.5, True):
        with pytest.raises(TokenizerError, match="vocab_size must be a positive whole number"):
            train_boundless_counts({"ab": 1}, vocab_size=size)
    with pytest.raises(TokenizerError, match="superwords must be True or False"):
        BoundlessOptions(superwords="yes")
    with pytest.raises(TokenizerError, match="superwords must be True or False"):
        train_boundless_counts({"ab": 1}, vocab_size=300, superwords=1)
    with pytest.raises(TokenizerError, match="give vocab_size, not num_merges"):
        train_boundless_parts(["abc\n"], options=TrainOptions(num_merges=5))
    with pytest.raises(TokenizerError, match="use pre_tokenizer 'gpt2-regex' or 'cl100k-regex'"):
        train_boundless_parts(["abc\n"], options=TrainOptions(pre_tokenizer="whitespace"))
    with pytest.raises(TokenizerError, match="is not a byte symbol"):
        train_boundless_counts({"a b": 1}, vocab_size=300)
    zero = train_boundless_counts({"ab": 0, "cd": 2}, vocab_size=300, special_tokens=())
    assert zero.merges == [("c", "d")] and zero.segmentations() == {"cd": ["cd"]}
    small = train_boundless_counts({"ab": 3}, vocab_size=200)
    assert small.merges == [] and "leaves no room for merges" in small.stop_reason
    with pytest.raises(TokenizerError, match="upto must be a whole number"):
        small.model.segment("ab", upto=5)
    assert json.loads(json.dumps(small.trace.table())) == []
