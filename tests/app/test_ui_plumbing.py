"""One way to do each thing in the app: the rules of issue #24, checked on the source so that a new
page cannot quietly bring back a second cache, a second URL mechanism or its own shelf code."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from tests._paths import ROOT

UI = ROOT / "ui"
PAGE_PACKAGES = ("batch", "compare", "corpus", "lattice", "merges", "tokenizers")


def _sources(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(ROOT)): p.read_text(encoding="utf-8") for p in sorted(folder.rglob("*.py"))}


def test_every_server_wide_cache_lives_in_ui_cache():
    """Streamlit's caches and module-level tables are shared by every user: one module holds them all,
    keyed by content digests (ui/cache.py says why)."""
    offenders = [path for path, text in {**_sources(UI), **_sources(ROOT / "pages")}.items()
                 if path != "ui/cache.py" and re.search(r"st\.cache_(resource|data)|ServerStore\(", text)]
    assert offenders == []


def test_no_widget_binds_itself_to_the_address():
    """ui/url_state.py is the one URL mechanism (with one length policy); Streamlit's own binding
    would be a second one."""
    offenders = [path for path, text in _sources(UI).items()
                 if path != "ui/url_state.py" and re.search(r"\bbind\s*=", text)]  # its docstring says why not
    assert offenders == []


def test_only_the_shelf_picker_reads_the_shelf_labels():
    """Pages pick tokenizers through ui/widgets/shelf_picker.py: the same labels, address binding and
    error handling everywhere."""
    allowed = {"ui/widgets/shelf_picker.py", "ui/shelf/state.py"}
    offenders = [path for path, text in _sources(UI).items()
                 if path not in allowed and "unique_labels(" in text]
    assert offenders == []


@pytest.mark.parametrize("package", PAGE_PACKAGES)
def test_one_prefix_per_page_defined_once(package):
    sources = _sources(UI / package)
    defined = [path for path, text in sources.items() if re.search(r"^PREFIX\s*=", text, re.MULTILINE)]
    assert defined == [f"ui/{package}/__init__.py"]


def test_every_cache_key_is_built_from_content_not_names():
    """Every Table call passes a key whose first part is a digest (or a shipped sample's or
    reference's name, which are the same for everyone): never ``id()``, a label or a display name."""
    bad = []
    for path, text in _sources(UI).items():
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "id":
                bad.append(f"{path}:{node.lineno} calls id()")
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                    and node.func.attr in ("get", "put", "get_or_make") and isinstance(node.func.value, ast.Attribute) \
                    and isinstance(node.func.value.value, ast.Name) and node.func.value.value.id == "cache":
                key = ast.unparse(node.args[0]) if node.args else ""
                if re.search(r"\.(name|label)\b|display_name|shelf_label", key):
                    bad.append(f"{path}:{node.lineno} keys {node.func.value.attr} by {key}")
    assert bad == []


def test_the_cache_tables_are_all_listed_once():
    from ui import cache

    names = [t.name for t in cache.TABLES]
    assert len(names) == len(set(names))
    declared = {name for name, value in vars(cache).items() if isinstance(value, cache.Table)}
    assert {t.name for t in cache.TABLES} == {getattr(cache, n).name for n in declared}
