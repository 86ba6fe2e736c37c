"""``numpy.linalg``'s LAPACK functions on tensors: the dtypes NumPy gives, in the Ops'
relations.

The catalogue's ``inv``, ``det``, ``solve``, ``cholesky``, ``qr``, ``svd``, ``eig``,
``eigvals``, ``eigh``, ``eigvalsh``, ``slogdet`` and ``pinv`` type ``float(T)``: a
float16 matrix computed in float32 and given back in float16, a bfloat16 one kept
bfloat16 (kantensor's extension, ``kt.inv``). NumPy's functions refuse float16 ("array
type float16 is unsupported in linalg") and compute the dtypes it lacks (bfloat16,
float8, float4, int4, int2: :data:`~kantensor.types.dtypes.LINALG_IN_FLOAT64`) in
float64. Their NumPy entries (``np.linalg.inv(x)``, what ``eval_shape`` traces) are the
Ops with ``as_numpy=True`` (:mod:`kantensor.ops.linalgnumpy`), whose relation states
NumPy's rule (:func:`numpy_dtypes`): for each dtype variable ``T`` read by ``float(T)``,
one alternative where ``T`` is in :data:`~kantensor.types.dtypes.LINALG_AS_FLOAT`
(typed ``float(T)`` as before) and one where it is low precision (``float(T)`` read
float64); a float16 ``T`` is in neither, refused with NumPy's sentence. So make_node,
query, the relation and refine agree, backwards too (a float64 result of
``np.linalg.inv`` is an answer for a bfloat16 input, never for a float16 one). The
signatures of the Ops whose shapes read no parameter (``det``, ``inv``, ``cholesky``,
``eig``, ``eigvals``, ``eigh``, ``eigvalsh``, ``slogdet``) are written here, once (their
catalogue entries name ``build_det``, ...); the others' builders are in :mod:`.linalg`.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ...syntax.alternative import Alternative
from ...syntax.ast import (
    DimVar,
    DTypeFunction,
    DTypeName,
    DTypeVar,
    InCategory,
    Promote,
    TensorPattern,
)
from ...syntax.parser import parse_alternatives
from ...syntax.vocabulary import FLOAT
from ...types.dtypes import LINALG_AS_FLOAT, LINALG_IN_FLOAT64, is_inexact
from ..templates import alternative, checked, reads_ranks, typed

__all__ = ["numpy_dtypes", "numpy_pinv", "rendered", "unsupported"]

_FLOAT64 = DTypeName("float64")
_FLOAT_X = DTypeFunction(FLOAT, DTypeVar("x"))


def unsupported(facts: Mapping[str, Any], types: tuple) -> str:
    """NumPy's sentence for a dtype its linalg refuses (float16: ``got`` of a failed dtype
    clause, else the first input's)."""
    return f"array type {facts.get('got', types[0].dtype)} is unsupported in linalg"


def _floated(term: Any) -> set[str]:
    """The dtype variables ``T`` of the ``float(T)`` calls in a dtype term."""
    if isinstance(term, DTypeFunction):
        if term.word is FLOAT and isinstance(term.arg, DTypeVar):
            return {term.arg.name}
        return _floated(term.arg)
    if isinstance(term, Promote):
        return set().union(*map(_floated, term.args))
    return set()


def _lowered(term: Any, low: frozenset[str]) -> Any:
    """``term`` with ``float(T)`` of each ``T`` in ``low`` read float64."""
    if isinstance(term, DTypeFunction):
        if term.word is FLOAT and isinstance(term.arg, DTypeVar) and term.arg.name in low:
            return _FLOAT64
        return DTypeFunction(term.word, _lowered(term.arg, low))
    if isinstance(term, Promote):
        return type(term)(tuple(_lowered(a, low) for a in term.args))
    return term


def numpy_dtypes(alternatives: Iterable[Alternative],
                 message: Any = unsupported) -> tuple[Alternative, ...]:
    """NumPy's linalg dtypes of ``alternatives`` (kantensor's ``float(T)`` ones): each
    alternative once per choice, for each ``T`` read by ``float(T)``, of ``T`` in
    :data:`LINALG_AS_FLOAT` (as it is) or in :data:`LINALG_IN_FLOAT64` (``float(T)``
    read float64); each clause carries ``message``, the sentence of a dtype in neither."""
    out: list[Alternative] = []
    for alt in alternatives:
        names = sorted(set().union(*(_floated(p.dtype) for p in alt.outputs)))
        for lows in itertools.product((False, True), repeat=len(names)):
            low = frozenset(n for n, lowered in zip(names, lows, strict=True) if lowered)
            clauses = tuple(checked(InCategory(DTypeVar(n), LINALG_IN_FLOAT64 if n in low
                                               else LINALG_AS_FLOAT), message)
                            for n in names)
            outputs = tuple(TensorPattern(p.dims, _lowered(p.dtype, low))
                            for p in alt.outputs)
            out.append(Alternative(alt.inputs, outputs, (*alt.where, *clauses), alt.loop,
                                   alt.max_loop_dims))
    return tuple(out)


def rendered(alternatives: Sequence[Alternative], as_numpy: bool) -> tuple[Alternative, ...]:
    """``alternatives`` as they are, or with NumPy's dtypes (``as_numpy``)."""
    return numpy_dtypes(alternatives) if as_numpy else tuple(alternatives)


#: The dtypes NumPy's pinv reads as inexact (it computes them in their own dtype), and
#: those it reads as not (integers and bool; the low-precision ones are
#: ``LINALG_IN_FLOAT64``): float16 is in neither (empty matrices only, given back).
_PINV_INEXACT = tuple(d for d in LINALG_AS_FLOAT if is_inexact(d))
_PINV_EXACT = tuple(d for d in LINALG_AS_FLOAT if not is_inexact(d))


def _pinv_refused(facts: Any, types: tuple) -> str:
    """NumPy's sentence for a dtype no alternative of its pinv takes: float16 (its linalg
    refuses it), or a dtype not inexact with ``rtol=None`` (NumPy reads its eps)."""
    got = facts.get("got")
    if got == "float16":
        return unsupported(facts, types)
    return f"pinv: data type {got} not inexact (NumPy's rtol=None reads its eps)"


def numpy_pinv(m: DimVar, n: DimVar, square: list, eps: bool) -> list:
    """NumPy's pinv: a matrix of :data:`_PINV_INEXACT` typed ``float(x)``; a float16 one
    only where the matrices are empty (NumPy gives them back as they are, and raises
    "array type float16 is unsupported in linalg" for any other); of a dtype it reads as
    not inexact, integers and bool (``float(x)``) or the low-precision ones (float64, as
    NumPy computes them) where the matrices have elements, and in their own dtype where
    they have none (NumPy gives them back so: two alternatives, the sizes choose; where
    they are unknown, the build chooses non-empty), and not for ``rtol=None`` (``eps``:
    NumPy raises at every size, no eps of such a dtype)."""
    x = DTypeVar("x")
    a = [typed([m, n], "x")]
    alts = [alternative(a, [typed([n, m], _FLOAT_X)],
                        [*square, checked(InCategory(x, _PINV_INEXACT), _pinv_refused)],
                        loop="+"),
            alternative(a, [typed([n, m], "x")], [
                *square, checked(InCategory(x, ("float16",)), _pinv_refused),
                checked((m * n).eq(0), unsupported)], loop="+")]
    if eps:
        return alts
    filled = checked(m * n >= 1, lambda _, types: (
        f"pinv of an empty {types[0].dtype} matrix: NumPy gives it back in "
        f"{types[0].dtype}, a non-empty one in float (the dtype would depend on "
        f"the sizes)"))
    for kinds, dtype in ((_PINV_EXACT, _FLOAT_X), (LINALG_IN_FLOAT64, "float64")):
        alts.append(alternative(a, [typed([n, m], dtype)], [
            *square, filled, checked(InCategory(x, kinds), _pinv_refused)], loop="+"))
        alts.append(alternative(a, [typed([n, m], "x")], [
            *square, (m * n).eq(0), checked(InCategory(x, kinds), _pinv_refused)], loop="+"))
    return alts


def _fixed(name: str, text: str) -> Any:
    """The builder of an Op whose signature (``text``) reads nothing but ``as_numpy``."""
    alternatives = parse_alternatives(text)

    def build(types: tuple, as_numpy: bool = False, **_: Any) -> dict[str, Any]:
        return {"sig": rendered(alternatives, as_numpy)}

    build.__name__ = build.__qualname__ = name
    build.__doc__ = f"``{text}``, with NumPy's dtypes where ``as_numpy``."
    return reads_ranks(build)


build_det = _fixed("build_det", "+(m,m):x->():float(x)")
build_inv = _fixed("build_inv", "+(m,m):x->(m,m):float(x)")
build_cholesky = _fixed("build_cholesky", "+(m,m):x->(m,m):float(x)")
build_eig = _fixed("build_eig", "+(m,m):x->(m):promote(float(x),complex64),"
                                "(m,m):promote(float(x),complex64)")
build_eigvals = _fixed("build_eigvals", "+(m,m):x->(m):promote(float(x),complex64)")
build_eigh = _fixed("build_eigh", "+(m,m):x->(m):real(float(x)),(m,m):float(x)")
build_eigvalsh = _fixed("build_eigvalsh", "+(m,m):x->(m):real(float(x))")
build_slogdet = _fixed("build_slogdet", "+(m,m):x->():float(x),():real(float(x))")
