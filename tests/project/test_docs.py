"""The manual builds (``mkdocs build --strict``: no broken link, no unresolved reference), its command
line reference is generated from the parser, its pictures exist, and the README stays a map (issue 42)."""

from __future__ import annotations

import argparse
import html
import os
import re
import subprocess
import sys

import pytest

from tests._paths import ROOT

pytest.importorskip("mkdocs")


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory):
    out = tmp_path_factory.mktemp("site")
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-d", str(out)], cwd=ROOT,
                          capture_output=True, text=True, env={**os.environ, "NO_MKDOCS_2_WARNING": "1"}, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return out


def test_every_subcommand_has_its_generated_reference(site):
    from tokenizer_core.cli import build_parser

    subparsers = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    page = (site / "cli" / "index.html").read_text(encoding="utf-8")
    assert len(subparsers.choices) >= 10
    for name, sub in subparsers.choices.items():
        assert f"<code>{name}</code>" in page, name
        options = [o for a in sub._actions for o in a.option_strings if o.startswith("--") and o != "--help"]
        assert all(o in page for o in options), (name, [o for o in options if o not in page])


def test_the_api_reference_is_drawn_from_the_docstrings(site):
    page = (site / "api" / "pipeline" / "index.html").read_text(encoding="utf-8")
    assert "tokenizer_core.pipeline.Tokenizer" in page and "encode_batch" in page
    # doctest examples are code, not Markdown (an output like [('a', 'b')] would be a link)
    assert 'class="language-python' in page or "highlight" in page


def test_every_picture_of_the_manual_exists():
    docs = ROOT / "docs"
    shown = {m for p in docs.rglob("*.md") for m in re.findall(r"\]\((img/[^)]+)\)", p.read_text(encoding="utf-8"))}
    assert shown and all((docs / m).is_file() for m in shown), sorted(shown)


def test_the_readme_is_a_map():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 200
    for target in re.findall(r"\]\(((?:docs|kernels)/[^)#]+)\)", readme):
        assert (ROOT / target).is_file(), target
    for folder in re.findall(r"`((?:tests|tokenizer_core|ui|bench)/[\w/<>]*?)/?`", readme):
        if "<" not in folder:
            assert (ROOT / folder).exists(), folder


def test_the_benchmark_tables_are_drawn_from_recorded_runs(site):
    import json

    recorded = json.loads((ROOT / "docs" / "bench" / "files.json").read_text(encoding="utf-8"))
    page = (site / "benchmarks" / "index.html").read_text(encoding="utf-8")
    assert f"Recorded {recorded['date']}" in page and "bench:files" not in page
    assert all(f"<td>{row['file']}</td>" in page for row in recorded["files"])
    shown = {"benchmarks": ("class", "unigram", "imports", "models", "speed", "speed-encoding", "cores",
                            "cores-encoding", "ui"), "algorithms-2024": ("patches",)}
    for name, where in ((name, where) for where, names in shown.items() for name in names):
        recorded = json.loads((ROOT / "docs" / "bench" / f"{name}.json").read_text(encoding="utf-8"))
        page = (site / where / "index.html").read_text(encoding="utf-8")
        assert f"bench:{name}" not in page and f"<code>{recorded['note']}</code>" in page
        assert all(f"<td>{html.escape(row[-1], quote=False)}</td>" in page for row in recorded["rows"])


#: Markers whose bench has not been recorded yet: the page says so in their place (docs/hooks.py).
AWAITING_FIRST_RECORD = {"pages"}


def test_every_bench_marker_has_its_recorded_run():
    docs = ROOT / "docs"
    markers = {m for p in docs.rglob("*.md")
               for m in re.findall(r"<!-- bench:([a-z0-9_-]+) -->", p.read_text(encoding="utf-8"))}
    missing = {m for m in markers if not (docs / "bench" / f"{m}.json").is_file()}
    assert markers and missing <= AWAITING_FIRST_RECORD, sorted(missing - AWAITING_FIRST_RECORD)
