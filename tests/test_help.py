"""help() and ``?`` on Ops, int() of a constant-foldable tensor, the compile progress line,
and NumPy's names kt.power, kt.ravel and kt.erf (values against NumPy and math.erf)."""

from __future__ import annotations

import inspect
import io
import itertools
import math
import pydoc

import numpy as np
import pytest

import kantensor as kt
from kantensor.graph import progress


def rendered(obj) -> str:
    return pydoc.render_doc(obj, renderer=pydoc.plaintext)


def test_help_shows_the_call_signature_then_the_doc():
    for op in (kt.add, kt.exp, kt.sum, kt.reshape):
        text = rendered(op)
        head = f"{op.name}{inspect.signature(op)}"
        assert head in text.splitlines(), (head, text)
        assert inspect.cleandoc(op.__doc__).splitlines()[0] in text
    assert "add(x1, x2, /)" in rendered(kt.add)
    assert "sum(x, axis=None, keepdims=False, *, dtype=None)" in rendered(kt.sum)


def test_an_op_as_a_class_attribute_is_itself():
    class Layer:
        act = kt.tanh
        total = kt.sum

    layer = Layer()
    assert layer.act is kt.tanh and Layer.total is kt.sum
    x = kt.vector("x")
    assert layer.act(x).owner.op.name == "tanh"


def test_int_of_a_constant_foldable_tensor():
    for value in (2.7, -2.7, 7.0):
        c = kt.constant(np.array([value])) * 2
        assert int(c) == int(np.float64(value) * 2)
    assert int(kt.constant(7) // 2) == 3
    with pytest.raises(ValueError, match="needs a value"):
        int(kt.vector("v").sum())
    with pytest.raises(TypeError, match="one element"):
        int(kt.constant(np.ones(3)) + 1)


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


class _Clock:
    """time.monotonic advancing a second a call: every step is past the delay."""

    def __init__(self):
        self.ticks = itertools.count()

    def monotonic(self) -> float:
        return float(next(self.ticks))


def _chain(n: int):
    x = kt.vector("x", "float64")
    y = x
    for _ in range(n):
        y = y * 1.0 + 0.5
    return x, y


@pytest.mark.parametrize("codegen", [True, False])
def test_compiling_a_big_graph_shows_progress_on_a_terminal(monkeypatch, codegen):
    monkeypatch.delenv("KANTENSOR_PROGRESS", raising=False)
    monkeypatch.setattr(progress, "time", _Clock())
    if not codegen:  # the interpreter, as for graphs above the code generator's limit
        monkeypatch.setattr("kantensor.backend.linker.CODEGEN_LIMIT", 0)
    x, y = _chain(30)
    tty = _Terminal()
    monkeypatch.setattr("sys.stderr", tty)
    f = kt.function([x], y)
    n = len(f.fgraph.toposort())
    text = tty.getvalue()
    assert f"\rcompiling: nodes: {n}/{n}" in text and text.endswith("\r\x1b[K")
    np.testing.assert_allclose(f(np.zeros(2)), np.full(2, 0.5 * 30))
    pipe = io.StringIO()
    monkeypatch.setattr("sys.stderr", pipe)
    kt.function([x], y)
    assert pipe.getvalue() == ""


def test_a_long_answer_list_shows_progress_on_a_terminal(monkeypatch):
    """Reading a page of answers shows a progress line on a terminal (erased when
    done); the list itself is the query's answers."""
    from kantensor.query import var

    monkeypatch.delenv("KANTENSOR_PROGRESS", raising=False)
    monkeypatch.setattr(progress, "time", _Clock())
    tty = _Terminal()
    monkeypatch.setattr("sys.stderr", tty)
    sols = kt.query(kt.matmul, [var("X"), var("Y")], ["float32[2,5]"])
    text = sols.text(30)
    shown = text.splitlines()
    assert shown[:-1] == [line for line in sols.text(63).splitlines()[:30]]
    assert shown[-1] == f"... showing 30 of {sum(1 for _ in sols)} solutions"
    said = tty.getvalue()
    assert "\rreading solutions: 30/30 (" in said and said.endswith("\r\x1b[K")


def test_power_ravel_erf_compute_as_numpy_and_math():
    rng = np.random.default_rng(25)
    a = rng.uniform(0.1, 3, (4, 3))
    b = rng.integers(-3, 4, 3)
    x = kt.matrix("x", "float64")
    e = kt.vector("e", "int64")
    f = kt.function([x, e], [kt.power(x, e), kt.ravel(x), x.ravel(), kt.erf(x - 1.5)])
    power, flat, flat2, erf = f(a, b)
    np.testing.assert_array_equal(power, np.power(a, b))
    np.testing.assert_array_equal(flat, np.ravel(a))
    np.testing.assert_array_equal(flat2, np.ravel(a))
    assert erf.dtype == np.float64
    assert erf.tolist() == [[math.erf(v - 1.5) for v in row] for row in a.tolist()]
    i = kt.vector("i", "int8")
    g = kt.function([i], kt.erf(i))
    values = np.array([-3, 0, 1, 2], "int8")
    out = g(values)
    assert out.dtype == np.dtype(kt.get_default_dtype())
    np.testing.assert_array_equal(out, np.array([math.erf(v) for v in values.tolist()],
                                                out.dtype))
    assert kt.erf(kt.tensor("z", "float16", shape=(2,))).type == \
        kt.TensorType("float16", (2,))
    with pytest.raises(kt.TypeInferenceError, match="complex64"):
        kt.erf(kt.vector("c", "complex64"))


def _vague(sig: inspect.Signature) -> bool:
    """``(*args, **kwargs)``: a signature that tells nothing."""
    kinds = [p.kind for p in sig.parameters.values()]
    return inspect.Parameter.VAR_KEYWORD in kinds and \
        all(k in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)
            for k in kinds)


def test_every_op_and_tensor_method_has_a_real_signature():
    """``x.transpose?``, ``x.sum?`` and ``kt.matmul?`` show the parameters: no public
    TensorVariable method and no callable of ``kt`` is ``(*args, **kwargs)``; a method
    made from an Op takes the Op's parameters after the tensor (a variadic one, such as
    ``reshape``, its tuple item by item, as ``ndarray.reshape``)."""
    from kantensor.ops import CATALOGUE
    from kantensor.types.variable import METHODS

    x = kt.tensor("x", "float32", (2, 3))
    methods = [n for n in dir(x) if not n.startswith("_") and callable(getattr(x, n))]
    assert {"transpose", "reshape", "sum", "astype"} <= set(methods)
    vague = [n for n in methods if _vague(inspect.signature(getattr(x, n)))]
    ops = [n for n in {*kt.__all__, *CATALOGUE} if callable(getattr(kt, n, None))
           and not isinstance(getattr(kt, n), type)]
    vague += [f"kt.{n}" for n in ops if _vague(inspect.signature(getattr(kt, n)))]
    assert not vague, vague
    for name, fn in METHODS.items():
        if name.startswith("_") or not hasattr(fn, "signature_for"):
            continue
        own = list(inspect.signature(fn).parameters.values())[1:]
        shown = list(inspect.signature(getattr(x, name)).parameters.values())
        assert [p.name for p in shown] == [p.name for p in own], name
    shown = inspect.signature(x.transpose)
    assert str(shown) == "(*axes)"
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    bound = shown.bind(1, 0)  # NumPy's a.transpose(1, 0), item by item
    f = kt.function([x], x.transpose(*bound.args))
    np.testing.assert_array_equal(f(a), a.transpose(*bound.args))
    assert str(inspect.signature(x.reshape)) == "(*shape)"
    np.testing.assert_array_equal(kt.function([x], x.reshape(3, 2))(a), a.reshape(3, 2))


def test_tensor_methods_are_plain_class_attributes():
    """Every registered tensor method is an attribute of the class, so TensorVariables
    need no ``__getattr__`` (which makes each attribute read of every TensorVariable a
    generic one Python cannot specialize: refine reads ``.type`` and ``.owner`` of a
    million); a name that is no method fails as Python fails for any object."""
    from kantensor.types.variable import METHODS

    x = kt.tensor("x", "float32", (2, 3))
    c = kt.constant(1.0)
    for cls in (type(x), type(c)):
        assert not any("__getattr__" in vars(k) for k in cls.__mro__), cls
        for name in METHODS:
            assert hasattr(cls, name), (cls, name)
    assert x.sum.__self__ is x
    with pytest.raises(AttributeError, match="'TensorVariable' object has no attribute "
                                             "'summ'"):
        x.summ  # noqa: B018
