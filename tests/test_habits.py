"""What a newcomer reaches for (issue 25): real signatures for ``?`` and ``help``, reprs
and HTML for Function, Apply and FunctionGraph, ``x.mean(dtype=...)``, ``x.eval()``,
``float(t)``, a clean ``dir(kt)`` and ``--help``, and a progress line for long work."""

from __future__ import annotations

import inspect
import io
import types

import numpy as np
import pytest

import kantensor as kt
from htmltree import parse
from kantensor import cli
from kantensor.graph.progress import Progress


@pytest.mark.parametrize(("op", "n"), [("add", 2), ("exp", 1), ("matmul", 2), ("where", 3)])
def test_ops_have_their_call_signature(op, n):
    sig = inspect.signature(getattr(kt, op))
    params = list(sig.parameters.values())
    assert len(params) == n and all(p.kind is p.POSITIONAL_ONLY for p in params)
    x = kt.tensor("x", "bool" if op == "where" else "float32", (2, 2))
    sig.bind(*[x] * n)  # what the signature accepts, the Op accepts
    getattr(kt, op)(*[x] * n)
    with pytest.raises(TypeError):
        sig.bind(*[x] * (n + 1))


@pytest.mark.parametrize("method", ["sum", "mean", "max", "argmax", "cumsum"])
def test_tensor_methods_show_numpys_parameters_and_the_ops(method):
    # A method binds its arguments as NumPy's does (x.sum(0, None, None, True) is
    # keepdims), so it shows NumPy's parameters, the Op's among them.
    x = kt.tensor("x", "float32", (2, 3))
    of_numpy = list(inspect.signature(getattr(np, method)).parameters)
    of_op = list(inspect.signature(getattr(kt, method)).parameters)
    of_method = list(inspect.signature(getattr(x, method)).parameters)
    assert of_method == of_numpy[1:]  # the array itself is x
    assert set(of_op[1:]) <= set(of_method)


def test_dir_of_the_package_lists_no_stdlib_module():
    modules = [n for n in dir(kt) if not n.startswith("_")
               and isinstance(getattr(kt, n), types.ModuleType)]
    assert all(getattr(kt, n).__name__.startswith("kantensor") for n in modules), modules


def test_help_of_the_command_has_no_rst_markup(capsys):
    with pytest.raises(SystemExit):
        cli.main(["--help"])
    out = capsys.readouterr().out
    assert "``" not in out and ":func:" not in out and "float32[3,?]" in out


def test_function_repr_names_inputs_and_types():
    n = kt.Dim("n")
    x, w = kt.tensor("x", "float32", (n, 3)), kt.tensor("W", "float32", (3, 4))
    f = kt.function([x, w], [x @ w, x.sum()])
    assert repr(f) == "Function(x: float32[n,3], W: float32[3,4] -> float32[n,4], float32[])"


def test_apply_and_fgraph_have_html():
    x, w = kt.tensor("x", "float32", (2, 3)), kt.tensor("W", "float32", (3, 4))
    y = kt.exp(x @ w)
    node = y.owner
    tab = parse(node._repr_html_()).find_all("table")[0]
    assert len(tab.rows()) == 1 + len(node.inputs) + len(node.outputs)
    f = kt.function([x, w], y)
    root = parse(f.fgraph._repr_html_())
    tab = root.find_all("table")[0]
    assert len(tab.rows()) == 1 + len(f.fgraph.toposort())
    assert "2 inputs, 1 output, 2 Apply nodes" in root.text()  # counted, in the singular


@pytest.mark.parametrize("src", ["int32", "bool", "float16", "float64"])
@pytest.mark.parametrize("dtype", [None, "float32", "float64", "int16", "complex64"])
def test_mean_takes_numpys_dtype(src, dtype):
    a = (np.arange(6) % 3).reshape(2, 3).astype(src)
    x = kt.tensor("x", src, (2, 3))
    y = x.mean(axis=1, dtype=dtype)
    want = np.mean(a, axis=1, dtype=dtype)
    assert y.type.dtype == want.dtype.name
    np.testing.assert_allclose(kt.function([x], y)(a), want, rtol=1e-3)


def test_eval_and_float():
    a = kt.tensor("a", "float32", (3,))
    y = kt.exp(a) * 2
    v = np.arange(3, dtype=np.float32)
    np.testing.assert_allclose(y.eval({a: v}), np.exp(v) * 2, rtol=1e-6)
    np.testing.assert_allclose(y.eval({"a": v}), np.exp(v) * 2, rtol=1e-6)
    with pytest.raises(ValueError, match="eval needs a value for every input"):
        y.eval()
    c = kt.sqrt(kt.constant(16.0)) + 1  # constant-foldable: no inputs
    assert float(c) == 5.0 and float(c.sum()) == 5.0
    with pytest.raises(ValueError, match="needs a value"):
        float(a.sum())
    with pytest.raises(TypeError, match="one element"):
        float(kt.constant(np.ones(2)) + 1)


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_line_only_on_a_terminal(monkeypatch):
    monkeypatch.delenv("KANTENSOR_PROGRESS", raising=False)
    tty = _Terminal()
    with Progress("refine", total=10, stream=tty, delay=0) as p:
        for _ in range(10):
            p.step()
    text = tty.getvalue()
    assert "\rrefine: 1/10" in text and text.endswith("\r\x1b[K")  # erased at the end
    pipe = io.StringIO()
    with Progress("refine", total=10, stream=pipe, delay=0) as p:
        for _ in range(10):
            p.step()
    assert pipe.getvalue() == ""
    monkeypatch.setenv("KANTENSOR_PROGRESS", "0")
    tty = _Terminal()
    with Progress("refine", total=10, stream=tty, delay=0) as p:
        p.step()
    assert tty.getvalue() == ""
