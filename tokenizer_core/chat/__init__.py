"""Chat templates: a conversation rendered as a model's tokenizer_config.json says, in a sandbox.

>>> from tokenizer_core.chat import ChatTemplate
>>> ChatTemplate("{{ bos_token }}{{ messages[0].content }}", special={"bos_token": "<s>"}).render(
...     [{"role": "user", "content": "hi"}])
'<s>hi'
"""

from tokenizer_core.chat.builtin import builtin_template, template_for
from tokenizer_core.chat.sandbox import Budget, TemplateBudgetError, TemplateError
from tokenizer_core.chat.template import ChatTemplate, ChatTurns, Turn, special_tokens, template_sources
from tokenizer_core.chat.tokens import ChatToken, ChatTokens, TurnCount, chat_tokens

__all__ = ["Budget", "ChatTemplate", "ChatToken", "ChatTokens", "ChatTurns", "TemplateBudgetError", "TemplateError",
           "Turn", "TurnCount", "builtin_template", "chat_tokens", "special_tokens", "template_for", "template_sources"]
