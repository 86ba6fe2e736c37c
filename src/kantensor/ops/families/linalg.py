"""Linear algebra: builders for the template signatures of ``signatures/linalg.toml``
and wrappers around ``numpy.linalg``.

The wrappers exist for two reasons: NumPy's calling convention differs
(``einsum`` takes the subscripts first), or ``numpy.linalg`` refuses float16.
kantensor accepts float16 there: the wrapper computes in float32 and the Op
casts the result back to float16 (its inferred dtype). Each LAPACK one takes
``as_numpy`` (what its NumPy entry sets: the dtypes NumPy gives, in its relation,
:mod:`.lapack`).
"""

from __future__ import annotations

import string
from functools import partial
from typing import Any

import numpy as np

from ...syntax.ast import (
    Broadcasts,
    Clause,
    DimExpr,
    DimVar,
    DTypeFunction,
    DTypeVar,
    dim_max,
    dim_min,
)
from ...syntax.parser import parse_alternatives
from ...syntax.vocabulary import FLOAT, REAL
from ...types.dtypes import get_default_dtype
from ..params import AxisError, ParamError, normalize_axis
from ..paramvalues import UNSET, unset
from ..templates import (
    alternative,
    checked,
    dims,
    rank_error,
    reads_ranks,
    size_of,
    typed,
)
from .lapack import numpy_pinv, rendered

# --------------------------------------------------------------------------- wrappers


def _lift(x: np.ndarray) -> np.ndarray:
    """float16 as float32, since ``numpy.linalg`` has no float16 loops."""
    return x.astype(np.float32) if x.dtype == np.float16 else x


def _floating(x: np.ndarray) -> np.ndarray:
    """``x`` in the dtype its float(x) result is computed in: integers and bool in the
    default float dtype (as the signature types them), float16 in float32."""
    return _lift(x if x.dtype.kind in "fc" else x.astype(get_default_dtype()))


def _given(x: np.ndarray, as_numpy: bool) -> np.ndarray:
    """What NumPy's function is given: ``x`` as NumPy is given it (float16 aside, which
    the NumPy entry's relation refuses) where ``as_numpy`` (integers and the
    low-precision dtypes then computed in float64, as NumPy computes them), else
    :func:`_floating`."""
    return _lift(x) if as_numpy else _floating(x)


def det(a: np.ndarray, as_numpy: bool = False) -> np.ndarray:
    """``numpy.linalg.det``, float16 computed in float32."""
    return np.linalg.det(_lift(a))


def inv(a: np.ndarray, as_numpy: bool = False) -> np.ndarray:
    """``numpy.linalg.inv``, float16 computed in float32."""
    return np.linalg.inv(_lift(a))


def solve(a: np.ndarray, b: np.ndarray, as_numpy: bool = False) -> np.ndarray:
    """``numpy.linalg.solve``, float16 computed in float32."""
    return np.linalg.solve(_lift(a), _lift(b))


def cholesky(a: np.ndarray, upper: bool = False, as_numpy: bool = False) -> np.ndarray:
    """``numpy.linalg.cholesky``, float16 computed in float32."""
    return np.linalg.cholesky(_lift(a), upper=upper)


def qr(a: np.ndarray, mode: str = "reduced", as_numpy: bool = False) -> Any:
    """``numpy.linalg.qr``, float16 computed in float32."""
    return np.linalg.qr(_lift(a), mode=mode)


def svd(a: np.ndarray, full_matrices: bool = True, compute_uv: bool = True,
        hermitian: bool = False, as_numpy: bool = False) -> Any:
    """``numpy.linalg.svd``, float16 computed in float32."""
    return np.linalg.svd(_lift(a), full_matrices=full_matrices, compute_uv=compute_uv,
                         hermitian=hermitian)


def _complex(x: np.ndarray) -> np.ndarray:
    """``x`` as complex of its precision (NumPy's eig is real when every eigenvalue is)."""
    return x.astype(np.promote_types(x.dtype, np.complex64), copy=False)


def eig(a: np.ndarray, as_numpy: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """``numpy.linalg.eig``, float16 computed in float32, always complex."""
    w, v = np.linalg.eig(_given(a, as_numpy))
    return _complex(w), _complex(v)


def eigvals(a: np.ndarray, as_numpy: bool = False) -> np.ndarray:
    """``numpy.linalg.eigvals``, float16 computed in float32, always complex."""
    return _complex(np.linalg.eigvals(_given(a, as_numpy)))


def eigh(a: np.ndarray, UPLO: str = "L", as_numpy: bool = False,  # noqa: N803
         ) -> tuple[np.ndarray, np.ndarray]:
    """``numpy.linalg.eigh``, float16 computed in float32."""
    w, v = np.linalg.eigh(_given(a, as_numpy), UPLO=UPLO)
    return w, v


def eigvalsh(a: np.ndarray, UPLO: str = "L", as_numpy: bool = False,  # noqa: N803
             ) -> np.ndarray:
    """``numpy.linalg.eigvalsh``, float16 computed in float32."""
    return np.linalg.eigvalsh(_given(a, as_numpy), UPLO=UPLO)


def pinv(a: np.ndarray, rcond: Any = None, hermitian: bool = False, rtol: Any = UNSET,
         as_numpy: bool = False) -> np.ndarray:
    """``numpy.linalg.pinv``, float16 computed in float32; the cutoff given as NumPy is
    given it (:func:`build_pinv` refuses both; neither: NumPy's default). ``as_numpy``:
    the matrix as NumPy is given it (float16 aside), an integer, bool or low-precision
    one computed in float64 as NumPy computes it (bfloat16's type is float64, int4
    reaches here as int8: ``exact_casts``)."""
    kwargs = {"rcond": rcond} if rcond is not None else {} if unset(rtol) else \
        {"rtol": rtol}
    return np.linalg.pinv(_lift(a) if as_numpy else _floating(a), hermitian=hermitian,
                          **kwargs)


def slogdet(a: np.ndarray, as_numpy: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """``numpy.linalg.slogdet``, float16 computed in float32."""
    sign, logabsdet = np.linalg.slogdet(_given(a, as_numpy))
    return sign, logabsdet


def einsum(*operands: np.ndarray, subscripts: str) -> np.ndarray:
    """``numpy.einsum(subscripts, *operands)`` with the subscripts as a keyword, the
    way an Op passes its parameters; the axes of a subscript repeated in one operand
    must have one size, as the signature says. NumPy's view path (one operand, nothing
    summed) does not compare a size that follows a 0: ``einsum("ii->i")`` of a
    ``(0, 3)`` array is a ``(3,)`` array of values the operand does not have (read
    outside it), where a graph with unknown sizes would otherwise reach it."""
    inputs, _ = parse_subscripts(subscripts, len(operands))
    for k, (items, x) in enumerate(zip(inputs, operands, strict=True)):
        sizes: dict[str, tuple[int, int]] = {}
        for axis, key in enumerate(_keys(items, x.ndim, k)):
            first = sizes.setdefault(key, (axis, x.shape[axis]))
            if first[1] != x.shape[axis]:
                raise ValueError(
                    f"einsum {subscripts!r}: subscript {key!r} of operand {k} is "
                    f"{first[1]} at axis {first[0]} but {x.shape[axis]} at axis {axis}; "
                    "the axes of a repeated subscript must be equal (NumPy skips this "
                    "check after a size 0 and reads values outside the operand)")
    return np.einsum(subscripts, *operands)


def _einsum_as_numpy(kwargs: dict[str, Any]) -> Any:
    """NumPy's own call that computes :func:`einsum` with these parameters:
    ``numpy.einsum`` with the subscripts bound, where no operand repeats a subscript
    (then there is nothing for :func:`einsum` to check); None otherwise. The Dask
    backend ships it to a cluster's workers, which then import no kantensor
    (``kantensor.backend.dask.kernels.AS_NUMPY``)."""
    subscripts = kwargs.get("subscripts")
    if not isinstance(subscripts, str) or set(kwargs) != {"subscripts"}:
        return None
    inputs, _ = parse_subscripts(subscripts, subscripts.partition("->")[0].count(",") + 1)
    if any(len(set(items)) != len(items) for items in inputs):
        return None
    return partial(np.einsum, subscripts)


einsum.as_numpy = _einsum_as_numpy  # type: ignore[attr-defined]


# --------------------------------------------------------------------------- builders

#: The dtypes of qr's and svd's factors and of svd's singular values.
_FLOAT = DTypeFunction(FLOAT, DTypeVar("x"))
_REAL = DTypeFunction(REAL, _FLOAT)


@reads_ranks
def build_outer(types: tuple, **_: Any) -> dict[str, Any]:
    """``outer`` flattens both inputs: ``(a.size, b.size)``."""
    a, b = (dims(p, t.ndim) for p, t in zip("ab", types, strict=True))
    return {"a": a, "b": b, "m": size_of(a), "n": size_of(b)}


def _tensordot_pairs(axes: int | tuple, nda: int, ndb: int) -> tuple[list[int], list[int]]:
    """The contracted axes of ``a`` and ``b``, normalised, checked like NumPy does:
    an int ``n`` is the last ``n`` axes of a with the first ``n`` of b (n < 0 is 0)."""
    if isinstance(axes, int):
        n = max(axes, 0)
        if n > nda or n > ndb:
            raise AxisError(f"axes={axes} needs at least {n} dimensions in each input, "
                            f"got {nda} and {ndb}")
        return list(range(nda - n, nda)), list(range(n))
    axes_a, axes_b = axes
    if len(axes_a) != len(axes_b):
        raise ParamError(f"axes: {len(axes_a)} axes of a but {len(axes_b)} of b "
                         "(shape-mismatch for sum)")
    out_a = [normalize_axis(x, nda) for x in axes_a]
    out_b = [normalize_axis(x, ndb) for x in axes_b]
    if len(set(out_a)) != len(out_a) or len(set(out_b)) != len(out_b):
        raise AxisError(f"duplicate axes are not allowed in tensordot: {axes}")
    return out_a, out_b


@reads_ranks
def build_tensordot(types: tuple, axes: int | tuple, **_: Any) -> dict[str, Any]:
    """Contracted axes of b take the names of a's: their sizes must be equal (NumPy's
    tensordot does not broadcast). The output is a's free axes, then b's."""
    ta, tb = types
    axes_a, axes_b = _tensordot_pairs(axes, ta.ndim, tb.ndim)
    a, b = dims("a", ta.ndim), dims("b", tb.ndim)
    for i, j in zip(axes_a, axes_b, strict=True):
        b[j] = a[i]
    free = [d for i, d in enumerate(a) if i not in axes_a] + \
        [d for j, d in enumerate(b) if j not in axes_b]
    return {"a": a, "b": b, "out": free, "params": {"axes": (tuple(axes_a), tuple(axes_b))}}


#: solve's signatures: ``b`` a vector, or a stack of matrices.
_SOLVE = {1: parse_alternatives("+(m,m):x,(m):y->(m):promote(float(x),float(y))"),
          2: parse_alternatives("+(m,m):x,(m,n):y->(m,n):promote(float(x),float(y))")}


@reads_ranks
def build_solve(types: tuple, as_numpy: bool = False, **_: Any) -> dict[str, Any]:
    """NumPy 2: ``b`` is a vector only when ``b.ndim == 1``, else a stack of matrices;
    NumPy's dtypes where ``as_numpy`` (:mod:`.lapack`)."""
    _, b = types
    return {"sig": rendered(_SOLVE[1 if b.ndim == 1 else 2], as_numpy)}


@reads_ranks
def build_qr(types: tuple, mode: str, as_numpy: bool = False, **_: Any) -> dict[str, Any]:
    """The outputs of each mode for an ``(m, n)`` input, with ``k = min(m, n)``;
    mode "raw" returns Householder reflectors in Fortran order, hence ``(n, m)``.
    NumPy's dtypes where ``as_numpy`` (:mod:`.lapack`)."""
    m, n = dims("m n")
    k = dim_min(m, n)
    shapes = {"reduced": ([m, k], [k, n]), "complete": ([m, m], [m, n]), "r": ([k, n],),
              "raw": ([n, m], [k])}[mode]
    own = alternative([typed([m, n], "x")], [typed(shape, _FLOAT) for shape in shapes],
                      loop="+")
    return {"sig": rendered([own], as_numpy)}


@reads_ranks
def build_pinv(types: tuple, rcond: Any, rtol: Any, hermitian: bool = False,
               as_numpy: bool = False, **_: Any) -> dict[str, Any]:
    """``(m, n) -> (n, m)``; ``rcond`` and ``rtol`` both given are refused, as NumPy
    does ("can't be both set"), ``rtol`` of any value (None and NumPy's default 1e-15
    included) but :data:`~kantensor.ops.paramvalues.UNSET`, not given. ``hermitian``: the
    matrices square or empty (NumPy's eigh path raises "Last 2 dimensions of the array
    must be square" for any other). ``as_numpy``: NumPy's dtypes, one alternative each
    (:func:`.lapack.numpy_pinv`)."""
    if rcond is not None and not unset(rtol):
        raise ParamError(f"pinv: rcond ({rcond!r}) and rtol ({rtol!r}) cannot both be set "
                         f"(rtol is rcond's Array API name)")
    m, n = dims("m n")
    square = [checked((m * n * (m - n)).eq(0), lambda _, types: (
        "pinv(hermitian=True): the last 2 dimensions of the array must be square (or "
        "empty), as NumPy's eigh path requires"))] if hermitian else []
    if not as_numpy:
        return {"sig": alternative([typed([m, n], "x")], [typed([n, m], _FLOAT)], square,
                                   loop="+")}
    return {"sig": numpy_pinv(m, n, square, rtol is None)}


@reads_ranks
def build_svd(types: tuple, full_matrices: bool, compute_uv: bool, hermitian: bool,
              as_numpy: bool = False, **_: Any) -> dict[str, Any]:
    """U, S, Vh (or S alone); hermitian inputs must be square and always give square
    U and Vh, like NumPy (which then uses eigh). NumPy's dtypes where ``as_numpy``
    (:mod:`.lapack`)."""
    m, n = dims("m n")
    k = dim_min(m, n)
    if hermitian:
        shapes = ([m, m], [m], [m, m]) if compute_uv else ([m],)
        a = [m, m]
    else:
        a = [m, n]
        shapes = (([m, m], [k], [n, n]) if full_matrices else ([m, k], [k], [k, n])) \
            if compute_uv else ([k],)
    kinds = (_FLOAT, _REAL, _FLOAT) if len(shapes) == 3 else (_REAL,)
    own = alternative([typed(a, "x")], [typed(shape, kind) for shape, kind in zip(
        shapes, kinds, strict=True)], loop="+")
    return {"sig": rendered([own], as_numpy)}


def _diagonal_axes(types: tuple, axis1: int, axis2: int) -> tuple[list[DimVar], int, int]:
    """The input's dim names and the two normalised axes of the diagonal."""
    (a,) = types
    if a.ndim < 2:
        raise rank_error("diagonal", f"needs at least 2 dimensions, got {a.ndim}")
    ax1, ax2 = normalize_axis(axis1, a.ndim), normalize_axis(axis2, a.ndim)
    if ax1 == ax2:
        raise ParamError(f"axis1 and axis2 cannot be the same (both are axis {ax1})")
    return dims("a", a.ndim), ax1, ax2


def diagonal_length(m: DimVar, n: DimVar, offset: int) -> DimExpr:
    """The number of elements of the ``offset`` diagonal of an ``(m, n)`` matrix, as a
    dim expression (so it is computed with unknown or symbolic dims too)."""
    if offset == 0:
        return dim_min(m, n)
    if offset > 0:
        return dim_max(0, dim_min(m, n - offset))
    return dim_max(0, dim_min(m - (-offset), n))


@reads_ranks
def build_diagonal(types: tuple, offset: int, axis1: int, axis2: int,
                   **_: Any) -> dict[str, Any]:
    """The two axes are removed and the diagonal appended as the last axis."""
    a, ax1, ax2 = _diagonal_axes(types, axis1, axis2)
    rest = [d for i, d in enumerate(a) if i not in (ax1, ax2)]
    length = diagonal_length(a[ax1], a[ax2], offset)
    return {"a": a, "y": [*rest, length], "params": {"axis1": ax1, "axis2": ax2}}


@reads_ranks
def build_trace(types: tuple, offset: int, axis1: int, axis2: int,
                **_: Any) -> dict[str, Any]:
    """The sum of the diagonal: both axes are removed."""
    a, ax1, ax2 = _diagonal_axes(types, axis1, axis2)
    rest = [d for i, d in enumerate(a) if i not in (ax1, ax2)]
    return {"a": a, "y": rest, "params": {"axis1": ax1, "axis2": ax2}}


# --------------------------------------------------------------------------- einsum

ELLIPSIS = "..."


def _parse_term(term: str, where: str) -> list[str]:
    """One operand's subscripts: letters, and at most one "..." kept as one item.
    Spaces are skipped, but not inside "..." (as in NumPy)."""
    items: list[str] = []
    i = 0
    while i < len(term):
        c = term[i]
        if c == " ":
            i += 1
        elif c in string.ascii_letters:
            items.append(c)
            i += 1
        elif c == ".":
            if term[i:i + 3] != ELLIPSIS or ELLIPSIS in items:
                raise ParamError(f"einsum subscripts contain a '.' that is not part of "
                                 f"an ellipsis ('...') in {where}")
            items.append(ELLIPSIS)
            i += 3
        else:
            raise ParamError(f"invalid subscript {c!r} in einsum subscripts, subscripts "
                             "must be letters")
    return items


def einsum_operands(subscripts: str) -> int:
    """How many operands einsum's ``subscripts`` are for: its terms before ``->``."""
    return len(subscripts.partition("->")[0].split(","))


def parse_subscripts(subscripts: str, n_operands: int
                     ) -> tuple[list[list[str]], list[str] | None]:
    """The items of each operand's subscripts, and of the output (None if implicit).
    Spaces are ignored, except inside "->" and "...", as in NumPy."""
    ins, arrow, out = subscripts.partition("->")
    terms = ins.split(",")  # (einsum_operands of them)
    if n_operands == 0:
        raise ParamError("einsum needs at least one operand")
    if len(terms) != n_operands:
        raise ParamError(f"einsum subscripts {subscripts!r} are for {len(terms)} "
                         f"operand{'s' * (len(terms) != 1)}, got {n_operands}")
    inputs = [_parse_term(t, f"operand {k}") for k, t in enumerate(terms)]
    if not arrow:
        return inputs, None
    output = _parse_term(out, "the output")
    seen = {c for items in inputs for c in items}
    for c in output:
        if c != ELLIPSIS and output.count(c) > 1:
            raise ParamError(f"einsum output subscript {c!r} is repeated")
        if c != ELLIPSIS and c not in seen:
            raise ParamError(f"einsum output subscript {c!r} never appears in an input")
    return inputs, output


def _keys(items: list[str], ndim: int, k: int) -> list[str]:
    """The key of each axis of operand ``k``: its label, or ``dotsJ`` for the ellipsis
    axis J places from the right of the ellipsis (ellipses broadcast right-aligned)."""
    n_labels = sum(c != ELLIPSIS for c in items)
    if ELLIPSIS not in items:
        if ndim != n_labels:
            raise rank_error("einsum", f"operand {k} has {ndim} dimensions but "
                             f"{n_labels} subscripts and no '...'")
        return list(items)
    if ndim < n_labels:
        raise rank_error("einsum", f"operand {k} has {ndim} dimensions, fewer than its "
                         f"{n_labels} subscripts")
    span = ndim - n_labels
    at = items.index(ELLIPSIS)
    dots = [f"dots{span - 1 - j}" for j in range(span)]
    return [*items[:at], *dots, *items[at + 1:]]


def _key_dims(key: str, owners: list[int]
              ) -> tuple[dict[int, DimVar], DimVar, Broadcasts | None]:
    """Dims of index ``key`` in each operand holding it, in the output, and the
    where-clause tying them.

    NumPy's einsum broadcasts every index across operands (a size 1 stretches, 0 wins
    over 1), while the axes of a repeated index within one operand are equal. So one
    operand holding ``key`` names it ``key``; several name it ``key_k`` each, and the
    output's ``key`` is their broadcast: ``broadcast(key_0,key_1) == key`` (each is 1
    or ``key``), stated in the relation, so every front end runs it."""
    whole = DimVar(key)
    if len(owners) == 1:
        return {owners[0]: whole}, whole, None
    per = {k: DimVar(f"{key}_{k}") for k in owners}
    return per, whole, Broadcasts(tuple(per.values()), whole)


@reads_ranks
def build_einsum(types: tuple, subscripts: str, **_: Any) -> dict[str, Any]:
    """The whole signature of one einsum call, from the ranks: an axis per operand
    axis, the output in the order of the (explicit or implicit) output subscripts, and
    a broadcast clause per index several operands hold (see :func:`_key_dims`)."""
    inputs, output = parse_subscripts(subscripts, len(types))
    keys = [_keys(items, t.ndim, k) for k, (items, t) in enumerate(zip(inputs, types,
                                                                        strict=True))]
    n_dots = max((sum(key.startswith("dots") for key in ks) for ks in keys), default=0)
    if output is None:
        counts: dict[str, int] = {}
        for items in inputs:
            for c in items:
                counts[c] = counts.get(c, 0) + 1
        output = [ELLIPSIS] + sorted(c for c, n in counts.items() if n == 1 and c != ELLIPSIS)
    elif ELLIPSIS not in output and n_dots:
        raise rank_error("einsum", f"the operands broadcast {n_dots} dimensions over "
                         "'...' but the output has no '...'")
    every = dict.fromkeys(key for ks in keys for key in ks)
    operand_dims: list[list[DimVar]] = [[DimVar(key) for key in ks] for ks in keys]
    out_dim: dict[str, DimVar] = {}
    clauses: list[Clause] = []
    for key in every:
        owners = [k for k, ks in enumerate(keys) if key in ks]
        per, out_dim[key], clause = _key_dims(key, owners)
        if clause:
            clauses.append(clause)
        for k, name in per.items():
            operand_dims[k] = [name if own == key else d
                               for own, d in zip(keys[k], operand_dims[k], strict=True)]
    dots = [out_dim[f"dots{j}"] for j in reversed(range(n_dots))]
    out_dims: list[DimVar] = []
    for c in output:
        out_dims.extend(dots if c == ELLIPSIS else [out_dim[c]])
    return {"sig": alternative(operand_dims, [out_dims], clauses)}
