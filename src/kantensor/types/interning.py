"""Interning by key, weakly: one object per key (a Dim's name, a TensorType's dtype and
shape) while anybody holds it, and nothing kept for a key nobody uses (so a long-running
process that makes many keys does not keep them all)."""

from __future__ import annotations

import threading
import weakref
from _weakref import _remove_dead_weakref  # what WeakValueDictionary uses
from collections.abc import Callable, Hashable
from itertools import repeat
from operator import is_
from typing import Any

__all__ = ["WeakInterner"]


class _Ref(weakref.ref):
    """A weak reference that knows the key it is filed under (set once it is made: no
    constructor of our own, so making one stays in C)."""

    __slots__ = ("name",)
    name: Hashable


class WeakInterner:
    """Objects by key, held weakly; thread-safe (two threads interning one key get one
    object). Its table is rebuilt in place once it holds a quarter of its peak: a dict
    never shrinks by itself. Looking up a live key takes no lock (a dict lookup is
    atomic), and neither does forgetting a freed one (an atomic "remove if dead")."""

    def __init__(self) -> None:
        self._refs: dict[Hashable, _Ref] = {}
        #: ``lookup(name)``: the weak reference filed under ``name``, or None (the
        #: table's own ``get``, for constructors that look up on every call; a miss, or a
        #: dead reference, goes to :meth:`intern`, which looks again under the lock).
        self.lookup: Callable[[Hashable], _Ref | None] = self._refs.get
        self._lock = threading.Lock()
        self._callback = self._forget  # one bound method for every reference it makes
        self._peak = 0  # the most entries since the table was last rebuilt (seen
        # when an object is freed: only then can the table be too large)

    def get(self, name: Hashable) -> Any | None:
        """The live object of ``name``, or None."""
        ref = self.lookup(name)
        return ref() if ref is not None else None

    def intern(self, name: Hashable, obj: Any) -> Any:
        """The live object of ``name``, else ``obj``, filed under it (the caller makes
        ``obj`` before the lock is taken: a thread that loses the race drops its copy
        unseen)."""
        ref = _Ref(obj, self._callback)
        ref.name = name
        refs = self._refs
        lock = self._lock
        lock.acquire()  # (released in finally: ~0.15 us less than ``with`` a call)
        try:
            held = refs.setdefault(name, ref)
            if held is not ref:
                live = held()
                if live is not None:
                    return live
                refs[name] = ref  # a dead entry whose callback has not run yet
        finally:
            lock.release()
        return obj

    def intern_all(self, names: list[Hashable], objs: list[Any]) -> list[Any]:
        """:meth:`intern` of each of ``objs`` under the name at its place in ``names``,
        at once (their references made by a map, named in a loop, filed together: a
        model's graph inputs of distinct types), the live objects in a list: ``objs``,
        each replaced by the object already live under its name (one filed before, or an
        earlier one of ``names``)."""
        refs = list(map(_Ref, objs, repeat(self._callback)))
        for ref, name in zip(refs, names, strict=True):  # (a loop's STORE_ATTR: half
            ref.name = name  # the instructions of mapping the slot's __set__)
        refs_of = self._refs
        lock = self._lock
        lock.acquire()
        try:
            held = list(map(refs_of.setdefault, names, refs))
            if not all(map(is_, held, refs)):  # (a name filed already: as intern does)
                for k, ref in enumerate(refs):
                    if held[k] is not ref:
                        live = held[k]()
                        if live is not None:
                            objs[k] = live
                        else:
                            refs_of[names[k]] = ref
        finally:
            lock.release()
        return objs

    def __contains__(self, name: Hashable) -> bool:
        return self.get(name) is not None

    def __len__(self) -> int:
        return len(self._refs)

    def _forget(self, ref: _Ref, _remove: Callable[[dict, Hashable], None] =
                _remove_dead_weakref) -> None:
        """An object was freed: drop its entry unless the name was interned again (no
        lock: this may run inside :meth:`intern`, whenever the collector runs). What it
        calls is bound when it is defined (``_remove``), as WeakValueDictionary binds it:
        at interpreter exit an object may be freed after this module's globals are None,
        which printed "Exception ignored ... 'NoneType' object is not callable"."""
        refs = self._refs
        n = len(refs)  # the table grows only in intern: it is at its peak before a removal
        if n > self._peak:
            self._peak = n
        _remove(refs, ref.name)
        if self._peak > 1024 and 4 * len(refs) < self._peak and \
                self._lock.acquire(blocking=False):  # else the next one rebuilds it
            try:  # in place (``lookup`` is bound to it); a lookup meanwhile may miss
                live = dict(refs)
                refs.clear()  # frees the big table
                refs.update(live)
                self._peak = len(refs)
            finally:
                self._lock.release()
