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
