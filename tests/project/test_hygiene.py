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


def test_the_kernel_files_left_out_of_the_main_run_are_the_ones_the_sanitized_run_runs():
    """scripts/test.sh leaves out of its main run the files scripts/sanitized_kernel.sh runs on the
    sanitized build, both read from one list: a listed file that does not exist would be silently
    skipped by --ignore, and a list read by one script only would drop checks or run them twice."""
    listed = [line for line in (ROOT / "scripts" / "sanitized_tests.txt").read_text(encoding="utf-8").splitlines()
              if line.strip() and not line.startswith("#")]
    assert listed and all((ROOT / path).is_file() for path in listed), listed
    assert len(set(listed)) == len(listed)
    for script in ("test.sh", "sanitized_kernel.sh"):
        assert "scripts/sanitized_tests.txt" in (ROOT / "scripts" / script).read_text(encoding="utf-8"), script
