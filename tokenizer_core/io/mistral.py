"""Mistral's SentencePiece models, read from the data folder of the ``mistral-common`` package.

``mistral_common`` ships, besides its Tekken files, the SentencePiece BPE models (32,000 or 32,768
pieces, byte fallback, no normalization rule) of Mistral 7B and the instruct models of
2024: ``tokenizer.model.v1`` and ``mistral_instruct_tokenizer_*.model.v2/v3/v7/v7m1``
(from v2 on ``[INST]`` and the tool tokens are control pieces; v3 and v7 add user-defined
pieces such as ``[REFERENCE_DOC_1]``). Only the files are read, never the
package's code: the folder is found with ``importlib.util.find_spec``, or given directly
(a wheel unpacked somewhere).

>>> sorted(MISTRAL_SENTENCEPIECE_FILES)
['mistral_v1', 'mistral_v2', 'mistral_v3', 'mistral_v7', 'mistral_v7m1']
>>> MISTRAL_SENTENCEPIECE_FILES["mistral_v1"]
'data/tokenizer.model.v1'
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import TYPE_CHECKING, Optional, Union

from tokenizer_core.errors import TokenizerError
from tokenizer_core.io.sentencepiece import import_sentencepiece_model

if TYPE_CHECKING:
    from tokenizer_core.pipeline import Tokenizer

PACKAGE = "mistral_common"
DISTRIBUTION = "mistral-common"

#: name -> the file's path inside the ``mistral_common`` package folder
MISTRAL_SENTENCEPIECE_FILES: dict[str, str] = {
    "mistral_v1": "data/tokenizer.model.v1",
    "mistral_v2": "data/mistral_instruct_tokenizer_240216.model.v2",
    "mistral_v3": "data/mistral_instruct_tokenizer_240323.model.v3",
    "mistral_v7": "data/mistral_instruct_tokenizer_241114.model.v7",
    "mistral_v7m1": "data/mistral_instruct_tokenizer_241114.model.v7m1",
}


def mistral_package_dir() -> Optional[Path]:
    """The folder of the installed ``mistral_common`` package (``None`` when it is not installed)."""
    try:
        spec = importlib.util.find_spec(PACKAGE)
    except (ImportError, ValueError):
        return None
    if spec is None:
        return None
    if spec.submodule_search_locations:
        return Path(next(iter(spec.submodule_search_locations)))
    return Path(spec.origin).parent if spec.origin else None


def mistral_model_files(*, package_dir: Union[str, Path, None] = None) -> dict[str, Path]:
    """The Mistral ``.model`` files present, by name (see :data:`MISTRAL_SENTENCEPIECE_FILES`).

    ``package_dir`` is a ``mistral_common`` folder (default: the installed package's); a
    TokenizerError says what to install when there is none, or when it holds none of the files.
    """
    folder = Path(package_dir) if package_dir is not None else mistral_package_dir()
    if folder is None:
        raise TokenizerError(f"Mistral's SentencePiece models come with the Python package {PACKAGE!r}; "
                             f"install it (pip install {DISTRIBUTION})")
    found = {name: folder / rel for name, rel in MISTRAL_SENTENCEPIECE_FILES.items() if (folder / rel).is_file()}
    if not found:
        raise TokenizerError(f"{folder} holds none of Mistral's SentencePiece models (e.g. "
                             f"{MISTRAL_SENTENCEPIECE_FILES['mistral_v1']}); reinstall {DISTRIBUTION}")
    return found


def load_mistral_model(name: str, *, package_dir: Union[str, Path, None] = None) -> "Tokenizer":
    """Our tokenizer for one of Mistral's SentencePiece models, e.g. ``"mistral_v3"``."""
    if name not in MISTRAL_SENTENCEPIECE_FILES:
        raise TokenizerError(f"unknown Mistral model {name!r}; choose one of: "
                             f"{', '.join(MISTRAL_SENTENCEPIECE_FILES)}")
    files = mistral_model_files(package_dir=package_dir)
    if name not in files:
        raise TokenizerError(f"the Mistral model {name!r} ({MISTRAL_SENTENCEPIECE_FILES[name]}) is missing from "
                             f"the {PACKAGE} package; reinstall it (pip install {DISTRIBUTION})")
    tok = import_sentencepiece_model(files[name])
    tok.metadata.update(source=f"{Path(MISTRAL_SENTENCEPIECE_FILES[name]).name} from the {DISTRIBUTION} package")
    return tok
