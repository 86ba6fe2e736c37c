"""The values some parameter kinds of :mod:`kantensor.ops.params` normalise to, as
hashable objects an Op's props can hold: a slice of a basic index (:class:`SliceItem`),
an index array of an advanced one (:class:`ArrayRef`), an array or a subgraph given as a
parameter (:class:`ArrayParam`, :class:`GraphParam`), and :data:`UNSET`, a parameter
not given. The kinds that check a user's value and make these are in
:mod:`kantensor.ops.params` and :mod:`kantensor.ops.sizeparams` (the index's slices and
index arrays); :data:`kantensor.ops.callspec.KINDS` names them all."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np


class _Unset:
    """The type of :data:`UNSET` (one object, pickled by its name)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "<no value>"

    def __reduce__(self) -> str:
        return "UNSET"


#: The default of a ``cutoff`` parameter: not given (NumPy's ``<no value>``, which a
#: function tells apart from every value a caller may give: pinv's ``rtol``). An object,
#: told by identity: a string "unset" a caller passes is a value (NumPy refuses it), not
#: the parameter left out. A call text writes it ``UNSET`` (see :data:`MARKERS`).
UNSET: Any = _Unset()

#: The defaults a call text may write by name, not as a literal: ``rtol: cutoff = UNSET``.
MARKERS: dict[str, Any] = {"UNSET": UNSET}


def unset(value: Any) -> bool:
    """Whether a ``cutoff`` parameter was not given."""
    return value is UNSET


class SliceItem(tuple):
    """A normalised slice, the tuple ``("slice", start, stop, step)`` (hashable, unlike
    a slice), shown as Python writes it: ``getitem{index=(1:, None, ::2)}``.

    Python's slice counts a negative bound from the end. A bound that is a size is read
    with the sign its form shows where the sizes are large (``-n`` from the end, ``n -
    5`` from the start: the build's choice, stated, see
    :mod:`kantensor.ops.families.indexing`); where the form shows none (``n - m``,
    ``(m - n)//(n - m)``, ``n % (m - n)``), a traced program is asked its sign as a
    branch on sizes is (:func:`kantensor.types.dimorder.asked`), so that each case of
    it is typed by Python's rule, none by a choice."""

    def __new__(cls, start: int | None, stop: int | None, step: int | None) -> SliceItem:
        return super().__new__(cls, ("slice", start, stop, step))

    def __getnewargs__(self) -> tuple:  # pickled by its bounds (not the 4-tuple)
        return tuple(self[1:])

    def __repr__(self) -> str:
        def text(v: int | None) -> str:
            return "" if v is None else str(v)
        _, start, stop, step = self
        return f"{text(start)}:{text(stop)}" + ("" if step is None else f":{step}")


@dataclass(frozen=True)
class ArrayRef:
    """An index array in an advanced index (``x[i, :, mask]``): the tensor input number
    ``position`` + 1 of the ``index`` Op (input 0 is the indexed tensor). For a constant
    integer array (a list, a range, a NumPy array), or a graph value computed from known
    numbers (``np.arange(4) + 1``, see :mod:`kantensor.ops.families.values`), ``bounds``
    is its (least, greatest) value, which the relation checks against the axis, as it
    checks an int index;
    ``counting`` marks a vector ``arange(k)`` of a size ``k`` (``range(len(x))`` in
    traced code), whose values 0 .. k - 1 it checks alike (``k <= n``, or ``k == 0``);
    with ``cap`` m, ``arange(k) % m``, whose values are 0 .. min(k, m) - 1;
    ``reach``, for values whose bounds lo .. hi are sizes (``(arange(n) + 1) % 3``: 0 ..
    min(n, 2)), the Dim ``max(hi + 1, -lo)`` an axis it looks up must be at least: a
    size of the call, carried by an input of its own (:mod:`kantensor.ops.sizes`), so
    the relation checks it as it checks int bounds;
    ``along`` k, an ``argsort`` (:func:`~kantensor.ops.families.values.permutation_axis`):
    along its own axis k (of length m, known or not) the values are a permutation of 0
    .. m - 1, every one looked up where the array is not empty, so the relation checks
    ``m <= n`` there, exactly, from the array's own type;
    ``leading``, a boolean mask true at its first element whenever it has one (the mask
    of ``np.unique``'s first occurrences: :mod:`kantensor.ops.counted`), so its count is
    at least ``min(1, size)`` (never set from a value: only a composition that makes
    such a mask says so)."""

    position: int
    bounds: tuple[int, int] | None = None
    counting: bool = False
    cap: int | None = None
    reach: Any = None
    along: int | None = None
    leading: bool = False

    def __repr__(self) -> str:
        extra = "" if self.bounds is None else f" in [{self.bounds[0]}, {self.bounds[1]}]"
        capped = "" if self.cap is None else f" % {self.cap}"
        reach = "" if self.reach is None else f" within {self.reach}"
        along = "" if self.along is None else f" permuting axis {self.along}"
        return f"<array {self.position}{extra}{' counting' * self.counting}{capped}{reach}" \
               f"{along}{' leading' * self.leading}>"


@dataclass(frozen=True)
class ArrayParam:
    """An array given as a parameter (an ONNX tensor attribute: LabelEncoder's keys, a
    tree ensemble's splits), held as its dtype, shape and values so that it hashes."""

    dtype: str
    shape: tuple[int, ...]
    values: tuple

    @property
    def array(self) -> np.ndarray:
        if self.dtype == "string":
            return np.array(self.values, dtype=object).reshape(self.shape)
        return np.array(self.values, dtype=self.dtype).reshape(self.shape)


@dataclass(frozen=True)
class GraphParam:
    """A subgraph given as a parameter (an ONNX GRAPH attribute): its serialized bytes and
    the operator sets (domain, version) its nodes are read with; the layer that reads it
    parses it."""

    data: bytes
    opsets: tuple[tuple[str, int], ...] = ()
