"""What the app keeps of a model's tokenizer_config.json (uploaded beside its tokenizer, or downloaded
from the Hub with it): the fields that name the model, its chat template and its special tokens.

>>> kept_config({"tokenizer_class": "X", "chat_template": 3, "bos_token": {"content": "<s>"}})
{'tokenizer_class': 'X', 'bos_token': '<s>'}
"""

from __future__ import annotations

from typing import Any, Optional

#: What the app keeps of a tokenizer_config.json uploaded beside its tokenizer (to name it).
CONFIG_FIELDS = ("name_or_path", "_name_or_path", "tokenizer_class", "model_max_length")
#: ...and for its chat template (tokenizer_core/chat/): the template and the special tokens it is given.
SPECIAL_FIELDS = ("bos_token", "eos_token", "unk_token", "sep_token", "pad_token", "cls_token", "mask_token")
MAX_TEMPLATE_BYTES = 1_000_000


def _token_text(value: Any) -> Optional[str]:
    if isinstance(value, dict):
        value = value.get("content")
    return value if isinstance(value, str) else None


def kept_config(config: dict[str, Any], *, template: Optional[str] = None) -> dict[str, Any]:
    """What the shelf keeps of a tokenizer_config.json: its name fields, its chat template (well
    formed: text, or a list of named texts; ``template``, a chat_template.jinja's text, wins) and its
    special tokens as text.
    """
    kept: dict[str, Any] = {k: config[k] for k in CONFIG_FIELDS if isinstance(config.get(k), (str, int))}
    raw = template if template is not None else config.get("chat_template")
    if isinstance(raw, str):
        kept["chat_template"] = raw
    elif isinstance(raw, list) and raw and all(isinstance(t, dict) and isinstance(t.get("name"), str)
                                               and isinstance(t.get("template"), str) for t in raw):
        kept["chat_template"] = [{"name": t["name"], "template": t["template"]} for t in raw]
    return {**kept, **special_tokens(config)}


def special_tokens(config: dict[str, Any]) -> dict[str, Any]:
    """A config's special tokens as text (an AddedToken's dict gives its ``content``), as transformers
    passes them to a chat template.

    >>> special_tokens({"bos_token": {"content": "<s>", "__type": "AddedToken"}, "eos_token": None})
    {'bos_token': '<s>'}
    """
    out: dict[str, Any] = {}
    for name in SPECIAL_FIELDS:
        text = _token_text(config.get(name))
        if text is not None:
            out[name] = text
    extra = [t for t in map(_token_text, config.get("additional_special_tokens") or []) if t is not None]
    if extra:
        out["additional_special_tokens"] = extra
    return out
