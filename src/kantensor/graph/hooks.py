"""Named extension points: where a lower layer calls code that a higher layer supplies.

A layer never imports the layers above it (``docs/architecture.rst``), yet a few of its
acts need them: a size met by a float becomes a 0-d tensor (an Op, made in ``ops/``), a
node made while ``eval_shape`` traces is recorded (``evalshape/``). Each such call goes
through a :class:`Hook` declared in the lower module, by name, with what it does and the
module that fills it. :data:`HOOKS` holds them all, so that every upward call is listed
in one place (tests/test_layers.py checks that each is filled by its owner, from a
higher layer or its own).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Generic, TypeVar

__all__ = ["HOOKS", "Hook"]

F = TypeVar("F", bound=Callable[..., Any])

#: Every hook by name.
HOOKS: dict[str, Hook] = {}


class Hook(Generic[F]):
    """One extension point: ``fn`` is what the lower layer calls (``default`` until
    ``owner``, the dotted name of the module that supplies it, calls :meth:`set`)."""

    __slots__ = ("default", "doc", "fn", "name", "owner")

    def __init__(self, name: str, owner: str, doc: str, default: F | None = None):
        if name in HOOKS:
            raise ValueError(f"hook {name!r} is declared twice")
        self.name, self.owner, self.doc = name, owner, doc
        self.default: F | None = default
        self.fn: F | None = default
        HOOKS[name] = self

    def set(self, fn: F | None) -> None:
        """Supply the hook's function (None: back to its default)."""
        self.fn = self.default if fn is None else fn

    @property
    def filled(self) -> bool:
        """Whether the owner supplied a function (the default is not one)."""
        return self.fn is not self.default

    def __repr__(self) -> str:
        return f"Hook({self.name!r}, owner={self.owner!r}, filled={self.filled})"
