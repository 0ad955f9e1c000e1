"""Chat templates: the text a model really reads for a conversation, and which part each message brought.

A model's ``tokenizer_config.json`` carries its ``chat_template`` (a Jinja2 template, or a list of named
ones such as ``default`` and ``tool_use``), or the folder has a ``chat_template.jinja`` beside it, and
its special tokens. :class:`ChatTemplate` renders a conversation with them as transformers'
``apply_chat_template(..., tokenize=False)`` does (in :mod:`tokenizer_core.chat.sandbox`, within a
budget), and :meth:`ChatTemplate.turns` says where each message's part of the text starts and ends
and what the generation prompt adds, so a page can count each turn's tokens.

>>> t = ChatTemplate("{% for m in messages %}<{{ m.role }}>{{ m.content }}</s>{% endfor %}"
...                  "{% if add_generation_prompt %}<assistant>{% endif %}")
>>> chat = [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello"}]
>>> t.render(chat, add_generation_prompt=True)
'<user>Hi</s><assistant>Hello</s><assistant>'
>>> [(turn.role, t.render(chat, add_generation_prompt=True)[turn.start:turn.end]) for turn in t.turns(chat).turns]
[('user', '<user>Hi</s>'), ('assistant', '<assistant>Hello</s>')]
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

import jinja2

from tokenizer_core.chat.sandbox import DEFAULT_BUDGET, Budget, TemplateError, chat_environment, render
from tokenizer_core.io.model_config import special_tokens

MAX_TEMPLATE_CHARS = 1_000_000


def template_sources(config: Mapping[str, Any]) -> dict[str, str]:
    """The config's chat templates by name (one unnamed template is ``default``).

    >>> template_sources({"chat_template": [{"name": "default", "template": "a"}, {"name": "tool_use", "template": "b"}]})
    {'default': 'a', 'tool_use': 'b'}
    """
    raw = config.get("chat_template")
    if raw is None:
        return {}
    if isinstance(raw, str):
        return {"default": raw}
    if isinstance(raw, list) and all(isinstance(t, Mapping) and isinstance(t.get("name"), str)
                                     and isinstance(t.get("template"), str) for t in raw):
        return {t["name"]: t["template"] for t in raw}
    raise TemplateError("chat_template is neither a template nor a list of named templates")


@functools.lru_cache(maxsize=32)
def _compiled(source: str, budget: Budget) -> jinja2.Template:
    # keyed by the template's own text: two users with the same file share it, nobody else's
    try:
        return chat_environment(budget).from_string(source)
    except jinja2.exceptions.TemplateSyntaxError as err:
        raise TemplateError(f"the chat template does not parse (line {err.lineno}): {err.message}") from None


@dataclass(frozen=True)
class Turn:
    """One message's part of the rendered text: ``text[start:end]`` (its header, content and closing)."""

    index: int
    role: str
    start: int
    end: int


@dataclass(frozen=True)
class ChatTurns:
    """Where each message's part of a rendered conversation lies, and the generation prompt's part.

    ``turns`` is empty (and ``note`` says why) when the template does not render a conversation as
    the rendering of its first messages followed by more text (some templates rewrite earlier turns).
    """

    text: str
    turns: tuple[Turn, ...] = ()
    prompt: Optional[tuple[int, int]] = None
    note: str = ""


def _anchored(text: str, chat: list[dict[str, Any]]) -> ChatTurns:
    """Spans found by each message's own text, for templates that rewrite earlier turns (Qwen 3 drops
    the reasoning of answers before the last question): turn ``i`` runs from the end of message
    ``i - 1``'s text to the end of its own, so a turn's closing tokens count with the next turn."""
    turns, at = [], 0
    for i, message in enumerate(chat):
        content = message.get("content")
        if not isinstance(content, str):
            return ChatTurns(text, note=f"message {i + 1}'s content is not text, so its part cannot be found")
        found = text.find(content.strip(), at)
        if found < 0:
            return ChatTurns(text, note=f"the template changes message {i + 1}'s text, so its part cannot be found")
        end = found + len(content.strip())
        turns.append(Turn(i, str(message["role"]), at, end))
        at = end
    return ChatTurns(text, tuple(turns), note="this template rewrites earlier turns as the conversation grows: "
                                               "each turn is found by its text, and its closing tokens are "
                                               "counted with the next turn")


def _messages(messages: Any) -> list[dict[str, Any]]:
    """Check and normalise a conversation as transformers does (keys whose value is None dropped)."""
    if not isinstance(messages, Sequence) or isinstance(messages, (str, bytes)):
        raise TemplateError("a conversation is a list of messages")
    out = []
    for i, message in enumerate(messages):
        if not isinstance(message, Mapping) or not isinstance(message.get("role"), str):
            raise TemplateError(f"message {i + 1} has no role (each message is a mapping with a 'role')")
        out.append({k: v for k, v in message.items() if v is not None})
    return out


@dataclass(frozen=True)
class ChatTemplate:
    """A chat template's source and the special tokens it is rendered with."""

    source: str
    special: Mapping[str, Any] = field(default_factory=dict)
    name: str = "default"
    budget: Budget = DEFAULT_BUDGET

    def __post_init__(self) -> None:
        if not isinstance(self.source, str):
            raise TemplateError("a chat template is text")
        if len(self.source) > MAX_TEMPLATE_CHARS:
            raise TemplateError(f"the chat template has {len(self.source):,} characters (at most {MAX_TEMPLATE_CHARS:,})")
        _compiled(self.source, self.budget)  # a template that does not parse is refused here

    @classmethod
    def from_config(cls, config: Mapping[str, Any], *, name: Optional[str] = None, tools: bool = False,
                    source: Optional[str] = None, budget: Budget = DEFAULT_BUDGET) -> ChatTemplate:
        """The template of a tokenizer_config.json: ``name``, else ``tool_use`` when there are tools and
        the config has one, else ``default``; ``source`` (a chat_template.jinja's text) wins over the config's."""
        sources = {"default": source} if source is not None else template_sources(config)
        if not sources:
            raise TemplateError("this tokenizer has no chat template (no chat_template in tokenizer_config.json "
                                "and no chat_template.jinja)")
        pick = name or ("tool_use" if tools and "tool_use" in sources else "default")
        if pick not in sources:
            raise TemplateError(f"no chat template named {pick!r}; there are {sorted(sources)}")
        return cls(sources[pick], special=special_tokens(config), name=pick, budget=budget)

    @classmethod
    def from_folder(cls, folder: Path, **options: Any) -> ChatTemplate:
        """A model folder's template: its tokenizer_config.json, and chat_template.jinja when present."""
        config_path, jinja_path = Path(folder) / "tokenizer_config.json", Path(folder) / "chat_template.jinja"
        try:
            config = json.loads(config_path.read_text(encoding="utf-8")) if config_path.exists() else {}
            source = jinja_path.read_text(encoding="utf-8") if jinja_path.exists() else None
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
            raise TemplateError(f"cannot read the chat template of {folder}: {err}") from None
        if not isinstance(config, Mapping):
            raise TemplateError("tokenizer_config.json is not a JSON object")
        return cls.from_config(config, source=source, **options)

    def render(self, messages: Any, *, add_generation_prompt: bool = False, tools: Optional[list[Any]] = None,
               documents: Optional[list[Any]] = None, variables: Optional[Mapping[str, Any]] = None) -> str:
        """The conversation as the model reads it (transformers' ``apply_chat_template(tokenize=False)``)."""
        values = {**self.special, **(variables or {}), "messages": _messages(messages), "tools": tools,
                  "documents": documents, "add_generation_prompt": add_generation_prompt}
        return render(_compiled(self.source, self.budget), values, budget=self.budget)

    def turns(self, messages: Any, *, add_generation_prompt: bool = True, **options: Any) -> ChatTurns:
        """The rendered conversation with each message's span: message ``i``'s part is what rendering
        the first ``i + 1`` messages adds to rendering the first ``i``; the generation prompt's is what
        ``add_generation_prompt`` adds at the end."""
        chat = _messages(messages)
        text = self.render(chat, add_generation_prompt=add_generation_prompt, **options)
        ends = []
        for i in range(1, len(chat) + 1):
            try:
                ends.append(self.render(chat[:i], **options))
            except TemplateError as err:
                return ChatTurns(text, note=f"the template does not render the first {i} message(s) alone: {err}")
        bare = ends[-1] if ends else ""
        starts = [""] + ends[:-1]
        if not all(b.startswith(a) for a, b in zip(starts, ends)) or not text.startswith(bare):
            return _anchored(text, chat)
        turns = tuple(Turn(i, str(chat[i]["role"]), len(starts[i]), len(ends[i])) for i in range(len(chat)))
        prompt = (len(bare), len(text)) if add_generation_prompt and len(text) > len(bare) else None
        return ChatTurns(text, turns, prompt)
