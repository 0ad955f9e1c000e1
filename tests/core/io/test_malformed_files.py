"""Malformed tokenizer files: loading either works or raises a clear FormatError, never anything else."""

from __future__ import annotations

import copy
import json

import pytest
import tokenizers
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tokenizer_core import TrainOptions, train
from tokenizer_core.errors import FormatError, TokenizerError, UnknownIdError, UnknownTokenError
from tokenizer_core.io.hf_json import tokenizer_from_hf
from tokenizer_core.pipeline import Tokenizer

LINES = ["low lower newest widest\n", "hug pug pun bun hugs\n", "the cat sat on the mat\n"] * 20
MODELS = ["word", "char", "byte", "bpe", "wordpiece", "unigram"]
_SAVED = {m: train(m, LINES, options=TrainOptions(vocab_size=60 if m != "byte" else None)).to_dict() for m in MODELS}
_HF = {m: train(m, LINES, options=TrainOptions(vocab_size=60 if m != "byte" else None)).to_hf_json() for m in MODELS}

JUNK = st.one_of(st.none(), st.booleans(), st.integers(-5, 10**6), st.floats(allow_nan=True), st.text(max_size=5),
                 st.lists(st.integers(), max_size=3), st.dictionaries(st.text(max_size=3), st.integers(), max_size=2))


def _paths(node, prefix=()):
    yield prefix
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _paths(v, prefix + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node[:3]):
            yield from _paths(v, prefix + (i,))


def _mutate(doc, path, junk, delete):
    doc = copy.deepcopy(doc)
    if not path:
        return junk
    parent = doc
    for key in path[:-1]:
        parent = parent[key]
    if delete and isinstance(parent, dict):
        del parent[path[-1]]
    else:
        parent[path[-1]] = junk
    return doc


@st.composite
def mutated(draw, source):
    model = draw(st.sampled_from(MODELS))
    doc = source[model]
    paths = list(_paths(doc))
    return _mutate(doc, draw(st.sampled_from(paths)), draw(JUNK), draw(st.booleans()))


def _check_loads_or_refuses(load, doc):
    try:
        tok = load(doc)
    except TokenizerError:
        return  # FormatError is a TokenizerError: a clear, expected refusal
    # A file that loads must also encode and decode without crashing.
    try:
        tok.decode(tok.encode("hug the lowest <b>cat</b>").ids)
    except TokenizerError:
        pass


@settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(mutated(_SAVED))
def test_mutated_own_files_load_or_raise_format_errors(doc):
    _check_loads_or_refuses(Tokenizer.from_dict, doc)


@settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(mutated(_HF))
def test_mutated_tokenizer_json_files_load_or_raise_format_errors(doc):
    _check_loads_or_refuses(tokenizer_from_hf, doc)


@pytest.mark.parametrize("model", MODELS)
def test_unmutated_files_still_load(model, tmp_path):
    path = tmp_path / "t.json"
    path.write_text(json.dumps(_SAVED[model]), encoding="utf-8")
    assert Tokenizer.load(path).vocab_size > 0


def _whitespace_word_level(post_processor) -> dict:
    theirs = tokenizers.Tokenizer(tokenizers.models.WordLevel({"hello": 0, "[CLS]": 1, "<unk>": 2}, unk_token="<unk>"))
    theirs.pre_tokenizer = tokenizers.pre_tokenizers.Whitespace()
    theirs.post_processor = post_processor
    return json.loads(theirs.to_str())


def test_the_opening_probe_tells_vocabulary_limits_from_broken_files():
    # tokenizers' Unigram may have no unknown id: the probe sentence's words it cannot spell are a
    # property of the vocabulary (UnknownTokenError), so the file opens.
    no_unk = tokenizers.Tokenizer(tokenizers.models.Unigram([("hello", -1.0), ("[CLS]", -2.0)], None, False))
    tok = tokenizer_from_hf(json.loads(no_unk.to_str()))
    assert tok.encode("hello").ids == [0]
    with pytest.raises(UnknownTokenError, match="no unknown token"):
        tok.encode("hello world")
    # A template id outside the vocabulary loads in tokenizers (its decode skips the id): it opens
    # here too, and decoding that id is an UnknownIdError.
    template = tokenizers.processors.TemplateProcessing(single="[CLS] $A", pair="[CLS] $A $B:1",
                                                        special_tokens=[("[CLS]", 7)])
    tok = tokenizer_from_hf(_whitespace_word_level(template))
    assert tok.encode("hello").ids == [7, 0]
    with pytest.raises(UnknownIdError, match="id 7 is not in the vocabulary"):
        tok.decode([7, 0], skip_special_tokens=False)
    # Parts that load but cannot work together are refused when the file is opened.
    bert = tokenizers.processors.BertProcessing(("[CLS]", 1), ("[CLS]", 1))
    with pytest.raises(FormatError, match="fails on a test sentence.*takes one text or a pair"):
        tokenizer_from_hf(_whitespace_word_level(tokenizers.processors.Sequence([bert, bert])))
