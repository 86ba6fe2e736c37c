"""A property computed once per instance, without ``functools.cached_property``'s lock.

``functools.cached_property`` (Python 3.11) takes a lock shared by every instance of the
class on each first read, and its ``__get__`` runs about 60 bytecodes then: a typed ONNX
op reads eight such properties of its entry the first time it is met, so a first
``infer_shapes`` of GPT-2 paid that 224 times. Python 3.12 dropped the lock (two threads
reading at once may each compute the value; the last one written is kept); so does this
one, for values that are pure functions of their instance. Like ``cached_property`` it
is a non-data descriptor: once computed, the value in the instance's ``__dict__`` is
what a read finds, the descriptor is not called again.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Generic, TypeVar, overload

__all__ = ["once"]

_T = TypeVar("_T")


class once(Generic[_T]):  # noqa: N801 (a decorator, named as functools' own)
    """``@once`` on a method of no arguments: its value, computed at the first read and
    kept in the instance's ``__dict__`` under the method's name."""

    def __init__(self, fn: Callable[[Any], _T]) -> None:
        self.fn = fn
        self.name = fn.__name__
        self.__doc__ = fn.__doc__

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    @overload
    def __get__(self, instance: None, owner: type | None = None) -> once[_T]: ...
    @overload
    def __get__(self, instance: object, owner: type | None = None) -> _T: ...

    def __get__(self, instance: object | None, owner: type | None = None) -> Any:
        if instance is None:
            return self
        value = instance.__dict__[self.name] = self.fn(instance)
        return value
