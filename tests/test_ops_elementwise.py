"""Elementwise Ops against NumPy (see conformance.py).

Every Op of ``signatures/elementwise.toml`` runs on broadcastable (and sometimes
non-broadcastable) shapes, every dtype (the ones it must reject included),
hidden dims, and Python numbers as operands. The Python operators and
``x.astype`` must build the same graphs as the functions.

The reference is NumPy 2 called as a user would call it (Python numbers are
"weak", NEP 50). NumPy decides whether the call is legal. The *values* are
NumPy's, computed in the dtype kantensor computes in whenever kantensor's
promotion rule (docs/promotion.rst, PyTorch's) intentionally gives another
dtype than NumPy's (``int8 tensor + 0-d int64`` is int8, not int64; an integer
tensor and a Python float give the default float32, not float64; ``exp`` of an
integer is float32, not NumPy's float16 for int8). A Python int that does not fit
the dtype of the computation is refused by both (``uint8 tensor + 1000``: NumPy 2's
OverflowError when it runs, kantensor's PythonIntError when the graph is built) or
compared exactly by both (``uint8 tensor < -1`` is all False). See :func:`reference`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

import kantensor as kt
from conformance import (
    ALL_DTYPES,
    arrays,
    broadcastable_shapes,
    conform,
    hidden_mask,
    identical_outputs,
    shapes,
)
from kantensor.ops.params import ParamError
from kantensor.types.dtypes import is_inexact, is_integer

CASES = settings(max_examples=150, deadline=None)

# How kantensor computes each Op (the catalogue's "compute" mode, seen from the values):
# "promote": in the promoted dtype of the operands (for arithmetic that is the output
# dtype); "float": in float(promote(...)); "none": on the values as they are; "output":
# in the promoted dtype, a Python int that does not fit it refused (clip).
BINARY: dict[str, tuple[Callable[..., Any], str]] = {
    "add": (np.add, "promote"),
    "sub": (np.subtract, "promote"),
    "mul": (np.multiply, "promote"),
    "true_divide": (np.true_divide, "float"),
    "floor_divide": (np.floor_divide, "promote"),
    "mod": (np.remainder, "promote"),
    "pow": (np.power, "promote"),
    "power": (np.power, "promote"),
    "maximum": (np.maximum, "promote"),
    "minimum": (np.minimum, "promote"),
    "eq": (np.equal, "promote"),
    "ne": (np.not_equal, "promote"),
    "lt": (np.less, "promote"),
    "le": (np.less_equal, "promote"),
    "gt": (np.greater, "promote"),
    "ge": (np.greater_equal, "promote"),
    "logical_and": (np.logical_and, "none"),
    "logical_or": (np.logical_or, "none"),
    "logical_xor": (np.logical_xor, "none"),
    "arctan2": (np.arctan2, "float"),
    "hypot": (np.hypot, "float"),
    "logaddexp": (np.logaddexp, "float"),
    "logaddexp2": (np.logaddexp2, "float"),
    "fmax": (np.fmax, "promote"),
    "fmin": (np.fmin, "promote"),
    "bitwise_and": (np.bitwise_and, "promote"),
    "bitwise_or": (np.bitwise_or, "promote"),
    "bitwise_xor": (np.bitwise_xor, "promote"),
    "fmod": (np.fmod, "promote"),
    "left_shift": (np.left_shift, "promote"),
    "right_shift": (np.right_shift, "promote"),
}


def _sigmoid(x: np.ndarray) -> np.ndarray:
    """Reference logistic function, by another formula than kantensor's for reals."""
    if x.dtype.kind == "c":
        return 1 / (1 + np.exp(-x))
    return 0.5 * (1 + np.tanh(x / 2))




def _erf(x: np.ndarray) -> np.ndarray:
    """Reference error function: Python's math.erf of each element (NumPy has none),
    in the input's float dtype; like NumPy's ufuncs, no loop for complex (or bool and
    integers, which the reference casts to the float dtype kantensor computes in)."""
    x = np.asarray(x)
    if x.dtype.kind not in "f":
        raise TypeError(f"erf: no loop for {x.dtype}")
    return np.vectorize(math.erf, otypes=[x.dtype])(x)


UNARY: dict[str, tuple[Callable[..., Any], str]] = {
    "neg": (np.negative, "none"),
    "abs": (np.absolute, "none"),
    "sign": (np.sign, "none"),
    "isnan": (np.isnan, "none"),
    "logical_not": (np.logical_not, "none"),
    "exp": (np.exp, "float"),
    "log": (np.log, "float"),
    "log1p": (np.log1p, "float"),
    "sqrt": (np.sqrt, "float"),
    "sin": (np.sin, "float"),
    "cos": (np.cos, "float"),
    "tanh": (np.tanh, "float"),
    "sigmoid": (_sigmoid, "float"),
    "log2": (np.log2, "float"),
    "log10": (np.log10, "float"),
    "expm1": (np.expm1, "float"),
    "sinh": (np.sinh, "float"),
    "cosh": (np.cosh, "float"),
    "tan": (np.tan, "float"),
    "arcsin": (np.arcsin, "float"),
    "arccos": (np.arccos, "float"),
    "arctan": (np.arctan, "float"),
    "square": (np.square, "promote"),
    "reciprocal": (np.reciprocal, "promote"),
    "positive": (np.positive, "none"),
    "conj": (np.conjugate, "none"),
    "real": (np.real, "none"),
    "imag": (np.imag, "none"),
    "floor": (np.floor, "none"),
    "ceil": (np.ceil, "none"),
    "isfinite": (np.isfinite, "none"),
    "isinf": (np.isinf, "none"),
    "invert": (np.invert, "none"),
    "copy": (np.copy, "none"),
    "erf": (_erf, "float"),
    "deg2rad": (np.deg2rad, "float"),
    "rad2deg": (np.rad2deg, "float"),
    "exp2": (np.exp2, "float"),
    "arcsinh": (np.arcsinh, "float"),
    "arccosh": (np.arccosh, "float"),
    "arctanh": (np.arctanh, "float"),
    "fabs": (np.fabs, "float"),
    "sinc": (np.sinc, "float"),
    "nan_to_num": (np.nan_to_num, "none"),
}

#: Ops of three operands; where's condition (operand 0) takes no part in promotion.
TERNARY: dict[str, tuple[Callable[..., Any], str, slice]] = {
    "where": (np.where, "none", slice(1, None)),
    "clip": (np.clip, "output", slice(None)),
}


# --------------------------------------------------------------------- the reference

def _is_python_number(v: Any) -> bool:
    return isinstance(v, bool | int | float | complex) and not isinstance(v, np.generic)


def _as_wrapped(v: Any) -> np.ndarray:
    """A Python number as the 0-d array kantensor makes of it (bool, int64, the default
    float or complex dtype); arrays unchanged."""
    return kt.constant(v).data if _is_python_number(v) else np.asarray(v)


def _fits(v: Any, dtype: str) -> bool:
    """Is ``v`` not a Python int that is out of range for an integer ``dtype``?"""
    if not isinstance(v, int) or isinstance(v, bool) or np.dtype(dtype).kind not in "iu":
        return True
    info = np.iinfo(dtype)
    return info.min <= v <= info.max


def compute_dtype(kind: str, values: Sequence[Any]) -> str | None:
    """The dtype kantensor computes in (see BINARY), or None for "none"."""
    if kind == "none":
        return None
    dtype = kt.result_type(*values)
    if kind == "float" and not is_inexact(dtype):
        return kt.get_default_dtype()
    return dtype


def _numpy_result_type(values: Sequence[Any]) -> str | None:
    try:
        return str(np.result_type(*values))
    except (OverflowError, TypeError):
        return None


def reference(fn: Callable[..., Any], kind: str, args: Sequence[Any],
              values: slice = slice(None)) -> Any:
    """NumPy's ``fn(*args)`` (Python numbers weak); when kantensor computes in another
    dtype than NumPy would (module docstring), the same function with the operands in
    ``values`` cast to that dtype first. NumPy's errors other than a Python int's
    OverflowError are raised: they say the call is illegal."""
    args = list(args)
    dtype = compute_dtype(kind, args[values])
    exact = dtype is not None and not all(_fits(v, dtype) for v in args[values])
    if exact and kind == "output":
        raise OverflowError(f"a Python int out of range of {dtype}")
    try:
        natural = fn(*args)
    except OverflowError:
        if exact or not any(_is_python_number(a) for a in args):
            raise  # a Python int out of range of the dtype of the computation: refused
        natural = None  # out of range of NumPy's dtype, not of kantensor's
    except TypeError:
        # NumPy has no loop for *its* promoted dtype (int8 0-d | uint64 is float64 in
        # NumPy, uint64 in kantensor): the call is legal if it is in kantensor's dtype.
        if dtype is None or _numpy_result_type(args[values]) in (dtype, None):
            raise
        natural = None
    if exact:
        return natural  # NumPy 2 compares the exact number
    if dtype is None:
        return natural if natural is not None else fn(*map(_as_wrapped, args))
    try:
        numpy_dtype = np.result_type(*args[values])
    except OverflowError:
        numpy_dtype = None
    if natural is not None and numpy_dtype == dtype and all(
            _fits(v, dtype) for v in args[values]):
        return natural
    indices = range(len(args))[values]
    with np.errstate(all="ignore"):
        cast = [_as_wrapped(a).astype(dtype) if i in indices else a
                for i, a in enumerate(args)]
    return fn(*cast)


def check(op: str, operands: Sequence[Any], hidden: Sequence[Sequence[bool]],
          fn: Callable[..., Any], kind: str, values: slice = slice(None)) -> None:
    """Conform ``kt.<op>(*operands)`` where the arrays among ``operands`` become symbolic
    inputs (with ``hidden`` dims unknown) and Python numbers stay Python numbers."""
    tensors = [o for o in operands if isinstance(o, np.ndarray)]

    def fill(inputs: Sequence[Any]) -> list[Any]:
        it = iter(inputs)
        return [next(it) if isinstance(o, np.ndarray) else o for o in operands]

    event(conform(op, lambda *v: getattr(kt, op)(*fill(v)),
                  lambda *a: reference(fn, kind, fill(a), values), tensors, hidden))


# ----------------------------------------------------------------------- strategies

#: Every dtype, with the ones some Ops reject (bool, complex) drawn more often.
DTYPES = st.one_of(st.sampled_from(ALL_DTYPES), st.sampled_from(ALL_DTYPES),
                   st.sampled_from(("bool", "complex64", "complex128")))

#: Floats exactly representable in float16, so that a Python float means the same number
#: in every dtype it is converted to: NumPy converts it straight to the operand's dtype,
#: kantensor first to the default float (a wrapped constant), then to the result dtype.
_FLOAT16 = st.floats(-4, 4, width=16).map(float)

#: Python numbers as operands: small ones, and ints out of range of small dtypes.
PYTHON_NUMBERS = st.one_of(
    st.booleans(), st.integers(-6, 6), st.sampled_from([300, -200, 1000]),
    _FLOAT16, st.builds(complex, _FLOAT16, _FLOAT16))


@st.composite
def tensors(draw, n: int) -> tuple[list[np.ndarray], list[tuple[bool, ...]]]:
    """``n`` arrays of random dtypes and (usually) broadcastable shapes, and hidden masks."""
    shape_list = draw(broadcastable_shapes(n))
    values = [draw(arrays(draw(DTYPES), s)) for s in shape_list]
    return values, [draw(hidden_mask(len(s))) for s in shape_list]


@st.composite
def with_python_number(draw, n: int) -> tuple[list[Any], list[tuple[bool, ...]]]:
    """``n`` operands, one of them a Python number (the others arrays)."""
    values, hidden = draw(tensors(n - 1))
    position = draw(st.integers(0, n - 1))
    values.insert(position, draw(PYTHON_NUMBERS))
    return values, hidden


def nonnegative_exponent(operands: list[Any]) -> list[Any]:
    """pow's operands with the exponent made >= 0 when the power is computed in an
    integer dtype: NumPy raises for integers to negative integer powers."""
    base, exponent = operands
    if not is_integer(kt.result_type(base, exponent)):
        return operands
    if _is_python_number(exponent):
        return [base, abs(exponent) % 7]
    return [base, np.asarray(np.abs(exponent))]


# ---------------------------------------------------------------------------- tests

@pytest.mark.parametrize("op", sorted(BINARY))
@CASES
@given(data=st.data())
def test_binary(op, data):
    fn, kind = BINARY[op]
    operands, hidden = data.draw(tensors(2))
    if op in ("pow", "power"):
        operands = nonnegative_exponent(operands)
    check(op, operands, hidden, fn, kind)


@pytest.mark.parametrize("op", sorted(BINARY))
@settings(max_examples=80, deadline=None)
@given(data=st.data())
def test_binary_python_number(op, data):
    fn, kind = BINARY[op]
    operands, hidden = data.draw(with_python_number(2))
    if op in ("pow", "power"):
        operands = nonnegative_exponent(operands)
    check(op, operands, hidden, fn, kind)


@pytest.mark.parametrize("op", sorted(UNARY))
@CASES
@given(data=st.data())
def test_unary(op, data):
    fn, kind = UNARY[op]
    shape = data.draw(shapes())
    x = data.draw(arrays(data.draw(DTYPES), shape))
    check(op, [x], [data.draw(hidden_mask(len(shape)))], fn, kind)


@pytest.mark.parametrize("op", sorted(TERNARY))
@CASES
@given(data=st.data())
def test_ternary(op, data):
    fn, kind, values = TERNARY[op]
    if data.draw(st.booleans()):
        operands, hidden = data.draw(tensors(3))
    else:
        operands, hidden = data.draw(with_python_number(3))
    check(op, operands, hidden, fn, kind, values)


#: dtype arguments of astype: names, NumPy aliases and scalar types. (The Python types
#: float and complex are left out on purpose: kantensor reads them as the default float
#: and complex dtypes, the dtypes of Python numbers, where NumPy reads float64/complex128.)
CAST_DTYPES = st.one_of(st.sampled_from(ALL_DTYPES),
                        st.sampled_from(["f8", "i2", "u1", "c8", "double", "float", "int",
                                         np.float16, np.int32, np.dtype("uint64"), bool]))


@CASES
@given(data=st.data())
def test_cast(data):
    shape = data.draw(shapes())
    x = data.draw(arrays(data.draw(DTYPES), shape))
    dtype = data.draw(CAST_DTYPES)
    conform("cast", lambda v: kt.cast(v, dtype), lambda a: a.astype(dtype), [x],
            [data.draw(hidden_mask(len(shape)))])


# ------------------------------------------------------------------ graphs and types

def _same_graph(a: Any, b: Any) -> bool:
    """Same Op applied to the same inputs (constants compared by value), same type."""
    if a.type != b.type or a.owner.op != b.owner.op:
        return False
    for u, v in zip(a.owner.inputs, b.owner.inputs, strict=True):
        if u is v:
            continue
        if not (isinstance(u, kt.Constant) and isinstance(v, kt.Constant)):
            return False
        if u.type != v.type or u.wrapped != v.wrapped or not np.array_equal(u.data, v.data):
            return False
    return True


OPERATORS = [
    ("floor_divide", lambda x, y: x // y),
    ("mod", lambda x, y: x % y),
    ("pow", lambda x, y: x ** y),
    ("lt", lambda x, y: x < y),
    ("le", lambda x, y: x <= y),
    ("gt", lambda x, y: x > y),
    ("ge", lambda x, y: x >= y),
    ("add", lambda x, y: x + y),
    ("sub", lambda x, y: x - y),
    ("mul", lambda x, y: x * y),
    ("true_divide", lambda x, y: x / y),
]


#: Python evaluates ``2 < y`` as ``y > 2``: a comparison with the variable on the right
#: is its mirror image.
MIRROR = {"lt": "gt", "le": "ge", "gt": "lt", "ge": "le"}


@pytest.mark.parametrize(("op", "operator"), OPERATORS, ids=[o for o, _ in OPERATORS])
def test_binary_operators(op, operator):
    x = kt.tensor("x", "int16", (2, None))
    y = kt.tensor("y", "float32", (3,))
    fn = getattr(kt, op)
    assert _same_graph(operator(x, y), fn(x, y))
    assert _same_graph(operator(x, 3), fn(x, 3))       # Python number on the right
    ints = np.ones(3, np.int8)
    if op in MIRROR:
        mirror = getattr(kt, MIRROR[op])
        assert _same_graph(operator(2.5, y), mirror(y, 2.5))
    else:
        assert _same_graph(operator(2.5, y), fn(2.5, y))   # reflected (__rfloordiv__ ...)
    # A NumPy array on the left calls the ufunc, which hands over to the variable's
    # __array_ufunc__ (NEP 13): the same Op, the operands in the written order.
    assert _same_graph(operator(ints, y), fn(ints, y))


BITWISE = [("bitwise_and", lambda x, y: x & y), ("bitwise_or", lambda x, y: x | y),
           ("bitwise_xor", lambda x, y: x ^ y), ("left_shift", lambda x, y: x << y),
           ("right_shift", lambda x, y: x >> y)]


@pytest.mark.parametrize(("op", "operator"), BITWISE, ids=[o for o, _ in BITWISE])
def test_bitwise_operators(op, operator):
    x = kt.tensor("x", "int16", (2, None))
    y = kt.tensor("y", "uint8", (3,))
    fn = getattr(kt, op)
    assert _same_graph(operator(x, y), fn(x, y))
    assert _same_graph(operator(x, 3), fn(x, 3))
    assert _same_graph(operator(3, y), fn(3, y))
    b = kt.vector("b", "bool")
    # NumPy shifts bools as int8 (np.left_shift(True, True) is int8 2)
    assert str(operator(b, b).type) == ("int8[?]" if "shift" in op else "bool[?]")
    with pytest.raises(kt.TypeInferenceError, match=f"{op} needs integer or bool operands, "
                                                    "got float32"):
        operator(b, kt.vector("f", "float32"))


def test_unary_operators():
    x = kt.tensor("x", "complex64", (2,))
    assert _same_graph(-x, kt.neg(x))
    assert _same_graph(abs(x), kt.abs(x))
    assert _same_graph(+x, kt.positive(x))
    assert str(abs(x).type) == "float32[2]"
    i = kt.tensor("i", "int16", (2,))
    assert _same_graph(~i, kt.invert(i))


def test_properties_and_methods():
    n = kt.Dim("n")
    z = kt.tensor("z", "complex64", (n, 3))
    assert _same_graph(z.real, kt.real(z)) and str(z.real.type) == "float32[n,3]"
    assert _same_graph(z.imag, kt.imag(z))
    assert _same_graph(z.conj(), kt.conj(z))
    assert _same_graph(z.round(2), kt.round(z, decimals=2))
    assert _same_graph(z.copy(), kt.copy(z))
    assert z.size == 3 * n and kt.tensor("t", "int8", (2, 3)).size == 6
    u = kt.tensor("u", "int8", (2, None))  # an unknown size is the Dim of that axis
    assert u.size == 2 * u.shape[1] and str(u.size) == "2*u.shape[1]"


@CASES
@given(data=st.data())
def test_round(data):
    shape = data.draw(shapes())
    x = data.draw(arrays(data.draw(DTYPES), shape))
    decimals = data.draw(st.integers(-2, 3))
    conform("round", lambda v: kt.round(v, decimals), lambda a: np.round(a, decimals), [x],
            [data.draw(hidden_mask(len(shape)))])


def test_astype_is_cast():
    x = kt.tensor("x", "int8", (None, 3))
    y = x.astype("float32")
    assert _same_graph(y, kt.cast(x, "float32"))
    assert y.owner.op == kt.cast(x, np.float32).owner.op  # the dtype is normalised
    assert str(y.type) == "float32[?,3]"
    assert str(x.astype("c16").type) == "complex128[?,3]"


def test_eq_and_ne_are_elementwise():
    """``==`` builds the ``eq`` node as ``kt.eq`` does (tests/test_numpy_protocol.py has
    the identity hashing and the values)."""
    x, y = kt.vector("x"), kt.vector("y")
    assert str((x == y).type) == str(kt.eq(x, y).type) == "bool[?]"
    assert str((x != 1).type) == str(kt.ne(x, 1).type) == "bool[?]"
    assert (x == y).owner.op is kt.eq and (x != 1).owner.op is kt.ne


@pytest.mark.parametrize("dtype", ["float128", "U3", object, "datetime64[s]"])
def test_cast_rejects_unsupported_dtypes(dtype):
    """NumPy casts to these; kantensor has no such dtypes (docs/promotion.rst)."""
    with pytest.raises(ParamError, match="parameter dtype"):
        kt.cast(kt.vector("x"), dtype)


COMPARISONS = {"lt": np.less, "le": np.less_equal, "gt": np.greater, "ge": np.greater_equal,
               "eq": np.equal, "ne": np.not_equal}


@pytest.mark.parametrize("op", sorted(COMPARISONS))
@pytest.mark.parametrize(("dtype", "number"), [
    ("uint8", -1), ("uint8", 300), ("int8", 200), ("int8", -129), ("uint64", -1),
    ("int64", 2**63), ("uint16", 2**16), ("int32", -2**40), ("uint8", 255), ("bool", 2)])
def test_comparison_with_python_int_is_exact(op, dtype, number):
    """NumPy 2 compares the exact number, however far out of the dtype's range."""
    info = np.iinfo(dtype) if dtype != "bool" else None
    values = np.array([0, 1] if info is None else [info.min, 0, 1, info.max], dtype)
    x = kt.tensor("x", dtype, (None,))
    if number >= 2**63:  # a Python int used in a graph must fit int64 (its wrapped dtype)
        with pytest.raises(OverflowError, match="does not fit int64"):
            getattr(kt, op)(x, number)
        return
    f = kt.function([x], [getattr(kt, op)(x, number), getattr(kt, op)(number, x)])
    forward, backward = f(values)
    np.testing.assert_array_equal(forward, COMPARISONS[op](values, number))
    np.testing.assert_array_equal(backward, COMPARISONS[op](number, values))


def test_comparison_examples_of_the_issue():
    u, i = kt.vector("u", "uint8"), kt.vector("i", "int8")
    f = kt.function([u, i], [u > -1, u < 300, i < 200, kt.eq(u, -1)])
    got = f(np.array([0, 7, 255], np.uint8), np.array([-128, 0, 127], np.int8))
    assert [g.tolist() for g in got] == [[True] * 3, [True] * 3, [True] * 3, [False] * 3]


@pytest.mark.parametrize(("call", "message"), [
    (lambda u: u + 1000, "add: Python integer 1000 (operand 1) is out of bounds for uint8"),
    (lambda u: 1000 + u, "add: Python integer 1000 (operand 0) is out of bounds for uint8"),
    (lambda u: u * -1, "mul: Python integer -1 (operand 1) is out of bounds for uint8"),
    (lambda u: kt.maximum(u, 300), "maximum: Python integer 300"),
    (lambda u: u.astype("int8") - 200, "sub: Python integer 200 (operand 1) is out of "
                                      "bounds for int8"),
    (lambda u: u // 256, "floor_divide: Python integer 256"),
])
def test_arithmetic_with_python_int_out_of_range_is_refused(call, message):
    """NumPy 2 raises OverflowError for these when it runs; kantensor refuses them when
    the graph is built (a TypeError and an OverflowError), never wraps the number."""
    u = kt.vector("u", "uint8")
    with pytest.raises(OverflowError, match=re.escape(message)):
        call(u)
    with pytest.raises(TypeError, match="out of bounds for"):
        call(u)
    with pytest.raises(OverflowError, match="out of bounds for"):
        call(np.zeros(3, np.uint8))   # NumPy says no too


def test_python_int_that_fits_is_fine():
    u = kt.vector("u", "uint8")
    f = kt.function([u], [u + 255, u * 2, u / 300, u.astype("int16") + 1000])
    values = np.array([0, 1, 200], np.uint8)
    for got, want in zip(f(values), [values + 255, values * 2, (values / 300).astype(np.float32),
                                     values.astype(np.int16) + 1000], strict=True):
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize(("dtype", "value", "shown"), [
    ("uint64", [-1], "18446744073709551615"), ("int64", [2**63], "-9223372036854775808"),
    ("uint8", [256], "0"), ("int8", [3, -129], "127"), ("bool", [2], "True")])
def test_python_int_inputs_must_survive_exactly(dtype, value, shown):
    x = kt.vector("x", dtype)
    f = kt.function([x], x)
    with pytest.raises(TypeError, match=re.escape(f"cannot be represented exactly as {dtype}")
                       + ".*" + re.escape(shown)):
        f(value)
    assert f(value[:-1] + [1]).tolist() == [v for v in value[:-1]] + [1]


def test_float_functions_use_default_dtype(default_float64):
    x = kt.tensor("x", "int8", (2,))
    for op in ["exp", "log", "log1p", "sqrt", "sin", "cos", "tanh", "sigmoid"]:
        assert str(getattr(kt, op)(x).type) == "float64[2]"
    assert str((x / x).type) == "float64[2]"
    assert str(kt.exp(kt.tensor("h", "float16", ())).type) == "float16[]"


@pytest.mark.parametrize(("op", "types", "message"), [
    ("sub", ["bool[2]", "bool[]"], "sub needs number operands, got bool"),
    ("floor_divide", ["complex64[2]", "int8[2]"],
     "floor_divide needs integer or floating or bool operands, got complex64"),
    ("mod", ["float32[2]", "complex128[]"],
     "mod needs integer or floating or bool operands, got complex64"),  # promoted
    ("neg", ["bool[3]"], "neg needs number operands, got bool"),
    ("sign", ["bool[3]"], "sign needs number operands, got bool"),
])
def test_rejected_dtypes(op, types, message):
    with pytest.raises(kt.TypeInferenceError, match=re.escape(message)):
        getattr(kt, op)(*[kt.TensorType.parse(t)() for t in types])


def test_bool_arithmetic_runs_in_int8():
    """NumPy has no bool loop for //, % and **; it picks int8, and so do we."""
    a, b = kt.vector("a", "bool"), kt.vector("b", "bool")
    f = kt.function([a, b], [a // b, a % b, a ** b])
    x, y = np.array([True, True, False]), np.array([True, False, True])
    with np.errstate(divide="ignore"):
        got_all, want_all = f(x, y), [x // y, x % y, x ** y]
    for got, want in zip(got_all, want_all, strict=True):
        assert got.dtype == np.int8 and got.tolist() == want.tolist()


def test_sigmoid_is_stable():
    x = kt.vector("x", "float64")
    (y,) = kt.function([x], [kt.sigmoid(x)])(np.array([-800.0, -40.0, 0.0, 40.0, 800.0]))
    np.testing.assert_allclose(y, [0.0, np.exp(-40.0), 0.5, 1.0, 1.0], rtol=1e-12, atol=0)
    assert np.exp(-40.0) > 0 and y[1] > 0   # not lost to 1 - 1


def test_catalogue_examples():
    from kantensor.ops.catalogue import catalogue_root, load_file

    entries = load_file("elementwise.toml",
                        (catalogue_root() / "elementwise.toml").read_text())
    assert sum(e.run_examples(kt.ops.CATALOGUE[e.name]) for e in entries) >= 2 * len(entries)


def test_a_size_broadcast_with_its_min_against_ints_is_itself():
    """``b`` and ``min(4, b)`` (a slice ``[:4]`` of a size-b axis) broadcast to ``b`` where
    ``b <= 4`` (the build's condition; a run refuses as NumPy does); ``min(m, n)`` and ``n``
    broadcast to ``n*min(1, m)``: ``n``, but 0 where ``m == 0, n == 1`` (NumPy gives 0)."""
    b, m, n = kt.dims("b m n")
    x = kt.tensor("x", "float64", (b,))
    y = x[:4] * 2.0
    assert str(y.type) == "float64[min(4,b)]" and (x + y).type == x.type
    assert [str(c) for c in (x + y).owner.conditions] == ["b <= 4"]
    f = kt.function([x], x + y, check=True)
    for size in range(7):
        value = np.arange(size, dtype="float64")
        try:
            expected = value + value[:4] * 2.0
        except ValueError:
            expected = None
        try:
            got = f(value)
        except (ValueError, kt.TypeInferenceError):
            got = None
        assert (got is None) == (expected is None), size
        if got is not None:
            np.testing.assert_array_equal(got, expected)
    z = kt.tensor("z", "float64", (m,))
    w = kt.tensor("w", "float64", (n,))
    assert str((z[-n:] + w).type) == "float64[n*min(1,m)]"  # 0 where m == 0 (NumPy)


def test_planned_and_plain_outputs_compare_nan_by_value_and_zero_by_sign():
    """The planned-vs-plain check (conformance.identical_outputs) takes any NaN for any NaN
    (NumPy promises no NaN's sign or payload) but still tells -0.0 from 0.0."""
    w = np.array([np.nan, 1.0, 0.0], dtype=np.float16)
    flipped = w.copy()
    flipped.view(np.uint16)[0] ^= 0x8000  # the NaN's sign bit
    assert np.isnan(flipped[0]) and flipped.tobytes() != w.tobytes()
    assert identical_outputs(w, flipped)
    assert not identical_outputs(w, np.array([np.nan, 1.0, -0.0], dtype=np.float16))
    assert not identical_outputs(w, np.array([1.0, 1.0, 0.0], dtype=np.float16))
    assert not identical_outputs(w, w.astype(np.float32))
