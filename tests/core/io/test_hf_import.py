"""Reading tokenizers' tokenizer.json files, locally and through the Hub cache."""

from __future__ import annotations

import copy
import json

import pytest
import tokenizers
from hypothesis import given, settings
from hypothesis import strategies as st
from tokenizers import decoders, models, normalizers, pre_tokenizers

from tests._texts import TRICKY, real_lines
from tokenizer_core.errors import FormatError, TokenizerError, UnsupportedError
from tokenizer_core.io.hf_json import load_from_hub, load_hf_file, tokenizer_from_hf
from tokenizer_core.io.importers import import_tokenizer


def _hf_word_tokenizer(normalizer, pre_tokenizer) -> tokenizers.Tokenizer:
    words: dict[str, int] = {"[UNK]": 0, "[PAD]": 1}
    for line in real_lines(400):
        n = normalizer.normalize_str(line) if normalizer else line
        for w, _ in pre_tokenizer.pre_tokenize_str(n):
            words.setdefault(w, len(words))
    tok = tokenizers.Tokenizer(models.WordLevel(words, unk_token="[UNK]"))
    if normalizer is not None:
        tok.normalizer = normalizer
    tok.pre_tokenizer = pre_tokenizer
    tok.add_special_tokens(["[UNK]", "[PAD]"])
    return tok


SETUPS = [
    (normalizers.BertNormalizer(), pre_tokenizers.BertPreTokenizer()),
    (normalizers.Sequence([normalizers.NFKC(), normalizers.Lowercase()]), pre_tokenizers.Whitespace()),
    (None, pre_tokenizers.ByteLevel(add_prefix_space=True)),
    (normalizers.NFD(), pre_tokenizers.Metaspace()),
    (None, pre_tokenizers.Sequence([pre_tokenizers.WhitespaceSplit(), pre_tokenizers.Punctuation()])),
]


@pytest.mark.parametrize("setup", SETUPS, ids=lambda s: type(s[1]).__name__)
def test_imported_tokenizer_encodes_like_tokenizers(tmp_path, setup):
    theirs = _hf_word_tokenizer(*setup)
    path = tmp_path / "tokenizer.json"
    theirs.save(str(path))
    ours = import_tokenizer("hf", path)
    for line in real_lines(600) + TRICKY:
        want = theirs.encode(line)
        got = ours.encode(line)
        assert got.ids == want.ids, line
        assert got.offsets == [tuple(o) for o in want.offsets], line


def test_round_trip_ours_to_hf_and_back(tmp_path):
    theirs = _hf_word_tokenizer(normalizers.BertNormalizer(), pre_tokenizers.BertPreTokenizer())
    path = tmp_path / "a.json"
    theirs.save(str(path))
    ours = load_hf_file(path)
    again = tmp_path / "b.json"
    ours.save_hf(again)
    back = tokenizers.Tokenizer.from_file(str(again))
    for line in real_lines(200):
        assert back.encode(line).ids == theirs.encode(line).ids


def test_decoder_is_imported(tmp_path):
    theirs = _hf_word_tokenizer(None, pre_tokenizers.Metaspace())
    theirs.decoder = decoders.Metaspace()
    path = tmp_path / "t.json"
    theirs.save(str(path))
    ours = load_hf_file(path)
    ids = theirs.encode("Hello there world").ids
    assert ours.decode(ids) == theirs.decode(ids)


def test_unsupported_parts_are_named(tmp_path):
    data = json.loads(_hf_word_tokenizer(None, pre_tokenizers.Whitespace()).to_str())
    data["normalizer"] = {"type": "Precompiled", "precompiled_charsmap": ""}
    with pytest.raises(FormatError, match="normalizer of type 'Precompiled'"):
        tokenizer_from_hf(data)
    data["normalizer"] = None
    data["model"]["type"] = "Mystery"
    with pytest.raises(FormatError, match="model of type 'Mystery'"):
        tokenizer_from_hf(data)
    with pytest.raises(FormatError, match="no \"model\""):
        tokenizer_from_hf({"hello": 1})
    bad = tmp_path / "bad.json"
    bad.write_text("[1, 2", encoding="utf-8")
    with pytest.raises(FormatError, match="not valid JSON"):
        load_hf_file(bad)


def test_errors_name_each_part_once():
    data = json.loads(_hf_word_tokenizer(None, pre_tokenizers.Whitespace()).to_str())

    def error_of(normalizer) -> FormatError:
        with pytest.raises(FormatError) as caught:
            tokenizer_from_hf({**data, "normalizer": normalizer})
        return caught.value

    # A part the playground lacks, inside a Sequence: said as unsupported, not as malformed.
    err = error_of({"type": "Sequence", "normalizers": [{"type": "NFC"}, {"type": "Mystery"}]})
    assert isinstance(err, UnsupportedError)
    assert str(err).startswith("this tokenizer.json uses a normalizer of type 'Mystery'")
    # Each enclosing part adds its name once; a part's own message is not wrapped again.
    err = error_of({"type": "Sequence", "normalizers": [{"type": "Replace", "pattern": {"String": "a"}}]})
    assert str(err).startswith("malformed normalizer of type 'Sequence': malformed normalizer of type 'Replace': ")
    assert str(error_of({"type": "Sequence", "normalizers": 5})) == (
        "malformed normalizer of type 'Sequence': \"normalizers\" must be a list")
    assert str(error_of({"type": "Precompiled", "precompiled_charsmap": ""})) == (
        "normalizer of type 'Precompiled' needs a non-empty base64 \"precompiled_charsmap\"")
    assert not isinstance(error_of({"type": "Precompiled"}), UnsupportedError)


@pytest.mark.parametrize("add_prefix_space,scheme", [(False, "never"), (True, "always"), (None, "always")])
def test_legacy_metaspace_without_prepend_scheme(add_prefix_space, scheme):
    # Files written before prepend_scheme existed (tokenizers < 0.14) say only add_prefix_space.
    # Today's tokenizers refuses {"add_prefix_space": false} alone ("does not match declared
    # prepend_scheme", its default being "always"), so the reference is the same file with the
    # scheme that flag meant written out.
    vocab = {"[UNK]": 0, "hi": 1, "▁hi": 2, "there": 3, "▁there": 4, "▁": 5}
    theirs = tokenizers.Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    legacy = json.loads(theirs.to_str())
    for kind in ("pre_tokenizer", "decoder"):
        legacy[kind] = {"type": "Metaspace", "replacement": "▁"}
        if add_prefix_space is not None:  # None: neither field, which means "always"
            legacy[kind]["add_prefix_space"] = add_prefix_space
    reference = copy.deepcopy(legacy)
    for kind in ("pre_tokenizer", "decoder"):
        reference[kind]["prepend_scheme"] = scheme
    ref, ours = tokenizers.Tokenizer.from_str(json.dumps(reference)), tokenizer_from_hf(legacy)
    for text in ["hi there", " hi", "there  hi hi", ""]:
        want, got = ref.encode(text), ours.encode(text)
        assert (got.ids, got.tokens) == (want.ids, want.tokens), text
        assert ours.decode(got.ids) == ref.decode(want.ids), text
    assert ours.encode("hi").tokens == (["hi"] if scheme == "never" else ["▁hi"])


def _fake_hub_cache(root, repo_id: str, tokenizer_json: str, **others: str) -> None:
    """Lay out a Hub cache entry the way huggingface_hub stores downloads (``others``: more files,
    by name with dots as underscores)."""
    commit = "0123456789abcdef0123456789abcdef01234567"
    repo = root / ("models--" + repo_id.replace("/", "--"))
    (repo / "refs").mkdir(parents=True)
    (repo / "refs" / "main").write_text(commit)
    snap = repo / "snapshots" / commit
    snap.mkdir(parents=True)
    (snap / "tokenizer.json").write_text(tokenizer_json, encoding="utf-8")
    for name, text in others.items():
        (snap / name.replace("_json", ".json").replace("_jinja", ".jinja")).write_text(text, encoding="utf-8")


def test_hub_load_uses_the_local_cache_when_offline(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    theirs = _hf_word_tokenizer(normalizers.Lowercase(), pre_tokenizers.Whitespace())
    _fake_hub_cache(tmp_path, "someone/tiny-words", theirs.to_str())
    ours = load_from_hub("someone/tiny-words", cache_dir=str(tmp_path))
    assert ours.encode("The Python language").ids == theirs.encode("The Python language").ids
    assert ours.metadata["source"] == "hub:someone/tiny-words"


def test_hub_load_brings_the_models_config_and_chat_template(tmp_path, monkeypatch):
    """The Hub's tokenizer_config.json and chat_template.jinja come with the tokenizer, kept as an
    upload beside the file keeps them (the Chat templates page renders the template); a repository
    without them, or with a broken config, loads its tokenizer all the same."""
    from tokenizer_core.chat import template_for

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    theirs = _hf_word_tokenizer(normalizers.Lowercase(), pre_tokenizers.Whitespace())
    config = json.dumps({"tokenizer_class": "PreTrainedTokenizerFast", "bos_token": {"content": "[UNK]"},
                         "chat_template": "from the config"})
    _fake_hub_cache(tmp_path, "someone/chat", theirs.to_str(), tokenizer_config_json=config,
                    chat_template_jinja="{{ bos_token }}{% for m in messages %}{{ m.content }}{% endfor %}")
    tok = load_from_hub("someone/chat", cache_dir=str(tmp_path))
    assert tok.metadata["tokenizer_config"] == {
        "tokenizer_class": "PreTrainedTokenizerFast", "bos_token": "[UNK]",
        "chat_template": "{{ bos_token }}{% for m in messages %}{{ m.content }}{% endfor %}"}
    template, why = template_for(tok)
    assert template.render([{"role": "user", "content": "python"}]) == "[UNK]python" and "own" in why
    _fake_hub_cache(tmp_path, "someone/broken", theirs.to_str(), tokenizer_config_json="[1, 2")
    assert "tokenizer_config" not in load_from_hub("someone/broken", cache_dir=str(tmp_path)).metadata


def test_hub_load_offline_and_uncached_is_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(TokenizerError, match="cannot reach the Hugging Face Hub"):
        load_from_hub("someone/not-cached", cache_dir=str(tmp_path))


def test_hub_load_without_network_fails_fast(tmp_path, monkeypatch):
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.setenv("HF_ENDPOINT", "http://127.0.0.1:9")  # the discard port: nothing listens there
    with pytest.raises(TokenizerError, match="cannot reach the Hugging Face Hub"):
        load_from_hub("someone/anything", cache_dir=str(tmp_path))


@pytest.mark.parametrize("name", ["", "a b", "a/b/c"])
def test_hub_repo_names_are_checked(name):
    with pytest.raises(TokenizerError, match="not a Hub repository name"):
        load_from_hub(name)


_NFKC_WS = _hf_word_tokenizer(normalizers.Sequence([normalizers.NFKC(), normalizers.Lowercase()]),
                              pre_tokenizers.Whitespace())
_NFKC_WS_OURS = tokenizer_from_hf(json.loads(_NFKC_WS.to_str()))


@given(st.text(st.characters(exclude_categories=("Cn", "Cs")), max_size=25))
@settings(max_examples=300)
def test_offsets_after_normalisation_match_tokenizers_on_any_text(text):
    want = _NFKC_WS.encode(text)
    got = _NFKC_WS_OURS.encode(text)
    assert got.ids == want.ids
    assert got.offsets == [tuple(o) for o in want.offsets]


def _hf_trained(kind: str) -> tokenizers.Tokenizer:
    """A tokenizer trained by the tokenizers library itself, set up the usual way for its kind."""
    from tokenizers import processors, trainers

    lines = real_lines(1500)
    if kind == "gpt2-style":
        tok = tokenizers.Tokenizer(models.BPE())
        tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
        tok.decoder = decoders.ByteLevel()
        tok.post_processor = processors.ByteLevel(trim_offsets=True)
        trainer = trainers.BpeTrainer(vocab_size=800, special_tokens=["<|endoftext|>"],
                                      initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    elif kind == "bert-style":
        tok = tokenizers.Tokenizer(models.WordPiece(unk_token="[UNK]"))
        tok.normalizer = normalizers.BertNormalizer()
        tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
        tok.decoder = decoders.WordPiece()
        trainer = trainers.WordPieceTrainer(vocab_size=800, special_tokens=["[PAD]", "[UNK]", "[CLS]", "[SEP]"])
    else:
        tok = tokenizers.Tokenizer(models.Unigram())
        tok.normalizer = normalizers.NFKC()
        tok.pre_tokenizer = pre_tokenizers.Metaspace()
        tok.decoder = decoders.Metaspace()
        trainer = trainers.UnigramTrainer(vocab_size=800, special_tokens=["<unk>"], unk_token="<unk>")
    tok.train_from_iterator(lines, trainer=trainer)
    if kind == "bert-style":
        tok.post_processor = processors.TemplateProcessing(
            single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1",
            special_tokens=[("[CLS]", tok.token_to_id("[CLS]")), ("[SEP]", tok.token_to_id("[SEP]"))])
    return tok


@pytest.mark.parametrize("kind", ["gpt2-style", "bert-style", "unigram"])
def test_models_trained_by_tokenizers_import_and_encode_identically(tmp_path, kind):
    theirs = _hf_trained(kind)
    path = tmp_path / "tokenizer.json"
    theirs.save(str(path))
    ours = load_hf_file(path)
    for line in real_lines(1500)[::3] + TRICKY:
        want, got = theirs.encode(line), ours.encode(line)
        assert got.ids == want.ids, line
        assert got.tokens == want.tokens, line
        assert ours.decode(got.ids) == theirs.decode(want.ids), line
    pair = ours.encode("first part", "second part")
    assert pair.ids == theirs.encode("first part", "second part").ids
