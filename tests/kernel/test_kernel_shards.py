"""One long text on several threads (kernels/src/encode_shards.c): the kernel cuts it after newlines,
encodes the shards at once, and keeps their answer only when each shard ended exactly where the next
began (else it encodes the text again in one pass). Whatever the pattern, the answer is the one
pass's, column for column: the GPT-2 and cl100k scanners, compiled programs, chains of Splits whose
first level leaves gaps across the cuts, and a pattern whose pieces run across every newline (the
fallback). Runs on the sanitized build too (scripts/sanitized_tests.txt)."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests._texts import TRICKY, real_lines
from tokenizer_core.bpe.kernel import kernel_encoder
from tokenizer_core.io.references import load_reference
from tokenizer_core.kernel.native import available
from tokenizer_core.text.byte_level import ByteLevel
from tokenizer_core.text.pre_tokenizers import Sequence
from tokenizer_core.text.splitting import Split

pytestmark = pytest.mark.skipif(not available(), reason="the compiled kernel is not built")

#: A thread gets at least this many characters (SHARD_MIN_CHARS in encode_shards.c).
SHARD_MIN = 1 << 16


@pytest.fixture(scope="module")
def encoders() -> dict:
    gpt2 = load_reference("gpt2").model
    out = {
        "gpt2-scanner": kernel_encoder(ByteLevel(), gpt2),
        "cl100k-scanner": kernel_encoder(load_reference("cl100k_base").pre_tokenizer, load_reference("cl100k_base").model),
        "o200k-program": kernel_encoder(load_reference("o200k_base").pre_tokenizer, load_reference("o200k_base").model),
        # DeepSeek's shape: digits isolated first, so the first level's gaps run across the cuts.
        "gapped-chain": kernel_encoder(Sequence([
            Split(r"\p{N}{1,3}", is_regex=True), Split(r"[一-龥\u3040-ゟ゠-ヿ]+", is_regex=True),
            Split(r"[^\r\n\p{L}\p{P}\p{S}]?[\p{L}\p{M}]+| ?[\p{P}\p{S}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+", is_regex=True),
            ByteLevel(add_prefix_space=False, use_regex=False)]), gpt2),
        # Pieces from a newline to the end of the next line: a cut (just after a newline) is a piece
        # boundary only after an empty line, so shards rarely agree and calls fall back to one pass.
        "across-newlines": kernel_encoder(ByteLevel(pattern=r"[^\n]*\n[^\n]*|[\s\S]"), gpt2),
    }
    assert all(e is not None and not hasattr(e, "encoder") for e in out.values())  # the kernel splits all
    return out


def _long_text(seed: int, chars: int) -> str:
    rng = random.Random(seed)
    lines = TRICKY + real_lines(400) + ["", "  ", "123456 7890", "中文字符 テスト", "x" * 300]
    out, size = [], 0
    while size < chars:
        line = rng.choice(lines)
        out.append(line)
        size += len(line) + 1
    return "\n".join(out)


def _columns(encoder, text: str, threads: int, base: int = 0, first_word: int = 0):  # noqa: ANN001, ANN202
    packed, pieces, _ = encoder.encode(text, base, first_word, packed=True, threads=threads)
    return packed, pieces


@pytest.mark.parametrize("name", ["gpt2-scanner", "cl100k-scanner", "o200k-program", "gapped-chain", "across-newlines"])
def test_every_thread_count_gives_the_one_pass_encoding(encoders, name) -> None:
    encoder = encoders[name]
    text = _long_text(1, 5 * SHARD_MIN)
    one = _columns(encoder, text, 1, base=11, first_word=3)
    for threads in (2, 3, 8, 64):
        assert _columns(encoder, text, threads, base=11, first_word=3) == one, (name, threads)
    # The lists too: ids, token strings, offsets from the base, word ids from the first word.
    assert encoder.encode(text, 11, 3, threads=4) == encoder.encode(text, 11, 3)


def test_a_cut_inside_a_first_level_match_is_not_taken_for_a_boundary() -> None:
    """The first level matches pairs of lines, the second splits a pair's lines, keeping a line's
    newline only when another line follows inside the pair. A cut after a pair's first line is where
    a second-level piece ends, but a shard started there would pair the lines otherwise (and keep the
    wrong newlines): such a cut must not be taken for a boundary (a gap of the first level may be)."""
    gpt2 = load_reference("gpt2").model
    encoder = kernel_encoder(Sequence([
        Split(r"[a-z]+\n[a-z]+\n", is_regex=True),
        Split(r"[a-z]+\n(?=[a-z])|[a-z]+|\n", is_regex=True),
        ByteLevel(add_prefix_space=False, use_regex=False)]), gpt2)
    assert encoder is not None and not hasattr(encoder, "encoder")
    rng = random.Random(5)
    text = "".join("".join(rng.choice("abcdefgh") for _ in range(rng.randint(1, 12))) + "\n"
                   for _ in range(5 * SHARD_MIN // 7))
    one = _columns(encoder, text, 1)
    for threads in (2, 3, 5, 8, 13, 64):
        assert _columns(encoder, text, threads) == one, threads


def test_short_texts_and_texts_without_newlines_stay_on_one_thread(encoders) -> None:
    encoder = encoders["o200k-program"]
    for text in ("", "a", "x" * (3 * SHARD_MIN), "word " * SHARD_MIN, _long_text(2, SHARD_MIN)):
        assert _columns(encoder, text, 8) == _columns(encoder, text, 1)


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 10_000), size=st.sampled_from([2 * SHARD_MIN, 3 * SHARD_MIN + 17]),
       threads=st.integers(2, 6))
def test_random_long_texts(encoders, seed: int, size: int, threads: int) -> None:
    text = _long_text(seed, size)
    for name in ("cl100k-scanner", "gapped-chain"):
        assert _columns(encoders[name], text, threads) == _columns(encoders[name], text, 1), (name, seed)


def test_a_thread_count_out_of_range_is_refused(encoders) -> None:
    encoder = encoders["gpt2-scanner"]
    for threads in (0, -1, 65):
        with pytest.raises(ValueError, match="threads must be between 1 and 64"):
            encoder.encode("text", 0, 0, threads=threads)
