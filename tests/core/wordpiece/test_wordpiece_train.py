"""WordPiece trainer: the course's worked examples, hand-computed cases, and a naive oracle."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tokenizer_core.errors import TokenizerError
from tokenizer_core.wordpiece.trainer import BERT_SPECIAL_TOKENS, train_wordpiece

HUG = {"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}


# -- the Hugging Face course, chapter 6 "WordPiece tokenization" ------------------------------------

def test_course_first_merges_hug_pug_pun_bun_hugs():
    r = train_wordpiece(HUG, vocab_size=10, special_tokens=())
    assert r.alphabet == ["##g", "##n", "##s", "##u", "b", "h", "p"]
    first, second, third = r.merges
    # "the best score goes to the pair ("##g", "##s") -- the only one without a "##u" -- at 1 / 20"
    assert first.pair == ("##g", "##s") and first.new_token == "##gs"
    assert first.score == pytest.approx(1 / 20)
    assert (first.count, first.left_count, first.right_count) == (5, 20, 5)
    # "the most frequent pair is ("##u", "##g") (present 20 times)": what BPE would merge
    assert (first.bpe_choice.left, first.bpe_choice.right, first.bpe_choice.count) == ("##u", "##g", 20)
    assert not first.agrees_with_bpe
    # "all pairs with "##u" ... have the same score (1/36) ... the first pair is merged: ("h", "##u")"
    assert second.pair == ("h", "##u") and second.new_token == "hu"
    assert second.score == pytest.approx(1 / 36)
    assert second.tie_break is not None
    assert all(ru.score == second.score for ru in second.runner_ups)
    # Third step, computed by hand: counts hu=15, ##g=15 (hu ##g x10, p ##u ##g x5), ##gs=5, so
    # score(hu, ##gs) = 5/(15*5) = 1/15 beats score(hu, ##g) = 10/(15*15) = 2/45. (The course's
    # prose gives both 1/15 and merges "hug"; its own counts give "hugs".)
    assert third.pair == ("hu", "##gs") and third.score == pytest.approx(1 / 15)
    assert third.runner_ups[0].score == pytest.approx(1 / 21)
    assert ("hu", "##g") in [(x.left, x.right) for x in third.runner_ups]
    assert list(r.vocab) == r.alphabet + ["##gs", "hu", "hugs"]


def test_course_implementation_section_vocabulary():
    """The course trains on four sentences (bert-base-cased pre-tokenization) up to 70 tokens."""
    from tokenizer_core.text.pre_tokenizers import BertPreTokenizer

    corpus = [
        "This is the Hugging Face Course.",
        "This chapter is about tokenization.",
        "This section shows several tokenizer algorithms.",
        "Hopefully, you will be able to understand how they are trained and generate tokens.",
    ]
    pre = BertPreTokenizer()
    counts = Counter(w for line in corpus for w in pre.words(line))
    r = train_wordpiece(counts, vocab_size=70)
    expected = [
        "[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "##a", "##b", "##c", "##d", "##e", "##f", "##g", "##h",
        "##i", "##k", "##l", "##m", "##n", "##o", "##p", "##r", "##s", "##t", "##u", "##v", "##w", "##y", "##z",
        ",", ".", "C", "F", "H", "T", "a", "b", "c", "g", "h", "i", "s", "t", "u", "w", "y", "ab", "##fu", "Fa",
        "Fac", "##ct", "##ful", "##full", "##fully", "Th", "ch", "##hm", "cha", "chap", "chapt", "##thm", "Hu",
        "Hug", "Hugg", "sh", "th", "is", "##thms", "##za", "##zat", "##ut",
    ]
    assert list(r.vocab) == expected
    assert r.vocab == {t: i for i, t in enumerate(expected)}
    assert r.stop_reason == "reached vocab_size"


# -- hand-computed cases -------------------------------------------------------------------------

def test_wordpiece_and_bpe_pick_different_pairs():
    # counts: x=2, ##y=2, a=10, ##b=5, ##c=5
    # WordPiece: (x, ##y) = 2/(2*2) = 0.5 beats (a, ##b) = 5/(10*5) = 0.1
    # BPE: (a, ##b) and (a, ##c) both occur 5 times; (a, ##b) occurs first
    r = train_wordpiece({"xy": 2, "ab": 5, "ac": 5}, vocab_size=7, special_tokens=())
    m = r.merges[0]
    assert (m.pair, m.score, m.count) == (("x", "##y"), 0.5, 2)
    assert (m.bpe_choice.left, m.bpe_choice.right, m.bpe_choice.count) == ("a", "##b", 5)
    assert m.bpe_choice.score == pytest.approx(0.1)
    assert [(x.left, x.right) for x in m.runner_ups] == [("a", "##b"), ("a", "##c")]
    assert m.tie_break is None


def test_trace_records_corpus_length_and_ids():
    r = train_wordpiece({"aaaa": 1, "ab": 3}, vocab_size=20, special_tokens=("[UNK]",))
    # initial: a ##a ##a ##a (4) + 3 x (a ##b) (6) = 10 tokens
    assert r.initial_corpus_tokens == 10
    assert r.merges[0].pair == ("a", "##b")  # 3/(4*3) = 0.25 vs (a, ##a) 1/(4*3), (##a, ##a) 2/9
    assert r.merges[0].corpus_tokens == 7
    for m in r.merges:
        assert r.vocab[m.new_token] == m.new_id
    assert r.merges[-1].corpus_tokens == sum(len(r.segment(w)) * c for w, c in {"aaaa": 1, "ab": 3}.items())


def test_merge_producing_an_existing_string_keeps_its_id():
    # "abc" can be built as (ab, ##c) and as (a, ##bc); the second time it reuses the id.
    r = train_wordpiece({"abc": 1, "abx": 1, "ybc": 1, "zbc": 5, "abd": 1}, vocab_size=100, special_tokens=())
    built = [m for m in r.merges if m.new_token == "abc"]
    assert len({m.new_id for m in built}) == 1
    assert len(r.vocab) == len(set(r.vocab.values()))
    assert sorted(r.vocab.values()) == list(range(len(r.vocab)))


def test_min_frequency_blocks_rare_pairs():
    r = train_wordpiece({"xy": 1, "ab": 3, "ac": 3}, vocab_size=50, min_frequency=2, special_tokens=())
    assert ("x", "##y") not in [m.pair for m in r.merges]
    assert all(m.count >= 2 for m in r.merges)
    assert r.stop_reason == "no pair left occurring at least 2 times"


def test_vocab_size_counts_specials_and_alphabet_is_always_kept():
    r = train_wordpiece({"abcdef": 3}, vocab_size=3)
    assert list(r.vocab)[:5] == list(BERT_SPECIAL_TOKENS)
    assert len(r.vocab) == 5 + 6 and r.merges == []
    r = train_wordpiece({"abcdef": 3}, vocab_size=13)
    assert len(r.vocab) == 13 and len(r.merges) == 2


def test_num_merges_and_limit_alphabet():
    r = train_wordpiece(HUG, vocab_size=100, num_merges=2, special_tokens=())
    assert len(r.merges) == 2 and r.stop_reason == "reached num_merges"
    # keep the 3 most frequent characters: u (36), g (20), p (17); words split at the others, so
    # "hug" trains as "##u ##g" and "pun" as "p ##u"
    r = train_wordpiece(HUG, vocab_size=100, limit_alphabet=3, special_tokens=())
    assert r.alphabet == ["##g", "##u", "p"]
    assert all(set(m.new_token.replace("##", "")) <= set("ugp") for m in r.merges)
    assert r.merges[0].count == 10 + 5 + 5  # (##u, ##g) in hug, pug, hugs


def test_empty_prefix_and_special_tokens_first():
    r = train_wordpiece({"aba": 2}, vocab_size=10, continuing_subword_prefix="", special_tokens=("<unk>",))
    assert list(r.vocab)[:3] == ["<unk>", "a", "b"]
    assert r.segment("aba", 0) == ["a", "b", "a"]


def test_progress_reports_completion():
    calls = []
    train_wordpiece(HUG, vocab_size=12, special_tokens=(), progress=lambda d, t, m: calls.append((d, t)))
    assert calls[0] == (0, 5) and calls[-1] == (5, 5)
    assert all(0 <= d <= t for d, t in calls)


@pytest.mark.parametrize("kwargs, fragment", [
    ({"vocab_size": 0}, "vocab_size"),
    ({"vocab_size": 10, "min_frequency": -1}, "min_frequency"),
    ({"vocab_size": 10, "top_k": -1}, "top_k"),
    ({"vocab_size": 10, "special_tokens": ("[UNK]", "[UNK]")}, "distinct"),
])
def test_bad_settings_are_explained(kwargs, fragment):
    with pytest.raises(TokenizerError, match=fragment):
        train_wordpiece(HUG, **kwargs)


@pytest.mark.parametrize("counts", [{"a": -1}, {"a": 1.5}, {3: 1}])
def test_bad_word_counts_are_explained(counts):
    with pytest.raises(TokenizerError, match="word counts"):
        train_wordpiece(counts, vocab_size=10)


def test_segment_rejects_bad_steps():
    r = train_wordpiece(HUG, vocab_size=10, special_tokens=())
    with pytest.raises(TokenizerError, match="step"):
        r.segment("hug", 4)


# -- against a naive oracle that recounts everything at every step ---------------------------------

def naive_wordpiece(word_counts, *, vocab_size, min_frequency=0, special_tokens=(), prefix="##", top_k=3):
    """The algorithm as the course writes it: full recount, float scores, first pair wins ties."""
    words = [(w, c) for w, c in word_counts.items() if w and c]
    splits = [[w[0]] + [prefix + ch for ch in w[1:]] for w, _ in words]
    vocab = list(special_tokens)
    for sym in sorted({s for sp in splits for s in sp}):
        if sym not in vocab:
            vocab.append(sym)
    steps, history = [], [[list(s) for s in splits]]
    while len(vocab) < vocab_size:
        sym_count, pair_count = Counter(), {}
        for sp, (_, c) in zip(splits, words):
            for s in sp:
                sym_count[s] += c
            for p in zip(sp, sp[1:]):
                pair_count[p] = pair_count.get(p, 0) + c
        cands = [(p, n) for p, n in pair_count.items() if n >= max(1, min_frequency)]
        if not cands:
            break
        score = {p: n / (sym_count[p[0]] * sym_count[p[1]]) for p, n in cands}
        order = sorted(range(len(cands)), key=lambda i: -score[cands[i][0]])  # stable: first occurrence wins
        bpe = sorted(range(len(cands)), key=lambda i: -cands[i][1])[0]
        (a, b), n = cands[order[0]]
        steps.append({
            "pair": (a, b), "count": n, "score": score[(a, b)],
            "parts": (sym_count[a], sym_count[b]),
            "runner_ups": [cands[i][0] for i in order[1:top_k + 1]],
            "bpe": cands[bpe][0],
        })
        merged = a + b[len(prefix):]
        for k, sp in enumerate(splits):
            out, i = [], 0
            while i < len(sp):
                if i + 1 < len(sp) and sp[i] == a and sp[i + 1] == b:
                    out.append(merged)
                    i += 2
                else:
                    out.append(sp[i])
                    i += 1
            splits[k] = out
        history.append([list(s) for s in splits])
        if merged not in vocab:
            vocab.append(merged)
    return vocab, steps, history


corpora = st.dictionaries(
    st.text(alphabet="aabbcd", min_size=1, max_size=7), st.integers(min_value=1, max_value=6),
    min_size=1, max_size=9,
)


@settings(max_examples=150, deadline=None)
@given(corpora, st.integers(0, 25), st.integers(0, 3), st.integers(0, 4))
def test_incremental_trainer_equals_naive_recount(counts, extra, min_frequency, top_k):
    alphabet = {w[0] for w in counts} | {"##" + ch for w in counts for ch in w[1:]}
    vocab_size = len(alphabet) + 1 + extra
    r = train_wordpiece(counts, vocab_size=vocab_size, min_frequency=min_frequency,
                        special_tokens=("[UNK]",), top_k=top_k)
    vocab, steps, history = naive_wordpiece(counts, vocab_size=vocab_size, min_frequency=min_frequency,
                                            special_tokens=("[UNK]",), top_k=top_k)
    assert list(r.vocab) == vocab
    assert len(r.merges) == len(steps)
    for m, s in zip(r.merges, steps):
        assert m.pair == s["pair"]
        assert (m.count, m.score, (m.left_count, m.right_count)) == (s["count"], s["score"], s["parts"])
        assert [(x.left, x.right) for x in m.runner_ups] == s["runner_ups"]
        assert (m.bpe_choice.left, m.bpe_choice.right) == s["bpe"]
    # segment(word, step) replays training exactly, at every step
    words = [w for w in counts]
    for step, splits in enumerate(history):
        assert [r.segment(w, step) for w in words] == splits


@settings(max_examples=40, deadline=None)
@given(corpora)
def test_prefix_free_training_matches_naive(counts):
    r = train_wordpiece(counts, vocab_size=30, continuing_subword_prefix="", special_tokens=())
    vocab, steps, _ = naive_wordpiece(counts, vocab_size=30, prefix="")
    assert list(r.vocab) == vocab
    assert [m.pair for m in r.merges] == [s["pair"] for s in steps]


def test_words_longer_than_the_encoder_accepts_are_left_out():
    counts = {"ab": 2, "x" * 101: 5}
    r = train_wordpiece(counts, vocab_size=50, special_tokens=())
    assert r.skipped_long_words == 1 and "x" not in r.vocab and r.initial_corpus_tokens == 4
    r = train_wordpiece(counts, vocab_size=50, special_tokens=(), max_word_length=None)
    assert r.skipped_long_words == 0 and "x" in r.vocab
    assert "".join(r.segment("x" * 101)).replace("##", "") == "x" * 101
    assert r.merges[-1].corpus_tokens == 2 * len(r.segment("ab")) + 5 * len(r.segment("x" * 101))


def test_trace_to_dict_is_plain_json():
    import json

    r = train_wordpiece(HUG, vocab_size=10, special_tokens=())
    data = json.loads(json.dumps([m.to_dict() for m in r.merges]))
    assert data[0]["pair"] == ["##g", "##s"] and data[0]["bpe_choice"]["pair"] == ["##u", "##g"]
    assert data[0]["score"] == r.merges[0].score == 5 / (20 * 5)
    assert r.compression_curve() == [r.initial_corpus_tokens] + [m.corpus_tokens for m in r.merges]
    # hug x10 + pug x5 + pun x12 + bun x4 = 3 tokens each, hugs x5 = 4 tokens; ##gs saves 5, hu 15, hugs 5
    assert r.compression_curve() == [113, 108, 93, 88]


@settings(max_examples=60, deadline=None)
@given(st.dictionaries(st.text(alphabet="abcdeé", min_size=1, max_size=10), st.integers(1, 30),
                       min_size=5, max_size=40),
       st.integers(0, 1), st.integers(0, 2))
def test_many_shared_symbols_match_naive(counts, top_k, min_frequency):
    """Larger corpora with few letters: symbols with many partners, where re-scoring is lazy."""
    alphabet = {w[0] for w in counts} | {"##" + ch for w in counts for ch in w[1:]}
    vocab_size = len(alphabet) + 60
    r = train_wordpiece(counts, vocab_size=vocab_size, special_tokens=(), top_k=top_k,
                        min_frequency=min_frequency)
    vocab, steps, _ = naive_wordpiece(counts, vocab_size=vocab_size, top_k=top_k, min_frequency=min_frequency)
    assert list(r.vocab) == vocab
    assert [(m.pair, m.score, [(x.left, x.right) for x in m.runner_ups]) for m in r.merges] == [
        (s["pair"], s["score"], s["runner_ups"]) for s in steps]


def test_real_text_matches_naive():
    from tokenizer_core.corpus.loading import load_sample
    from tokenizer_core.text.pre_tokenizers import BertPreTokenizer

    pre = BertPreTokenizer()
    lines = list(load_sample("multilingual").lines())
    counts = Counter(w.lower() for line in lines for w in pre.words(line))
    r = train_wordpiece(counts, vocab_size=700, top_k=2)
    vocab, steps, _ = naive_wordpiece(counts, vocab_size=700, top_k=2, special_tokens=BERT_SPECIAL_TOKENS)
    assert len(steps) > 150
    assert list(r.vocab) == vocab
    assert [(m.pair, m.score, m.bpe_choice.left, m.bpe_choice.right) for m in r.merges] == [
        (s["pair"], s["score"], *s["bpe"]) for s in steps]
