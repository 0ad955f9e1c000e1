"""Read a JSON file with errors that say what is wrong with it (not a bare decoder traceback).

>>> import tempfile, os
>>> path = os.path.join(tempfile.mkdtemp(), "x.json")
>>> _ = open(path, "w").write('{"a": [1, 2')
>>> read_json_file(path)
Traceback (most recent call last):
...
tokenizer_core.errors.FormatError: ... is not valid JSON: Expecting ',' delimiter at line 1, column 12
>>> _ = open(path, "w", encoding="utf-8-sig").write('{"a": [1, 2]}')   # with a byte order mark
>>> read_json_file(path)
{'a': [1, 2]}
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Union

from tokenizer_core.errors import FormatError


def read_json_file(path: Union[str, Path]) -> Any:
    """The parsed content of the JSON file at ``path`` (a FormatError if unreadable or malformed)."""
    p = Path(path)
    try:
        raw = p.read_bytes()
    except OSError as err:
        raise FormatError(f"cannot read {p}: {err.strerror or err}") from err
    try:
        # A byte order mark (Windows editors write one) is not part of the JSON: skip it.
        return json.loads(raw.decode("utf-8-sig"))
    except UnicodeDecodeError as err:
        raise FormatError(f"{p} is not UTF-8 text (bad byte at offset {err.start})") from err
    except json.JSONDecodeError as err:
        raise FormatError(f"{p} is not valid JSON: {err.msg} at line {err.lineno}, column {err.colno}") from err
    except RecursionError:  # thousands of nested brackets: no tokenizer file is built like that
        raise FormatError(f"{p} nests JSON arrays or objects too deeply to be a tokenizer file") from None
