"""SentencePiece ``.model`` import, line for line against ``sentencepiece`` over its option space.

Models are trained here (small vocabularies, a fraction of a second each) for every
combination of model type (Unigram, BPE) x byte_fallback x add_dummy_prefix x
remove_extra_whitespaces x split_by_whitespace x treat_whitespace_as_suffix, plus
user-defined and control symbols, each normalization rule, unused pieces, a custom unknown
surface, no whitespace escaping and byte-piece subsets; each is imported and must give
``sentencepiece``'s ids, pieces and decoded text on every line of multilingual text and
hostile strings. Mistral's models (from the ``mistral-common`` wheel or package) likewise.
"""

from __future__ import annotations

import itertools
import random
from pathlib import Path

import pytest

spm = pytest.importorskip("sentencepiece")
pb = pytest.importorskip("sentencepiece.sentencepiece_model_pb2")

from tokenizer_core.corpus.loading import load_sample  # noqa: E402
from tokenizer_core.errors import FormatError  # noqa: E402
from tokenizer_core.io import sentencepiece_proto as proto  # noqa: E402
from tokenizer_core.io.references import load_reference, reference_available, reference_files  # noqa: E402
from tokenizer_core.io.sentencepiece import import_sentencepiece_model  # noqa: E402
from tokenizer_core.pipeline import Tokenizer  # noqa: E402

HOSTILE = [
    "", " ", "  ", "\t", "\n", "a", " a", "a ", "  a  b  ", "double  space", " leading", "trailing ",
    "tab\tseparated\tvalues", "new\nline", "\r\nwindows\r\n", "nbsp\u00a0here", "ideographic\u3000space",
    "\u00a0\u00a0lead nbsp", "trail nbsp\u00a0", "mixed \u00a0 \t spaces", "emoji 😀 and 👍🏽 and 👨‍👩‍👧",
    "combining e\u0301 a\u0308 o\u0302\u0323", "<s> typed </s> in text", "<unk> typed", "<0x41> byte typed",
    "unknown ☃ ✈ ⌘ 𝔘𝔫𝔦𝔠𝔬𝔡𝔢", "ｆｕｌｌ　ｗｉｄｔｈ", "ﬁ ligature ﬂ", "zero\u200bwidth", "soft\u00adhyphen",
    "\u2047 question", "▁ literal meta ▁▁", "a▁b", "日本語のテキスト", "中文 文本", "한국어 텍스트",
    "Ελληνικά κείμενο", "Русский текст", "עברית", "العربية", "हिन्दी", "ไทย", "x" * 40, "   \t \n ",
    "end with newline\n", "𐍈 gothic", "\x00 nul \x01 ctrl \x7f del", "½ ² ™ ㍿ ①",
]
SYMBOL_LINES = ["a<sep>b", "<sep><sep>", "[INST]hello[/INST]", " [INST] x", "<ctrl> typed", "<s><sep></s>",
                "éé ééé", "x y x▁y", "12345 67890", "   spaced   out   ", "ＡＢＣ ＤＥＦ", "ǅ ß ẞ İ", "MIXED Ünïcödé"]


MISTRAL_LINES = ["[INST] hi [/INST]", "<s>[INST] x [/INST]</s>", "see [REF] 3 [/REF] and [REFERENCE_DOC_1]x",
                 "[TOOL_CALLS][AVAILABLE_TOOLS]", "[REFERENCE_DOC_19][REFERENCE_DOC_1]"]


def _lines(name: str) -> list[str]:
    return [ln.rstrip("\n") for ln in load_sample(name).lines()]


@pytest.fixture(scope="module")
def texts() -> dict[str, list[str]]:
    multilingual, english = _lines("multilingual"), _lines("default")
    return {
        "train": multilingual + english[:300] + ["use <sep> and [INST] tags [/INST] often <sep>"] * 5,
        "test": multilingual + HOSTILE + SYMBOL_LINES + english[:120] + english[5000:5200],
    }


@pytest.fixture(scope="module")
def trained(tmp_path_factory, texts):
    """``trained(name, **options)``: a model trained once per module into a temporary folder."""
    folder = tmp_path_factory.mktemp("spm-matrix")
    cache: dict[str, Path] = {}

    def train(name: str, **options) -> Path:
        if name not in cache:
            args = {"model_type": "unigram", "vocab_size": 500, "minloglevel": 2, "num_threads": 1,
                    "hard_vocab_limit": False, "character_coverage": 0.99, **options}
            if args["model_type"] == "unigram":  # fewer pruning rounds: training takes half the time
                args.setdefault("shrinking_factor", 0.5)
            if args.get("byte_fallback"):
                args["vocab_size"] += 300
            spm.SentencePieceTrainer.train(sentence_iterator=iter(texts["train"]), model_prefix=str(folder / name),
                                           **args)
            cache[name] = folder / f"{name}.model"
        return cache[name]

    return train


def _edited(path: Path, edit, name: str) -> Path:
    m = pb.ModelProto()
    m.ParseFromString(path.read_bytes())
    edit(m)
    out = path.with_name(f"{name}.model")
    out.write_bytes(m.SerializeToString())
    return out


def _differences(model: Path, lines: list[str], tok: Tokenizer | None = None) -> tuple[int, list[str]]:
    """(identical lines, descriptions of the others): ids, pieces and decoded text must all agree."""
    sp = spm.SentencePieceProcessor(model_file=str(model))
    tok = tok or import_sentencepiece_model(model)
    ref_ids, ref_pieces = sp.encode(lines), sp.encode(lines, out_type=str)
    same, diffs = 0, []
    for line, ids, pieces in zip(lines, ref_ids, ref_pieces):
        enc = tok.encode(line, add_special_tokens=False)
        ours, theirs = tok.decode(ids), sp.decode(ids)
        if enc.ids == ids and enc.tokens == pieces and ours == theirs:
            same += 1
        else:
            diffs.append(f"{line!r}: {enc.tokens} vs {pieces}; decoded {ours!r} vs {theirs!r}")
    return same, diffs


# ---------------------------------------------------------------------------------------- the matrix
MATRIX = list(itertools.product(["unigram", "bpe"], *[[False, True]] * 5))


def _matrix_id(combo) -> str:
    kind, *flags = combo
    return kind + "-" + "".join(f"{n}{int(f)}" for n, f in zip(("bf", "dp", "rx", "sw", "suf"), flags))


@pytest.mark.parametrize("combo", MATRIX, ids=[_matrix_id(c) for c in MATRIX])
def test_option_matrix_line_by_line(combo, trained, texts):
    kind, byte_fallback, dummy, remove_extra, split, suffix = combo
    model = trained(_matrix_id(combo), model_type=kind, byte_fallback=byte_fallback, add_dummy_prefix=dummy,
                    remove_extra_whitespaces=remove_extra, split_by_whitespace=split,
                    treat_whitespace_as_suffix=suffix)
    same, diffs = _differences(model, texts["test"])
    assert not diffs, f"{len(diffs)} of {same + len(diffs)} lines differ, e.g. " + "\n".join(diffs[:5])


# ---------------------------------------------------------------------------------------- beyond it
def _unused(m) -> None:
    """Mark every fifth multi-character normal piece unused (BPE merges then undo them)."""
    normal = [p for p in m.pieces if p.type == proto.NORMAL and len(p.piece) > 1]
    for p in normal[::5]:
        p.type = proto.UNUSED


VARIANTS = {
    "user-and-control-symbols": ({"user_defined_symbols": ["<sep>", "[INST]", "[/INST]", "éé", "x▁y"],
                                  "control_symbols": ["<ctrl>"]}, None),
    "user-symbols-byte-fallback": ({"user_defined_symbols": ["<sep>", "[INST]", "éé"], "byte_fallback": True}, None),
    "rule-nfkc": ({"normalization_rule_name": "nfkc"}, None),
    "rule-identity": ({"normalization_rule_name": "identity"}, None),
    "rule-nmt_nfkc_cf": ({"normalization_rule_name": "nmt_nfkc_cf"}, None),
    "digits-whitespace-pieces": ({"split_digits": True, "allow_whitespace_only_pieces": True,
                                  "remove_extra_whitespaces": False, "split_by_unicode_script": False}, None),
    "unused-pieces": ({}, _unused),
    "no-whitespace-escaping": ({}, lambda m: setattr(m.normalizer_spec, "escape_whitespaces", False)),
    "unk-surface": ({}, lambda m: setattr(m.trainer_spec, "unk_surface", "<?>")),
}


@pytest.mark.parametrize("kind", ["unigram", "bpe"])
@pytest.mark.parametrize("variant", list(VARIANTS))
def test_symbols_rules_and_edited_models_line_by_line(variant, kind, trained, texts):
    options, edit = VARIANTS[variant]
    model = trained(f"{variant}-{kind}", model_type=kind, **options)
    if edit is not None:
        model = _edited(model, edit, f"{variant}-{kind}-edited")
    same, diffs = _differences(model, texts["test"])
    assert not diffs, f"{len(diffs)} of {same + len(diffs)} lines differ, e.g. " + "\n".join(diffs[:5])


def test_unused_pieces_change_the_segmentation(trained, texts):
    """The unused-piece variant above must really exercise something."""
    plain = spm.SentencePieceProcessor(model_file=str(trained("unused-pieces-bpe", model_type="bpe")))
    edited = spm.SentencePieceProcessor(model_file=str(_edited(trained("unused-pieces-bpe", model_type="bpe"),
                                                               _unused, "unused-check")))
    assert plain.encode(texts["test"], out_type=str) != edited.encode(texts["test"], out_type=str)


@pytest.mark.parametrize("kind", ["unigram", "bpe"])
def test_byte_fallback_with_some_byte_pieces_missing(kind, trained, texts):
    """sentencepiece refuses such files; we read each missing byte as the unknown piece."""
    full = trained(f"bytes-{kind}", model_type=kind, byte_fallback=True)
    sp = spm.SentencePieceProcessor(model_file=str(full))
    missing = {f"<0x{b:02X}>" for b in range(0x80, 0x100, 3)}
    tok = import_sentencepiece_model(_edited(
        full, lambda m: [m.pieces.remove(p) for p in [p for p in m.pieces if p.piece in missing]], f"some-{kind}"))
    for line, pieces in zip(texts["test"], sp.encode(texts["test"], out_type=str)):
        expected = [tok.token_to_id("<unk>" if p in missing else p) for p in pieces]
        assert tok.encode(line, add_special_tokens=False).ids == expected, line


@pytest.mark.parametrize("dummy, remove_extra", list(itertools.product([True, False], repeat=2)))
@pytest.mark.parametrize("kind", ["unigram", "bpe"])
def test_decoding_random_id_sequences(kind, dummy, remove_extra, trained):
    """Control, unknown, byte (valid or not) and "▁" pieces in any order decode as in sentencepiece."""
    def settings(m):
        m.normalizer_spec.add_dummy_prefix, m.normalizer_spec.remove_extra_whitespaces = dummy, remove_extra
    model = _edited(trained(f"bytes-{kind}", model_type=kind, byte_fallback=True), settings,
                    f"decode-{kind}-{dummy}-{remove_extra}")
    sp = spm.SentencePieceProcessor(model_file=str(model))
    tok = import_sentencepiece_model(model)
    spaced = [i for i in range(sp.get_piece_size()) if "▁" in sp.id_to_piece(i)]
    pool = [0, 1, 2] + spaced + list(range(3, 3 + 256)) + list(range(sp.get_piece_size()))
    rng = random.Random(7)
    for _ in range(300):
        ids = [rng.choice(pool) for _ in range(rng.randint(0, 10))]
        assert tok.decode(ids) == sp.decode(ids), [sp.id_to_piece(i) for i in ids]


# ---------------------------------------------------------------------------------------- the pipeline
def test_offsets_point_into_the_original_text(trained):
    tok = import_sentencepiece_model(trained("offsets", model_type="bpe", byte_fallback=True))
    text = "  Hello\u00a0wörld ☃ ﬁne  "
    enc = tok.encode(text, add_special_tokens=False)
    assert enc.tokens[0].startswith("▁") and enc.offsets[0][0] == 2  # the dummy "▁" sits where "Hello" starts
    assert all(0 <= a <= b <= len(text) for a, b in enc.offsets)
    assert [a for a, _ in enc.offsets] == sorted(a for a, _ in enc.offsets)
    runs: dict[tuple[int, int], int] = {}
    for piece, span in zip(enc.tokens, enc.offsets):
        if piece.startswith("<0x"):
            runs[span] = runs.get(span, 0) + 1
    assert (text.index("☃"), text.index("☃") + 1) in runs  # byte pieces span the characters they spell
    assert all(len(text[a:b].encode("utf-8")) == count for (a, b), count in runs.items())


@pytest.mark.parametrize("kind", ["unigram", "bpe"])
def test_saved_import_reloads_and_encodes_the_same(kind, trained, texts, tmp_path):
    model = trained(f"user-and-control-symbols-{kind}", model_type=kind,
                    **VARIANTS["user-and-control-symbols"][0])
    tok = import_sentencepiece_model(model)
    tok.save(tmp_path / "tok.json")
    again = Tokenizer.load(tmp_path / "tok.json")
    same, diffs = _differences(model, texts["test"], again)
    assert not diffs, diffs[:5]


def test_proto_field_numbers_follow_the_published_schema():
    fields = {m.DESCRIPTOR.name: {f.name: (f.number, f.default_value if f.has_default_value else None)
                                  for f in m.DESCRIPTOR.fields}
              for m in (pb.TrainerSpec, pb.NormalizerSpec, pb.ModelProto.SentencePiece)}
    for number, (attr, _, _) in proto._TRAINER_FIELDS.items():
        assert fields["TrainerSpec"][attr][0] == number
    for number, (attr, _, _) in proto._NORMALIZER_FIELDS.items():
        assert fields["NormalizerSpec"][attr.replace("normalizer_", "")][0] == number
    assert [fields["SentencePiece"][n][0] for n in ("piece", "score", "type")] == [1, 2, 3]
    defaults = proto.ModelSpec(pieces=())
    for attr in ("byte_fallback", "split_by_whitespace", "treat_whitespace_as_suffix", "unk_surface"):
        assert getattr(defaults, attr) == fields["TrainerSpec"][attr][1]
    for attr in ("add_dummy_prefix", "remove_extra_whitespaces", "escape_whitespaces"):
        assert getattr(defaults, attr) == fields["NormalizerSpec"][attr][1]
    assert [e.number for e in pb.ModelProto.SentencePiece.Type.DESCRIPTOR.values] == [1, 2, 3, 4, 6, 5]


# ---------------------------------------------------------------------------------------- malformed
def _with(trained, edit, name: str) -> Path:
    return _edited(trained("plain-unigram", model_type="unigram"), edit, name)


def _add(m, piece: str, kind: int) -> None:
    p = m.pieces.add()
    p.piece, p.score, p.type = piece, 0.0, kind


@pytest.mark.parametrize("edit, message", [
    (lambda m: m.pieces.remove(m.pieces[0]), "exactly one unknown piece"),
    (lambda m: _add(m, m.pieces[5].piece, proto.NORMAL), "appears twice"),
    (lambda m: _add(m, "<0xZZ>", proto.BYTE), "is not written <0xXX>"),
    (lambda m: setattr(m.trainer_spec, "model_type", pb.TrainerSpec.CHAR), "char model"),
    (lambda m: setattr(m.normalizer_spec, "precompiled_charsmap", b"\x10\x00\x00\x00abc"), "normalization table"),
    (lambda m: setattr(m.denormalizer_spec, "precompiled_charsmap", m.normalizer_spec.precompiled_charsmap),
     "denormalization"),
])
def test_invalid_models_are_refused_clearly(edit, message, trained):
    path = _with(trained, edit, "invalid")
    with pytest.raises(FormatError, match=message) as err:
        import_sentencepiece_model(path)
    assert "invalid.model" in str(err.value)


@pytest.mark.parametrize("data, message", [
    (b"", "no pieces"),
    (b"\x0a\x05\x0a\x03ab", "runs past the end"),
    (b"\x0a\x04\x0a\x02\xff\xfe", "not valid UTF-8"),
    (b"\x0b\x00", "wire type 3"),
    (b"\x0a\x06\x0a\x01a\x15\x00\x00", "runs past the end"),
    (b"\x0a\x03\x0a\x01a\x10" + b"\xff" * 11, "longer than 10 bytes"),
    (b"\x0a\x03\x0a\x01a", "exactly one unknown piece"),
    (b"\x12\x02\x18\x05\x0a\x03\x0a\x01a", "type-5 model"),
])
def test_broken_bytes_are_refused_clearly(data, message, tmp_path):
    path = tmp_path / "broken.model"
    path.write_bytes(data)
    with pytest.raises(FormatError, match=message):
        import_sentencepiece_model(path)


# ---------------------------------------------------------------------------------------- Mistral
MISTRAL = ("mistral_v1", "mistral_v3")


@pytest.mark.parametrize("name", MISTRAL)
def test_mistral_models_line_by_line(name, texts):
    """Mistral's SentencePiece BPE models (shipped in mistral-common, offered as references) encode
    every test line as sentencepiece does."""
    if not reference_available(name):
        pytest.skip("mistral-common is not installed")
    path = reference_files(name)[0]
    tok = load_reference(name)
    assert tok.model.byte_fallback and tok.vocab_size == (32000 if name == "mistral_v1" else 32768)
    same, diffs = _differences(path, texts["test"] + MISTRAL_LINES, tok)
    assert not diffs, f"{len(diffs)} of {same + len(diffs)} lines differ, e.g. " + "\n".join(diffs[:5])
