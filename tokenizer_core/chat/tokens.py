"""A rendered conversation as tokens: each token's turn, whether it is a control token, and whether it
came from a message's text or from the template around it.

The rendered text is encoded as transformers encodes a chat (``add_special_tokens=False``: the template
writes its own BOS). A token belongs to the turn its first character falls in, and to the message's
text when it lies inside that text (a token that straddles the text's edge counts as the template's).

>>> from tokenizer_core.chat.builtin import builtin_template
>>> from tokenizer_core.io.references import load_reference
>>> chat = [{"role": "user", "content": "Hi"}]
>>> view = chat_tokens(load_reference("qwen"), builtin_template("qwen").turns(chat), chat)
>>> [(t.text, t.turn, t.special, t.content) for t in view.tokens][:4]
[('<|im_start|>', 0, True, False), ('user', 0, False, False), ('\\n', 0, False, False), ('Hi', 0, False, True)]
>>> view.counts[0]
TurnCount(role='user', tokens=6, text=1, template=5, special=2)
>>> view.prompt_tokens
3
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Optional

from tokenizer_core.chat.template import ChatTurns

PROMPT = -1  # the turn index of the generation prompt's tokens


@dataclass(frozen=True)
class ChatToken:
    id: int
    text: str  # the token's slice of the rendered text (what it stands for, not its vocabulary form)
    start: int
    end: int
    turn: Optional[int]  # a message's index, PROMPT, or None when the template gives no spans
    special: bool  # a control token (an added special token such as <|im_start|>)
    content: bool  # inside the message's own text


@dataclass(frozen=True)
class TurnCount:
    role: str
    tokens: int
    text: int  # tokens of the message's own text
    template: int  # tokens the template put around it
    special: int  # of those, control tokens


@dataclass(frozen=True)
class ChatTokens:
    text: str
    tokens: tuple[ChatToken, ...]
    counts: tuple[TurnCount, ...]
    prompt_tokens: int
    note: str = ""

    @property
    def total(self) -> int:
        return len(self.tokens)


def _content_span(text: str, start: int, end: int, content: Any) -> tuple[int, int]:
    """Where the message's own text lies inside its turn (an empty span when it is not found)."""
    if not isinstance(content, str) or not content.strip():
        return (start, start)
    found = text.find(content.strip(), start, end)
    return (found, found + len(content.strip())) if found >= 0 else (start, start)


def chat_tokens(tok: Any, turns: ChatTurns, messages: Sequence[Any]) -> ChatTokens:
    """Encode ``turns.text`` with ``tok`` and attribute each token (see the module's docstring)."""
    text = turns.text
    enc = tok.encode(text, add_special_tokens=False)
    spans = [(t.index, t.start, t.end) for t in turns.turns]
    if turns.prompt is not None:
        spans.append((PROMPT, *turns.prompt))
    contents = {t.index: _content_span(text, t.start, t.end, messages[t.index].get("content"))
                for t in turns.turns}
    out = []
    for tid, (start, end) in zip(enc.ids, enc.offsets):
        turn = next((i for i, a, b in spans if a <= start < b), None)
        inside = turn is not None and turn in contents and contents[turn][0] <= start and end <= contents[turn][1]
        out.append(ChatToken(int(tid), text[start:end], start, end, turn, bool(tok.is_special_id(tid)),
                             bool(inside and contents[turn][1] > contents[turn][0])))
    counts = []
    for t in turns.turns:
        mine = [x for x in out if x.turn == t.index]
        own = sum(1 for x in mine if x.content)
        counts.append(TurnCount(t.role, len(mine), own, len(mine) - own, sum(1 for x in mine if x.special)))
    return ChatTokens(text, tuple(out), tuple(counts), sum(1 for x in out if x.turn == PROMPT), turns.note)
