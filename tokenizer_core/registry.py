"""Component registry: how saved tokenizers find their classes again.

Every serialisable component (normalizer, pre-tokenizer, model, post-processor,
decoder) has a ``to_dict()`` whose ``"type"`` names it, and a class method
``from_dict(data)``. Classes register under ``(kind, type)`` with
:func:`register`; :func:`build` turns a dict back into an object. New models
(BPE, WordPiece, Unigram) plug in by registering themselves, so the pipeline
and the file format need no change when an algorithm is added.

>>> @register("decoder", "Demo")
... class Demo:
...     def to_dict(self): return {"type": "Demo"}
...     @classmethod
...     def from_dict(cls, data): return cls()
>>> type(build("decoder", {"type": "Demo"})).__name__
'Demo'
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, Optional, TypeVar

from tokenizer_core.errors import FormatError

KINDS = ("normalizer", "pre_tokenizer", "model", "post_processor", "decoder")
REGISTRY: dict[tuple[str, str], type] = {}
T = TypeVar("T", bound=type)


def register(kind: str, type_name: str) -> Callable[[T], T]:
    """Class decorator registering a component class under ``(kind, type_name)``."""
    if kind not in KINDS:
        raise ValueError(f"unknown component kind {kind!r}; expected one of {KINDS}")

    def deco(cls: T) -> T:
        REGISTRY[(kind, type_name)] = cls
        return cls

    return deco


def build(kind: str, data: Optional[dict[str, Any]]) -> Any:
    """Rebuild a component from its ``to_dict()`` form (``None`` stays ``None``)."""
    if data is None:
        return None
    if not isinstance(data, dict) or not isinstance(data.get("type"), str):
        raise FormatError(f"malformed {kind}: expected an object with a 'type' field, got {data!r:.80}")
    cls = REGISTRY.get((kind, data["type"]))
    if cls is None:
        known = sorted(t for k, t in REGISTRY if k == kind)
        raise FormatError(f"unknown {kind} type {data['type']!r}; known types: {', '.join(known)}")
    with malformed_as_format_error(f"{kind} of type {data['type']!r}"):
        return cls.from_dict(data)


@contextmanager
def malformed_as_format_error(what: str) -> Iterator[None]:
    """Turn the errors that malformed data causes while rebuilding ``what`` into a FormatError.

    A hand-edited or truncated file shows up as a wrong type or a missing key somewhere deep
    in a constructor; the user needs to hear that the file is malformed, and where.

    >>> with malformed_as_format_error("model"):
    ...     {}["vocab"]
    Traceback (most recent call last):
    ...
    tokenizer_core.errors.FormatError: malformed model: missing 'vocab'
    """
    try:
        yield
    except FormatError:
        raise
    except ValueError as err:  # includes TokenizerError: keep its explanation
        raise FormatError(f"malformed {what}: {err}", part=what) from err
    except KeyError as err:
        raise FormatError(f"malformed {what}: missing {err}", part=what) from err
    except (TypeError, IndexError, AttributeError, OverflowError) as err:
        raise FormatError(f"malformed {what}: {err}", part=what) from err


def registered(kind: str) -> list[str]:
    """Names registered for one kind, sorted."""
    return sorted(t for k, t in REGISTRY if k == kind)


class Component:
    """Base of the simple pipeline components (normalizers, pre-tokenizers, decoders).

    The default forms fit a component without settings: ``{"type": type_name}`` both in our
    format and in tokenizers'; components with settings override ``to_dict``/``from_dict``
    (and ``to_hf`` where tokenizers spells them differently). Two components are equal when
    their saved forms are.
    """

    type_name = "Component"

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.type_name}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Any:  # noqa: ARG003
        return cls()

    def to_hf(self) -> dict[str, Any]:
        return self.to_dict()

    def __eq__(self, other: object) -> bool:
        return type(self) is type(other) and self.to_dict() == other.to_dict()  # type: ignore[attr-defined]

    __hash__ = None  # type: ignore[assignment]  # equal by value, and mutable

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"
