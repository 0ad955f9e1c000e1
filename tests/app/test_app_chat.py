"""The Chat templates page under AppTest: the default conversation as Qwen (ChatML) and Llama 3 read
it, turn by turn, with the counts side by side; an imported model's own template; hostile templates
and hostile text shown as text; a conversation that does not parse says why."""

from __future__ import annotations

import json

from tests._pages import html_bodies, ok, open_page
from tokenizer_core.chat import builtin_template, chat_tokens
from tokenizer_core.chat.conversation import parse_conversation
from tokenizer_core.io.references import load_reference
from ui.chat.page import DEFAULT_CONVERSATION

PAGE = "pages/chat.py"


def _markdown(at) -> str:
    return "\n".join(m.value for m in at.markdown)


def test_the_default_conversation_as_two_models_read_it_turn_by_turn():
    at = open_page(PAGE)
    text = _markdown(at)
    for turn, times in (("**system** ·", 2), ("**user** ·", 4), ("**assistant** ·", 2), ("**generation prompt** ·", 2)):
        assert text.count(turn) == times  # each turn once per model
    # the counts are the engines' own: Qwen's view of the conversation, computed here directly
    messages = parse_conversation(DEFAULT_CONVERSATION)
    qwen = chat_tokens(load_reference("qwen"), builtin_template("qwen").turns(messages), messages)
    metrics = [m.value for m in at.metric]
    assert f"{qwen.total:,}" in metrics and len(metrics) == 2
    table = at.dataframe[0].value
    assert list(table.index)[-2:] == ["generation prompt", "total"] and table.shape == (len(messages) + 2, 2)
    assert int(table.iloc[-1].max()) == max(int(m.replace(",", "")) for m in metrics)
    body = html_bodies(at)
    assert 'class="tp-chip' in body and "&lt;" in body and "<b>" not in body  # the user's HTML is text
    assert "tp-hl" in body  # control tokens outlined
    # without the generation prompt, no prompt row and fewer tokens
    at.toggle(key="chat_prompt").set_value(False)
    at = ok(at.run())
    assert "**generation prompt** ·" not in _markdown(at)
    assert int(at.dataframe[0].value.loc["total"].iloc[0]) < int(table.loc["total"].iloc[0])


def test_a_model_without_a_chat_format_says_so_and_bad_conversations_say_why():
    at = open_page(PAGE)
    at.multiselect(key="chat_shelf").set_value([label for label in at.multiselect(key="chat_shelf").options
                                                if label.startswith("gpt2 ")])
    at = ok(at.run())
    assert any("GPT-2 has no chat format" in w.value for w in at.warning)
    at.text_area(key="chat_text").set_value("hello there\nuser: hi")
    at = ok(at.run())
    assert any("line 1 comes before the first message" in w.value for w in at.warning)


def test_an_imported_models_own_template_and_a_hostile_one(monkeypatch):
    """The import keeps tokenizer_config.json's template; the page renders it (the model's own, not the
    format written here). A template that loops forever is stopped with its reason, on its column only."""
    from tokenizer_core.io.uploads import import_files
    from ui.chat import page as chat_page
    from ui.shelf import state as shelf

    qwen_json = json.dumps(load_reference("qwen").to_hf_json()).encode()
    own = "{% for m in messages %}<|im_start|>{{ m.role | upper }}\n{{ m.content }}<|im_end|>\n{% endfor %}"
    hostile = "{% for a in range(100000) %}{% for b in range(100000) %}{% endfor %}{% endfor %}"
    imports = [(import_files([("tokenizer.json", qwen_json),
                              ("tokenizer_config.json", json.dumps({"chat_template": own}).encode())]), "Own template"),
               (import_files([("tokenizer.json", qwen_json), ("chat_template.jinja", hostile.encode())]), "Hostile template")]
    real, added = chat_page.render_page, []

    def with_imports() -> None:  # the shelf is the session's: add them inside its run, as an import does
        if not added:
            added.extend(shelf.add(tok, name=name, kind=shelf.Kind.IMPORTED, detail="") for tok, name in imports)
        real()

    monkeypatch.setattr(chat_page, "render_page", with_imports)
    at = open_page(PAGE)
    picks = [o for o in at.multiselect(key="chat_shelf").options if "template" in o.lower()]
    assert len(picks) == 2
    at.multiselect(key="chat_shelf").set_value(picks)
    at = ok(at.run())
    assert "**user** ·" in _markdown(at)  # captions name the message's role
    assert any("<|im_start|>USER\n" in c.value for c in at.code)  # the model's own template, not ChatML
    assert any("own chat template" in c.value for c in at.caption)
    assert any("loops asked for more" in w.value for w in at.warning)  # the hostile one, stopped
