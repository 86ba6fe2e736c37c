"""Located: eval_shape's errors name the first line of the user's code (not kantensor's,
NumPy's compiled code, or a wrapper library's), say where the refused operands were made,
and result.why() names the node and the reason of a size left unknown."""

from __future__ import annotations

import importlib
import re
import sys

import numpy as np
import pytest

import kantensor as kt
from kantensor.evalshape import code

WRAPPER = '''
import numpy as np

def wrapped_dot(a, b):
    return np.dot(a, b)
'''

MODEL = '''
import wrapperlib

def layer(x, w):
    h = x * 2.0
    return wrapperlib.wrapped_dot(h, w)  # the user's line
'''


@pytest.fixture
def installed_wrapper(tmp_path, monkeypatch):
    """A wrapper library in a folder of installed packages, and model code using it."""
    site = tmp_path / "site-packages"
    site.mkdir()
    (site / "wrapperlib.py").write_text(WRAPPER)
    (tmp_path / "user_model.py").write_text(MODEL)
    monkeypatch.setattr(code, "_INSTALLED", (*code._INSTALLED, str(site) + "/"))
    code._installed.cache_clear()
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.syspath_prepend(str(tmp_path))
    yield importlib.import_module("user_model")
    for name in ("user_model", "wrapperlib"):
        sys.modules.pop(name, None)
    code._installed.cache_clear()


def test_a_wrapper_librarys_frame_is_not_the_users_line(installed_wrapper):
    with pytest.raises(kt.TypeInferenceError) as info:
        kt.eval_shape(installed_wrapper.layer, "float32[n,3]", "float32[4,5]")
    message = str(info.value)
    assert re.search(r"failed at .*user_model\.py, line 6, in layer: return wrapperlib\."
                     r"wrapped_dot\(h, w\)  # the user's line", message)
    assert "wrapperlib.py" not in message.splitlines()[0]
    assert "operand 0: h: float32[n,3] = mul(x, 2.0) at " in message  # h was made here
    assert "user_model.py, line 5, in layer: h = x * 2.0" in message


def test_the_traced_functions_own_package_is_the_users(installed_wrapper):
    """The traced function's own package is the user's code even when installed."""
    lib = sys.modules["wrapperlib"]
    assert code.function_is_library(lib.wrapped_dot)
    with pytest.raises(kt.TypeInferenceError, match=r"wrapperlib\.py, line 5, in wrapped_dot"):
        kt.eval_shape(lib.wrapped_dot, "float32[n,3]", "float32[4,5]")


def test_numpys_compiled_frames_are_not_the_users_line():
    def seeded(x):
        np.random.seed(x.shape[0])  # NumPy's Cython code refuses a size
        return x

    with pytest.raises(TypeError) as info:
        kt.eval_shape(seeded, "float32[n]")
    first = str(info.value).splitlines()[0]
    assert re.search(r"test_eval_shape_located\.py, line \d+, in seeded: np\.random\.seed",
                     first)
    assert "mtrand" not in first


def test_the_operands_of_a_refused_op_and_their_lines():
    def block(x, w1, w2):
        h = np.tanh(x @ w1)
        g = h.T
        return g @ w2

    with pytest.raises(kt.TypeInferenceError) as info:
        kt.eval_shape(block, "float32[3,n]", "float32[n,4]", "float32[5,6]")
    message = str(info.value)
    assert "in block: return g @ w2" in message.splitlines()[0]
    chain = message[message.index("where the operands come from:"):]
    assert "operand 0: g: float32[4,3] = transpose(h) at " in chain
    assert "in block: g = h.T" in chain
    assert "from h: float32[3,4] = tanh(" in chain
    assert "operand 1: w2: float32[5,6] (an input)" in chain


def test_where_and_why():
    def f(x, m):
        y = x[x > 0]
        return y, m + 1

    result = kt.eval_shape(f, "float32[k]", "int64[?]")
    assert result.where(result.outputs[0]).source == "y = x[x > 0]"
    assert re.fullmatch(r"index at .*line \d+, in f: y = x\[x > 0\]: a boolean mask selects "
                        r"a number of elements known only from the values", result.why(0))
    assert result.why(1) == "m: int64[?]: the input's type leaves a size unknown"
    assert result.why(0, axis=0) == result.why(0)
    known = kt.eval_shape(lambda x: x + 1, "float32[k]")
    assert known.why(0) == "float32[k]: every size asked for is known"


def _max_then_empty(x):
    m = x.max(axis=1)  # needs N >= 1
    b = np.concatenate([m[:, None], x], axis=1)  # M x (N + 1), made under N >= 1
    return b @ np.ones((1, 2))  # needs N == 0: fine alone, not after the first line


def test_a_contradiction_names_the_earlier_line_first():
    """An Op refused only because of what an earlier line needs (its operands alone are
    accepted at some sizes): the error names the earlier line's condition first, then
    the refused Op's, then the line that failed."""
    first = _max_then_empty.__code__.co_firstlineno
    with pytest.raises(kt.TypeInferenceError) as info:
        kt.eval_shape(_max_then_empty, "float64[M,N]")
    lines = str(info.value).splitlines()
    assert lines[0] == "eval_shape(_max_then_empty): no sizes meet all of"
    assert re.match(rf"  N >= 1 \(max at .*test_eval_shape_located\.py:{first + 1}: "
                    r"m = x\.max\(axis=1\)", lines[1]), lines[1]
    assert re.match(rf"  and N == 0 \(matmul at .*\.py:{first + 3}: return b @ ",
                    lines[2]), lines[2]
    assert re.match(rf"so it failed at .*, line {first + 3}, in _max_then_empty",
                    lines[3])
    assert "TypeInferenceError: matmul: no solution" in lines[4]


def test_an_op_refused_at_every_size_names_its_own_line():
    """Operands refused whatever the sizes: no earlier line is to blame."""
    def f(x):
        a = x @ np.ones((3, 2))
        return a @ np.ones((4,))  # [M,2] @ [4]: 2 == 4 never holds
    with pytest.raises(kt.TypeInferenceError) as info:
        kt.eval_shape(f, "float64[M,N]")
    assert str(info.value).startswith("eval_shape(test_an_op_refused_at_every_size_names_"
                                      "its_own_line.<locals>.f) failed at ")


def _three_and_four(x):
    a = x @ np.ones((3, 2))  # needs N == 3
    b = x @ np.ones((4, 2))  # needs N == 4: the two lines meet at no size
    return a, b


def test_assumptions_no_sizes_meet_are_an_error_naming_both_lines():
    """Two lines whose needs no sizes meet together (each fine alone, not reaching each
    other through the data): the program fails at every size, and the error says so,
    the earlier line first."""
    first = _three_and_four.__code__.co_firstlineno
    with pytest.raises(kt.TypeInferenceError) as info:
        kt.eval_shape(_three_and_four, "float64[M,N]")
    lines = str(info.value).splitlines()
    assert lines[0] == "eval_shape(_three_and_four): no sizes meet all of"
    assert re.match(rf"  N == 3 \(matmul at .*\.py:{first + 1}: a = x @ ", lines[1])
    assert re.match(rf"  and N == 4 \(matmul at .*\.py:{first + 2}: b = x @ ", lines[2])
    assert lines[3] == "so it fails at every size"
    for n in range(6):  # NumPy: no size runs it
        with pytest.raises(ValueError):
            _three_and_four(np.zeros((2, n)))


def _dropped_keepdims(x):
    mean = np.mean(x, axis=-1)  # keepdims=True forgotten: the axes of mean move
    return x - mean


def test_the_line_that_placed_the_axes_is_named_first():
    """``x - mean`` needs ``T == B``, but the axes met where they are because the line of
    ``mean`` removed one (with its input there, ``sub`` needs nothing): that line is
    named first, and the Op's line after it. NumPy fails at the sizes the assumption
    excludes, at the Op's line."""
    first = _dropped_keepdims.__code__.co_firstlineno
    result = kt.eval_shape(_dropped_keepdims, "float64[B,T,C]")
    need = result.assumptions[0]
    assert str(need) == "T == B or T == 1 or B == 1"
    assert need.source.op == "mean"
    assert need.source.location.endswith(f"test_eval_shape_located.py:{first + 1}")
    assert need.source.code.startswith("mean = np.mean(x, axis=-1)")
    assert re.match(rf"this line placed the axes of mean that sub aligns at .*\.py:"
                    rf"{first + 2}: return x - mean; with its input x: float64\[B,T,C\] in "
                    r"their place, sub needs nothing; ", need.source.detail), need.source.detail
    assert not need.holds({"B": 2, "T": 3, "C": 4})
    with pytest.raises(ValueError):
        _dropped_keepdims(np.zeros((2, 3, 4)))
    _dropped_keepdims(np.zeros((3, 3, 3)))  # where it holds, NumPy runs


def _swapped_after_transpose(q, k, v):
    scores = q @ k.T  # right: k's axes are placed here on purpose
    return v @ scores  # the bug: scores @ v


def _dropped_transpose_of_a_column(a, b):
    ca = np.expand_dims(a, 1)
    cb = np.expand_dims(b, 1)
    return ca @ cb  # the bug: cb.T (a 1-D operand would fit, but with another rank)


@pytest.mark.parametrize("fn, types, line", [
    (_swapped_after_transpose, ("float64[T,D]", "float64[S,D]", "float64[S,E]"), 2),
    (_dropped_transpose_of_a_column, ("float64[D]", "float64[D]"), 3),
])
def test_the_ops_line_stays_first_where_the_earlier_axes_do_not_fit(fn, types, line):
    """A wrong operand at the Op's line: the input of the line that placed an operand's
    axes does not fit either (or fits only giving another rank), so the Op's line is
    named first."""
    first = fn.__code__.co_firstlineno
    need = kt.eval_shape(fn, *types).assumptions[0]
    assert need.source.op == "matmul"
    assert need.source.location.endswith(f"test_eval_shape_located.py:{first + line}")
    assert "placed the axes" not in need.source.detail


def test_at_concrete_sizes_the_line_that_placed_the_axes_is_named_first():
    """At concrete sizes the refused ``x - mean`` raises; the line of ``mean`` (which
    removed the axis: with its input there, ``sub`` accepts at every size) is named
    first, then the Op's line that failed. NumPy raises at those sizes."""
    first = _dropped_keepdims.__code__.co_firstlineno
    with pytest.raises(kt.TypeInferenceError) as info:
        kt.eval_shape(_dropped_keepdims, "float64[2,3,4]")
    message = str(info.value)
    assert re.match(rf"eval_shape\(_dropped_keepdims\): .*test_eval_shape_located\.py, "
                    rf"line {first + 1}, in _dropped_keepdims: mean = np\.mean\(x, "
                    r"axis=-1\)", message), message
    assert "placed the axes of mean that sub aligns; with its input x in their place" \
        in message
    assert re.search(rf"so it failed at .*, line {first + 2}, in _dropped_keepdims: "
                     r"return x - mean", message), message
    with pytest.raises(ValueError):
        _dropped_keepdims(np.zeros((2, 3, 4)))


@pytest.mark.parametrize("fn, types, line", [
    (_swapped_after_transpose, ("float64[2,3]", "float64[5,3]", "float64[5,7]"), 2),
    (_dropped_transpose_of_a_column, ("float64[3]", "float64[3]"), 3),
])
def test_at_concrete_sizes_the_ops_line_stays_first_where_earlier_axes_do_not_fit(
        fn, types, line):
    """A wrong operand at the Op's line, at concrete sizes: the Op's line is named
    first (NumPy raises there too)."""
    first = fn.__code__.co_firstlineno
    with pytest.raises(kt.TypeInferenceError) as info:
        kt.eval_shape(fn, *types)
    message = str(info.value)
    assert re.match(rf"eval_shape\({fn.__name__}\) failed at .*, line {first + line},",
                    message), message
    assert "placed the axes" not in message
    with pytest.raises(ValueError):
        fn(*(np.zeros(kt.TensorType.parse(t).shape) for t in types))
