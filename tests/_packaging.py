"""Helpers of the packaging and container tests: the Docker build context (what ``.dockerignore`` lets
through), a wheel built from it, a virtual environment with that wheel.

No container runtime exists where the tests run, so the image's steps are repeated here: copy the
build context, ``pip install`` it, run the entry command with the image's environment.
"""

from __future__ import annotations

import fnmatch
import os
import shutil
import site
import subprocess
import sys
import venv
from pathlib import Path

from tests._paths import ROOT


def ignore_patterns(path: Path = ROOT / ".dockerignore") -> list[str]:
    """The patterns of a ``.dockerignore`` (comments and blank lines dropped, no ``!`` exceptions).

    >>> "build" in ignore_patterns()
    True
    """
    patterns = [line.strip() for line in path.read_text(encoding="utf-8").splitlines()]
    found = [p.rstrip("/") for p in patterns if p and not p.startswith("#")]
    if any(p.startswith("!") for p in found):
        raise ValueError("exception patterns (!) are not understood by this helper; extend it first")
    return found


def ignored(rel: str, patterns: list[str]) -> bool:
    """Whether Docker leaves ``rel`` (a path relative to the context) out: a pattern matches it or one
    of its parent folders; ``**/`` matches any number of folders.

    >>> ignored("ui/cache/__pycache__/x.pyc", ["**/__pycache__"]), ignored("builder.py", ["build"])
    (True, False)
    """
    parts = rel.split("/")
    prefixes = ["/".join(parts[: i + 1]) for i in range(len(parts))]
    for pattern in patterns:
        if pattern.startswith("**/"):
            tail = pattern[3:]
            if any(fnmatch.fnmatchcase(part, tail) or fnmatch.fnmatchcase(p, tail) for part, p in zip(parts, prefixes)):
                return True
        elif any(fnmatch.fnmatchcase(p, pattern) for p in prefixes):
            return True
    return False


def context_files(root: Path = ROOT) -> list[str]:
    """Every file of the working tree that ``docker build .`` sends, relative and sorted."""
    patterns = ignore_patterns(root / ".dockerignore")
    out = []
    for folder, dirs, files in os.walk(root):
        rel_folder = Path(folder).relative_to(root).as_posix()
        rel_folder = "" if rel_folder == "." else rel_folder + "/"
        dirs[:] = [d for d in dirs if not ignored(rel_folder + d, patterns)]
        out.extend(rel_folder + f for f in files if not ignored(rel_folder + f, patterns))
    return sorted(out)


def copy_context(dest: Path) -> Path:
    """A copy of the build context in ``dest`` (a fresh source tree: no build/ left from other runs)."""
    for rel in context_files():
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / rel, target)
    return dest


def run(cmd: list[str], *, timeout: float = 300, **kwargs) -> subprocess.CompletedProcess:
    """Run a command, its output captured; a failure shows the output in the assertion."""
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, **kwargs)
    assert done.returncode == 0, f"{cmd} -> {done.returncode}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done


def build_wheel(source: Path, out: Path, *, env: dict[str, str] | None = None) -> tuple[Path, str]:
    """``pip wheel`` of a source tree (build isolation, as the Dockerfile's ``pip install .``); the wheel
    and pip's verbose output (where the build's warnings are)."""
    done = run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-v", "--disable-pip-version-check",
                "-w", str(out), str(source)], env=env)
    wheels = sorted(out.glob("tokenizer_playground-*.whl"))
    assert len(wheels) == 1, wheels
    return wheels[0], done.stdout + done.stderr


def venv_with(wheel: Path, dest: Path) -> Path:
    """A virtual environment holding ``wheel`` (its dependencies come from this interpreter's
    site-packages, so nothing is downloaded); returns its ``bin`` folder.

    The tests may themselves run in a virtual environment (how most people install the project):
    ``system_site_packages`` would then reach the base interpreter's packages, not the ones the test
    command installed. A ``.pth`` file names this interpreter's own site-packages instead, after the
    new environment's (so the wheel installed there is the one imported)."""
    venv.EnvBuilder(system_site_packages=False, with_pip=False, symlinks=True).create(dest)
    bin_dir = dest / "bin"
    inner = dest / "lib" / f"python{sys.version_info.major}.{sys.version_info.minor}" / "site-packages"
    outer = [p for p in (*site.getsitepackages(), site.getusersitepackages()) if os.path.isdir(p)]
    (inner / "_tests_outer_site.pth").write_text("".join(f"{p}\n" for p in outer), encoding="utf-8")
    # The venv has no pip of its own (faster to make); this interpreter's pip installs into it.
    run([sys.executable, "-m", "pip", "--python", str(bin_dir / "python"), "install", "--no-deps", "--ignore-installed",
         "--disable-pip-version-check", "-q", str(wheel)])
    return bin_dir


def env_outside(**extra: str) -> dict[str, str]:
    """An environment for a process that must not see the source tree (no PYTHONPATH)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env.update(extra)
    return env
