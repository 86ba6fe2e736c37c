"""The conformance harness: one Op call checked against NumPy, end to end.

:func:`conform` runs one case. The oracle is NumPy itself:

* inference must succeed exactly when NumPy runs (no false rejection; no false
  acceptance when every dim is static; with unknown dims a wrong graph must
  fail when it runs, not compute something);
* the graph is compiled with ``check=True`` (every node's output checked
  against its inferred type) and run on the same arrays;
* the result has exactly the inferred dtype, a shape matching every known dim
  and NumPy's shape, and NumPy's values computed in that dtype.

Every case is counted per Op in :data:`STATS`; ``conftest.py`` prints the
totals at the end of the run.

Every :data:`PLAN_EVERY`-th case of each Op that runs (``KANTENSOR_PLAN_EVERY``,
default 6; 1 compares them all) is also run by the plain interpreter, by the
generated code with its memory plan forced on (planned code for any size, blocks of
16 bytes, so runs are evaluated block by block even on these small arrays) and by the
interpreter with its plan: their outputs must be identical, byte for byte, and no input
may change.
"""

from __future__ import annotations

import warnings
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import kantensor as kt
import sizing
from kantensor.backend.mode import execution
from kantensor.ops.params import ParamError

#: Per Op: cases run, and cases where kantensor and NumPy disagreed.
STATS: dict[str, Counter] = {}

#: Errors by which kantensor rejects a call while building the graph.
BUILD_ERRORS = (kt.TypeInferenceError, ParamError, TypeError, ValueError, IndexError)

#: Every how many cases of an Op the planned and the plain code are compared.
PLAN_EVERY = sizing.size("PLAN_EVERY", 6, 1)

#: Relative tolerance when comparing values, by result dtype.
RTOL = {"float16": 1e-2, "float32": 1e-5, "complex64": 1e-5}

ALL_DTYPES = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
              "uint64", "float16", "float32", "float64", "complex64", "complex128")
NUMERIC_DTYPES = tuple(d for d in ALL_DTYPES if d != "bool")
REAL_DTYPES = tuple(d for d in NUMERIC_DTYPES if not d.startswith("complex"))
FLOAT_DTYPES = ("float16", "float32", "float64")
INEXACT_DTYPES = (*FLOAT_DTYPES, "complex64", "complex128")


class Disagreement(AssertionError):
    """kantensor and NumPy disagree on a case."""


def _record(op: str, agree: bool) -> None:
    stats = STATS.setdefault(op, Counter())
    stats["cases"] += 1
    if not agree:
        stats["disagree"] += 1


def static_type(array: np.ndarray, hidden: Sequence[bool] = ()) -> kt.TensorType:
    """The TensorType of ``array``, with the dims flagged in ``hidden`` unknown."""
    hidden = (tuple(hidden) + (False,) * array.ndim)[:array.ndim]
    return kt.TensorType(array.dtype, tuple(None if h else n
                                            for n, h in zip(array.shape, hidden, strict=True)))


def _as_tuple(x: Any) -> tuple:
    return tuple(x) if isinstance(x, list | tuple) else (x,)


def _numpy(reference: Callable[..., Any], arrays: Sequence[np.ndarray]) -> tuple | Exception:
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            return tuple(np.asarray(r) for r in _as_tuple(reference(*arrays)))
        except Exception as exc:  # NumPy's way of saying "no"
            return exc


def conform(op: str, build: Callable[..., Any], reference: Callable[..., Any],
            arrays: Sequence[np.ndarray], hidden: Sequence[Sequence[bool]] = (),
            rtol: float | None = None) -> str:
    """Check ``build`` (symbolic inputs -> output variable(s)) against ``reference``
    (the same arrays -> NumPy's result(s)). Returns "ran", "rejected" or
    "failed at run time" (an accepted graph that NumPy could not run either);
    raises :class:`Disagreement` otherwise."""
    arrays = [np.asarray(a) for a in arrays]
    hidden = list(hidden) + [()] * (len(arrays) - len(hidden))
    types = [static_type(a, h) for a, h in zip(arrays, hidden, strict=True)]
    static = all(None not in t.shape for t in types)
    expected = _numpy(reference, arrays)
    case = f"{op} on {', '.join(map(str, types))}"

    def fail(message: str) -> None:
        _record(op, False)
        raise Disagreement(f"{case}: {message}")

    inputs = [t() for t in types]
    try:
        outputs = _as_tuple(build(*inputs))
    except BUILD_ERRORS as exc:
        if isinstance(expected, Exception):
            _record(op, True)
            return "rejected"
        fail(f"rejected ({type(exc).__name__}: {exc}) but NumPy gives "
             f"{[f'{r.dtype}{list(r.shape)}' for r in expected]}")
    # every size static, and of the outputs too: NumPy's error is the sizes', so the build
    # must refuse; an output size the build leaves open (a mask's count of trues) is the
    # data's, whose error the checked graph must raise at run time instead (below)
    decided = all(None not in o.type.shape for o in outputs)
    if isinstance(expected, Exception) and static and decided:
        fail(f"accepted as {[str(o.type) for o in outputs]} but NumPy raises "
             f"{type(expected).__name__}: {expected}")
    f = kt.function(inputs, list(outputs), check=True)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            got = f(*arrays)
        except Exception as exc:
            if isinstance(expected, Exception):
                _record(op, True)
                return "failed at run time"
            fail(f"the compiled graph raised {type(exc).__name__}: {exc}")
    if isinstance(expected, Exception):
        fail(f"ran, but NumPy raises {type(expected).__name__}: {expected}")
    if len(got) != len(expected):
        fail(f"{len(got)} outputs, NumPy gives {len(expected)}")
    for i, (out, value, ref) in enumerate(zip(outputs, got, expected, strict=True)):
        ttype = out.type
        if value.dtype != np.dtype(ttype.dtype):
            fail(f"output {i} has dtype {value.dtype}, inferred {ttype.dtype}")
        if value.shape != ref.shape:
            fail(f"output {i} has shape {value.shape}, NumPy's is {ref.shape}")
        for axis, (n, known) in enumerate(zip(value.shape, ttype.shape, strict=True)):
            if isinstance(known, int) and known != n:
                fail(f"output {i} axis {axis} is {n}, inferred {known}")
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want = ref.astype(ttype.dtype)
        tol = rtol if rtol is not None else RTOL.get(ttype.dtype, 1e-7)
        if value.dtype.kind in "biu" or tol == 0:
            ok = np.array_equal(value, want)
        else:
            ok = np.allclose(value, want, rtol=tol, atol=tol, equal_nan=True)
        if not ok:
            fail(f"output {i} differs from NumPy's:\n{value!r}\nwant\n{want!r}")
    if STATS.setdefault(op, Counter())["cases"] % PLAN_EVERY == 0:
        problem = planned_differs(inputs, build, arrays)
        if problem:
            fail(problem)
        STATS[op]["planned"] += 1
    _record(op, True)
    return "ran"


def _through(v: Any) -> Any:
    """``v`` again, as a new array the call owns (so the plan may reuse its buffer)."""
    return kt.logical_not(kt.logical_not(v)) if v.type.dtype == "bool" else kt.positive(v)


def planned_differs(inputs: list, build: Callable[..., Any],
                    arrays: Sequence[np.ndarray]) -> str:
    """Why the planned code's outputs differ from the plain interpreter's (or an input
    changed), or an empty string. The Op is applied to copies of the inputs made in
    the graph and its outputs are copied again, so that its operands and results are
    buffers the plan may write into, and elementwise Ops join block runs."""
    try:
        outputs = [_through(v) for v in _as_tuple(build(*(_through(v) for v in inputs)))]
    except BUILD_ERRORS:  # not every build takes any operand (a wrapped number)
        return ""
    with execution(generate=False, plan=False):
        plain = kt.function(inputs, outputs)
    with execution(plan_min_size=0, block_bytes=16):
        planned = kt.function(inputs, outputs)
    with execution(generate=False):
        interpreted = kt.function(inputs, outputs)  # the interpreter's plan
    for way, f in (("planned code", planned), ("planned interpreter", interpreted)):
        given = [a.copy() for a in arrays]
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            want, got = plain(*arrays), f(*given)
        for i, (a, g) in enumerate(zip(arrays, given, strict=True)):
            if a.tobytes() != g.tobytes():
                return f"the {way} changed input {i}"
        for i, (w, g) in enumerate(zip(want, got, strict=True)):
            if not identical_outputs(w, g):
                return f"{way}: output {i} differs from the plain interpreter's:\n{g!r}\n{w!r}"
    return ""


def identical_outputs(w: np.ndarray, g: np.ndarray) -> bool:
    """Same dtype, shape and bytes, except that a NaN matches any NaN: NumPy promises no
    NaN's sign or payload (float16 arccos of -3 gives NaNs of different bits computed
    in place and into a new array)."""
    if (w.dtype, w.shape) != (g.dtype, g.shape):
        return False
    if w.dtype.kind in "fc":
        nan = np.isnan(w)
        if not np.array_equal(nan, np.isnan(g)):
            return False
        w, g = w[~nan], g[~nan]
    return w.tobytes() == g.tobytes()


# --------------------------------------------------------------------------- strategies

def shapes(min_dims: int = 0, max_dims: int = 3, min_side: int = 0,
           max_side: int = 4) -> st.SearchStrategy[tuple[int, ...]]:
    """Small shapes, often with 0- and 1-sized dims."""
    return hnp.array_shapes(min_dims=min_dims, max_dims=max_dims, min_side=min_side,
                            max_side=max_side)


def elements(dtype: str) -> st.SearchStrategy[Any]:
    """Small values: enough to tell results apart, rarely overflowing."""
    kind = np.dtype(dtype).kind
    if kind == "b":
        return st.booleans()
    if kind == "u":
        return st.integers(0, 6)
    if kind == "i":
        return st.integers(-6, 6)
    if kind == "f":
        return st.floats(-4, 4, width=min(64, np.dtype(dtype).itemsize * 8))
    return st.complex_numbers(max_magnitude=4, allow_nan=False, allow_infinity=False,
                              width=np.dtype(dtype).itemsize * 8)


def arrays(dtype: str, shape: tuple[int, ...]) -> st.SearchStrategy[np.ndarray]:
    return hnp.arrays(np.dtype(dtype), shape, elements=elements(dtype))


def hidden_mask(ndim: int) -> st.SearchStrategy[tuple[bool, ...]]:
    """Which dims of an input to make unknown in its static type."""
    return st.tuples(*[st.booleans()] * ndim)


def broadcastable_shapes(n: int, min_dims: int = 0, max_dims: int = 3
                         ) -> st.SearchStrategy[list[tuple[int, ...]]]:
    """``n`` shapes that are usually mutually broadcastable (loop dims), and
    sometimes not (so rejection is tested too)."""
    good = hnp.mutually_broadcastable_shapes(num_shapes=n, min_dims=min_dims,
                                             max_dims=max_dims, max_side=4
                                             ).map(lambda s: list(s.input_shapes))
    return st.one_of(good, good, good,
                     st.lists(shapes(min_dims, max_dims), min_size=n, max_size=n))
