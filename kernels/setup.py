"""Builds the C extension ``tokenizer_kernel`` from source (gcc and the Python headers).

The extension is optional: when it cannot be compiled the install still succeeds and
tokenizer_core uses its pure-Python reference path (``tokenizer_core.text.native.available()``).
"""

from pathlib import Path

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "tokenizer_kernel",
            sources=sorted(str(p) for p in Path("src").glob("*.c")),
            depends=sorted(str(p) for p in Path("src").glob("*.h")),
            extra_compile_args=["-O2", "-std=c11", "-Wall", "-Wextra", "-Wno-unused-parameter",
                                "-Wno-missing-field-initializers", "-Wno-cast-function-type"],
            optional=True,
        )
    ],
    py_modules=[],
)
