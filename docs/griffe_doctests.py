"""A griffe extension for the API reference: the docstrings' doctest examples shown as Python code.

The package's docstrings are plain text with ``>>>`` examples (pytest runs them). Markdown would read
an example's output such as ``[('a', 'b')]`` as a link; each run of example lines (a ``>>>`` line, its
``...`` lines and its output, up to a blank line) is put in a fenced code block instead.

>>> fenced("Text.\\n\\n>>> 1 + 1\\n2\\n\\nMore.").split("\\n")
['Text.', '', '```python', '>>> 1 + 1', '2', '```', '', 'More.']
"""

from __future__ import annotations

from typing import Any

from griffe import Extension


def fenced(text: str) -> str:
    """``text`` with each block of doctest lines inside a ```` ```python ```` fence."""
    out: list[str] = []
    inside = False
    for line in text.split("\n"):
        starts = line.lstrip().startswith(">>>")
        if starts and not inside:
            out.append("```python")
            inside = True
        elif inside and not line.strip():
            out.append("```")
            inside = False
        out.append(line)
    if inside:
        out.append("```")
    return "\n".join(out)


class DoctestFences(Extension):
    """Fence the examples of every docstring griffe reads."""

    def on_instance(self, *, obj: Any, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = fenced(obj.docstring.value)
