"""One lesson step on the page: its narration, the figure the engines computed, what the source
printed against it, the teacher's notes and the link to the page that shows the same state.

Lesson text may come from an uploaded file, so it is hostile input: titles, claims and messages
are escaped for Markdown, token text goes through the escaped chips, tables through dataframes.
The narration is Markdown as Streamlit renders it (no HTML: Streamlit escapes it).
"""

from __future__ import annotations

import hashlib
import json
from typing import Any, Optional, Union

import pandas as pd
import streamlit as st

from tokenizer_core.errors import TokenizerError
from tokenizer_core.lessons import (
    ClaimCheck,
    Context,
    FigureResult,
    Lesson,
    Step,
    check_claim,
    compute_figure,
    format_value,
)
from tokenizer_core.lessons.figures import FIGURES
from ui import cache
from ui import session as state
from ui.lessons import PREFIX, links, live
from ui.lessons.charts import lesson_spec
from ui.widgets import display, export
from ui.widgets.safe_html import render_html
from ui.widgets.text import escape_markdown
from ui.widgets.tokens import chips_html


def figure_key(args: Any) -> str:
    """A digest of a figure's checked inputs (equal inputs, equal figure, whoever's lesson it is)."""
    return hashlib.blake2b(json.dumps(args, sort_keys=True, ensure_ascii=False, default=str).encode("utf-8"),
                           digest_size=16).hexdigest()


def figure_of(step: Step) -> Union[FigureResult, str, None]:
    """The step's figure from the engines (cached by its inputs and, when it reads it, the corpus), a
    message when it cannot be computed, or None when the step has none."""
    if step.figure is None:
        return None
    kind = FIGURES[step.figure["kind"]]
    corpus = state.active_corpus() if kind.uses_corpus else None
    key = (figure_key(step.figure), state.active_corpus_key() if corpus is not None else "")
    context = Context(corpus_lines=lambda: list(corpus.lines()) if corpus is not None else [],
                      corpus_name=f"the corpus “{corpus.name}”" if corpus is not None else "the corpus")
    try:
        return cache.LESSON_FIGURES.get_or_make(key, lambda: compute_figure(step.figure, context),
                                                spinner="Running the engines for this step…")
    except TokenizerError as err:
        return f"This step's figure cannot be computed: {err}"


def _chips(row: Any, order: dict[str, int]) -> str:
    # Without a vocabulary, a token's colour follows its first appearance in the figure (stable).
    ids = row.ids or tuple(order.setdefault(t, len(order)) for t in row.tokens)
    return chips_html(list(zip(ids, row.tokens)), scheme=row.scheme, translate=display.translate())


def render_figure(result: FigureResult, *, key: str) -> None:
    """The figure: token rows, charts (with PNG/SVG downloads), tables (with CSV), computed notes."""
    st.markdown(f"**{escape_markdown(result.title)}**")
    order: dict[str, int] = {}
    for row in result.token_rows:
        st.caption(escape_markdown(row.label))
        render_html(_chips(row, order))
    for i, chart in enumerate(result.charts):
        export.altair_chart(lambda style, c=chart: lesson_spec(c, style=style), key=f"{key}_chart{i}",
                            name=f"lesson {chart.x_title} {chart.y_title}")
    for i, table in enumerate(result.tables):
        st.caption(escape_markdown(table.name))
        frame = pd.DataFrame([list(r) for r in table.rows], columns=list(table.columns)).astype(object)
        export.table(frame, key=f"{key}_table{i}", name=f"lesson table {i + 1}", hide_index=True)
    for note in result.notes:
        st.info(escape_markdown(note), icon=":material/calculate:")


def render_claims(checks: list[ClaimCheck]) -> None:
    """What the source printed, and whether the engine agrees; where it does not, its value and why."""
    for c in checks:
        printed = c.claim.printed or format_value(c.claim.value, quantity=c.claim.quantity)
        computed = format_value(c.computed, quantity=c.claim.quantity)
        head = f"The source says **{escape_markdown(c.claim.quantity)}** = {escape_markdown(printed)}"
        if c.agrees:
            st.success(f"{head}: the engine agrees ({escape_markdown(computed)}).", icon=":material/check_circle:")
        elif c.claim.expect == "differ":
            st.warning(f"{head}; the engine computes **{escape_markdown(computed)}**. {escape_markdown(c.claim.why)}",
                       icon=":material/rule:")
        else:  # the lesson expected agreement: an engine change, or a mistake in the lesson
            st.error(f"{head}, and this lesson expects the engine to agree, but it computes "
                     f"**{escape_markdown(computed)}**.", icon=":material/error:")


def render_open_link(step: Step, *, key: str) -> None:
    if step.open is None:
        return
    link = step.open
    label = link.label or f"Open in the {next(s.title for s in links.PAGES if s.url_path == link.page)} page"
    st.page_link(links.script(link), label=escape_markdown(label), icon=":material/open_in_new:",
                 query_params=links.query(link, presenting=display.presenter()),
                 help="The same state on its own page (the page reads these settings from the link)")


def render_step(lesson: Lesson, index: int, *, show_notes: bool) -> Optional[FigureResult]:
    """Step ``index`` (0-based) of ``lesson``; returns its figure (None when it has none or failed)."""
    step = lesson.steps[index]
    key = f"{PREFIX}s{index}"
    st.subheader(escape_markdown(f"{index + 1}. {step.title}"), anchor=False)
    st.markdown(step.say)
    if show_notes and step.notes:
        with st.container(border=True, key=PREFIX + "notes"):
            st.caption("Teacher's notes")
            st.markdown(step.notes)
    if step.question is not None and not live.render_question(lesson.id, index, step.question):
        # Until the answer is shown (by the teacher in a class), the figure that gives it away waits.
        st.caption("The figure and the engines' answer follow once the answer is shown.")
        render_open_link(step, key=key)
        return None
    result = figure_of(step)
    if isinstance(result, str):
        st.error(escape_markdown(result))
        result = None
    if result is not None:  # the figure first: on a projector it is what the step is about
        render_figure(result, key=key)
        render_claims([check_claim(c, result.values) for c in step.claims])
    render_open_link(step, key=key)
    return result
