"""Left open from hunt18, judged by NumPy: what eval_shape does where a slice bound that
is a size is 0 (``x[-n:]`` at ``n == 0`` is all of ``x``: the build's reading of ``-n``
counts from the end, a *choice*, so those sizes are not covered, never typed wrong, and
given ``n == 0`` the type is NumPy's), and empty list indices (an integer index, as NumPy
reads them; they were float64 arrays, refused)."""

from __future__ import annotations

import numpy as np
import pytest

import kantensor as kt
from npprograms import compile_program, judge, run_numpy


def test_a_negative_size_bound_at_zero_is_not_covered_and_typed_where_given():
    source = "def program(x0, x1):\n    return x0[-len(x1):]\n"
    fn = compile_program(source)
    verdict = judge(source, ["float32[A,2]", "float32[B]"])
    assert verdict.status == "typed" and not verdict.wrong  # (B == 0: the choice's)
    result = kt.eval_shape(fn, "float32[A,2]", "float32[B]")
    for a in (0, 1, 3):
        sizes = {"A": a, "B": 0}
        out = run_numpy(fn, ["float32[A,2]", "float32[B]"], sizes)
        assert out.shape == (a, 2)  # NumPy: x[-0:] is x[0:]
        assert not result.holds(sizes)  # not covered by the first reading ...
        assert result.contract.outer.holds(**sizes)  # ... which the contract says
        given = kt.eval_shape(fn, "float32[A,2]", "float32[B]", where="B == 0")
        assert str(given.type) == "float32[A,2]" and given.holds(sizes)


@pytest.mark.parametrize("body", ["x0[[]]", "x0[:, []]", "x0[[], 0]", "x0[[[]]]",
                                  "x0[[]] + 1", "np.take(x0, [], axis=1)"])
def test_an_empty_list_index_is_an_integer_index(body):
    verdict = judge(f"def program(x0):\n    return {body}\n", ["float32[A,2]"])
    assert verdict.status == "typed", verdict.note
    assert not verdict.wrong, verdict.wrong[:3]


def test_array_split_into_a_size_of_sections_is_refused_naming_it():
    """NumPy's list of pieces has as many as the sections: a size there cannot be traced;
    the refusal names the function (it was "'Dim' object cannot be interpreted as an
    integer")."""
    with pytest.raises(TypeError, match="numpy.array_split into n sections"):
        kt.eval_shape(lambda x: np.array_split(x, len(x))[0], "float32[n]")


#: Programs where what a line needs refutes the build's first reading of a slice bound's
#: sign (``3 - n`` read negative, as it is at large sizes): the other reading applies
#: (npprograms seed 45, KINDS 31, program #70 was refused at every size).
NEEDS_REFUTE_THE_READING = [
    (["float32[3,B,C]", "int32[A]"],
     "v0 = -x1\nv2 = v0[[True, False], None]\nv1 = x1.reshape(x1.shape + (1,))\n"
     "return v1[::-1][:(len(x0) - x1.shape[0])]"),
    (["float32[A,2]", "float32[B]"],
     "v = x0[:len(x1) - 3]\nw = x1[[True, False]]\nreturn v * w.sum()"),
    (["float32[A]"], "w = x0[[True]]\nv = x0[:2 - len(x0)]\nreturn v * w"),
    # where the refused Op's own needs contradict the reading (npprograms seed 51, KINDS
    # 36, #68: NumPy runs at B == 0 only)
    (["uint8[]", "int64[3,B]"],
     "v0 = x1[np.arange(x1.shape[0])]\nv1 = v0[x1.astype(np.intp), x1.astype(np.intp)]\n"
     "v2 = v1[:, (x1.shape[1] - 2):1]\nv3 = v2.reshape(2, -1)\n"
     "v6 = v3[np.argmax(v1, axis=0)[::-1]]\nreturn v6"),
]


@pytest.mark.parametrize(("types", "body"), NEEDS_REFUTE_THE_READING)
def test_what_the_code_needs_picks_a_slice_bounds_other_reading(types, body):
    params = ", ".join(f"x{i}" for i in range(len(types)))
    source = f"def program({params}):\n" + "".join(f"    {line}\n" for line in
                                                  body.splitlines())
    verdict = judge(source, types)
    assert verdict.status == "typed", verdict.note
    assert not verdict.wrong, verdict.wrong[:3]
