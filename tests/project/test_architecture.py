"""The shape of the code: imports flow one way, no cycles, small modules, thin pages."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import grimp
import pytest
from importlinter.cli import lint_imports

from tests._paths import ROOT


def _cycles(graph: grimp.ImportGraph) -> list[list[str]]:
    """Strongly connected groups of more than one module (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []
    counter = 0
    for root in sorted(graph.modules):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.find_modules_directly_imported_by(root))))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.find_modules_directly_imported_by(child)))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    groups.append(sorted(group))
    return groups


def test_cycle_finder_finds_a_cycle():
    graph = grimp.ImportGraph()
    for a, b in [("p.a", "p.b"), ("p.b", "p.c"), ("p.c", "p.a"), ("p.c", "p.d")]:
        graph.add_import(importer=a, imported=b)
    assert _cycles(graph) == [["p.a", "p.b", "p.c"]]


@pytest.mark.parametrize("package", ["tokenizer_core", "ui"])
def test_no_import_cycles(package):
    graph = grimp.build_graph(package, exclude_type_checking_imports=True)
    assert _cycles(graph) == []


def test_import_contracts_are_kept():
    """The layers in pyproject.toml's [tool.importlinter]: CLI -> io -> training -> pipeline ->
    algorithms -> text/batch/corpus stages -> shared records -> types -> errors; and the core
    never imports the app or streamlit."""
    assert lint_imports(config_filename=str(ROOT / "pyproject.toml"), no_cache=True) == 0


def _python_files(*folders: str) -> list[Path]:
    return sorted(p for folder in folders for p in (ROOT / folder).rglob("*.py"))


def _kernel_sources() -> list[Path]:
    return sorted((ROOT / "kernels" / "src").glob("*.[ch]"))


def test_no_module_over_400_lines():
    """Python of the core, the app and the benchmarks, and the kernel's C sources and headers."""
    files = [*_python_files("tokenizer_core", "ui", "pages", "bench"), *_kernel_sources()]
    long = {str(p.relative_to(ROOT)): n for p in files if (n := len(p.read_text(encoding="utf-8").splitlines())) > 400}
    assert long == {}


#: The first line of a C function's definition: at the margin, a type and the function's name.
_C_FUNCTION = re.compile(r"^(?!typedef\b|struct\b|enum\b|union\b|static const\b|#)[A-Za-z_][\w \t*]*?\b(\w+)\(")


def c_function_lengths(text: str) -> dict[str, int]:
    r"""Each function defined at the margin of a C file (its parameters may take several lines), with
    its lines from the first of its signature to its closing brace.

    >>> c_function_lengths("static int f(int a,\n          int b) {\n    return a;\n}\nint g(void);\n")
    {'f': 4}
    """
    lines, out, i = text.splitlines(), {}, 0
    while i < len(lines):
        m = _C_FUNCTION.match(lines[i])
        end = i
        while m and end < len(lines) and not lines[end].rstrip().endswith(("{", ";")):
            end += 1  # the parameters go on
        if not m or end == len(lines) or lines[end].rstrip().endswith(";"):
            i = end + 1 if m else i + 1
            continue
        depth, j = 0, end
        while True:
            depth += lines[j].count("{") - lines[j].count("}")
            if depth == 0:
                break
            j += 1
        out[m.group(1)] = j - i + 1
        i = j + 1
    return out


def test_no_c_function_over_100_lines():
    """A reader never scrolls one function (issue 42: Encoder_init was 162 lines, MergeState_init and
    ChunkTable_put 121). The parser finds the functions it must (a file without any would be a miss)."""
    found = {path.name: c_function_lengths(path.read_text(encoding="utf-8")) for path in _kernel_sources()
             if path.suffix == ".c"}
    assert {"Encoder_init", "Encoder_encode", "MergeState_init", "ChunkTable_put"} <= {f for fns in found.values() for f in fns}
    long = {f"{name}:{fn}": n for name, fns in found.items() for fn, n in fns.items() if n > 100}
    assert long == {}


def test_pages_are_thin_and_all_routed():
    from ui.navigation import PAGES

    scripts = {p.relative_to(ROOT).as_posix() for p in _python_files("pages")}
    assert scripts == {spec.script for spec in PAGES}  # every page is in the router's menu
    for path in _python_files("pages"):
        text = path.read_text(encoding="utf-8")
        assert len(text.splitlines()) < 150, path
        assert "require_router()" in text, f"{path} must start with require_router()"
        # ... as its first statement after the imports (and the docstring): a page run alone by a fresh
        # server must not draw anything before the router takes over.
        body = [n for n in ast.parse(text).body if not isinstance(n, (ast.Import, ast.ImportFrom))]
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
            body = body[1:]
        first = body[0] if body else None
        assert (isinstance(first, ast.Expr) and isinstance(first.value, ast.Call)
                and getattr(first.value.func, "id", None) == "require_router"), f"{path}: require_router() comes first"
        assert "tokenizer_core" not in text, f"{path}: pages call ui/, which calls the core"
