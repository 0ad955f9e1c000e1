"""A conversation typed as text: each message starts on a line ``role: text``; the lines that follow,
up to the next such line, continue its text. What a page's text box and its address hold.

>>> parse_conversation("system: Be brief.\\nuser: Two lines\\nof text\\nassistant: OK")
[{'role': 'system', 'content': 'Be brief.'}, {'role': 'user', 'content': 'Two lines\\nof text'}, {'role': 'assistant', 'content': 'OK'}]
>>> format_conversation([{"role": "user", "content": "Hi"}])
'user: Hi'
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from tokenizer_core.chat.sandbox import TemplateError

ROLES = ("system", "developer", "user", "assistant", "tool")
MAX_MESSAGES = 64
MAX_CHARS = 20_000
_START = re.compile(rf"^({'|'.join(ROLES)}):[ \t]?(.*)$")


def parse_conversation(text: str) -> list[dict[str, Any]]:
    """The messages of ``text`` (see the module's docstring); a clear error when there are none, when
    text comes before the first role, or when it is too long."""
    if len(text) > MAX_CHARS:
        raise TemplateError(f"the conversation has {len(text):,} characters (at most {MAX_CHARS:,})")
    messages: list[dict[str, Any]] = []
    for n, line in enumerate(text.replace("\r\n", "\n").split("\n"), start=1):
        found = _START.match(line)
        if found:
            messages.append({"role": found.group(1), "content": found.group(2)})
        elif messages:
            messages[-1]["content"] += "\n" + line
        elif line.strip():
            raise TemplateError(f"line {n} comes before the first message: start each message with "
                                f"one of {', '.join(r + ':' for r in ROLES)}")
    if not messages:
        raise TemplateError("no message: write one per line, starting with its role (user: Hello)")
    if len(messages) > MAX_MESSAGES:
        raise TemplateError(f"{len(messages)} messages (at most {MAX_MESSAGES})")
    for m in messages:
        m["content"] = m["content"].rstrip("\n")
    return messages


def format_conversation(messages: Sequence[dict[str, Any]]) -> str:
    """The text :func:`parse_conversation` reads back as ``messages``."""
    return "\n".join(f"{m['role']}: {m.get('content') or ''}" for m in messages)
