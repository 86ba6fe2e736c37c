"""ONNX's Reshape: its builder (a relation exact at every size, 0 included: an entry 0
copies the input's size unless ``allowzero``) and implementation."""

from __future__ import annotations

import functools
import operator
from typing import Any

import numpy as np

from ...ops.params import ParamError
from ...ops.sizes import SizeNames
from ...ops.templates import alternative, dims, reads_known_sizes, size_of, typed
from ...syntax.ast import Clause, DimVar, chosen, dim_max, dim_min
from ...syntax.ast.dims import as_expr
from ...types.dim import Dim
from ...types.facts import EMPTY
from ...types.symbols import free_symbols, substitute
from ..floatsizes import float_sizes
from ..shared import NotKnown


def _unknown(prefix: str, n: int) -> tuple[list[DimVar], list[Clause]]:
    """``n`` fresh unknown sizes and the clauses declaring them."""
    made = dims(prefix, n)
    return made, [d >= 0 for d in made]


@reads_known_sizes
def build_reshape(types: tuple, shape_value: Any, allowzero: int = 0, **_: Any
                  ) -> dict[str, Any]:
    """Reshape: 0 copies the input's size (unless ``allowzero``), -1 is the input's size
    over the others (never among sizes of product 0); a Dim entry is its size input, an
    unknown one a fresh size. A Dim entry ``s`` at an axis of size ``a`` of the input is
    ``s`` where ``s >= 1`` and ``a`` (copied) where ``s == 0``: one exact size,
    ``s + a - a*min(1, s)``, which facts ``s >= 1`` make ``s``. It is ``s`` itself where
    the input's type shows that ``s == 0`` makes ``a`` 0 too (``batch`` at an axis of size
    ``batch*seq``: :func:`_zero_with`), and ``s`` with the condition that it is 0 only
    where ``a`` is where the volume refuses the copy anyway (:func:`_volume_decides`).
    A Dim entry not known to be ``>= 0`` (``-n``) is read as a size under that choice:
    where it is negative it is -1 (inferred) or refused, which later alternatives state
    (one per such entry: it is -1, a need), so where the facts refute the choice
    (``-N - 1``, -1 at N = 0 only) the one they allow applies."""
    x, shape = types[0], types[1]
    a = dims("a", x.ndim)
    if shape.ndim != 1:
        raise ParamError(f"shape must be a 1-D tensor, got one of {shape.ndim} axes")
    if shape_value is None:
        k = shape.shape[0]
        if not isinstance(k, int):
            raise NotKnown("the output rank is unknown: shape has an unknown length")
        out, clauses = _unknown("u", k)
        return {"sig": [alternative([typed(a, "T"), typed([k], "int64")], [typed(out, "T")],
                                    clauses)]}
    sizes = SizeNames(shape_value)
    inputs = [typed(a, "T"), typed(dims("k"), "int64"), *sizes.patterns()]
    chose: list[int] = []  # the entries read as sizes under a choice
    alternatives = [_reading(x, a, shape_value, allowzero, sizes, chose, None)]
    for i in chose:  # entry i is -1: unless another entry is -1 (refused then)
        try:
            alternatives.append(_reading(x, a, shape_value, allowzero, sizes, [], i))
        except ParamError:
            pass
    return {"sig": [alternative(inputs, [typed(out, "T")], clauses)
                    for out, clauses in alternatives]}


def _reading(x: Any, a: list[DimVar], shape_value: Any, allowzero: int, sizes: SizeNames,
             chose: list[int], minus: int | None) -> tuple[list, list[Clause]]:
    """The output dims and where-clauses of Reshape reading entry ``minus`` as -1 (a need
    that it is -1) or, None, every entry as it shows; the entries read as sizes under a
    choice are added to ``chose``."""
    own = {d: a[i] for i, d in enumerate(x.shape) if isinstance(d, Dim | int)}
    out: list[Any] = []
    clauses: list[Clause] = []
    copies: dict[int, Any] = {}  # position -> the entry a copy expression is made of
    free = None
    for i, entry in enumerate(shape_value):
        if entry is None:
            u = DimVar(f"u{i}")
            out.append(u)
            clauses.append(u >= 0)
        elif entry == 0 and not allowzero:
            if i >= x.ndim:
                raise ParamError(f"shape entry {i} is 0 (copy) but the input has {x.ndim} axes")
            out.append(a[i])
        elif i == minus or isinstance(entry, int) and entry == -1:
            if i == minus:
                clauses.append((as_expr(sizes.expr(entry)) + 1).eq(0))  # it is -1
            if free is not None:
                raise ParamError("shape has more than one -1")
            free = i
            out.append(None)
        elif isinstance(entry, int) and entry < 0:
            raise ParamError(f"shape entry {entry} is negative")
        elif not isinstance(entry, Dim):
            out.append(entry)
        elif i < x.ndim and x.shape[i] is not None and entry == x.shape[i]:
            out.append(a[i])  # the input's own size there: copied or not, the same
        else:
            given = own.get(entry, sizes.expr(entry))  # one of the input's sizes, or not
            beyond = i >= x.ndim and not allowzero  # 0 would copy an axis x does not have
            if EMPTY.decide((entry, ">=", 0)) is not True:  # -n: -1 infers, -2 refuses
                clauses.append(chosen(as_expr(given) >= 0, _NEGATIVE))
                chose.append(i)
                if beyond:
                    clauses.append(as_expr(given).ne(0))
            elif beyond:
                clauses.append(as_expr(given) >= 1)
            out.append(given)
            if allowzero or beyond:
                continue
            if x.shape[i] is None or not _zero_with(entry, x.shape[i]):
                copies[i] = given  # copies the input's size where it is 0: see below
    unknown = any(e is None for e in shape_value)
    for i, given in copies.items():
        if _volume_decides(x.shape, shape_value[i], out, i, free, unknown):
            clauses.append(dim_min(given, 1) >= dim_min(a[i], 1))
        else:
            out[i] = given + a[i] - a[i] * dim_min(1, given)
    copies = {i: given for i, given in copies.items() if out[i] is not given}
    if free is None:
        if not unknown:
            clauses.append(size_of(a).eq(size_of(out)))
    elif unknown:
        w = DimVar("w")
        out[free] = w
        clauses.append(w >= 0)
    else:
        out[free] = _quotient(a, out, free, copies, clauses)
    return out, clauses


#: What a negative entry that is a size expression gives: the build reads it as a size
_NEGATIVE = "another shape (a negative entry: -1 is inferred, others are refused)"


def _quotient(a: list[DimVar], out: list[Any], free: int, copies: dict[int, Any],
              clauses: list[Clause]) -> Any:
    """The size of the -1 at ``free``: the input's size over the others (adding their
    conditions to ``clauses``). -1 among sizes of product 0 is invalid (ONNX; with
    allowzero too): a condition per size, as a box states it (a product >= 1 it does
    not). An input axis named again cancels out; so does one a copy expression is made
    of (``a_j`` where ``a_j >= 1``), the quotient then gated by ``min(1, a_j)``: where
    ``a_j`` is 0 the input is empty and the quotient 0."""
    left, kept, gates = list(a), [], []
    for i, t in enumerate(out):
        if i == free:
            continue
        given = copies.get(i)
        if given is not None:
            clauses.append(dim_max(given, a[i]) >= 1)  # the copy expression's ``>= 1``
        elif not (isinstance(t, int) and t >= 1):
            clauses.append(as_expr(t) >= 1)
        if t in left:
            left.remove(t)
        elif given is not None and given in left:
            left.remove(given)
            gates.append(dim_min(1, given))
        else:
            kept.append(t)
    num = size_of(gates + left) if gates else size_of(left)
    if not kept:
        return num
    den = size_of(kept)
    clauses.append((num % den).eq(0))
    return size_of(gates) * (size_of(left) // den) if gates else num // den


def _volume_decides(shape: tuple, entry: Dim, out: list, i: int, free: int | None,
                    unknown: bool) -> bool:
    """Whether a Dim ``entry`` at axis ``i`` (of size ``a``) may keep its own size with
    the condition that it is 0 only where ``a`` is (``min(s, 1) >= min(a, 1)``) and
    still be exact: where ``entry`` is 0 the input is empty (``shape``'s volume is 0 by
    structure), the other sizes are ints >= 1 and there is no -1, so a copied ``a >= 1``
    would make a volume >= 1, which the input's 0 refuses anyway (``[3*batch*seq]`` of
    a ``(batch, seq, 3)`` input: its size, never a copy of batch)."""
    if free is not None or unknown or any(d is None for d in shape):
        return False
    if not all(isinstance(t, int) and t >= 1 for j, t in enumerate(out) if j != i):
        return False
    return _zero_with(entry, functools.reduce(operator.mul, shape, 1))


def _zero_with(entry: Dim, size: Any) -> bool:
    """Whether ``size`` is 0 wherever ``entry`` is, by their structure: ``entry`` is
    ``c*n**k*m**j...`` over named sizes (0 only where one of them is), each of which
    makes ``size`` 0."""
    symbols = free_symbols(entry)
    if not symbols or not all(isinstance(s, str) for s in symbols):
        return False
    ones = dict.fromkeys(symbols, 1)
    c = substitute(entry, ones)
    if not isinstance(c, int) or c <= 0:
        return False
    monomial: Any = c
    for s in symbols:
        k = substitute(entry, ones | {s: 2})
        if not isinstance(k, int) or k < c or k % c or (k // c) & (k // c - 1):
            return False
        monomial = monomial * Dim(s) ** ((k // c).bit_length() - 1)
    try:
        return monomial == entry and all(substitute(size, {s: 0}) == 0 for s in symbols)
    except ZeroDivisionError:  # ``size`` divides by a size that is 0 there: not shown 0
        return False


@float_sizes
def reshape(x: np.ndarray, shape: np.ndarray, *sizes: np.ndarray, allowzero: int = 0,
            **_: Any) -> np.ndarray:
    target = [int(v) for v in np.asarray(shape).tolist()]
    if not allowzero:
        target = [x.shape[i] if v == 0 else v for i, v in enumerate(target)]
    return np.reshape(x, target)
