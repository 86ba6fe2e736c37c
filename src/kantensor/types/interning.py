"""Interning by name, weakly: one object per name while anybody holds it, and nothing
kept for a name nobody uses (so a long-running process that makes many names does not
keep them all)."""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable
from typing import Any

__all__ = ["WeakInterner"]


class _Ref(weakref.ref):
    """A weak reference that knows the name it is filed under."""

    __slots__ = ("name",)

    def __new__(cls, obj: Any, callback: Callable[[_Ref], None], name: str) -> _Ref:
        return super().__new__(cls, obj, callback)

    def __init__(self, obj: Any, callback: Callable[[_Ref], None], name: str) -> None:
        super().__init__(obj, callback)
        self.name = name


class WeakInterner:
    """Objects by name, held weakly; thread-safe (two threads interning one name get one
    object). Its table is rebuilt once it holds a quarter of its peak: a dict never
    shrinks by itself."""

    def __init__(self) -> None:
        self._refs: dict[str, _Ref] = {}
        self._lock = threading.RLock()  # re-entrant: an object may be freed while held
        self._peak = 0  # the most entries since the table was last rebuilt

    def get(self, name: str) -> Any | None:
        """The live object of ``name``, or None."""
        ref = self._refs.get(name)
        return ref() if ref is not None else None

    def intern(self, name: str, make: Callable[[], Any]) -> Any:
        """The live object of ``name``, made by ``make()`` if there is none."""
        with self._lock:
            obj = self.get(name)
            if obj is None:
                obj = make()
                self._refs[name] = _Ref(obj, self._forget, name)
                self._compact()
            return obj

    def __contains__(self, name: str) -> bool:
        return self.get(name) is not None

    def __len__(self) -> int:
        return len(self._refs)

    def _forget(self, ref: _Ref) -> None:
        """An object was freed: drop its entry (unless the name was interned again)."""
        with self._lock:
            if self._refs.get(ref.name) is ref:
                del self._refs[ref.name]
                self._compact()

    def _compact(self) -> None:
        n = len(self._refs)
        if n > self._peak:
            self._peak = n
        elif self._peak > 1024 and 4 * n < self._peak:
            self._refs, self._peak = dict(self._refs), n
