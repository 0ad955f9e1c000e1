"""Write a tokenizer as the folder ``transformers.AutoTokenizer.from_pretrained(folder)`` loads:
``tokenizer.json`` (the whole pipeline), ``tokenizer_config.json`` (the class, the special tokens,
``model_max_length``, the padding and truncation sides) and ``special_tokens_map.json``.

transformers reads the pipeline from ``tokenizer.json``; the config only names the roles of special
tokens (which one pads, which one is unknown ...). Roles are found from the tokenizer itself: the
model's unknown token, the post-processor's template (``[CLS] $A [SEP]``: cls and sep; ``<s> $A``:
bos), then the usual names (``[PAD]``, ``<pad>``, ``<|endoftext|>`` ...). A pad token can be named.

>>> from tokenizer_core.io.vocab_txt import bert_tokenizer
>>> tok = bert_tokenizer({"[PAD]": 0, "[UNK]": 1, "[CLS]": 2, "[SEP]": 3, "hi": 4})
>>> docs = transformers_documents(tok, options=TransformersOptions(model_max_length=128))
>>> sorted(docs), docs["special_tokens_map.json"]
(['special_tokens_map.json', 'tokenizer.json', 'tokenizer_config.json'], {'cls_token': '[CLS]', 'pad_token': '[PAD]', 'sep_token': '[SEP]', 'unk_token': '[UNK]'})
>>> docs["tokenizer_config.json"]["tokenizer_class"], docs["tokenizer_config.json"]["model_max_length"]
('PreTrainedTokenizerFast', 128)
"""

from __future__ import annotations

import io
import json
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional, Union

from tokenizer_core.errors import TokenizerError

FILES = ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json")
#: transformers' own "no limit" (``VERY_LARGE_INTEGER``), written when no maximum length is given.
NO_MAX_LENGTH = int(1e30)
ROLES = ("bos_token", "eos_token", "unk_token", "sep_token", "pad_token", "cls_token", "mask_token")

# Names that say a token's role, compared case-insensitively. GPT-2's <|endoftext|> ends a text.
_NAMES: dict[str, tuple[str, ...]] = {
    "pad_token": ("[pad]", "<pad>", "<|pad|>", "<|padding|>", "<|finetune_right_pad_id|>"),
    "unk_token": ("[unk]", "<unk>", "<|unk|>"),
    "bos_token": ("[bos]", "<s>", "<bos>", "<|begin_of_text|>", "<|startoftext|>"),
    "eos_token": ("[eos]", "</s>", "<eos>", "<|endoftext|>", "<|end_of_text|>", "<|eot_id|>"),
    "cls_token": ("[cls]", "<cls>"),
    "sep_token": ("[sep]", "<sep>"),
    "mask_token": ("[mask]", "<mask>"),
}


@dataclass(frozen=True)
class TransformersOptions:
    """What ``tokenizer_config.json`` says beyond the tokenizer itself.

    ``model_max_length``: the longest input of the model (None: no limit); ``pad_token``: the
    padding token when the tokenizer has none by name (e.g. ``<|endoftext|>`` for GPT-2).
    """

    model_max_length: Optional[int] = None
    padding_side: str = "right"
    truncation_side: str = "right"
    pad_token: Optional[str] = None

    def __post_init__(self) -> None:
        if self.model_max_length is not None and self.model_max_length <= 0:
            raise TokenizerError(f"model_max_length must be a positive number, got {self.model_max_length}")
        for name in ("padding_side", "truncation_side"):
            if getattr(self, name) not in ("left", "right"):
                raise TokenizerError(f"{name} must be 'left' or 'right', got {getattr(self, name)!r}")


def special_token_roles(tok: Any, *, pad_token: Optional[str] = None,
                        hf: Optional[dict[str, Any]] = None) -> dict[str, str]:
    """The role of each special token transformers names (``unk_token``, ``pad_token`` ...), read from
    the ``tokenizer.json`` document ``hf`` (made from ``tok`` when not given).

    >>> from tokenizer_core.io.vocab_txt import bert_tokenizer
    >>> special_token_roles(bert_tokenizer({"[UNK]": 0, "[CLS]": 1, "[SEP]": 2, "hi": 3}), pad_token="[UNK]")
    {'unk_token': '[UNK]', 'cls_token': '[CLS]', 'sep_token': '[SEP]', 'pad_token': '[UNK]'}
    """
    hf = tok.to_hf_json() if hf is None else hf
    roles: dict[str, str] = {}
    unk = _model_unk(hf.get("model") or {})
    if unk is not None and tok.token_to_id(unk) is not None:
        roles["unk_token"] = unk
    for role, token in _template_roles(hf.get("post_processor")).items():
        if tok.token_to_id(token) is not None:
            roles.setdefault(role, token)
    for token in tok.special_tokens:
        for role, names in _NAMES.items():
            if role not in roles and token.lower() in names:
                roles[role] = token
    if pad_token is not None:
        if tok.token_to_id(pad_token) is None:
            raise TokenizerError(f"pad token {pad_token!r} is not in the vocabulary; name one of its tokens "
                                 f"(special tokens: {', '.join(tok.special_tokens) or 'none'})")
        roles["pad_token"] = pad_token
    return roles


def _model_unk(model: dict[str, Any]) -> Optional[str]:
    unk = model.get("unk_token")
    if isinstance(unk, str):
        return unk
    unk_id, vocab = model.get("unk_id"), model.get("vocab")  # Unigram: an index into [piece, score] pairs
    if isinstance(unk_id, int) and isinstance(vocab, list) and 0 <= unk_id < len(vocab):
        return vocab[unk_id][0]
    return None


def _template_roles(processor: Any) -> dict[str, str]:
    """cls/sep (special tokens on both sides of the text) or bos/eos (one side), from the single-text
    template of a ``post_processor`` object (a Sequence's processors are read in turn)."""
    if not isinstance(processor, dict):
        return {}
    kind = processor.get("type")
    if kind == "Sequence":
        roles: dict[str, str] = {}
        for inner in processor.get("processors") or []:
            for role, token in _template_roles(inner).items():
                roles.setdefault(role, token)
        return roles
    if kind in ("BertProcessing", "RobertaProcessing"):
        cls, sep = processor["cls"][0], processor["sep"][0]
        both = {"cls_token": cls, "sep_token": sep}
        return {**both, "bos_token": cls, "eos_token": sep} if kind == "RobertaProcessing" else both
    single = processor.get("single")
    if kind != "TemplateProcessing" or not isinstance(single, list):
        return {}
    kinds = ["A" if "Sequence" in part else part.get("SpecialToken", {}).get("id") for part in single]
    if "A" not in kinds:
        return {}
    at = kinds.index("A")
    before, after = kinds[:at], kinds[at + 1:]
    if before and after:
        return {"cls_token": before[-1], "sep_token": after[0]}
    if before:
        return {"bos_token": before[-1]}
    return {"eos_token": after[0]} if after else {}


def transformers_documents(tok: Any, *, options: TransformersOptions = TransformersOptions()) -> dict[str, Any]:
    """The three JSON documents of the folder, by file name."""
    hf = tok.to_hf_json()
    roles = special_token_roles(tok, pad_token=options.pad_token, hf=hf)
    roles = {role: roles[role] for role in ROLES if role in roles}
    extra = [t for t in tok.special_tokens if t not in roles.values()]
    special_map: dict[str, Any] = dict(sorted(roles.items()))
    if extra:
        special_map["additional_special_tokens"] = extra
    config = {
        "tokenizer_class": "PreTrainedTokenizerFast",
        # Our decode joins tokens as the decoder says; transformers' clean-up would move spaces
        # before punctuation and make the two disagree.
        "clean_up_tokenization_spaces": False,
        "model_max_length": options.model_max_length or NO_MAX_LENGTH,
        "padding_side": options.padding_side,
        "truncation_side": options.truncation_side,
        "model_input_names": ["input_ids", "token_type_ids", "attention_mask"],
        **special_map,
    }
    template = (tok.metadata.get("tokenizer_config") or {}).get("chat_template")
    if template is not None:  # an imported model's chat template travels with it (AutoTokenizer reads it)
        config["chat_template"] = template
    return {"tokenizer.json": hf, "tokenizer_config.json": config,
            "special_tokens_map.json": special_map}


def _encoded(docs: dict[str, Any]) -> dict[str, bytes]:
    return {name: json.dumps(docs[name], ensure_ascii=False, indent=None if name == "tokenizer.json" else 2)
            .encode("utf-8") for name in FILES}


def save_transformers(tok: Any, folder: Union[str, Path], *,
                      options: TransformersOptions = TransformersOptions()) -> list[Path]:
    """Write the folder (made if missing; an existing one must be empty, so nothing is overwritten).

    >>> import tempfile; from tokenizer_core.io.vocab_txt import bert_tokenizer
    >>> d = Path(tempfile.mkdtemp()) / "bert"
    >>> [p.name for p in save_transformers(bert_tokenizer({"[UNK]": 0, "hi": 1}, add_template=False), d)]
    ['tokenizer.json', 'tokenizer_config.json', 'special_tokens_map.json']
    """
    folder = Path(folder)
    if folder.exists() and not folder.is_dir():
        raise TokenizerError(f"{folder} is a file; give a folder for the transformers files")
    if folder.is_dir() and any(folder.iterdir()):
        raise TokenizerError(f"{folder} exists and is not empty; give a new or empty folder (nothing was written)")
    files = _encoded(transformers_documents(tok, options=options))  # every error before the first write
    try:
        folder.mkdir(parents=True, exist_ok=True)
        for name, data in files.items():
            (folder / name).write_bytes(data)
    except OSError as err:
        raise TokenizerError(f"cannot write {folder}: {err.strerror or err}") from err
    return [folder / name for name in FILES]


def transformers_zip(tok: Any, *, folder: str = "tokenizer",
                     options: TransformersOptions = TransformersOptions()) -> bytes:
    """The folder as a zip archive (``folder/tokenizer.json`` ...), for a download.

    >>> from tokenizer_core.io.vocab_txt import bert_tokenizer
    >>> data = transformers_zip(bert_tokenizer({"[UNK]": 0, "hi": 1}, add_template=False), folder="bert")
    >>> sorted(zipfile.ZipFile(io.BytesIO(data)).namelist())[0]
    'bert/special_tokens_map.json'
    """
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, data in _encoded(transformers_documents(tok, options=options)).items():
            archive.writestr(f"{folder}/{name}", data)
    return buffer.getvalue()
