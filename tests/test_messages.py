"""Errors in the user's words (issue 25): the first line of an Op's TypeInferenceError
says what NumPy says (its numbers checked against NumPy's own message), the second line
kantensor's extras; overloads that fail alike are said once; displayed signatures leave
out clauses between constants."""

from __future__ import annotations

import itertools
import re

import numpy as np
import pytest

import kantensor as kt
from kantensor.commands import COMMANDS
from kantensor.logic.broadcast import Broadcast
from kantensor.logic.store import fresh_state
from kantensor.logic.terms import fresh
from kantensor.query import var as qvar


def _errors(numpy_call, kantensor_call) -> tuple[str, str]:
    """NumPy's message and kantensor's for the same mistake (both must fail)."""
    with pytest.raises((IndexError, ValueError, TypeError)) as np_info:
        numpy_call()
    with pytest.raises(kt.TypeInferenceError) as kt_info:
        kantensor_call()
    return str(np_info.value), str(kt_info.value)


SHAPES = [(2,), (2, 4), (3, 1, 5), (1, 2, 3, 4)]


@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_index_out_of_bounds_is_numpys_sentence(shape):
    x = kt.tensor("x", "float32", shape)
    a = np.zeros(shape, np.float32)
    for axis, n in enumerate(shape):
        for i in (n, n + 3, -n - 1):
            index = (slice(None),) * axis + (i,)
            numpy_says, we_say = _errors(lambda index=index: a[index],
                                         lambda index=index: x[index])
            first, extras = we_say.split("\n")
            assert first == numpy_says
            assert extras.startswith("  in getitem{") and extras.endswith(f"on {x.type}")


@pytest.mark.parametrize(("shape", "target"), [((3, 6), (4, -1)), ((2, 3), (4, 2)),
                                               ((5,), (2, -1)), ((2, 2, 2), (3, 3))])
def test_reshape_names_the_type_the_size_and_the_shape(shape, target):
    x = kt.tensor("x", "float32", shape)
    numpy_says, we_say = _errors(lambda: np.zeros(shape).reshape(target),
                                 lambda: x.reshape(target))
    size = int(re.search(r"array of size (\d+)", numpy_says).group(1))
    assert we_say.split("\n")[0] == \
        f"cannot reshape {x.type} (size {size}) into ({', '.join(map(str, target))})"


def _broadcast_failures():
    shapes = [(2,), (3,), (2, 3), (3, 2), (4, 1, 3), (2, 5, 3), (5, 4, 2)]
    for s, t in itertools.product(shapes, repeat=2):
        try:
            np.broadcast_shapes(s, t)
        except ValueError:
            yield s, t


@pytest.mark.parametrize(("s", "t"), list(_broadcast_failures()), ids=str)
def test_broadcast_names_operands_and_each_ones_axis(s, t):
    a, b = kt.tensor("a", "float32", s), kt.tensor("b", "float32", t)
    numpy_says, we_say = _errors(lambda: np.zeros(s) + np.zeros(t), lambda: a + b)
    assert "could not be broadcast" in numpy_says
    first = we_say.split("\n")[0]
    head = f"operands {a.type} and {b.type} could not be broadcast: "
    assert first.startswith(head), first
    said = first[len(head):]
    same = re.fullmatch(r"axis (\d+) is (\d+) and (\d+)", said)
    if same:
        axes = [(int(same.group(1)), int(same.group(2))), (int(same.group(1)), int(same.group(3)))]
    else:
        m = re.fullmatch(r"axis (\d+) is (\d+) and axis (\d+) is (\d+)", said)
        assert m, said
        axes = [(int(m.group(1)), int(m.group(2))), (int(m.group(3)), int(m.group(4)))]
    (i, n), (j, k) = axes
    # each axis is in its operand's own numbering, holds the size said, and the two
    # are the same axis counted from the right, where the sizes clash (NumPy's rule)
    assert s[i] == n and t[j] == k
    assert len(s) - i == len(t) - j and n != k and 1 not in (n, k)


def test_matmul_loop_dims_in_each_operands_numbering():
    a = kt.tensor("a", "float32", (2, 3, 4))
    b = kt.tensor("b", "float32", (5, 4, 6))
    numpy_says, we_say = _errors(lambda: np.zeros((2, 3, 4)) @ np.zeros((5, 4, 6)),
                                 lambda: a @ b)
    assert "could not be broadcast" in numpy_says
    assert we_say.split("\n")[0] == ("operands float32[2,3,4] and float32[5,4,6] could not "
                                     "be broadcast: axis 0 is 2 and 5")


#: NumPy's names of the core dimensions in its gufunc signatures, and kantensor's.
GUFUNC_SIGNATURES = {"(n?,k),(k,m?)->(n?,m?)": "(m?,n),(n,p?)->(m?,p?)",
                     "(n),(n)->()": "(n),(n)->()"}


@pytest.mark.parametrize(("fn", "s", "t"), [
    ("matmul", (2, 4), (5, 3)), ("matmul", (4,), (5, 3)), ("matmul", (5, 3), (4,)),
    ("matmul", (7, 2, 4), (7, 5, 3)), ("matmul", (6,), (2, 4)), ("matmul", (3, 2, 6), (5, 1)),
    ("vecdot", (2, 4), (5, 3)), ("vecdot", (3,), (2, 5))], ids=str)
def test_a_core_dimension_mismatch_is_numpys_gufunc_sentence(fn, s, t):
    """The first line is NumPy's own (its operand, core dimension and sizes), with
    kantensor's signature in it; the second names the dimension's axis in each
    operand's own numbering, loop dims counted."""
    a, b = kt.tensor("a", "float32", s), kt.tensor("b", "float32", t)
    numpy_says, we_say = _errors(lambda: getattr(np, fn)(np.zeros(s), np.zeros(t)),
                                 lambda: getattr(kt, fn)(a, b))
    for theirs, ours in GUFUNC_SIGNATURES.items():
        numpy_says = numpy_says.replace(theirs, ours)
    first, second, extras = we_say.split("\n")
    assert first == numpy_says
    i, j = (len(s) - 1, len(t) - 2 if fn == "matmul" and len(t) > 1 else len(t) - 1)
    assert second == (f"  dimension n is {s[i]} in input 0 (axis {i}) but {t[j]} in input 1 "
                      f"(axis {j})")
    assert extras.endswith(f", on {a.type} and {b.type}")


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64"])
def test_overloads_that_fail_alike_are_said_once(dtype):
    x = kt.tensor("x", dtype, (3,))
    numpy_says, we_say = _errors(lambda: np.zeros(3, dtype) & np.zeros(3, dtype),
                                 lambda: x & x)
    assert "not supported for the input types" in numpy_says
    first = we_say.split("\n")[0]
    assert first == f"bitwise_and needs integer or bool operands, got {dtype}"
    assert we_say.count("where-clause") == 0


def test_an_overload_that_takes_the_dtypes_gives_its_own_reason():
    """pow has an overload for numbers and one for bools: int8 and float64 fit the first,
    so its reason (the broadcast) is the one said, not the bool overload's dtype."""
    a, b = kt.tensor("a", "int8", (2,)), kt.tensor("b", "float64", (3,))
    first = str(pytest.raises(kt.TypeInferenceError, lambda: a ** b).value).split("\n")[0]
    assert first == ("operands int8[2] and float64[3] could not be broadcast: axis 0 is 2 "
                     "and 3")


def test_an_index_operand_dtype_names_its_input():
    x, i = kt.tensor("x", "float32", (2, 3)), kt.tensor("i", "float32", (4,))
    with pytest.raises(TypeError):  # NumPy refuses float indices too
        np.take(np.zeros((2, 3)), np.zeros(4), axis=0)
    first = str(pytest.raises(kt.TypeInferenceError, kt.take, x, i, axis=0).value)
    assert first.split("\n")[0] == "take needs an integer or bool dtype for input 1, got float32"


def test_reduction_of_nothing_without_identity():
    e = kt.tensor("e", "float64", (3, 0))
    numpy_says, we_say = _errors(lambda: np.zeros((3, 0)).max(axis=1),
                                 lambda: kt.max(e, axis=1))
    assert "zero-size array to reduction operation maximum which has no identity" == numpy_says
    assert we_say.split("\n")[0] == ("zero-size array to a reduction with no identity: axis "
                                     "1 of float64[3,0] has size 0")


def test_displayed_signature_hides_clauses_between_constants():
    result = COMMANDS["infer"]("sum int8[2,n,4] axis=-1")
    text = str(result)
    assert "0 == 0" not in text and "0 == 1" not in text
    assert text.endswith("(int8[2,n,4]) -> (int64[2,n])")
    # the signature itself still round-trips with every clause
    assert "0 == 0" in str(result.signature)
    assert kt.Signature.parse(str(result.signature)) == result.signature


def test_a_broadcast_of_one_size_names_what_the_output_needs():
    S = fresh_state({})
    out = fresh()
    reason = Broadcast((3,), out, "loop dims", ((0, 1),)).explain({**S.data, out: 4})
    assert reason == "could not be broadcast: axis 1 is 3, and the output needs 4"


def test_refine_conflict_names_both_operands():
    x = kt.tensor("x", "float32", (None, None))
    W = kt.tensor("W", "float32", (3, 4))
    v = kt.tensor("v", "float32", (5,))
    y = x @ W
    y.name = "y"
    z = x + v
    z.name = "z"
    with pytest.raises(kt.RefinementError) as info:
        kt.refine([y, z])
    assert str(info.value).splitlines()[-1] == (
        "  z = add(x, v) fails with x axis 1 = 3: x axis 1 is 3 and v axis 0 is 5 could not "
        "be broadcast")


@pytest.mark.parametrize(("given", "header"), [("float64[3]", "the given dtype"),
                                               ("float32[3,1]", "the given rank")])
def test_refine_given_type_header_says_what_differs(given, header):
    w = kt.tensor("w", "float32", (None,))
    with pytest.raises(kt.RefinementError) as info:
        kt.refine(kt.exp(w), given={w: given})
    assert str(info.value).startswith(f"{header} contradicts the graph:")


# -- did you mean: one rule for dtype names and Op names wherever text is read ----------
TYPOS = [("flaot32", "float32"), ("flot64", "float64"), ("in8", "int8"), ("unit8", "uint8"),
         ("bol", "bool")]


@pytest.mark.parametrize(("typo", "dtype"), TYPOS)
def test_a_dtype_typo_is_an_error_everywhere(typo, dtype):
    hint = f"did you mean {dtype}?"
    with pytest.raises(kt.SignatureSyntaxError, match=re.escape(hint)):
        kt.Signature.parse(f"(n):{typo}->()")
    with pytest.raises(ValueError, match=re.escape(hint)):
        kt.TensorType.parse(f"{typo}[3]")
    for line in (f"add {typo}[3] Y -> float32[3]", f"add X Y -> {typo}[3]",
                 f"add X Y -> {typo}"):
        with pytest.raises(ValueError, match=re.escape(hint)):
            COMMANDS["query"](line)
    with pytest.raises(ValueError, match=re.escape(hint)) as info:
        COMMANDS["infer"](f"add {typo}[3] float32[3]")
    assert str(info.value).count("^") == 1  # one caret, under the typo in the line
    with pytest.raises(ValueError, match=re.escape(hint)):
        kt.query("add", [f"{typo}[3]", qvar("Y")], ["float32[3]"])


def test_names_far_from_dtypes_stay_logic_variables():
    answers = list(COMMANDS["query"]("add D[3] float32[3] -> float64[3]"))
    assert answers
    assert {str(a["D"]) for a in answers} == {
        str(a["D"]) for a in kt.query(kt.add, [kt.pattern(qvar("D"), (3,)), "float32[3]"],
                                      ["float64[3]"])}


def test_query_takes_an_op_name():
    by_name = [dict(a) for a in kt.query("matmul", [qvar("X"), "float32[3,4]"],
                                         ["float32[2,4]"])]
    by_op = [dict(a) for a in kt.query(kt.matmul, [qvar("X"), "float32[3,4]"],
                                       ["float32[2,4]"])]
    assert by_name == by_op and by_name
    with pytest.raises(ValueError, match=re.escape("unknown Op 'matmull' (did you mean "
                                                   "matmul?)")):
        kt.query("matmull", [qvar("X"), "float32[3,4]"], ["float32[2,4]"])
    # text with -> is still a signature
    assert len(kt.query("(n)->(n)", [qvar("X")], ["float32[3]"])) == 1


@pytest.mark.parametrize(("i", "j"), [([0, 1], [1, 2, 3]), ([[0], [1]], [[1, 2, 3]] * 3),
                                      ([0, 1, 2, 3], [0, 1])])
def test_index_arrays_that_do_not_broadcast_say_numpys_sentence(i, j):
    a = np.zeros((5, 4), np.float32)
    x = kt.tensor("x", "float32", (5, 4))
    numpy_says, we_say = _errors(lambda: a[np.array(i), np.array(j)],
                                 lambda: x[np.array(i), np.array(j)])
    assert we_say.split("\n")[0] == numpy_says.strip()


def test_an_op_with_messages_pickles_and_still_says_them():
    import pickle
    x = kt.tensor("x", "float32", (3, 6))
    op = pickle.loads(pickle.dumps(x.reshape(2, 9).owner.op))
    with pytest.raises(kt.TypeInferenceError) as info:
        op(kt.tensor("z", "float32", (4, 4)))
    assert str(info.value).split("\n")[0] == "cannot reshape float32[4,4] (size 16) into (2, 9)"
