"""Split patterns and special tokens of the tiktoken-style encodings that the references use.

The ranks files hold only ``token bytes -> rank``; how a text is cut into pieces and which
special tokens sit above the ranks is defined by each model's own code. These tables copy
those definitions (and ``tests/core/io/test_references_more.py`` checks them against ``tiktoken``'s
own ``o200k_base``/``o200k_harmony`` and the packages' loaders):

* ``o200k_base`` / ``o200k_harmony``: ``tiktoken_ext.openai_public`` (GPT-4o, GPT-OSS);
* ``llama3``: Meta's ``llama/tokenizer.py`` (Llama 3: 128,000 ranks + 256 special tokens);
* ``qwen`` / ``qwen3_5``: Qwen's ``tokenization_qwen.py`` (NFC first, one digit per piece).

:data:`KNOWN_RANK_FILES` recognizes these ranks files by hash for ``import --format tiktoken``.

>>> ENCODINGS["o200k_base"].special_tokens
{'<|endoftext|>': 199999, '<|endofprompt|>': 200018}
>>> len(ENCODINGS["llama3"].special_tokens), ENCODINGS["llama3"].special_tokens["<|eot_id|>"]
(256, 128009)
>>> sorted(ENCODINGS)
['llama3', 'o200k_base', 'o200k_harmony', 'qwen', 'qwen3_5']
"""

from __future__ import annotations

from dataclasses import dataclass, field

#: GPT-4o's split (tiktoken's ``o200k_base``): case-aware words with contractions attached,
#: numbers in groups of up to three digits, punctuation runs that keep a trailing "/" or newline.
O200K_PATTERN = "|".join(
    [
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""\p{N}{1,3}""",
        r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
        r"""\s*[\r\n]+""",
        r"""\s+(?!\S)""",
        r"""\s+""",
    ]
)

#: Llama 3's split: cl100k's, spelled without possessive quantifiers.
LLAMA3_PATTERN = (
    r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*"""
    r"""|\s*[\r\n]+|\s+(?!\S)|\s+"""
)

#: Qwen's split (Qwen-7B's tiktoken tokenizer, also Qwen2 and Qwen3): every digit is a piece.
QWEN_PATTERN = (
    r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*"""
    r"""|\s*[\r\n]+|\s+(?!\S)|\s+"""
)

#: Qwen3.5's split: Qwen's, with combining marks (\p{M}) kept inside words.
QWEN3_5_PATTERN = (
    r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?[\p{L}\p{M}]+|\p{N}| ?[^\s\p{L}\p{M}\p{N}]+[\r\n]*"""
    r"""|\s*[\r\n]+|\s+(?!\S)|\s+"""
)


@dataclass(frozen=True)
class EncodingSpec:
    """How to run one ranks file: split pattern, special tokens (string -> id) and NFC or not."""

    pattern: str
    special_tokens: dict[str, int] = field(default_factory=dict)
    nfc: bool = False


def _o200k_specials() -> dict[str, int]:
    return {"<|endoftext|>": 199999, "<|endofprompt|>": 200018}


def _harmony_specials() -> dict[str, int]:
    """GPT-OSS's o200k_harmony, as tiktoken defines it, without ``<|reserved_200018|>``.

    tiktoken lists both ``<|endofprompt|>`` and ``<|reserved_200018|>`` for id 200018; a
    vocabulary holds one string per id, so the name ``o200k_base`` gives that id is kept.
    """
    named = {
        "<|startoftext|>": 199998,
        "<|endoftext|>": 199999,
        "<|return|>": 200002,
        "<|constrain|>": 200003,
        "<|channel|>": 200005,
        "<|start|>": 200006,
        "<|end|>": 200007,
        "<|message|>": 200008,
        "<|call|>": 200012,
        "<|endofprompt|>": 200018,
    }
    taken = set(named.values())
    reserved = {f"<|reserved_{i}|>": i for i in range(200000, 201088) if i not in taken}
    return {**named, **reserved}


def _llama3_specials() -> dict[str, int]:
    names = [
        "<|begin_of_text|>",
        "<|end_of_text|>",
        "<|reserved_special_token_0|>",
        "<|reserved_special_token_1|>",
        "<|reserved_special_token_2|>",
        "<|reserved_special_token_3|>",
        "<|start_header_id|>",
        "<|end_header_id|>",
        "<|reserved_special_token_4|>",
        "<|eot_id|>",
    ] + [f"<|reserved_special_token_{i}|>" for i in range(5, 251)]
    return {name: 128000 + i for i, name in enumerate(names)}


def _qwen_specials() -> dict[str, int]:
    names = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"] + [f"<|extra_{i}|>" for i in range(205)]
    return {name: 151643 + i for i, name in enumerate(names)}


def _qwen3_5_specials() -> dict[str, int]:
    names = [
        "<|endoftext|>", "<|im_start|>", "<|im_end|>", "<|object_ref_start|>", "<|object_ref_end|>",
        "<|box_start|>", "<|box_end|>", "<|quad_start|>", "<|quad_end|>", "<|vision_start|>",
        "<|vision_end|>", "<|vision_pad|>", "<|image_pad|>", "<|video_pad|>", "<tool_call>",
        "</tool_call>", "<|fim_prefix|>", "<|fim_middle|>", "<|fim_suffix|>", "<|fim_pad|>",
        "<|repo_name|>", "<|file_sep|>", "<tool_response>", "</tool_response>", "<think>", "</think>",
        "<|audio_start|>", "<|audio_end|>", "<tts_pad>", "<tts_text_bos>", "<tts_text_eod>",
        "<tts_text_bos_single>", "<|audio_pad|>",
    ]
    return {name: 248044 + i for i, name in enumerate(names)}


ENCODINGS: dict[str, EncodingSpec] = {
    "o200k_base": EncodingSpec(O200K_PATTERN, _o200k_specials()),
    "o200k_harmony": EncodingSpec(O200K_PATTERN, _harmony_specials()),
    "llama3": EncodingSpec(LLAMA3_PATTERN, _llama3_specials()),
    "qwen": EncodingSpec(QWEN_PATTERN, _qwen_specials(), nfc=True),
    "qwen3_5": EncodingSpec(QWEN3_5_PATTERN, _qwen3_5_specials(), nfc=True),
}

#: SHA-256 of known ranks files (as text, after any gzip) -> their encoding, so that
#: ``import --format tiktoken`` gives such a file its own pattern and special tokens.
KNOWN_RANK_FILES: dict[str, str] = {
    "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d": "o200k_base",
    "82e9d31979e92ab929cd544440f129d9ecd797b69e327f80f17e1c50d5551b55": "llama3",
    "b2b1b8dfb5cc5f024bafc373121c6aba3f66f9a5a0269e243470a1de16a33186": "qwen",
    "8dde380a6405e935f5de16a99eb61c824f3f814dd1ed298784c72babb7a03cdd": "qwen3_5",
}
