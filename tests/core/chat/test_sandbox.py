"""Hostile chat templates are stopped within their budget with a clear message, and the sandbox
leaves nothing behind (a later render is unaffected, a finished one is never interrupted)."""

from __future__ import annotations

import time

import pytest

from tokenizer_core.chat import Budget, ChatTemplate, TemplateBudgetError, TemplateError

CHAT = [{"role": "user", "content": "hi"}]


def _render(source: str, *, budget: Budget | None = None, variables=None) -> str:
    return ChatTemplate(source, budget=budget or Budget()).render(CHAT, variables=variables)


@pytest.mark.parametrize("source, message", [
    # nested loops that call nothing but range: the loop budget
    ("{% for a in range(100000) %}{% for b in range(100000) %}{% endfor %}{% endfor %}", "loops asked for more"),
    # output growing past its size
    ("{% for i in range(100000) %}{{ 'x' * 1000 }}{% endfor %}", "output passed 2,000,000 characters"),
    # one string built huge in a single step
    ("{{ 'a' * 1000000000 }}", "built a value of 1,000,000,000 items"),
    ("{{ [0] * 1000000000 }}", "built a value of 1,000,000,000 items"),
    ("{{ 10 ** 100000 }}", "huge power"),
    # a string doubled in a namespace (the way around Jinja's loop scoping)
    ("{% set ns = namespace(s='ab') %}{% for i in range(40) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}{{ ns.s|length }}",
     "built a value of"),
    # doubling through a macro's arguments, and a filter's output
    ("{% macro f(s, n) %}{% if n %}{{ f(s ~ s, n - 1) }}{% endif %}{% endmacro %}{{ f('ab', 40) }}", "built a value of"),
    ("{{ 'x'|center(100000000) }}", "built a value of"),
    # endless recursion
    ("{% macro f(n) %}{{ f(n) }}{% endmacro %}{{ f(1) }}", "ran out of depth"),
])
def test_hostile_templates_stop_with_their_budget_named(source, message):
    start = time.perf_counter()
    with pytest.raises(TemplateBudgetError, match=message):
        _render(source)
    assert time.perf_counter() - start < 10


def test_a_loop_that_calls_nothing_is_stopped_by_the_clock():
    """Three nested loops over a user-supplied list (10**12 turns, no call the sandbox sees): only
    the watchdog can stop it, and it does, at its time."""
    start = time.perf_counter()
    with pytest.raises(TemplateBudgetError, match=r"ran past its 0\.3 s"):
        _render("{% for a in big %}{% for b in big %}{% for c in big %}{% endfor %}{% endfor %}{% endfor %}",
                budget=Budget(seconds=0.3), variables={"big": list(range(10_000))})
    assert time.perf_counter() - start < 3
    # the thread renders normally afterwards, and a finished render is never interrupted later
    fast = ChatTemplate("{{ messages[0].content }}", budget=Budget(seconds=0.2))
    assert fast.render(CHAT) == "hi"
    time.sleep(0.4)
    assert fast.render(CHAT) == "hi"


@pytest.mark.parametrize("source, message", [
    ("{{ ''.__class__.__mro__[1].__subclasses__() }}", "forbids"),
    ("{{ messages.append(1) }}", "forbids"),
    ("{% set ns = namespace(_x=1) %}", "forbids"),
    ("{{ raise_exception('Only user and assistant roles are supported!') }}",
     "the template stopped: Only user and assistant roles are supported!"),
    ("{{ messages[5].content }}", "the template"),
])
def test_what_the_sandbox_forbids_or_the_template_raises_is_a_template_error(source, message):
    with pytest.raises(TemplateError, match=message):
        _render(source)


def test_a_template_that_does_not_parse_says_where():
    with pytest.raises(TemplateError, match=r"does not parse \(line 2\)"):
        ChatTemplate("ok\n{% for m in %}{% endfor %}")
    with pytest.raises(TemplateError, match="at most 1,000,000"):
        ChatTemplate("x" * 1_000_001)


def test_conversations_are_checked():
    t = ChatTemplate("{{ messages|length }}")
    with pytest.raises(TemplateError, match="list of messages"):
        t.render("hello")
    with pytest.raises(TemplateError, match="message 2 has no role"):
        t.render([{"role": "user", "content": "a"}, {"content": "b"}])
    # keys whose value is None are dropped, as transformers does: a template testing `is defined` sees that
    assert ChatTemplate("{{ messages[0].name is defined }}").render([{"role": "user", "content": "a", "name": None}]) == "False"
