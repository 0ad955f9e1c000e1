"""``export --format transformers``: the options of ``tokenizer_config.json``, refused with other formats.

>>> import argparse; p = argparse.ArgumentParser(); add_transformers_args(p)
>>> transformers_options(p.parse_args(["--model-max-length", "512"]), format_name="transformers")
TransformersOptions(model_max_length=512, padding_side='right', truncation_side='right', pad_token=None)
"""

from __future__ import annotations

import argparse
from typing import Optional

from tokenizer_core.cli.common import CliError
from tokenizer_core.io.transformers_export import TransformersOptions

_FLAGS = (("model_max_length", "--model-max-length"), ("padding_side", "--padding-side"),
          ("truncation_side", "--truncation-side"), ("pad_token", "--pad-token"))


def add_transformers_args(x: argparse.ArgumentParser) -> None:
    """The flags; each defaults to None so that one given with another format can be refused."""
    x.add_argument("--model-max-length", type=int,
                   help="transformers: the model's longest input in tokens (default: no limit)")
    x.add_argument("--padding-side", choices=["left", "right"], help="transformers: where padding goes (right)")
    x.add_argument("--truncation-side", choices=["left", "right"], help="transformers: which end is cut (right)")
    x.add_argument("--pad-token", help="transformers: the padding token, when the tokenizer has none by name "
                                       "(e.g. '<|endoftext|>' for GPT-2)")


def transformers_options(args: argparse.Namespace, *, format_name: Optional[str] = None) -> TransformersOptions:
    """The options the flags give; a flag given with a format other than transformers is a usage error."""
    fmt = format_name or args.format
    given = [flag for name, flag in _FLAGS if getattr(args, name) is not None]
    if given and fmt != "transformers":
        verb = "applies" if len(given) == 1 else "apply"
        raise CliError(f"{' and '.join(given)} {verb} to --format transformers only")
    return TransformersOptions(model_max_length=args.model_max_length, padding_side=args.padding_side or "right",
                               truncation_side=args.truncation_side or "right", pad_token=args.pad_token)
