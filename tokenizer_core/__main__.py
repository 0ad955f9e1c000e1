"""``python -m tokenizer_core``: see :mod:`tokenizer_core.cli`."""

import sys

from tokenizer_core.cli import main

if __name__ == "__main__":
    sys.exit(main())
