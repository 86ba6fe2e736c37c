"""Authoring and run-time errors in the user's terms: what was wrong, where, and what
was expected (issue 12, point 7)."""

from __future__ import annotations

import re

import numpy as np
import pytest

import kantensor as kt


def test_wrong_number_of_results():
    @kt.op("+(n)->(),()")
    def ret_one(v):
        return v.sum(-1)

    x = kt.matrix("x", "float64")
    f = kt.function([x], ret_one(x))
    with pytest.raises(TypeError, match=re.escape(
            "ret_one returned 1 value but its signature has 2 outputs")):
        f(np.ones((2, 3)))

    @kt.op("+(n)->(),()")
    def ret_three(v):
        return v.min(-1), v.max(-1), v.sum(-1)

    with pytest.raises(TypeError, match="ret_three returned 3 values but its signature "
                                        "has 2 outputs"):
        kt.function([x], ret_three(x))(np.ones((2, 3)))


@pytest.mark.parametrize(("signature", "call", "fn", "message"), [
    ("+(),()->()", None, lambda a: a, "it is called with 2 input arrays"),
    ("+()->()", None, lambda a, b: a, "missing a required argument: 'b'"),
    ("+(n)->(n-{w}+1)", "x, w: int", lambda x: x,
     "with 1 input array and the parameters w by keyword"),
])
def test_arity_checked_when_decorating(signature, call, fn, message):
    with pytest.raises(TypeError, match=re.escape(message)):
        kt.op(signature, call=call)(fn)


def test_arity_accepts_what_works():
    assert kt.op("+(),()->()")(lambda *arrays: arrays[0]).name == "<lambda>"
    assert kt.op("+(),()->()")(np.add).name == "add"   # a ufunc: no Python signature
    assert kt.op("+(n)->(n-{w}+1)", call="x, w: int")(lambda x, **kw: x).name == "<lambda>"


@pytest.mark.parametrize("thing", [3, "np.exp", None])
def test_non_callables_are_rejected(thing):
    with pytest.raises(TypeError, match="decorates the function that computes the Op; got"):
        kt.op("+()->()")(thing)


def test_numpy_errors_at_run_time_name_the_node():
    x, y = kt.vector("x"), kt.vector("y")
    z = kt.exp(x + y)
    f = kt.function([x, y], z)
    with pytest.raises(ValueError, match=re.escape(
            "add failed at run time on inputs of shapes (3,), (4,): operands could not be "
            "broadcast")):
        f(np.ones(3, np.float32), np.ones(4, np.float32))


def test_linalg_errors_keep_their_class():
    a = kt.matrix("a", "float64")
    s = kt.inv(a)
    s.name = "a_inv"
    with pytest.raises(np.linalg.LinAlgError, match=re.escape(
            "inv (computing a_inv) failed at run time on inputs of shapes "
            "(2, 2): "
            "Singular matrix")):
        kt.function([a], s)(np.zeros((2, 2)))


def test_checked_run_reports_the_node_too():
    x, y = kt.vector("x"), kt.vector("y")
    with pytest.raises(kt.TypeInferenceError, match=r"at run time: operands float32\[3\] and "
                                                    r"float32\[4\] could not be broadcast: "
                                                    r"axis 0 is 3 and 4\n  in add "):
        kt.function([x, y], x + y, check=True)(np.ones(3, np.float32),
                                                np.ones(4, np.float32))


@pytest.mark.parametrize(("make", "message"), [
    (lambda: kt.matrix("z", shape=(3,)), "a matrix has 2 dimensions, but shape (3,) has 1"),
    (lambda: kt.vector("v", shape=(2, 3)), "a vector has 1 dimension, but shape (2, 3)"),
    (lambda: kt.vector("v", shape=3), "a vector's shape must be a sequence of 1 size"),
])
def test_constructor_rank(make, message):
    with pytest.raises(TypeError, match=re.escape(message)):
        make()


def test_a_type_given_where_a_name_goes_is_refused_at_once():
    """``kt.tensor(t)`` with a TensorType ``t`` used to make a variable named by the type,
    whose first error then failed inside ``__str__``; the name is checked when given."""
    t = kt.TensorType.parse("int8[3]")
    with pytest.raises(TypeError, match=r"name must be a string or None, got TensorType.*"
                                        r"write TensorType\(int8, \(3,\)\)\('x'\)"):
        kt.tensor(t)
    with pytest.raises(TypeError, match="got int 3"):
        t(3)
    assert t("x").name == "x" and t().name is None


@pytest.mark.parametrize("call", [
    lambda m, v: np.linalg.inv(m), lambda m, v: np.linalg.det(m),
    lambda m, v: np.linalg.solve(m, v)])
def test_linalg_of_strings_says_so_plainly(call):
    """``np.linalg.inv`` (det, solve) of a string matrix: NumPy refuses it; the message
    names the dtype function and the string dtype, never a solver variable."""
    with pytest.raises(TypeError):
        call(np.array([["a", "b"], ["c", "d"]]), np.ones(2))
    with pytest.raises(kt.TypeInferenceError) as caught:
        call(kt.tensor("x", "string", (2, 2)), kt.tensor("y", "float32", (2,)))
    first = str(caught.value).splitlines()[0]
    assert "float(string) is no dtype: float takes bool and the numbers" in first, first
    assert "~" not in first, first


@pytest.mark.parametrize("dtype", ["int8", "bool"])
@pytest.mark.parametrize("shape", [(2, 2), (0, 2)])
def test_pinv_rtol_none_of_a_dtype_not_inexact(dtype, shape):
    """``np.linalg.pinv(x, rtol=None)`` of integers or bool, empty or not: NumPy's "data
    type ... not inexact" (it reads the dtype's eps), not float16's sentence."""
    with pytest.raises(ValueError, match=f"data type .*{dtype}.* not inexact"):
        np.linalg.pinv(np.ones(shape, dtype), rtol=None)
    with pytest.raises(kt.TypeInferenceError, match=f"pinv: data type {dtype} not inexact"):
        np.linalg.pinv(kt.tensor("x", dtype, shape), rtol=None)
