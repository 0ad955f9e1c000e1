"""Builds the C extension ``tokenizer_kernel`` from source (gcc and the Python headers).

The extension is optional: when it cannot be compiled the install still succeeds and
tokenizer_core uses its pure-Python reference path (``tokenizer_core.kernel.available()``).
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "tokenizer_kernel",
            sources=["src/tokenizer_kernel.c"],
            extra_compile_args=["-O2", "-std=c11", "-Wall", "-Wextra", "-Wno-unused-parameter",
                                "-Wno-missing-field-initializers", "-Wno-cast-function-type"],
            optional=True,
        )
    ],
    py_modules=[],
)
