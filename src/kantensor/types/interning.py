"""Interning by key, weakly: one object per key (a Dim's name, a TensorType's dtype and
shape) while anybody holds it, and nothing kept for a key nobody uses (so a long-running
process that makes many keys does not keep them all)."""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable, Hashable
from typing import Any

__all__ = ["WeakInterner"]


class _Ref(weakref.ref):
    """A weak reference that knows the key it is filed under (set once it is made: no
    constructor of our own, so making one stays in C)."""

    __slots__ = ("name",)
    name: Hashable


class WeakInterner:
    """Objects by key, held weakly; thread-safe (two threads interning one key get one
    object). Its table is rebuilt once it holds a quarter of its peak: a dict never
    shrinks by itself. Looking up a live key takes no lock (a dict lookup is atomic)."""

    def __init__(self) -> None:
        self._refs: dict[str, _Ref] = {}
        self._lock = threading.RLock()  # re-entrant: an object may be freed while held
        self._peak = 0  # the most entries since the table was last rebuilt

    def get(self, name: Hashable) -> Any | None:
        """The live object of ``name``, or None."""
        ref = self._refs.get(name)
        return ref() if ref is not None else None

    def intern(self, name: Hashable, make: Callable[[], Any]) -> Any:
        """The live object of ``name``, made by ``make()`` if there is none."""
        with self._lock:
            obj = self.get(name)
            if obj is None:
                obj = make()
                ref = _Ref(obj, self._forget)
                ref.name = name
                self._refs[name] = ref
                self._compact()
            return obj

    def __contains__(self, name: Hashable) -> bool:
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
