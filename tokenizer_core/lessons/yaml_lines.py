"""Read a lesson file's YAML into plain data while remembering the line of every field.

A lesson is written by a teacher (or uploaded by anyone), so a mistake must be reported where it
is: each value's path (``steps[2].figure.kind``) is mapped to its 1-based line. PyYAML's composer
gives the marks; we build the data ourselves from its nodes with the safe constructor, refusing
anchors and aliases (a few aliases expand to billions of nodes) and duplicate keys (YAML keeps the
last silently, so a teacher's first value would vanish).

>>> data, lines = read_yaml("id: x\\nsteps:\\n  - title: a\\n")
>>> data, lines[("steps", 0, "title")]
({'id': 'x', 'steps': [{'title': 'a'}]}, 3)
"""

from __future__ import annotations

from typing import Any, Union

import yaml

from tokenizer_core.errors import TokenizerError

Path = tuple[Union[str, int], ...]
#: The largest lesson file read (a lesson is text; a bigger file is a mistake or an attack).
MAX_LESSON_BYTES = 200_000
_MAX_DEPTH = 12
_PLAIN_TAGS = frozenset({"tag:yaml.org,2002:map", "tag:yaml.org,2002:seq"})


class LessonError(TokenizerError):
    """A lesson file that cannot be used; the message names the line and the field."""

    def __init__(self, message: str, *, line: int | None = None, field: str = "") -> None:
        where = f"line {line}" if line else ""
        if field:
            where = f"{where}, field {field}" if where else f"field {field}"
        super().__init__(f"{where}: {message}" if where else message)
        self.line = line
        self.field = field


def field_name(path: Path) -> str:
    """``("steps", 2, "figure", "kind")`` -> ``steps[3].figure.kind`` (steps counted from 1, as people do).

    >>> field_name(("steps", 0, "say"))
    'steps[1].say'
    """
    out = ""
    for part in path:
        out += f"[{part + 1}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def read_yaml(text: str) -> tuple[Any, dict[Path, int]]:
    """The document's data and a map from each path to its line; :class:`LessonError` if it is not
    one YAML document of mappings, lists and plain scalars."""
    if len(text.encode("utf-8", "surrogatepass")) > MAX_LESSON_BYTES:
        raise LessonError(f"the file is larger than {MAX_LESSON_BYTES:,} bytes; a lesson is a short text file")
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.MarkedYAMLError as err:
        mark = err.problem_mark or err.context_mark
        line = mark.line + 1 if mark is not None else None
        raise LessonError(f"this is not valid YAML ({err.problem or err.context})", line=line) from None
    except yaml.YAMLError as err:
        raise LessonError(f"this is not valid YAML ({err})") from None
    if node is None:
        raise LessonError("the file is empty; a lesson starts with id:, title:, source: and steps:")
    for event in yaml.parse(text, Loader=yaml.SafeLoader):  # the node of an alias carries its anchor's line
        if isinstance(event, yaml.AliasEvent):
            raise LessonError("anchors and aliases (& and *) are not allowed in a lesson", line=event.start_mark.line + 1)
    lines: dict[Path, int] = {}
    constructor = yaml.SafeLoader("")  # only its scalar constructors are used, on nodes we walk
    seen: set[int] = set()
    return _build(node, (), lines, constructor, seen), lines


def _build(node: yaml.Node, path: Path, lines: dict[Path, int], constructor: yaml.SafeLoader, seen: set[int]) -> Any:
    line = node.start_mark.line + 1
    lines[path] = line
    if id(node) in seen:  # the composer hands back the same node object for an alias
        raise LessonError("anchors and aliases (& and *) are not allowed in a lesson", line=line,
                          field=field_name(path))
    seen.add(id(node))
    if len(path) > _MAX_DEPTH:
        raise LessonError("the lesson is nested too deeply", line=line, field=field_name(path))
    if isinstance(node, (yaml.MappingNode, yaml.SequenceNode)) and node.tag not in _PLAIN_TAGS:
        raise LessonError(f"the tag {node.tag[:60]!r} is not allowed in a lesson", line=line, field=field_name(path))
    if isinstance(node, yaml.MappingNode):
        out: dict[str, Any] = {}
        for key_node, value_node in node.value:
            if not isinstance(key_node, yaml.ScalarNode):
                raise LessonError("a key must be a plain word", line=key_node.start_mark.line + 1, field=field_name(path))
            key = str(constructor.construct_object(key_node))
            if key in out:
                raise LessonError(f"the key {key!r} is given twice", line=key_node.start_mark.line + 1,
                                  field=field_name(path + (key,)))
            out[key] = _build(value_node, path + (key,), lines, constructor, seen)
            lines[path + (key,)] = key_node.start_mark.line + 1  # a field is where its name is written
        return out
    if isinstance(node, yaml.SequenceNode):
        return [_build(item, path + (i,), lines, constructor, seen) for i, item in enumerate(node.value)]
    try:
        return constructor.construct_object(node)
    except yaml.YAMLError as err:
        raise LessonError(f"this value cannot be read ({err})", line=line, field=field_name(path)) from None
