"""The Jinja2 sandbox chat templates render in: what transformers gives a template, within a budget.

A chat template is code from a file somebody shares. It runs here as transformers runs it (an
immutable sandbox with ``trim_blocks`` and ``lstrip_blocks``, ``{% break %}``/``{% continue %}``, the
``{% generation %}`` tag, ``tojson`` without HTML escaping, ``raise_exception``, ``strftime_now``, a
``dict`` and a ``namespace`` that refuse underscore names), so its text is the text the model saw.
On top, a :class:`Budget`: the render stops with :class:`TemplateBudgetError` when it runs past its
time, when its output or any string it builds grows past its size, or when its loops take more
items than allowed. The clock is enforced from outside the template's code (the watchdog raises the
error inside the rendering thread), so a loop that calls nothing is stopped too.

>>> env = chat_environment()
>>> render(env.from_string("{% for m in messages %}{{ m.role }}:{{ m.content }}|{% endfor %}"),
...        {"messages": [{"role": "user", "content": "hi"}]}, budget=DEFAULT_BUDGET)
'user:hi|'
"""

from __future__ import annotations

import ctypes
import json
import threading
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import jinja2
import jinja2.ext
from jinja2.sandbox import ImmutableSandboxedEnvironment

from tokenizer_core.errors import TokenizerError


class TemplateError(TokenizerError):
    """A chat template that cannot be read or rendered (its syntax, or an error it raised itself)."""


class TemplateBudgetError(TemplateError):
    """A chat template that ran past its time, size or loop budget (a hostile or broken template)."""


@dataclass(frozen=True)
class Budget:
    """What one render may spend: seconds, characters of output and of any one string, loop items."""

    seconds: float = 2.0
    output_chars: int = 2_000_000
    string_chars: int = 2_000_000
    loop_items: int = 1_000_000


#: The budget a render has unless told otherwise (frozen: safe to share).
DEFAULT_BUDGET = Budget()


class _Generation(jinja2.ext.Extension):
    """``{% generation %}...{% endgeneration %}``: transformers marks the assistant's part with it;
    the text renders as it is."""

    tags = {"generation"}

    def parse(self, parser: Any) -> Any:
        lineno = next(parser.stream).lineno
        body = parser.parse_statements(("name:endgeneration",), drop_needle=True)
        return jinja2.nodes.CallBlock(self.call_method("_body"), [], [], body).set_lineno(lineno)

    def _body(self, caller: Any) -> str:
        return caller()


def _tojson(value: Any, ensure_ascii: bool = False, indent: Any = None, separators: Any = None,
            sort_keys: bool = False) -> str:
    # transformers' filter: plain JSON, no HTML escaping (Jinja's own escapes <, >, &, ')
    return json.dumps(value, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)


def _raise_exception(message: Any) -> None:
    raise jinja2.exceptions.TemplateError(str(message))


def _strftime_now(fmt: str) -> str:
    return datetime.now().strftime(fmt)


class _Dict:
    """``dict(...)`` in a template: builds dicts, exposes nothing else of the type."""

    def __call__(self, *args: Any, **kwargs: Any) -> dict[str, Any]:
        return dict(*args, **kwargs)

    def fromkeys(self, *args: Any, **kwargs: Any) -> dict[Any, Any]:
        return dict.fromkeys(*args, **kwargs)


class _Namespace(jinja2.utils.Namespace):
    """``namespace(...)``: no underscore names (no way to CPython's internals), no value past the budget.
    (Jinja's namespace answers attribute lookups from its dict alone: helpers are reached by type.)"""

    limit = 2_000_000

    def __init__(*args: Any, **kwargs: Any) -> None:  # noqa: N805 - Jinja's signature trick, kept
        self, rest = args[0], args[1:]
        attrs = dict(*rest, **kwargs)
        for name, value in attrs.items():
            _check_entry(type(self), name, value)
        jinja2.utils.Namespace.__init__(self, attrs)

    def __setitem__(self, name: str, value: Any) -> None:
        _check_entry(type(self), name, value)
        jinja2.utils.Namespace.__setitem__(self, name, value)


def _check_entry(kind: type, name: Any, value: Any) -> None:
    if isinstance(name, str) and name.startswith("_"):
        raise jinja2.exceptions.SecurityError(f"a template cannot set {name!r} on a namespace")
    _check_size(value, kind.limit)


def _check_size(value: Any, limit: int) -> None:
    if isinstance(value, (str, list, tuple, dict)) and len(value) > limit:
        raise TemplateBudgetError(f"the template built a value of {len(value):,} items (at most {limit:,})")


class _BudgetedEnvironment(ImmutableSandboxedEnvironment):
    """The sandbox with sizes checked where a template can build big values: calls (their arguments
    and results, filters included), ``*``, ``**`` and ``+``, and ``range``."""

    intercepted_binops = frozenset({"*", "**", "+"})

    def __init__(self, budget: Budget) -> None:
        super().__init__(trim_blocks=True, lstrip_blocks=True, extensions=[_Generation, jinja2.ext.loopcontrols])
        self.budget = budget
        self._items = threading.local()
        self.filters["tojson"] = _tojson
        namespace = type("namespace", (_Namespace,), {"limit": budget.string_chars})  # this budget's own
        self.globals.update(raise_exception=_raise_exception, strftime_now=_strftime_now, dict=_Dict(),
                            namespace=namespace, range=self._range)
        for name, fn in list(self.filters.items()):
            self.filters[name] = self._sized(fn)

    def _sized(self, fn: Any) -> Any:
        limit = self.budget.string_chars

        def checked(*args: Any, **kwargs: Any) -> Any:
            out = fn(*args, **kwargs)
            _check_size(out, limit)
            return out

        # keep Jinja's pass_context/pass_environment/pass_eval_context markers
        for marker in ("jinja_pass_arg",):
            if hasattr(fn, marker):
                setattr(checked, marker, getattr(fn, marker))
        return checked

    def start(self) -> None:
        self._items.spent = 0

    def _range(self, *args: int) -> range:
        r = range(*args)
        spent = getattr(self._items, "spent", 0) + len(r)
        if spent > self.budget.loop_items:
            raise TemplateBudgetError(f"the template's loops asked for more than {self.budget.loop_items:,} items")
        self._items.spent = spent
        return r

    def call_binop(self, context: Any, operator: str, left: Any, right: Any) -> Any:
        limit = self.budget.string_chars
        if operator == "**" and isinstance(right, int) and abs(right) > 4096:
            raise TemplateBudgetError("the template raised a number to a huge power")
        if operator == "*":
            for seq, times in ((left, right), (right, left)):
                if isinstance(seq, (str, list, tuple)) and isinstance(times, int) and len(seq) * times > limit:
                    raise TemplateBudgetError(f"the template built a value of {len(seq) * times:,} items "
                                              f"(at most {limit:,})")
        out = super().call_binop(context, operator, left, right)
        _check_size(out, limit)
        return out

    def call(__self, __context: Any, __obj: Any, *args: Any, **kwargs: Any) -> Any:  # noqa: N805 - Jinja's signature
        limit = __self.budget.string_chars
        for value in (*args, *kwargs.values()):
            _check_size(value, limit)
        out = super().call(__context, __obj, *args, **kwargs)
        _check_size(out, limit)
        return out


def chat_environment(budget: Budget = DEFAULT_BUDGET) -> _BudgetedEnvironment:
    """A fresh sandbox for chat templates (one per template is fine: compiling is the slow part)."""
    return _BudgetedEnvironment(budget)


class _Watchdog:
    """Raises :class:`TemplateBudgetError` in the rendering thread when its time is up."""

    def __init__(self, seconds: float) -> None:
        self._thread = threading.get_ident()
        self._lock = threading.Lock()
        self._done = False
        self.fired = False
        self._timer = threading.Timer(seconds, self._fire)
        self._timer.daemon = True

    def _fire(self) -> None:
        with self._lock:
            if self._done:
                return
            self.fired = True
            ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(self._thread),
                                                       ctypes.py_object(TemplateBudgetError))

    def __enter__(self) -> _Watchdog:
        self._timer.start()
        return self

    def __exit__(self, *exc: object) -> None:
        with self._lock:
            self._done = True
            self._timer.cancel()
            if self.fired:  # fired as the render ended: take back an exception not yet raised
                ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(self._thread), None)


def render(template: jinja2.Template, variables: dict[str, Any], *, budget: Budget) -> str:
    """Render ``template`` with ``variables`` within ``budget``; errors as :class:`TemplateError`."""
    env = template.environment
    if isinstance(env, _BudgetedEnvironment):
        env.start()
    parts: list[str] = []
    size = 0
    watchdog = _Watchdog(budget.seconds)
    try:
        with watchdog:
            for chunk in template.generate(**variables):
                size += len(chunk)
                if size > budget.output_chars:
                    raise TemplateBudgetError(f"the template's output passed {budget.output_chars:,} characters")
                parts.append(chunk)
    except TemplateBudgetError as err:
        if watchdog.fired and not str(err):
            raise TemplateBudgetError(f"the template ran past its {budget.seconds:g} s") from None
        raise
    except jinja2.exceptions.SecurityError as err:
        raise TemplateError(f"the template tried something the sandbox forbids: {err}") from None
    except jinja2.exceptions.TemplateError as err:
        raise TemplateError(f"the template stopped: {err}") from None
    except (RecursionError, MemoryError) as err:
        raise TemplateBudgetError(f"the template ran out of {'depth' if isinstance(err, RecursionError) else 'memory'}") from None
    except Exception as err:  # anything else a template's code raised (a bad index, a type error)
        raise TemplateError(f"the template failed: {type(err).__name__}: {err}") from None
    return "".join(parts)
