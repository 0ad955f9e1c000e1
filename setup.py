"""Builds the ``tokenizer-playground`` distribution: ``tokenizer_core``, the app (``ui/``, ``app.py``,
``pages/``) and the compiled kernel ``tokenizer_kernel`` (C sources in ``kernels/src/``).

Everything static is in ``pyproject.toml``; this file holds what needs code:

* the C extension, optional: without a compiler the install goes on with one warning and
  ``tokenizer_core`` runs its pure-Python path (``tokenizer_core.kernel.native.available()``);
  ``TOKENIZER_KERNEL_SANITIZE=1`` makes it an ASan/UBSan debugging build that must compile
  (``scripts/sanitized_kernel.sh``);
* the app's scripts, which Streamlit runs by path, copied into ``ui/_app/`` of the wheel
  (``tokenizer_core.cli.playground`` finds them there), and the built-in lessons (``lessons/*.yaml``);
* the dependencies, read from ``requirements.txt`` so that the pins live in one file.

Rebuild the kernel after editing C: ``pip install .`` (from the project root).
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
SANITIZE = os.environ.get("TOKENIZER_KERNEL_SANITIZE") == "1"
SANITIZER_FLAGS = ["-fsanitize=address,undefined", "-fno-sanitize-recover=all", "-fno-omit-frame-pointer", "-g"]
APP_FOLDER = "ui/_app"  # where the wheel keeps app.py, pages/ and .streamlit/config.toml


def kernel_extension() -> Extension:
    """The kernel, from every C file in kernels/src (relative paths: setuptools refuses absolute ones)."""
    src = Path("kernels", "src")
    return Extension(
        "tokenizer_kernel",
        sources=sorted(str(p) for p in src.glob("*.c")),
        depends=sorted(str(p) for p in src.glob("*.h")),
        extra_compile_args=["-O1" if SANITIZE else "-O2", "-std=c11", "-Wall", "-Wextra", "-Wno-unused-parameter",
                            "-Wno-missing-field-initializers", "-Wno-cast-function-type",
                            *(SANITIZER_FLAGS + ["-Werror"] if SANITIZE else [])],
        extra_link_args=SANITIZER_FLAGS if SANITIZE else [],
        optional=not SANITIZE,
    )


class BuildKernel(build_ext):
    """setuptools' optional extensions fail with a page of compiler output; one line says what it means.
    The kernel's C files compile on every core (``build_ext --parallel``, unless told otherwise)."""

    def finalize_options(self) -> None:
        super().finalize_options()
        if not self.parallel:
            self.parallel = os.cpu_count() or 1

    def build_extension(self, ext: Extension) -> None:
        try:
            super().build_extension(ext)
        except Exception as err:  # noqa: BLE001 - any compiler failure: the package works without it
            if not getattr(ext, "optional", False):
                raise
            sys.stderr.write(f"WARNING: the compiled kernel ({ext.name}) did not build ({err}); tokenizer_core "
                             "will use its pure-Python path (slower, same results). Install gcc and the Python "
                             "headers, then `pip install .` again.\n")

    def run(self) -> None:
        try:
            super().run()
        except Exception as err:  # noqa: BLE001 - e.g. no compiler at all, found before any extension
            if SANITIZE:
                raise
            sys.stderr.write(f"WARNING: the compiled kernel did not build ({err}); tokenizer_core will use its "
                             "pure-Python path (slower, same results).\n")


class BuildWithApp(build_py):
    """The packages, plus the app's scripts under ui/_app; stale copies of deleted modules are dropped
    first (an in-tree build keeps build/lib between runs, and a wheel would ship whatever is left there)."""

    def run(self) -> None:
        for name in ("tokenizer_core", "ui"):
            shutil.rmtree(Path(self.build_lib, name), ignore_errors=True)
        super().run()
        target = Path(self.build_lib, APP_FOLDER)
        for rel in app_files():
            dest = target / rel
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(ROOT / rel, dest)
        # The built-in lessons are read from the folder beside the packages (tokenizer_core.lessons'
        # BUILTIN_DIR, ROOT/lessons in a checkout), so the wheel keeps them there: site-packages/lessons.
        # Moving them into tokenizer_core/lessons/ as package data would make this copy unnecessary.
        shutil.rmtree(Path(self.build_lib, "lessons"), ignore_errors=True)
        for path in sorted((ROOT / "lessons").glob("*.yaml")):
            dest = Path(self.build_lib, "lessons", path.name)
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, dest)


def app_files() -> list[str]:
    """The files Streamlit needs beside the packages: the router, its page scripts, its settings."""
    pages = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "pages").glob("*.py"))
    return ["app.py", *pages, ".streamlit/config.toml"]


def pinned_requirements() -> list[str]:
    """requirements.txt without comments and without its line for this project itself (``.``)."""
    lines = (ROOT / "requirements.txt").read_text(encoding="utf-8").splitlines()
    reqs = [line.split("#", 1)[0].strip() for line in lines]
    return [r for r in reqs if r and not r.startswith(("-", ".", "/"))]


setup(
    ext_modules=[kernel_extension()],
    cmdclass={"build_ext": BuildKernel, "build_py": BuildWithApp},
    install_requires=pinned_requirements(),
)
