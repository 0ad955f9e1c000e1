"""Run the command line in-process and capture what it prints (shared by the CLI tests)."""

from __future__ import annotations

import io
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tokenizer_core.cli import main

if TYPE_CHECKING:
    from tokenizer_core.pipeline import Tokenizer


def run(argv: list[str], stdin: str = "") -> tuple[int, str]:
    """Exit code and standard output of ``python -m tokenizer_core ARGV`` fed ``stdin``."""
    out = io.StringIO()
    code = main(argv, stdout=out, stdin=io.StringIO(stdin))
    return code, out.getvalue()


def sample_lines(n: int) -> list[str]:
    """The first ``n`` lines of the default corpus (the trainers' CLI tests train on them)."""
    from tokenizer_core.corpus.loading import load_sample

    return list(load_sample("default").lines())[:n]


def written_corpus(folder: Path, lines: list[str]) -> Path:
    """``lines`` written as ``folder/corpus.txt``, for ``train`` to read."""
    path = folder / "corpus.txt"
    path.write_text("".join(lines), encoding="utf-8")
    return path


def trained(corpus: Path, out: Path, model: str, *flags: str) -> "Tokenizer":
    """``train CORPUS --model MODEL FLAGS -o OUT -q`` (which must succeed), the written tokenizer loaded."""
    from tokenizer_core.pipeline import Tokenizer

    code, _ = run(["train", str(corpus), "--model", model, *flags, "-o", str(out), "-q"])
    assert code == 0
    return Tokenizer.load(out)


def assert_refused(corpus: Path, out: Path, flags: list[str], message: str, capsys: Any) -> None:
    """``train CORPUS FLAGS -o OUT`` exits 2 with ``message`` in one line of standard error, writing nothing."""
    code, _ = run(["train", str(corpus), *flags, "-o", str(out), "-q"])
    err = capsys.readouterr().err
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1
    assert not out.exists()
