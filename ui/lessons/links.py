"""A lesson step's "Open in the page" link: checked against the pages' own address parameters, so a
lesson that names a page or a setting that does not exist (or a value the page refuses) says which.

The settings are the pages' address parameters (README, "Links, presenting and reloads"): the page
reads them as it reads any shared link, so the link shows that page set to the lesson's state.

>>> sorted(PAGE_PARAMS)
['batch', 'compare', 'corpus', 'lattice', 'merges', 'patches', 'tokenizers']
>>> problems(OpenLink("merges", {"n": 3, "step": 2}))
[]
>>> problems(OpenLink("merges", {"merges": 3}))[0]
"the merges page has no setting 'merges'; its settings are algo, symbols, pre, eow, stop, n, minfreq, ties, lower, stage2, ios, text, speed, step, corpus, raw, present"
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tokenizer_core.corpus import samples
from tokenizer_core.lessons import Lesson, OpenLink
from tokenizer_core.lessons.yaml_lines import field_name
from ui import url_state
from ui.batch.page import PARAMS as BATCH_PARAMS
from ui.compare.page import URL_PARAMS as COMPARE_PARAMS
from ui.lattice import views as lattice_views
from ui.lattice.choices import MODEL_PARAMS, TEXT_PARAMS
from ui.lattice.page import TAB_PARAM
from ui.merges.state import SETTING_PARAMS, STEP_IN
from ui.navigation import PAGES
from ui.patches.page import PARAMS as PATCHES_PARAMS
from ui.tokenizers.page import URL_PARAMS as TOKENIZERS_PARAMS
from ui.widgets.display import URL_PARAMS as DISPLAY_PARAMS


def _corpus(raw: str) -> str:
    samples.get(raw)  # a lesson links to a bundled sample (a user's own corpus has no stable name)
    return raw


#: Parameters every page reads (the active corpus, presenter mode, raw markers).
GLOBAL_PARAMS = (url_state.UrlParam("corpus", "corpus", None, _corpus), *DISPLAY_PARAMS)
#: Each page a lesson may open, and the address parameters it reads.
PAGE_PARAMS: dict[str, tuple[url_state.UrlParam, ...]] = {
    "corpus": (),
    "merges": (*SETTING_PARAMS, STEP_IN),
    "compare": tuple(COMPARE_PARAMS),
    "lattice": (*MODEL_PARAMS, *TEXT_PARAMS, *lattice_views.URL_PARAMS, TAB_PARAM),
    "batch": tuple(BATCH_PARAMS),
    "tokenizers": tuple(TOKENIZERS_PARAMS),
    "patches": tuple(PATCHES_PARAMS),
}


def _params(page: str) -> dict[str, url_state.UrlParam]:
    out: dict[str, url_state.UrlParam] = {}
    for p in (*PAGE_PARAMS[page], *GLOBAL_PARAMS):
        out.setdefault(p.name, p)
    return out


def _raw(value: Any) -> list[str]:
    values = value if isinstance(value, list) else [value]
    return ["1" if v is True else "0" if v is False else str(v) for v in values]


def problems(link: OpenLink) -> list[str]:
    """What is wrong with ``link`` (empty when the page exists and takes every setting and value)."""
    if link.page not in PAGE_PARAMS:
        return [f"there is no page {link.page[:40]!r} a lesson can open; the pages are {', '.join(PAGE_PARAMS)}"]
    params = _params(link.page)
    out = []
    for name, value in link.settings.items():
        p = params.get(name)
        if p is None:
            out.append(f"the {link.page} page has no setting {name[:40]!r}; its settings are {', '.join(params)}")
            continue
        raws = _raw(value)
        if len(raws) > 1 and not p.many:
            out.append(f"the {link.page} page's setting {name!r} takes one value, not a list")
            continue
        for raw in raws:
            try:
                p.parse(raw)
            except (ValueError, TypeError) as err:
                out.append(f"the {link.page} page refuses {name}={raw[:40]!r}: {err}")
            except Exception as err:  # noqa: BLE001 - a page's own parser (a sample lookup) may raise its own error
                out.append(f"the {link.page} page refuses {name}={raw[:40]!r}: {err}")
    return out


def lesson_problems(lesson: Lesson) -> list[str]:
    """Every link problem of a lesson, each with its line and field (like the schema's errors)."""
    out = []
    for i, step in enumerate(lesson.steps):
        if step.open is not None:
            where = f"line {step.open.line}, field {field_name(('steps', i, 'open'))}"
            out += [f"{where}: {p}" for p in problems(step.open)]
    return out


def query(link: OpenLink, *, presenting: bool) -> dict[str, Any]:
    """The link's address parameters (``present=1`` kept while presenting)."""
    out: dict[str, Any] = {name: (_raw(v) if isinstance(v, list) else _raw(v)[0]) for name, v in link.settings.items()}
    if presenting:
        out["present"] = "1"
    return out


def script(link: OpenLink) -> str:
    """The page script ``link`` opens (checked by :func:`problems` first)."""
    return next(spec.script for spec in PAGES if spec.url_path == link.page)


def url(link: OpenLink, *, presenting: bool = False) -> str:
    """The link as a relative address (for the handout, which names the page by its path).

    >>> url(OpenLink("merges", {"n": 3, "ties": "first"}))
    '/merges?n=3&ties=first'
    """
    from urllib.parse import urlencode

    pairs: Sequence[tuple[str, str]] = [(k, v) for k, vs in query(link, presenting=presenting).items()
                                        for v in (vs if isinstance(vs, list) else [vs])]
    return f"/{link.page}?{urlencode(pairs)}" if pairs else f"/{link.page}"
