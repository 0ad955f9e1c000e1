"""One self-contained HTML handout of a whole lesson: text, tables, token rows, claims and charts
(inline SVG), readable offline and printable. Everything from the lesson file or the engines is
escaped; a Content-Security-Policy forbids scripts and outside requests even so.

>>> from tokenizer_core.lessons import load_lesson
>>> lesson = load_lesson("id: t\\ntitle: <b>T</b>\\nsource: S\\nsteps:\\n  - {title: A, say: '**hi** <i>'}\\n")
>>> page = build_handout(lesson, [None])
>>> "&lt;b&gt;T&lt;/b&gt;" in page, "<strong>hi</strong> &lt;i&gt;" in page, "<b>" in page
(True, True, False)
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Sequence
from typing import Optional, Union

from tokenizer_core.lessons import FigureResult, Lesson, check_claim, format_value
from tokenizer_core.lessons.figure_types import Chart
from ui.lessons import links

_CSS = """
body { font: 16px/1.5 system-ui, sans-serif; max-width: 60rem; margin: 2rem auto; padding: 0 1rem; color: #1f2937; }
h1 { font-size: 1.8rem; } h2 { margin-top: 2.5rem; border-top: 1px solid #d1d5db; padding-top: 1rem; }
table { border-collapse: collapse; margin: .5rem 0 1rem; font-size: .9rem; }
th, td { border: 1px solid #d1d5db; padding: .2rem .5rem; text-align: left; vertical-align: top; }
th { background: #f3f4f6; }
.tok { display: inline-block; border: 1px solid #9ca3af; border-radius: 4px; padding: 0 .3rem; margin: 1px; background: #eef6ff;
       font-family: ui-monospace, monospace; white-space: pre; }
.agree { color: #166534; } .differ { color: #9a3412; } .notes { background: #fefce8; padding: .5rem 1rem; }
.source { color: #4b5563; } .chart svg { max-width: 100%; height: auto; }
@media print { h2 { page-break-before: auto; } }
"""
_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"


def inline_markdown(text: str) -> str:
    """Escaped text with the few Markdown marks narration uses: paragraphs, **bold**, *italics*, `code`.

    >>> inline_markdown("a **b** `<c>`\\n\\nd")
    '<p>a <strong>b</strong> <code>&lt;c&gt;</code></p><p>d</p>'
    """
    out = []
    for para in re.split(r"\n\s*\n", text.strip()):
        esc = html.escape(para, quote=True)  # escaped first: what the marks below wrap holds no markup
        esc = re.sub(r"`([^`]+)`", r"<code>\1</code>", esc)
        esc = re.sub(r"\*\*(.+?)\*\*", r"<strong>\1</strong>", esc)
        esc = re.sub(r"(?<![\w*])\*(?!\s)(.+?)(?<!\s)\*(?![\w*])", r"<em>\1</em>", esc)
        out.append(f"<p>{esc}</p>")
    return "".join(out)


def _table(columns: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    head = "".join(f"<th>{html.escape(str(c))}</th>" for c in columns)
    body = "".join("<tr>" + "".join(f"<td>{html.escape('' if v is None else str(v))}</td>" for v in row) + "</tr>"
                   for row in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _figure(result: FigureResult, svg: Callable[[Chart], str]) -> str:
    parts = [f"<h3>{html.escape(result.title)}</h3>"]
    for row in result.token_rows:
        chips = "".join(f'<span class="tok">{html.escape(t)}</span>' for t in row.tokens)
        parts.append(f"<p>{html.escape(row.label)}: {chips}</p>")
    for table in result.tables:
        parts.append(f"<p><b>{html.escape(table.name)}</b></p>{_table(table.columns, table.rows)}")
    for chart in result.charts:
        parts.append(f'<div class="chart">{svg(chart)}</div>')
    parts += [f"<p>{html.escape(n)}</p>" for n in result.notes]
    return "".join(parts)


def build_handout(lesson: Lesson, results: Sequence[Union[FigureResult, str, None]], *, notes: bool = False,
                  svg: Optional[Callable[[Chart], str]] = None) -> str:
    """The handout: ``results[i]`` is step i's figure, or a message when it could not be computed,
    or None when the step has none. ``notes`` adds the teacher's notes."""
    if svg is None:
        from ui.lessons.charts import svg_of as svg
    parts = [f"<!doctype html><html lang='en'><head><meta charset='utf-8'>"
             f"<meta http-equiv='Content-Security-Policy' content=\"{_CSP}\">"
             f"<title>{html.escape(lesson.title)}</title><style>{_CSS}</style></head><body>",
             f"<h1>{html.escape(lesson.title)}</h1><p class='source'>Source: {html.escape(lesson.source)}</p>",
             inline_markdown(lesson.summary) if lesson.summary else ""]
    for i, (step, result) in enumerate(zip(lesson.steps, results), start=1):
        parts.append(f"<h2>{i}. {html.escape(step.title)}</h2>{inline_markdown(step.say)}")
        if isinstance(result, str):
            parts.append(f"<p class='differ'>{html.escape(result)}</p>")
        elif result is not None:
            parts.append(_figure(result, svg))
            for claim in step.claims:
                check = check_claim(claim, result.values)
                verdict = "the engine agrees" if check.agrees else "the engine computes " + format_value(
                    check.computed, quantity=claim.quantity)
                printed = claim.printed or format_value(claim.value, quantity=claim.quantity)
                why = f" {claim.why}" if claim.why and not check.agrees else ""
                parts.append(f"<p class='{'agree' if check.agrees else 'differ'}'>The source says "
                             f"{html.escape(claim.quantity)} = {html.escape(printed)}: {html.escape(verdict)}."
                             f"{html.escape(why)}</p>")
        if step.open is not None:
            parts.append(f"<p>In the app: <code>{html.escape(links.url(step.open))}</code></p>")
        if notes and step.notes:
            parts.append(f"<div class='notes'><b>Teacher's notes.</b> {inline_markdown(step.notes)}</div>")
    parts.append("</body></html>")
    return "".join(parts)
