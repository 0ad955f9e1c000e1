"""Lessons: guided, replayable teaching sessions built from the worked examples of the field.

A lesson is a YAML file (the format: :mod:`tokenizer_core.lessons.schema`); each step's figure is
computed by the engines (:mod:`tokenizer_core.lessons.figures`), and what the lesson's source
printed is compared with it (:mod:`tokenizer_core.lessons.claims`). The built-in lessons live in
the project's ``lessons/`` folder. No Streamlit here: the app (``ui/lessons/``) draws what this
package computes.

>>> lesson = builtin_lessons()["bpe-aaabdaaabac"]
>>> result = compute_figure(lesson.steps[3].figure, Context())
>>> result.values["named"]
'XdXac'
"""

from __future__ import annotations

import functools
from dataclasses import replace
from pathlib import Path

from tokenizer_core.lessons.claims import ClaimCheck, check_claim, format_value
from tokenizer_core.lessons.figure_types import Context, FigureResult
from tokenizer_core.lessons.figures import FIGURES, check_figure, compute_figure
from tokenizer_core.lessons.schema import Claim, Lesson, OpenLink, Step, parse_lesson
from tokenizer_core.lessons.yaml_lines import LessonError

__all__ = ["BUILTIN_DIR", "BUILTIN_IDS", "FIGURES", "Claim", "ClaimCheck", "Context", "FigureResult", "Lesson",
           "LessonError", "OpenLink", "Step", "builtin_lessons", "check_claim", "compute_figure", "format_value",
           "load_lesson"]

#: The built-in lessons, one YAML file each, named by the lesson id: the project's lessons/ folder (an
#: installed wheel would keep it beside the app's scripts, in ui/_app/lessons).
_ROOT = Path(__file__).resolve().parents[2]
BUILTIN_DIR = next((d for d in (_ROOT / "lessons", _ROOT / "ui" / "_app" / "lessons") if d.is_dir()), _ROOT / "lessons")
BUILTIN_IDS: tuple[str, ...] = (
    "bpe-aaabdaaabac", "bpe-low-lower-newest-widest", "hf-course-bpe", "hf-course-wordpiece", "hf-course-unigram",
    "bpe-dropout-unrelated", "unigram-email", "padding-waste", "vocab-size-tradeoff", "granularity", "strawberry",
    "models-inside-out", "pathpiece-fewest", "entropy-patches", "superbpe", "pickybpe",
)


def load_lesson(text: str) -> Lesson:
    """Read a lesson file's text and check everything but the page links (the app checks those
    against its pages); :class:`LessonError` names the line and field at fault."""
    lesson = parse_lesson(text)
    steps = []
    for i, step in enumerate(lesson.steps):
        figure = None if step.figure is None else check_figure(step.figure, ("steps", i, "figure"), lesson.lines)
        steps.append(replace(step, figure=figure))
    return replace(lesson, steps=tuple(steps))


def builtin_lessons() -> dict[str, Lesson]:
    """The built-in lessons by id, in teaching order (a file whose id differs from its name is an error).

    Each file is read once per content: a lesson is frozen, so callers share it (a new dict each call).
    """
    out: dict[str, Lesson] = {}
    for lesson_id in BUILTIN_IDS:
        path = BUILTIN_DIR / f"{lesson_id}.yaml"
        stat = path.stat()
        out[lesson_id] = _builtin(str(path), lesson_id, stat.st_mtime_ns, stat.st_size)
    return out


@functools.lru_cache(maxsize=64)
def _builtin(path: str, lesson_id: str, mtime_ns: int, size: int) -> Lesson:
    """One built-in lesson file read and checked; keyed by its time and size too, so an edited file is
    read again (the parse costs ~60 ms a file, and every lesson page and test asked for all twelve)."""
    name = Path(path).name
    try:
        lesson = load_lesson(Path(path).read_text(encoding="utf-8"))
    except LessonError as err:
        raise LessonError(f"{name}: {err}") from None
    if lesson.id != lesson_id:
        raise LessonError(f"{name} has id {lesson.id!r}; a built-in lesson's id is its file name")
    return lesson
