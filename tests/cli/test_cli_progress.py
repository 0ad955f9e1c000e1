"""Progress bars are for terminals: a training whose stderr is a pipe or a file writes no bar."""

from __future__ import annotations

import subprocess
import sys

from tests._paths import ROOT


def test_no_progress_bars_when_stderr_is_not_a_terminal(tmp_path):
    corpus = tmp_path / "c.txt"
    corpus.write_text("".join(f"word{i % 50} other{i % 7} text\n" for i in range(3000)), encoding="utf-8")
    for model in ("wordpiece", "bpe", "unigram"):
        run = subprocess.run([sys.executable, "-m", "tokenizer_core", "train", str(corpus), "--model", model,
                              "--vocab-size", "120", "-o", str(tmp_path / f"{model}.json")],
                             cwd=ROOT, capture_output=True, text=True, timeout=120)
        assert run.returncode == 0, run.stderr
        # One summary line, no bar (tqdm draws with carriage returns and "%|").
        assert "\r" not in run.stderr and "%|" not in run.stderr, run.stderr[:200]
        assert run.stderr.startswith(f"trained {model}") and run.stderr.count("\n") == 1, run.stderr[:200]
        assert (tmp_path / f"{model}.json").exists()


def test_errors_still_reach_stderr(tmp_path):
    run = subprocess.run([sys.executable, "-m", "tokenizer_core", "train", str(tmp_path / "missing.txt"),
                          "--model", "bpe", "-o", str(tmp_path / "x.json")],
                         cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert run.returncode == 2 and run.stderr.startswith("error:")
