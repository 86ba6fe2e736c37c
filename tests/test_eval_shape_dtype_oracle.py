"""eval_shape's dtypes are NumPy's: a brute-force sweep judged by NumPy itself.

Each program applies one operation to a tensor ``x`` and one operand: a Python int, float,
complex or bool (weak under NEP 50), a NumPy scalar of each numeric dtype and 0-d arrays
(strong), a Python number made of the size (``n // 2 + 1``, ``n * 1.5``, ``len(x) + 1``,
``n ** -0.5``, ``math.sqrt(n)``: weak, as the Python int or float NumPy code has there;
``np.sqrt(n)``, a NumPy scalar: strong), and Python ints out of a narrow
dtype's range (NumPy raises OverflowError). The operations are ``+ - * / // % **`` in both
orders, ``np.add``, ``np.multiply``, ``np.maximum``, ``np.where``, and the arrays made of
such numbers (``np.stack``, ``np.concatenate``, ``np.array``, ``np.full``, ``np.zeros``,
``np.arange``, ``np.linspace``). Every program runs under ``kt.eval_shape`` at an input
``dtype[n]`` (every numeric dtype) and in NumPy on real arrays at n = 2 and 3 (no literal
equals a size). Where NumPy runs, eval_shape's result must hold and give NumPy's dtype and
shape; where NumPy raises, eval_shape must refuse or not hold there. A refusal where NumPy
runs is counted and listed, and must stay within :data:`MAX_REFUSED`.

``KANTENSOR_DTYPE_ORACLE`` sizes it: the share of (program, dtype) pairs run, 0 < s <= 1
(default 0.25, under 30 s; ``1`` runs all of them, about 19,000 checks).
"""

from __future__ import annotations

import itertools
import math
import os
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest

import kantensor as kt
from kantensor.types import dtypes as dt
from kantensor.types.numpyrules import numpy_result_type_of
from kantensor.types.symbols import substitute

DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float16", "float32", "float64", "complex64", "complex128"]
SCALARS = {d: np.dtype(d).type for d in DTYPES}  # NumPy's scalar types
SIZES = (2, 3)
SHARE = float(os.environ.get("KANTENSOR_DTYPE_ORACLE", "0.25"))
#: Refusals where NumPy runs, at most (none are expected: each would be listed).
MAX_REFUSED = 5
#: Refusals meant: a bool array to the power of an int made of sizes, whose value decides
#: the dtype (NumPy's ``x ** 2`` is ``np.square``, int8; any other int power int64).
MEANT_REFUSED = {("x ** n//2+1", "bool"), ("x ** len+1", "bool")}

Fn = Callable[[Any], Any]


def _operands() -> list[tuple[str, Fn]]:
    out: list[tuple[str, Fn]] = [
        ("py-int", lambda x: 5), ("py-float", lambda x: 2.5), ("py-complex", lambda x: 1 + 2j),
        ("py-bool", lambda x: True), ("py-int-300", lambda x: 300),
        ("py-int-70000", lambda x: -70000)]
    for d in DTYPES:
        out.append((f"np.{d}", lambda x, d=d: SCALARS[d](1)))
    for d in ("bool", "int8", "int64", "float32", "float64", "complex64"):
        out.append((f"0d-{d}", lambda x, d=d: np.array(1, dtype=d)))
    out += [("n//2+1", lambda x: x.shape[0] // 2 + 1), ("n*1.5", lambda x: x.shape[0] * 1.5),
            ("len+1", lambda x: len(x) + 1), ("n*200", lambda x: x.shape[0] * 200),
            ("-n*0.5", lambda x: -(x.shape[0] * 0.5)), ("n**-0.5", lambda x: x.shape[0] ** -0.5),
            ("math.sqrt(n)", lambda x: math.sqrt(x.shape[0])),
            ("np.sqrt(n)", lambda x: np.sqrt(x.shape[0]))]
    return out


_BINARY: dict[str, Callable[[Any, Any], Any]] = {
    "+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
    "/": lambda a, b: a / b, "//": lambda a, b: a // b, "%": lambda a, b: a % b,
    "**": lambda a, b: a ** b, "add": np.add, "multiply": np.multiply,
    "maximum": np.maximum, "where": lambda a, b: np.where(a == a, a, b)}


def programs() -> Iterator[tuple[str, Fn]]:
    """``(name, fn)`` of every program of the sweep (``fn`` takes the tensor ``x``)."""
    for (on, v), (bn, op) in itertools.product(_operands(), _BINARY.items()):
        yield f"x {bn} {on}", lambda x, v=v, op=op: op(x, v(x))
        yield f"{on} {bn} x", lambda x, v=v, op=op: op(v(x), x)
    for on, v in _operands():
        yield f"stack[x[0],{on}]", lambda x, v=v: np.stack([x[0], v(x)])
        yield f"concatenate[x,array[{on}]]", lambda x, v=v: np.concatenate([x, np.array([v(x)])])
        yield f"array[n*1.5,{on}]", lambda x, v=v: np.array([x.shape[0] * 1.5, v(x)])
        yield f"full(n,{on})", lambda x, v=v: np.full(x.shape[0], v(x))
    yield "stack[n*1.5,1]", lambda x: np.stack([x.shape[0] * 1.5, 1])
    yield "zeros(n)", lambda x: np.zeros(x.shape[0])
    yield "arange(n)", lambda x: np.arange(x.shape[0])
    yield "linspace(0,1,n)", lambda x: np.linspace(0, 1, x.shape[0])
    yield "x*zeros(n)", lambda x: x * np.zeros(x.shape[0])
    yield "x+arange(n)", lambda x: x + np.arange(x.shape[0])
    yield "x*asarray(n)", lambda x: x * np.asarray(x.shape[0])


def _numpy(fn: Fn, dtype: str, n: int) -> tuple[str, tuple] | BaseException:
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            out = np.asarray(fn(np.arange(1, n + 1).astype(dtype)))
        except Exception as exc:  # noqa: BLE001 - NumPy's refusal is the oracle's answer
            return exc
    return out.dtype.name, out.shape


def _shape(t: kt.TensorType, n: int) -> tuple:
    return tuple(substitute(d, {"n": n}) if isinstance(d, kt.Dim) else d for d in t.shape)


def judge(name: str, fn: Fn, dtype: str) -> tuple[list, list]:
    """``(wrong, refused)``: where eval_shape disagrees with NumPy, and whether it refused
    where NumPy runs at some size."""
    want = {n: _numpy(fn, dtype, n) for n in SIZES}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = kt.eval_shape(fn, f"{dtype}[n]")
    except (TypeError, ValueError, OverflowError) as exc:  # a refusal, with its sentence
        runs = [n for n, w in want.items() if not isinstance(w, BaseException)]
        return [], [(name, dtype, runs, str(exc).splitlines()[-1][:160])] if runs else []
    wrong = []
    for n, w in want.items():
        holds = result.holds({"n": n})
        if isinstance(w, BaseException):
            if holds:
                wrong.append((name, dtype, n, str(result.type), type(w).__name__))
        elif not holds or (result.type.dtype, _shape(result.type, n)) != w:
            wrong.append((name, dtype, n, str(result.type) if holds else "not holding", w))
    return wrong, []


def _sample() -> list[tuple[str, Fn, str]]:
    every = [(name, fn, d) for (name, fn), d in itertools.product(programs(), DTYPES)]
    step = max(1, round(1 / SHARE)) if SHARE < 1 else 1
    return every[::step] if step > 1 else every


def test_the_sweep_agrees_with_numpy() -> None:
    wrong: list = []
    refused: list = []
    for name, fn, dtype in _sample():
        w, r = judge(name, fn, dtype)
        wrong += w
        refused += [x for x in r if (x[0], x[1]) not in MEANT_REFUSED]
    assert not wrong, f"{len(wrong)} wrong, e.g. {wrong[:10]}"
    assert len(refused) <= MAX_REFUSED, refused


@pytest.mark.parametrize(("fn", "dtype", "want"), [
    (lambda x: x * np.int64(2), "int8", "int64"),  # a NumPy scalar is strong (NEP 50)
    (lambda x: np.stack([x.shape[0] * 1.5, 1]), "int8", "float64"),  # Python numbers
    (lambda x: x * np.float32(2), "int32", "float64"),  # NumPy's lattice, not PyTorch's
    (lambda x: x * (x.shape[0] * 1.5), "float16", "float16"),  # n * 1.5 is a Python float
    (lambda x: x + x[0], "int8", "int8"),
    (lambda x: x / np.sqrt(x.shape[0]), "float32", "float64"),  # np.sqrt's is a NumPy scalar
])
def test_the_known_cases(fn: Fn, dtype: str, want: str) -> None:
    assert _numpy(fn, dtype, 3)[0] == want  # the oracle says so
    assert kt.eval_shape(fn, f"{dtype}[n]").type.dtype == want


def test_overflow_is_refused_or_assumed_away() -> None:
    """``x_int8 * 300`` raises in NumPy: refused; ``x_int8 * (n * 200)`` raises at
    n >= 1: the result may not hold at 2 or 3."""
    with pytest.raises(TypeError, match="out of bounds for int8"):
        kt.eval_shape(lambda x: x * 300, "int8[n]")
    assert judge("x * n*200", lambda x: x * (x.shape[0] * 200), "int8") == ([], [])


@pytest.mark.parametrize("k", [0, 1, 2, 3, 2.0, 0.5, True, np.int64(2), np.array(2)])
@pytest.mark.parametrize("spec", ["bool[n]", "bool[]", "bool[2]"])
def test_bool_to_a_literal_power(k: Any, spec: str) -> None:
    """NumPy's ``x ** 2`` is ``np.square(x)``: a bool array's is int8, any other int power
    int64 (a NumPy integer's too: only the Python int 2 squares)."""
    shape = {"bool[n]": (3,), "bool[]": (), "bool[2]": (2,)}[spec]
    want = np.asarray(np.ones(shape, dtype=bool) ** k).dtype.name
    assert kt.eval_shape(lambda x: x ** k, spec).type.dtype == want
    want0 = np.asarray(np.ones((3,), dtype=bool)[0] ** k).dtype.name  # a NumPy scalar's
    assert kt.eval_shape(lambda x: x[0] ** k, "bool[n]").type.dtype == want0
    if spec == "bool[2]":  # x.shape[0] is the Python int 2 there
        assert kt.eval_shape(lambda x: x ** x.shape[0], spec).type.dtype == "int8"


def test_a_size_power_of_bool_has_two_dtypes_in_numpy() -> None:
    """The oracle of the refusal: NumPy's dtype of ``x ** (n // 2 + 1)`` depends on n."""
    fn = dict(programs())["x ** n//2+1"]
    assert [_numpy(fn, "bool", n)[0] for n in (2, 3, 4)] == ["int8", "int8", "int64"]


@pytest.mark.parametrize("name", ["x ** n*200", "x ** -n*0.5"])
def test_bool_to_a_size_power_the_sizes_decide(name: str) -> None:
    """``n * 200`` is never 2 (the sizes say so, no assumption): ``np.power``'s int64, as
    NumPy gives at every n; a float power is never squared."""
    assert judge(name, dict(programs())[name], "bool") == ([], [])
    assert kt.eval_shape(dict(programs())[name], "bool[n]").assumptions == ()


@pytest.mark.parametrize("name", sorted(n for n, _ in MEANT_REFUSED))
def test_bool_to_a_size_power_is_refused(name: str) -> None:
    """An exponent made of sizes is 2 at some sizes only: its dtype is not guessed."""
    fn = dict(programs())[name]
    with pytest.raises(TypeError, match="the size's value decides the dtype"):
        kt.eval_shape(fn, "bool[n]")


#: Python numbers as NumPy code has them, and the dtype each is wrapped as under NumPy's rules.
_WEAK = [(5, "int64"), (2.5, "float64"), (1 + 2j, "complex128"), (True, "bool")]


def test_the_rule_is_numpys_result_type() -> None:
    """``numpy_result_type_of`` against ``np.result_type`` on every pair and triple of
    arrays, 0-d arrays and Python numbers (of NumPy's numeric dtypes)."""
    strong = [(np.zeros(1, t), (t, dt.Priority.TENSOR)) for t in DTYPES] + \
        [(np.zeros((), t), (t, dt.Priority.ZERO_DIM)) for t in DTYPES]
    weak = [(v, (t, dt.Priority.WRAPPED)) for v, t in _WEAK]
    checked = 0
    for k in (1, 2, 3):
        for combo in itertools.combinations_with_replacement(strong + weak, k):
            if k == 3 and len({id(c) for c in combo}) < 3:
                continue
            want = np.result_type(*[v for v, _ in combo]).name
            assert numpy_result_type_of([o for _, o in combo]) == want, combo
            checked += 1
    assert checked == 5520  # 32 + 528 pairs + 4,960 triples


def test_the_memos_keep_the_rules_apart() -> None:
    """One build memoized under kantensor's rules (default float64, as NumPy's rules
    have it) is not eval_shape's answer, nor the reverse: the memos are keyed by the rules
    (``rules_key``), not by the default dtype alone."""
    x = kt.tensor("x", "int8", (kt.Dim("n"),))
    for _ in range(2):
        with kt.default_dtype("float64"):
            assert (x * np.int64(2)).type.dtype == "int8"  # kantensor's promotion
            assert np.multiply(x, np.float32(2)).type.dtype == "float32"
            assert kt.eval_shape(lambda x: x * np.int64(2), "int8[n]").type.dtype == "int64"
            assert kt.eval_shape(lambda x: np.multiply(x, np.float32(2)),
                                 "int32[n]").type.dtype == "float64"
