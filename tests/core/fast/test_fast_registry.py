"""The fast paths' one contract: every kind plans or says why not, the registry picks the first that
fits, a tokenizer's report names it (kernel or not) with when texts still take the general path,
and the shared records (chunk entries, packed columns, Encoding.from_columns) hold their layout."""

from __future__ import annotations

from array import array

import pytest

from tokenizer_core.bpe.model import BPE
from tokenizer_core.fast import columns
from tokenizer_core.fast.assembly import ChunkEntry, ChunkSteps
from tokenizer_core.fast.protocol import FastPath
from tokenizer_core.fast.registry import FAST_PATHS, FastPathSlot, choose, explain_fast_path
from tokenizer_core.io.references import load_reference
from tokenizer_core.kernel import native
from tokenizer_core.pipeline import Tokenizer
from tokenizer_core.text.byte_level import ByteLevel
from tokenizer_core.text.normalizers import NFKC, BertNormalizer, Lowercase
from tokenizer_core.text.pre_tokenizer_base import Sequence
from tokenizer_core.text.pre_tokenizers import BertPreTokenizer, WhitespaceSplit
from tokenizer_core.text.splitting import Digits, Split
from tokenizer_core.text.word_splitters import Metaspace, Punctuation
from tokenizer_core.types import Encoding, Token
from tokenizer_core.unigram.model import Unigram
from tokenizer_core.wordpiece.model import WordPiece

NAMES = [kind.name for kind in FAST_PATHS]
BPE_SMALL = BPE({"a": 0, "b": 1, "ab": 2, "▁": 3}, [("a", "b")])
WP = WordPiece({"[UNK]": 0, "hug": 1, "##s": 2})

STAGES = [  # (normalizer, pre_tokenizer, model)
    (None, ByteLevel(), BPE_SMALL),
    (BertNormalizer(), BertPreTokenizer(), WP),
    (Lowercase(), WhitespaceSplit(), Unigram([("a", -1.0), ("b", -2.0)], unk_id=None)),
    (None, Split(r"\d+|\D+", is_regex=True), WP),
    (None, Sequence([Punctuation(), Metaspace()]), BPE_SMALL),
    (NFKC(), Metaspace(split=False), BPE_SMALL),
    (None, None, BPE_SMALL),
    (NFKC(), Sequence([Digits(individual_digits=True), WhitespaceSplit()]), WP),
]


@pytest.mark.parametrize("stages", STAGES, ids=lambda s: "-".join(type(x).__name__ for x in s))
def test_every_kind_plans_a_path_or_says_why_and_build_agrees(stages):
    normalizer, pre, model = stages
    for kind in FAST_PATHS:
        made = kind.plan(normalizer=normalizer, pre_tokenizer=pre, model=model)
        built = kind.build(normalizer=normalizer, pre_tokenizer=pre, model=model)
        if isinstance(made, str):
            assert built is None and made and not made.endswith(".")  # a clause: the report adds the stop
        else:
            assert type(built) is kind and isinstance(built, FastPath)  # the protocol, checked at run time
            assert all(line.endswith(".") for line in built.limits())


def test_the_registry_picks_the_first_kind_that_fits_and_keeps_why_each_before_it_did_not():
    fast, refused = choose(BertNormalizer(), BertPreTokenizer(), WP)
    assert fast.name == NAMES[1] and [name for name, _ in refused] == NAMES[:1]
    assert refused[0][1] == "the normalizer (BertNormalizer) is neither none nor one Unicode form (NFC, NFKC, ...)"
    fast, refused = choose(NFKC(), Metaspace(split=False), BPE_SMALL)
    assert fast is None and [name for name, _ in refused] == NAMES
    reasons = dict(refused)
    assert reasons[NAMES[0]] == "the pre-tokenizer (Metaspace) is not ByteLevel or a chain of Splits before it"
    assert reasons[NAMES[2]] == "a normalizer (NFKC) comes first"
    assert "pre-tokenizer Metaspace" in reasons[NAMES[3]]
    assert reasons[NAMES[4]] == "the normalizer (NFKC) is not a SentencePiece model's own"


def test_a_slot_chooses_again_when_a_stage_is_swapped():
    tok = Tokenizer(WP, normalizer=BertNormalizer(), pre_tokenizer=BertPreTokenizer())
    assert tok.explain_fast_path().chosen == NAMES[1]
    tok.normalizer = NFKC()  # the chain proves NFKC stays inside BERT's chunks
    assert tok.explain_fast_path().chosen == NAMES[3]
    tok.pre_tokenizer = Metaspace(split=False)  # one piece for the whole text: no chunks at all
    report = tok.explain_fast_path()
    assert report.chosen is None and len(report.refused) == len(FAST_PATHS)
    assert report.sentences()[0].startswith("Every text takes the general path")
    assert isinstance(FastPathSlot().get(None, None, BPE_SMALL), type(None))


@pytest.mark.parametrize("name", ["gpt2", "cl100k_base", "qwen", "mistral_v1", "llama3"])
def test_each_shipped_tokenizer_reports_the_path_it_runs_on(name):
    tok = load_reference(name)
    report = explain_fast_path(tok)
    fast = tok._fast.get(tok.normalizer, tok.pre_tokenizer, tok.model)
    assert report.chosen == fast.name and report.compiled == (native.available() and fast.compiled())
    assert [n for n, _ in report.refused] == NAMES[:NAMES.index(fast.name)]
    # The report is what the path does: its encodings are the general path's.
    text = "Hello  world, 1234 ünïcode!"
    assert tok.encode(text) == tok._trace_text(text, split_special=True, sampling=None, sequence_id=0)[1]


def test_a_chain_with_a_guard_says_which_texts_take_the_general_path():
    from tokenizer_core.fast.chain import LocalChainFastPath

    pre = Sequence([Digits(individual_digits=True), Split(r"\p{L}+|\p{N}", is_regex=True), Metaspace(split=False)])
    fast = LocalChainFastPath.build(normalizer=None, pre_tokenizer=pre, model=BPE_SMALL)
    assert fast.guard is not None
    assert fast.limits()[-1] == f"A text in which {fast.guard.pattern!r} matches takes the general path."


def test_added_tokens_matched_after_normalizing_are_named_in_the_report():
    from tokenizer_core.text.added_vocabulary import AddedToken

    tok = Tokenizer(WP, normalizer=BertNormalizer(), pre_tokenizer=BertPreTokenizer(),
                    added_tokens=[AddedToken("hugz", normalized=True)])
    assert tok.explain_fast_path().limits[0].startswith("It has added tokens matched in normalized text")


def test_chunk_entries_are_named_records_and_stay_tuples_for_the_kernel():
    entry = ChunkSteps(None, WhitespaceSplit(), WP, limit=4).entry("hugs", at_start=True)
    assert isinstance(entry, tuple) and entry.pieces == 1 and entry.ids == [1, 2] and entry.ends == [3, 4]
    assert ChunkEntry(*entry) == entry and entry[:2] == ([1, 2], ["hug", "##s"])


def test_packed_columns_round_trip_at_the_edges():
    assert columns.rows(columns.pack([], [], [], [])) == 0 and columns.join([b""]) == b""
    one = columns.pack([columns.ID_MAX], [0], [2**40], [7])
    assert columns.ROW_BYTES == 28 and columns.rows(one) == 1
    assert columns.column(one, columns.ENDS).tolist() == [2**40]
    both = columns.join([one, columns.pack([1, 2], [3, 4], [5, 6], [0, 1])])
    assert [columns.column(both, k).tolist() for k in range(4)] == [[columns.ID_MAX, 1, 2], [0, 3, 4],
                                                                     [2**40, 5, 6], [7, 0, 1]]
    swapped = columns.with_ids(both, array("i", [9, 9, 9]))
    assert columns.column(swapped, columns.IDS).tolist() == [9, 9, 9] and swapped[12:] == both[12:]
    builder = columns.ColumnBuilder()
    assert builder.row(columns.ID_MAX + 1, 0, 1, 0) is False and builder.count == 0  # an id past int32
    builder.add(b"")
    assert builder.joined() == b""
    builder.add_shifted(columns.pack([4, 5], [0, 1], [1, 3], [0, 0]), 10, 2)  # a part at 10, its word 2
    builder.row(9, 13, 14, 3)
    out = builder.joined()
    assert [columns.column(out, k).tolist() for k in range(4)] == [[4, 5, 9], [10, 11, 13], [11, 13, 14], [2, 2, 3]]


def test_encoding_from_columns_is_from_tokens_for_the_same_tokens():
    tokens = [Token(5, "hi", (0, 2)), Token(6, "!", (2, 3))]
    built = Encoding.from_columns([5, 6], ["hi", "!"], [(0, 2), (2, 3)], word_ids=[0, 1], sequence_id=1)
    assert built == Encoding.from_tokens(tokens, word_ids=[0, 1], type_id=1, sequence_id=1)
    assert Encoding.from_columns([], [], [], word_ids=[]) == Encoding.from_tokens([])
