"""The README's Quick start stays as it is and leaves ``git status`` clean (issue 32): its two commands
are unchanged, and what ``pip install -r requirements.txt`` (which builds this project in the source
tree) and the test command leave behind is ignored by git."""

from __future__ import annotations

import subprocess

from tests._paths import ROOT

QUICK_START = ("pip install -r requirements.txt && streamlit run app.py", "bash scripts/test.sh")
BUILD_OUTPUTS = ("build/lib.linux-x86_64-cpython-311/tokenizer_kernel.so", "build/sanitized/lib/x.so",
                 "tokenizer_playground.egg-info/PKG-INFO", "dist/tokenizer_playground-0.1.0.whl",
                 "tokenizer_kernel.cpython-311-x86_64-linux-gnu.so", ".venv/bin/python")


def test_the_quick_start_commands_are_unchanged():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    quick = readme[readme.index("## Quick start"):readme.index("\n## ", readme.index("## Quick start") + 1)]
    blocks = [b.split("```", 1)[0].strip() for b in quick.split("```bash\n")[1:]]
    assert tuple(blocks) == QUICK_START


def test_build_outputs_are_ignored():
    done = subprocess.run(["git", "check-ignore", "--no-index", *BUILD_OUTPUTS], cwd=ROOT, capture_output=True,
                          text=True)
    assert sorted(done.stdout.split()) == sorted(BUILD_OUTPUTS)


def test_requirements_install_this_project_and_the_test_command_installs_them():
    lines = [line.strip() for line in (ROOT / "requirements.txt").read_text(encoding="utf-8").splitlines()]
    assert "." in lines and "./kernels" not in lines
    assert "-r requirements.txt" in (ROOT / "requirements-dev.txt").read_text(encoding="utf-8").splitlines()
    assert "-r requirements-dev.txt" in (ROOT / "scripts" / "test.sh").read_text(encoding="utf-8")
