"""Builds the C extension ``tokenizer_kernel`` from source (gcc and the Python headers).

The extension is optional: when it cannot be compiled the install still succeeds and
tokenizer_core uses its pure-Python reference path (``tokenizer_core.text.native.available()``).
"""

import os
from pathlib import Path

from setuptools import Extension, setup

# TOKENIZER_KERNEL_SANITIZE=1: a debugging build under AddressSanitizer and UndefinedBehaviorSanitizer
# (scripts/sanitized_kernel.sh), which must build (not optional) and stops at the first report.
SANITIZE = os.environ.get("TOKENIZER_KERNEL_SANITIZE") == "1"
SANITIZER_FLAGS = ["-fsanitize=address,undefined", "-fno-sanitize-recover=all", "-fno-omit-frame-pointer", "-g"]

setup(
    ext_modules=[
        Extension(
            "tokenizer_kernel",
            sources=sorted(str(p) for p in Path("src").glob("*.c")),
            depends=sorted(str(p) for p in Path("src").glob("*.h")),
            extra_compile_args=["-O1" if SANITIZE else "-O2", "-std=c11", "-Wall", "-Wextra", "-Wno-unused-parameter",
                                "-Wno-missing-field-initializers", "-Wno-cast-function-type",
                                *(SANITIZER_FLAGS + ["-Werror"] if SANITIZE else [])],
            extra_link_args=SANITIZER_FLAGS if SANITIZE else [],
            optional=not SANITIZE,
        )
    ],
    py_modules=[],
)
