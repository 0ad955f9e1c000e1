"""The lesson file format: what a lesson and its steps hold, checked field by field on load.

A lesson is a YAML file (``lessons/*.yaml``)::

    id: bpe-aaabdaaabac            # lower-case letters, digits and dashes
    title: BPE by hand
    source: Wikipedia, "Byte pair encoding"
    summary: optional Markdown
    steps:
      - title: The first merge
        say: Markdown narration, a few sentences
        notes: optional notes for the teacher (hidden when presenting)
        figure: {kind: bpe_merges, words: {aaabdaaabac: 1}, merges: 3, step: 1}
        source_says:               # what the source printed, compared with the engine
          - {quantity: merge, value: "a + a", expect: agree}
        open: {page: merges, settings: {corpus: wikipedia-aaabdaaabac, n: 3, step: 1}}

Every figure is computed by the engines (:mod:`tokenizer_core.lessons.figures`) from the
figure's inputs; ``source_says`` states what the source printed and whether the lesson expects
the engine to agree (``agree``) or knows the source is wrong or only illustrative (``differ``,
with ``why``). Errors name the line and the field (:class:`LessonError`).

>>> lesson = parse_lesson("id: t\\ntitle: T\\nsource: S\\nsteps:\\n  - {title: A, say: Hi}\\n")
>>> lesson.id, lesson.steps[0].title, lesson.steps[0].figure
('t', 'A', None)
>>> parse_lesson("id: t\\ntitle: T\\nsource: S\\nsteps:\\n  - {title: A, sya: Hi}\\n")
Traceback (most recent call last):
...
tokenizer_core.lessons.yaml_lines.LessonError: line 5, field steps[1].sya: unknown field; a step has title, say, notes, figure, source_says, open, question
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Optional

from tokenizer_core.lessons.questions import Question, parse_question
from tokenizer_core.lessons.yaml_lines import LessonError, Path, field_name, read_yaml

#: The fields of a lesson, of a step, of a claim and of a link, in the order the README lists them.
LESSON_FIELDS = ("id", "title", "source", "summary", "steps")
STEP_FIELDS = ("title", "say", "notes", "figure", "source_says", "open", "question")
CLAIM_FIELDS = ("quantity", "value", "expect", "why", "printed")
OPEN_FIELDS = ("page", "settings", "label")
EXPECTATIONS = ("agree", "differ")
MAX_STEPS = 40
_ID = re.compile(r"[a-z0-9][a-z0-9-]{0,59}")
_TEXT_LIMITS = {"title": 120, "source": 400, "summary": 2000, "say": 3000, "notes": 3000, "why": 1000,
                "printed": 200, "label": 80}


@dataclass(frozen=True)
class Claim:
    """What the source printed for one of the figure's quantities, and what the lesson expects."""

    quantity: str
    value: Any
    expect: str
    why: str = ""
    printed: str = ""  # how the source wrote it ("65%"), when not the value itself


@dataclass(frozen=True)
class OpenLink:
    """A page of the app and the settings (its address parameters) that show this step there."""

    page: str
    settings: Mapping[str, Any]
    label: str = ""
    line: int = 0


@dataclass(frozen=True)
class Step:
    """One step: narration, notes, the figure the engines compute, claims, and a link."""

    title: str
    say: str
    notes: str = ""
    figure: Optional[Mapping[str, Any]] = None
    claims: tuple[Claim, ...] = ()
    open: Optional[OpenLink] = None
    line: int = 0
    question: Optional[Question] = None  # asked of the class (:mod:`tokenizer_core.lessons.questions`)


@dataclass(frozen=True)
class Lesson:
    """A whole lesson; ``text`` is the file it was read from (downloads give it back as it was)."""

    id: str
    title: str
    source: str
    steps: tuple[Step, ...]
    summary: str = ""
    text: str = field(default="", repr=False)
    lines: Mapping[Path, int] = field(default_factory=dict, repr=False, compare=False)


class _Reader:
    """Checks values at paths, raising :class:`LessonError` with the line of the field at fault."""

    def __init__(self, lines: Mapping[Path, int]) -> None:
        self.lines = lines

    def line(self, path: Path) -> Optional[int]:
        while path and path not in self.lines:
            path = path[:-1]
        return self.lines.get(path)

    def fail(self, path: Path, message: str) -> LessonError:
        return LessonError(message, line=self.line(path), field=field_name(path))

    def mapping(self, value: Any, path: Path, allowed: tuple[str, ...], what: str) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise self.fail(path, f"{what} must be a mapping of fields ({', '.join(allowed)})")
        for key in value:
            if key not in allowed:
                raise self.fail(path + (key,), f"unknown field; {what} has {', '.join(allowed)}")
        return value

    def text(self, data: Mapping[str, Any], path: Path, name: str, *, required: bool) -> str:
        if name not in data or data[name] is None:
            if required:
                raise self.fail(path, f"the field {name!r} is missing")
            return ""
        value = data[name]
        if isinstance(value, bool) or not isinstance(value, (str, int, float)):
            raise self.fail(path + (name,), "must be text")
        value = str(value)
        if required and not value.strip():
            raise self.fail(path + (name,), "must not be empty")
        limit = _TEXT_LIMITS.get(name)
        if limit is not None and len(value) > limit:
            raise self.fail(path + (name,), f"is {len(value):,} characters long; at most {limit:,}")
        return value


def parse_lesson(text: str) -> Lesson:
    """Read and check a lesson file's text (figure parameters are checked by
    :func:`tokenizer_core.lessons.figures.check_figure`, which :func:`tokenizer_core.lessons.load_lesson` calls)."""
    data, lines = read_yaml(text)
    r = _Reader(lines)
    data = r.mapping(data, (), LESSON_FIELDS, "a lesson")
    lesson_id = r.text(data, (), "id", required=True)
    if not _ID.fullmatch(lesson_id):
        raise r.fail(("id",), "must be lower-case letters, digits and dashes (at most 60), e.g. bpe-by-hand")
    steps_raw = data.get("steps")
    if not isinstance(steps_raw, list) or not steps_raw:
        raise r.fail(("steps",) if "steps" in data else (), "a lesson needs a list of steps (steps:, then - title: ...)")
    if len(steps_raw) > MAX_STEPS:
        raise r.fail(("steps",), f"has {len(steps_raw)} steps; at most {MAX_STEPS}")
    steps = tuple(_step(r, raw, ("steps", i)) for i, raw in enumerate(steps_raw))
    return Lesson(id=lesson_id, title=r.text(data, (), "title", required=True),
                  source=r.text(data, (), "source", required=True), summary=r.text(data, (), "summary", required=False),
                  steps=steps, text=text, lines=lines)


def _step(r: _Reader, raw: Any, path: Path) -> Step:
    data = r.mapping(raw, path, STEP_FIELDS, "a step")
    figure = data.get("figure")
    if figure is not None:
        figure = r.mapping(figure, path + ("figure",), tuple(figure) if isinstance(figure, dict) else (), "figure")
        if not isinstance(figure.get("kind"), str):
            raise r.fail(path + ("figure",), "a figure needs a kind (e.g. kind: bpe_merges)")
    claims_raw = data.get("source_says") or []
    if not isinstance(claims_raw, list):
        raise r.fail(path + ("source_says",), "must be a list of claims (- quantity: ..., value: ..., expect: agree)")
    claims = tuple(_claim(r, c, path + ("source_says", i)) for i, c in enumerate(claims_raw))
    if claims and figure is None:
        raise r.fail(path + ("source_says",), "claims compare the source with a figure; this step has no figure")
    return Step(title=r.text(data, path, "title", required=True), say=r.text(data, path, "say", required=True),
                notes=r.text(data, path, "notes", required=False), figure=figure, claims=claims,
                open=_open(r, data.get("open"), path + ("open",)), line=r.line(path) or 0,
                question=parse_question(data.get("question"), r.fail, path + ("question",), known=_reference_names()))


def _reference_names() -> list[str]:
    from tokenizer_core.io.references import REFERENCES

    return [info.name for info in REFERENCES]


def _claim(r: _Reader, raw: Any, path: Path) -> Claim:
    data = r.mapping(raw, path, CLAIM_FIELDS, "a claim")
    quantity = r.text(data, path, "quantity", required=True)
    if "value" not in data or data["value"] is None:
        raise r.fail(path, "the field 'value' is missing (what the source printed)")
    value = data["value"]
    if not isinstance(value, (str, int, float, bool, list)):
        raise r.fail(path + ("value",), "must be a number, a text or a list")
    expect = r.text(data, path, "expect", required=True)
    if expect not in EXPECTATIONS:
        raise r.fail(path + ("expect",), f"must be one of {', '.join(EXPECTATIONS)}, not {expect!r}")
    why = r.text(data, path, "why", required=False)
    if expect == "differ" and not why.strip():
        raise r.fail(path, "a claim the engine does not confirm (expect: differ) needs a why:")
    return Claim(quantity=quantity, value=value, expect=expect, why=why,
                 printed=r.text(data, path, "printed", required=False))


def _open(r: _Reader, raw: Any, path: Path) -> Optional[OpenLink]:
    if raw is None:
        return None
    data = r.mapping(raw, path, OPEN_FIELDS, "open")
    page = r.text(data, path, "page", required=True)
    settings = data.get("settings") or {}
    if not isinstance(settings, dict):
        raise r.fail(path + ("settings",), "must be a mapping of the page's settings (name: value)")
    for name, value in settings.items():
        if isinstance(value, list):
            ok = all(isinstance(v, (str, int, float)) and not isinstance(v, bool) for v in value)
        else:
            ok = isinstance(value, (str, int, float, bool))
        if not ok:
            raise r.fail(path + ("settings", name), "must be a number, a text, true/false or a list of those")
    return OpenLink(page=page, settings=dict(settings), label=r.text(data, path, "label", required=False),
                    line=r.line(path) or 0)
