"""Linear algebra against NumPy (see conformance.py): products (matmul, vecdot,
outer, tensordot, einsum), numpy.linalg (det, inv, solve, cholesky, qr, svd) and
diagonals (trace, diagonal).

kantensor accepts float16 where numpy.linalg refuses it, computing in float32; the
references below do the same (:func:`lift`), so float16 is tested like the others.
Singular (or, for cholesky, indefinite) matrices make NumPy raise LinAlgError at
run time: that is about values, not types, so the strategies only draw
well-conditioned matrices for inv, solve and cholesky.
"""

from __future__ import annotations

import itertools
import pickle
from itertools import pairwise

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import kantensor as kt
from conformance import (
    ALL_DTYPES,
    arrays,
    broadcastable_shapes,
    conform,
    hidden_mask,
    shapes,
)
from kantensor.ops.families.linalg import build_einsum, diagonal_length, parse_subscripts
from kantensor.ops.params import ParamError
from kantensor.ops.paramvalues import UNSET
from kantensor.syntax.ast import dim_vars

CASES = settings(max_examples=200, deadline=None)
sides = st.integers(0, 4)


def usually(draw) -> bool:
    """True five times in six (and what hypothesis shrinks to)."""
    return draw(st.integers(0, 5)) != 5


def rarely(draw) -> bool:
    """True once in six."""
    return not usually(draw)


def lift(x: np.ndarray) -> np.ndarray:
    """What kantensor does for numpy.linalg: float16 is computed in float32."""
    return x.astype(np.float32) if x.dtype == np.float16 else x


def draw_array(data: st.DataObject, shape: tuple[int, ...], dtypes=ALL_DTYPES) -> np.ndarray:
    return data.draw(arrays(data.draw(st.sampled_from(dtypes)), tuple(shape)))


def check(data: st.DataObject, op: str, build, reference, arrays_: list[np.ndarray]) -> None:
    """``conform`` with a random hidden mask for every input."""
    conform(op, build, reference, arrays_,
            [data.draw(hidden_mask(a.ndim)) for a in arrays_])


@st.composite
def matrix_shapes(draw, square: bool = False) -> tuple[int, ...]:
    """Loop dims and a (m, n) core; square cores when asked (but sometimes not, and
    sometimes too few dims, so rejection is tested)."""
    loop = draw(shapes(0, 2))
    m = draw(sides)
    n = m if square and usually(draw) else draw(sides)
    return draw(st.sampled_from([(*loop, m, n)] * 6 + [(m,), ()]))


def well_conditioned(a: np.ndarray, hermitian: bool = False) -> np.ndarray:
    """Strictly diagonally dominant (hence invertible) matrices of ``a``'s dtype, made
    from ``a``; with ``hermitian`` also Hermitian with a positive diagonal, hence
    positive definite. Bool matrices become unit upper triangular (the identity if
    Hermitian: cholesky reads one triangle, either)."""
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        return a
    n = a.shape[-1]
    eye = np.eye(n, dtype=bool)
    if a.dtype == bool:
        return np.broadcast_to(eye, a.shape).copy() if hermitian else np.triu(a, 1) | eye
    if hermitian:
        a = a + np.swapaxes(a, -1, -2).conj()
    return (a + (12 * n + 1) * eye).astype(a.dtype)


# ------------------------------------------------------------------------- products

@st.composite
def matmul_shapes(draw, vector_only: bool = False) -> tuple[tuple, tuple]:
    """Operands of matmul (1-d or stacks of matrices) or vecdot (stacks of vectors),
    broadcastable loop dims, the contracted size usually equal."""
    loop_a, loop_b = draw(broadcastable_shapes(2, max_dims=2))
    m, n, p = draw(sides), draw(sides), draw(sides)
    n2 = n if usually(draw) else draw(sides)
    if vector_only:
        return (*loop_a, n), (*loop_b, n2)
    a = draw(st.sampled_from([(n,), (*loop_a, m, n)]))
    b = draw(st.sampled_from([(n2,), (*loop_b, n2, p)]))
    return a, b


@CASES
@given(st.data())
def test_matmul(data):
    sa, sb = data.draw(matmul_shapes())
    a, b = draw_array(data, sa), draw_array(data, sb)
    check(data, "matmul", lambda x, y: x @ y, np.matmul, [a, b])


@CASES
@given(st.data())
def test_vecdot(data):
    sa, sb = data.draw(matmul_shapes(vector_only=True))
    a, b = draw_array(data, sa), draw_array(data, sb)
    check(data, "vecdot", kt.vecdot, np.vecdot, [a, b])


@CASES
@given(st.data())
def test_outer(data):
    a, b = draw_array(data, data.draw(shapes())), draw_array(data, data.draw(shapes()))
    check(data, "outer", kt.outer, np.outer, [a, b])


@st.composite
def tensordot_case(draw) -> tuple[tuple, tuple, object]:
    """Shapes and ``axes`` in every form NumPy takes: an int (negative ints contract
    nothing), a pair of axis lists (negative, out of range, repeated) or of ints.
    The contracted sizes are usually made equal."""
    sa = list(draw(shapes(0, 3)))
    sb = list(draw(shapes(0, 3)))
    if draw(st.booleans()):
        axes = draw(st.integers(-1, 3))
        for i in range(min(axes, len(sa), len(sb))):
            if axes <= len(sa) and usually(draw):
                sb[i] = sa[len(sa) - axes + i]
        return tuple(sa), tuple(sb), axes
    k = draw(st.integers(0, min(len(sa), len(sb))))
    axes_a = draw(st.permutations(range(len(sa))))[:k]
    axes_b = draw(st.permutations(range(len(sb))))[:k]
    for i, j in zip(axes_a, axes_b, strict=True):
        if usually(draw):
            sb[j] = sa[i]
    axes_a = [x - len(sa) if draw(st.booleans()) else x for x in axes_a]
    axes_b = [x - len(sb) if draw(st.booleans()) else x for x in axes_b]
    if rarely(draw):  # out of range, repeated, lengths differing
        axes_a = draw(st.lists(st.integers(-len(sa) - 1, len(sa)), max_size=3))
    if len(axes_a) == len(axes_b) == 1 and draw(st.booleans()):
        return tuple(sa), tuple(sb), (axes_a[0], axes_b[0])
    return tuple(sa), tuple(sb), (axes_a, axes_b)


@CASES
@given(st.data())
def test_tensordot(data):
    sa, sb, axes = data.draw(tensordot_case())
    a, b = draw_array(data, sa), draw_array(data, sb)
    check(data, "tensordot", lambda x, y: kt.tensordot(x, y, axes=axes),
          lambda x, y: np.tensordot(x, y, axes=axes), [a, b])


def test_tensordot_axes_forms():
    """The default is 2; a pair of ints is one axis each; a wrong pair is a ParamError."""
    x, y = kt.TensorType("float64", (2, 3, 4))(), kt.TensorType("float64", (3, 4, 5))()
    assert kt.tensordot(x, y).type.shape == (2, 5)
    z = kt.TensorType("float64", (5, 2))()
    assert kt.tensordot(x, z, axes=(0, 1)).type.shape == (3, 4, 5)
    with pytest.raises(ParamError, match="pair"):
        kt.tensordot(x, y, axes=([1], [0], [2]))
    with pytest.raises(ParamError, match="duplicate"):
        kt.tensordot(x, y, axes=([0, -3], [0, 1]))


LABELS = "ijkB"


def reads_out_of_bounds(term: list[str], shape: list[int]) -> bool:
    """Whether NumPy's einsum takes the diagonal of a repeated index whose axes are
    an empty one followed by a non-empty one, e.g. "ii->i" on shape (0, 5). NumPy
    accepts it (its size check skips a size 0) and returns the last size, reading
    memory outside the empty array: garbage values. kantensor rejects it, like
    (5, 0), so the strategy leaves it out."""
    for label in set(term):
        sizes = [n for c, n in zip(term, shape, strict=True) if c == label]
        if any(a == 0 and b != 0 for a, b in pairwise(sizes)):
            return True
    return False


@st.composite
def einsum_case(draw) -> tuple[str, list[tuple[int, ...]]]:
    """Subscripts and operand shapes: 1-3 operands of up to 3 labels (repeated
    labels, upper case), sometimes with '...'; each axis takes its label's size or
    1 (NumPy broadcasts), rarely another size; the output implicit or explicit
    (permuted, with or without '...', rarely an unknown or repeated label)."""
    size = {c: draw(sides) for c in LABELS}
    dots = draw(shapes(0, 2))
    terms, shapes_ = [], []
    for _ in range(draw(st.integers(1, 3))):
        term = draw(st.lists(st.sampled_from(LABELS), max_size=3))
        shape = [size[c] if usually(draw) else
                 draw(st.sampled_from([1, 1, 1, 2])) for c in term]
        assume(not reads_out_of_bounds(term, shape))
        if draw(st.booleans()):
            at = draw(st.integers(0, len(term)))
            span = draw(st.integers(0, len(dots)))
            mine = [1 if rarely(draw) else d
                    for d in dots[len(dots) - span:]]
            term = [*term[:at], "...", *term[at:]]
            shape = [*shape[:at], *mine, *shape[at:]]
        terms.append("".join(term))
        shapes_.append(tuple(shape))
    text = ",".join(terms)
    if draw(st.booleans()):
        used = sorted({c for t in terms for c in t if c.isalpha()})
        out = draw(st.permutations(used))[:draw(st.integers(0, len(used)))]
        if rarely(draw):
            out = [*out, draw(st.sampled_from([*LABELS, "z"]))]
        if draw(st.booleans()):
            out.insert(draw(st.integers(0, len(out))), "...")
        text += "->" + "".join(out)
    spaced = draw(st.integers(0, 9))
    if spaced == 9:  # breaks "..." and "->": NumPy refuses
        text = " ".join(text)
    elif spaced == 8:
        text = f" {text.replace(',', ' , ').replace('->', ' -> ')} "
    return text, shapes_


@settings(max_examples=400, deadline=None)
@given(st.data())
def test_einsum(data):
    subscripts, shapes_ = data.draw(einsum_case())
    operands = [draw_array(data, s) for s in shapes_]
    check(data, "einsum", lambda *xs: kt.einsum(subscripts, *xs),
          lambda *xs: np.einsum(subscripts, *xs), operands)


DIAGONALS = ["ii->i", "ii", "ii->", "iij->ij", "iji->ij", "iii->i", "ijij->ij", "iij->i",
             "...ii->...i", "ii...->i...", "ii,i->i", "ij,jj->i", "ii,jj->ij"]


@pytest.mark.parametrize("subscripts", DIAGONALS)
def test_einsum_repeated_subscripts_by_enumeration(subscripts):
    """Every shape of sizes 0..3 (ranks as the subscripts say, '...' one axis): the
    build's type is NumPy's shape, or both refuse, except where NumPy's view path (one
    operand, nothing summed) skips its size check after a 0. There kantensor refuses,
    when built and when a graph with the sizes unknown runs, since NumPy returns values
    the operand does not have."""
    terms = subscripts.split("->")[0].split(",")
    ranks = [len(t.replace("...", "")) + ("..." in t) for t in terms]
    grids = [list(itertools.product(range(4), repeat=r)) for r in ranks]
    loose = [kt.tensor(f"x{k}", "float64", (None,) * r) for k, r in enumerate(ranks)]
    run = kt.function(loose, kt.einsum(subscripts, *loose))
    quirks = agreed = 0
    for shapes_ in itertools.product(*grids):
        arrays_ = [np.ones(s) for s in shapes_]
        try:
            want = np.einsum(subscripts, *arrays_).shape
        except ValueError:
            want = None
        try:
            got = tuple(kt.einsum(subscripts, *[kt.tensor(f"x{k}", "float64", s) for k, s
                                                in enumerate(shapes_)]).type.shape)
        except kt.TypeInferenceError:
            got = None
        if got == want:
            agreed += 1
            continue
        # NumPy's quirk: one operand, a repeated subscript whose sizes start with a 0
        assert got is None and len(arrays_) == 1 and arrays_[0].size == 0, \
            (subscripts, shapes_, want, got)
        quirks += 1
        with pytest.raises(ValueError, match="axes of a repeated subscript must be equal"):
            run(*arrays_)
    assert agreed > 0
    assert quirks == {"ii->i": 3, "iij->ij": 12, "iji->ij": 12, "iii->i": 6,
                      "ijij->ij": 33, "...ii->...i": 12, "ii...->i...": 12}.get(subscripts, 0)


def test_einsum_empty_diagonal_cases_of_numpy():
    """``ii->i``: NumPy gives (0,) for (0, 0) and refuses (3, 0); for (0, 3) it returns a
    (3,) array read from an operand with no values, which kantensor refuses."""
    x = kt.tensor("x", "float64", (0, 0))
    assert kt.einsum("ii->i", x).type == kt.TensorType("float64", (0,))
    assert np.einsum("ii->i", np.ones((0, 0))).shape == (0,)
    assert np.einsum("ii->i", np.ones((0, 3))).shape == (3,)
    with pytest.raises(ValueError, match="don't match"):
        np.einsum("ii->i", np.ones((3, 0)))
    for shape in ((0, 3), (3, 0)):
        with pytest.raises(kt.TypeInferenceError, match="dimension i is"):
            kt.einsum("ii->i", kt.tensor("x", "float64", shape))


@pytest.mark.parametrize("subscripts, n, message", [
    ("i,j", 1, "for 2 operands"),
    ("i", 2, "for 1 operand"),
    ("i1", 1, "invalid subscript"),
    ("i.", 1, "not part of an ellipsis"),
    ("......", 1, "not part of an ellipsis"),
    ("i->ii", 1, "repeated"),
    ("i->j", 1, "never appears"),
    ("", 0, "at least one operand"),
])
def test_einsum_bad_subscripts(subscripts, n, message):
    with pytest.raises(ParamError, match=message):
        parse_subscripts(subscripts, n)


def test_einsum_broadcasting_signatures():
    """The signature depends on the ranks only: an index held by several operands has a
    size per operand and the output's is their broadcast, a clause of the relation (so
    make_node, query and refine all run it); a symbolic Dim shared by operands is one
    logic variable, so its broadcast is itself."""
    f32 = kt.TensorType.parse
    def sig(types: tuple, subscripts: str) -> str:
        return str(build_einsum(types, subscripts)["sig"])
    assert sig((f32("float32[1]"), f32("float32[3]")), "i,i->i") == \
        "(i_0),(i_1)->(i) where broadcast(i_0,i_1) == i"
    assert sig((f32("float32[?,2]"),), "ij") == "(i,j)->(i,j)"
    assert sig((f32("float32[2,?,3]"),), "...ii") == "(dots0,i,i)->(dots0)"
    x, y = f32("float32[n]")(), f32("float32[n]")()
    assert str(kt.einsum("i,i->i", x, y).type) == "float32[n]"
    assert str(kt.einsum("i,i->i", f32("float32[1]")(), f32("float32[?]")()).type) == \
        "float32[?]"
    with pytest.raises(kt.TypeInferenceError, match=r"^operands float32\[2,5\] and float32\[3,4\] "
                                                    r"could not be broadcast: axis 1 is 5 and "
                                                    r"axis 0 is 3"):
        kt.einsum("ij,jk->ik", f32("float32[2,5]")(), f32("float32[3,4]")())


# ------------------------------------------------------------------------- numpy.linalg

@CASES
@given(st.data())
def test_det(data):
    a = draw_array(data, data.draw(matrix_shapes(square=True)))
    check(data, "det", kt.det, lambda x: np.linalg.det(lift(x)), [a])


@CASES
@given(st.data())
def test_inv(data):
    a = well_conditioned(draw_array(data, data.draw(matrix_shapes(square=True))))
    check(data, "inv", kt.inv, lambda x: np.linalg.inv(lift(x)), [a])


@st.composite
def solve_shapes(draw) -> tuple[tuple, tuple]:
    """a: stacks of square matrices; b: a vector (ndim 1) or a stack of matrices
    (NumPy 2 tells them apart by b.ndim only), sometimes 0-d or mismatched."""
    sa = draw(matrix_shapes(square=True))
    m = sa[-1] if sa else draw(sides)
    if rarely(draw):
        m = draw(sides)
    loop_b = draw(shapes(0, 2))
    sb = draw(st.sampled_from([(m,), (m,), (*loop_b, m, draw(sides)), (m, m), ()]))
    return sa, sb


@CASES
@given(st.data())
def test_solve(data):
    sa, sb = data.draw(solve_shapes())
    a, b = well_conditioned(draw_array(data, sa)), draw_array(data, sb)
    check(data, "solve", kt.solve, lambda x, y: np.linalg.solve(lift(x), lift(y)), [a, b])


@CASES
@given(st.data())
def test_cholesky(data):
    a = well_conditioned(draw_array(data, data.draw(matrix_shapes(square=True))),
                         hermitian=True)
    upper = data.draw(st.booleans())
    check(data, "cholesky", lambda x: kt.cholesky(x, upper=upper),
          lambda x: np.linalg.cholesky(lift(x), upper=upper), [a])


@CASES
@given(st.data())
def test_qr(data):
    a = draw_array(data, data.draw(matrix_shapes()))
    mode = data.draw(st.sampled_from(["reduced", "complete", "r", "raw"]))
    check(data, "qr", lambda x: kt.qr(x, mode=mode),
          lambda x: np.linalg.qr(lift(x), mode=mode), [a])


@CASES
@given(st.data())
def test_svd(data):
    a = draw_array(data, data.draw(matrix_shapes(square=data.draw(st.booleans()))))
    kw = {k: data.draw(st.booleans()) for k in ("full_matrices", "compute_uv", "hermitian")}
    check(data, "svd", lambda x: kt.svd(x, **kw), lambda x: np.linalg.svd(lift(x), **kw),
          [a])


def computed(x: np.ndarray) -> np.ndarray:
    """``x`` in the dtype kantensor computes numpy.linalg in: float(x) (integers and bool
    in the default float), float16 in float32."""
    dtype = x.dtype if x.dtype.kind in "fc" else kt.get_default_dtype()
    return lift(x.astype(dtype))


@CASES
@given(st.data())
def test_eig(data):
    """Always complex (NumPy's real eigenvalues compare equal to their complex form)."""
    a = draw_array(data, data.draw(matrix_shapes(square=True)))
    check(data, "eig", kt.eig, lambda x: np.linalg.eig(computed(x)), [a])
    check(data, "eigvals", kt.eigvals, lambda x: np.linalg.eigvals(computed(x)), [a])


@CASES
@given(st.data())
def test_eigh(data):
    a = well_conditioned(draw_array(data, data.draw(matrix_shapes(square=True))),
                         hermitian=True)
    uplo = data.draw(st.sampled_from(["L", "U"]))
    check(data, "eigh", lambda x: kt.eigh(x, UPLO=uplo),
          lambda x: np.linalg.eigh(computed(x), UPLO=uplo), [a])
    check(data, "eigvalsh", lambda x: kt.eigvalsh(x, UPLO=uplo),
          lambda x: np.linalg.eigvalsh(computed(x), UPLO=uplo), [a])


#: The ways of giving pinv's cutoff (the last three NumPy refuses: both set; rtol=1e-15,
#: NumPy's default, with rcond was accepted)
PINV_CUTOFFS = [{}, {"rtol": None}, {"rtol": 1e-3}, {"rtol": 1e-15}, {"rcond": 1e-3},
                {"rcond": None}, {"rcond": None, "rtol": 1e-15},
                {"rcond": 1e-3, "rtol": None}, {"rcond": 1e-3, "rtol": 1e-4},
                {"rcond": 1e-3, "rtol": 1e-15}]

#: A string as the cutoff: the spelling kantensor once used for "not given", which it
#: took as not given. NumPy refuses it wherever it computes a cutoff, but returns an
#: empty matrix's answer before reading it, so these are judged on a non-empty matrix
#: only (kantensor refuses the parameter whatever the matrix)
PINV_STRING_CUTOFFS = [{"rtol": "unset"}, {"rcond": 1e-3, "rtol": "unset"}]


@CASES
@given(st.data())
def test_pinv_and_slogdet(data):
    a = draw_array(data, data.draw(matrix_shapes(square=data.draw(st.booleans()))))
    kw = data.draw(st.sampled_from(PINV_CUTOFFS))
    check(data, "pinv", lambda x: kt.pinv(x, **kw),
          lambda x: np.linalg.pinv(computed(x), **kw), [a])
    check(data, "slogdet", kt.slogdet, lambda x: np.linalg.slogdet(computed(x)), [a])


#: A matrix with a singular value near float32's eps times the largest: NumPy's default
#: cutoff (1e-15 of the largest) keeps it, the Array API's (``rtol=None``: max(m, n)
#: times the dtype's eps) drops it (hypothesis found the complex64 case)
NEAR_EPS = np.array([[1, 1.19e-7], [1.19e-7, 1.19e-7]])


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "complex128"])
@pytest.mark.parametrize("kw", PINV_CUTOFFS + PINV_STRING_CUTOFFS)
def test_pinv_cutoffs_are_numpys(dtype, kw):
    """pinv's cutoff of small singular values is NumPy's for every way of giving it
    (none: 1e-15 of the largest; ``rtol=None``: max(m, n) times the dtype's eps; a
    number as ``rcond`` or ``rtol``; both: refused when the graph is built, where NumPy
    refuses the call). kt.pinv without either gave the ``rtol=None`` answer: ``[[1,
    1.19e-7], [1.19e-7, 1.4e-14]]`` for float32 and complex64, where NumPy's is ``[[1,
    -1], [-1, 8.4e6]]``."""
    a = NEAR_EPS.astype(dtype)
    conform("pinv", lambda x: kt.pinv(x, **kw), lambda x: np.linalg.pinv(x, **kw), [a])


def test_pinv_not_given_is_an_object_no_caller_passes():
    """rtol's default is :data:`~kantensor.ops.paramvalues.UNSET`, told by identity (a string
    "unset" is a value NumPy refuses), one object after pickling; the Op without rtol
    is the one of the call text's default."""
    x = kt.TensorType.parse("float64[3,3]")()
    with pytest.raises(ParamError, match="rtol: expected a Python number, got 'unset'"):
        kt.pinv(x, rtol="unset")
    op = kt.pinv(x).owner.op
    assert dict(op.params)["rtol"] is UNSET and "rtol=<no value>" in str(op)
    assert pickle.loads(pickle.dumps(UNSET)) is UNSET
    assert pickle.loads(pickle.dumps(op)) == op


def test_pinv_cutoff_of_an_array_is_a_parameter_error():
    """A cutoff is a Python number (a parameter of the graph): an array given as ``rtol``
    is refused by name, not compared with "not given" (NumPy's "truth value of an array
    is ambiguous" before)."""
    x = kt.TensorType.parse("float64[2,3,3]")()
    with pytest.raises(ParamError, match="rtol: expected a Python number"):
        kt.pinv(x, rtol=np.array([1e-3, 1e-3]))
    with pytest.raises(ParamError, match="cannot both be set"):
        kt.pinv(x, rcond=np.float64(1e-3), rtol=1e-15)


def test_linalg_dtypes(default_float64):
    """Integers and bool give float(x) (the default float), float16 stays float16,
    singular values are real; solve promotes float(a) with float(b), as NumPy makes
    each integer operand a float first (bool with complex64: complex128)."""
    t = kt.TensorType.parse
    assert kt.det(t("int8[3,3]")()).type.dtype == "float64"
    assert kt.inv(t("float16[3,3]")()).type.dtype == "float16"
    assert kt.solve(t("bool[3,3]")(), t("complex64[3]")()).type.dtype == "complex128"
    u, s, vh = kt.svd(t("complex128[4,3]")())
    assert (u.type.dtype, s.type.dtype, vh.type.dtype) == ("complex128", "float64",
                                                          "complex128")


# ------------------------------------------------------------------------- diagonals

@st.composite
def diagonal_args(draw, ndim: int) -> dict:
    """offset (beyond the matrix too) and axes: usually two distinct valid axes,
    either possibly negative; sometimes any ints, so equal or out of range."""
    if ndim >= 2 and usually(draw):
        axes = draw(st.permutations(range(ndim)))[:2]
        axes = [a - ndim if draw(st.booleans()) else a for a in axes]
    else:
        axes = [draw(st.integers(-ndim - 1, ndim)) for _ in range(2)]
    return {"offset": draw(st.integers(-5, 5)), "axis1": axes[0], "axis2": axes[1]}


@CASES
@given(st.data())
def test_trace(data):
    a = draw_array(data, data.draw(st.one_of(shapes(2, 4), shapes(0, 4))))
    kw = data.draw(diagonal_args(a.ndim))
    check(data, "trace", lambda x: kt.trace(x, **kw), lambda x: np.trace(x, **kw), [a])


@CASES
@given(st.data())
def test_diagonal(data):
    a = draw_array(data, data.draw(st.one_of(shapes(2, 4), shapes(0, 4))))
    kw = data.draw(diagonal_args(a.ndim))
    check(data, "diagonal", lambda x: x.diagonal(**kw), lambda x: np.diagonal(x, **kw),
          [a])


@pytest.mark.parametrize("m, n, offset", [(3, 5, 0), (3, 5, 2), (3, 5, 7), (3, 5, -2),
                                          (3, 5, -3), (0, 2, 1), (4, 1, -9)])
def test_diagonal_length(m, n, offset):
    """The length expression agrees with NumPy for offsets inside and beyond."""
    want = np.diagonal(np.zeros((m, n)), offset).shape[0]
    got = kt.diagonal(kt.TensorType("float32", (m, n))(), offset=offset).type.shape[0]
    assert got == want
    m_, n_ = dim_vars("m n")
    assert str(diagonal_length(m_, n_, offset)).startswith("max(0," if offset else "min(")
