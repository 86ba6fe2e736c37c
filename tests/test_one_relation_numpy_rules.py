"""One relation under NumPy's dtype rules too: ``kt.query`` and ``kt.relation`` take an
Op and types, so they answer under the caller's rules, and inside ``numpy_rules()`` (the
rules eval_shape builds under) their backward answers are the forward builds' there.

Brute force: for each Op, both input dtypes and the output dtype left unknown (one query,
every answer; an open dtype expanded to the dtypes it ranges over), against ``make_node``
on every pair of the 14 NumPy dtypes with the second operand a tensor, a 0-d array
(strong in NumPy's rules, below a tensor in kantensor's) or a wrapped Python number:
sound (every answer builds so) and complete (every build is an answer). The same query
under ``default_dtype("float64")`` (kantensor's rule, the same default float) first, in
one process, so a memo keyed by the default dtype alone would answer the second with the
first's answers. Oracle of the forward builds: NumPy's own dtype of the same call.
"""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest
from unification import var

import kantensor as kt
from kantensor.query.opendtypes import OpenDType
from kantensor.types import numpyrules as dt

DTYPES = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float16", "float32", "float64", "complex64", "complex128")
#: The Python number of each dtype a wrapped number has under NumPy's rules (and under
#: kantensor's with float64 the default).
PYTHON = {"bool": True, "int64": 1, "float64": 1.0, "complex128": 1j}
#: kt's Op -> NumPy's function, for the oracle (arctan2's ``loopfloat``: the float loop
#: NumPy picks by the operands' sizes, a Python number read as the array's dtype first).
OPS = {"add": np.add, "mul": np.multiply, "maximum": np.maximum, "gt": np.greater,
       "true_divide": np.true_divide, "floor_divide": np.floor_divide, "power": np.power,
       "bitwise_and": np.bitwise_and, "arctan2": np.arctan2}
KINDS = ("tensor", "0-d", "wrapped")


def _second(kind: str, dtype: str):
    """The second operand of ``kind`` and ``dtype`` (None: no such operand)."""
    if kind == "wrapped":
        return PYTHON.get(dtype)
    return kt.TensorType(dtype, (3,) if kind == "tensor" else ())()


def forward(op, kind: str) -> dict[tuple[str, str], str]:
    """``(dtype of x, dtype of the second operand) -> output dtype`` of every build."""
    out = {}
    for a, d in itertools.product(DTYPES, DTYPES):
        second = _second(kind, d)
        if second is None:
            continue
        try:
            out[a, d] = op(kt.TensorType(a, (3,))(), second).type.dtype
        except (TypeError, ValueError):
            pass
    return out


def _dtypes(value) -> list[str]:
    return sorted(value.dtypes) if isinstance(value, OpenDType) else [value]


def backward(op, kind: str) -> dict[tuple[str, str], set[str]]:
    """The same map from one query with every dtype unknown (the outputs of each input
    pair: a set, so that two answers for one pair show)."""
    A, D, O = var("A"), var("D"), var("O")
    second = kt.pattern(D, (3,) if kind == "tensor" else (), wrapped=kind == "wrapped")
    out: dict[tuple[str, str], set[str]] = {}
    for answer in kt.query(op, [kt.pattern(A, (3,)), second], [kt.pattern(O, (3,))]):
        assert not answer.where, answer  # (no condition: every size is given)
        for a, d, o in itertools.product(_dtypes(answer["A"]), _dtypes(answer["D"]),
                                         _dtypes(answer["O"])):
            if a in DTYPES and d in DTYPES and (kind != "wrapped" or d in PYTHON):
                out.setdefault((a, d), set()).add(o)
    return out


def _numpy(fn, a: str, kind: str, d: str) -> str | None:
    second = PYTHON[d] if kind == "wrapped" else np.ones((3,) if kind == "tensor" else (), d)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            return np.asarray(fn(np.ones(3, a), second)).dtype.name
        except Exception:  # noqa: BLE001 - NumPy refuses: the build must too
            return None


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("name", list(OPS))
def test_backward_answers_are_the_forward_builds_under_numpys_rules(name: str,
                                                                    kind: str) -> None:
    op = getattr(kt, name)
    with kt.default_dtype("float64"):  # kantensor's rule first (the memos' other key)
        own = forward(op, kind)
        assert backward(op, kind) == {k: {v} for k, v in own.items()}
    with dt.numpy_rules():
        built = forward(op, kind)
        answered = backward(op, kind)
    assert len(built) >= (18 if kind == "wrapped" else 50)  # (the domain is built)
    assert answered == {k: {v} for k, v in built.items()}
    # the rules differ (NumPy's table, a strong 0-d array, NumPy's float loops), so may
    # the answers: but for a bool output, integers with integers, and a Python number
    # beside the float64 default (arctan2 aside: its loop is the array's narrowest float)
    assert (own == built) == (name == "gt" or (name, kind) == ("bitwise_and", "tensor")
                              or (kind == "wrapped" and name != "arctan2"))
    fn = OPS[name]
    if fn is not None:  # NumPy, where it runs, gives each build's dtype
        wrong = [(a, d, o, _numpy(fn, a, kind, d)) for (a, d), o in built.items()
                 if _numpy(fn, a, kind, d) != o]
        assert not wrong, wrong[:5]


def test_a_question_about_eval_shapes_node_is_asked_under_its_rules() -> None:
    """The node's Op and inputs given to ``kt.query``: its own output type inside
    ``numpy_rules()`` (the rules the node was built under), kantensor's outside."""
    r = kt.eval_shape(lambda x: x * np.int64(2), "int8[n]")
    node = r.outputs[0].owner
    with dt.numpy_rules():
        answers = list(kt.query(node.op, node.inputs, [var("Z")]))
    assert [str(a["Z"]) for a in answers] == ["int64[n]"] == [str(r.outputs[0].type)]
    assert [str(a["Z"]) for a in kt.query(node.op, node.inputs, [var("Z")])] == ["int8[n]"]


@pytest.mark.parametrize("name", ["add", "true_divide"])
def test_ground_questions_under_each_rules_are_answered_under_them(name: str) -> None:
    """Every (x, 0-d) dtype pair asked with its output given, a yes or no (which the
    solver remembers per rules), with the output of each rules' build: first under
    ``default_dtype("float64")``, then the same questions inside ``numpy_rules()``; yes
    exactly where the output is the build's under the rules asked under."""
    op = getattr(kt, name)
    rules = {"float64": lambda: kt.default_dtype("float64"), "numpy": dt.numpy_rules}
    built = {}
    for key, under in rules.items():
        with under():
            built[key] = forward(op, "0-d")
    differ = [k for k in built["numpy"] if built["numpy"][k] != built["float64"].get(k)]
    assert len(differ) > 20
    for key, under in rules.items():
        with under():
            for a, d in differ:
                given = [kt.TensorType(a, (3,)), kt.TensorType(d, ())]
                for asked in built.values():
                    if (a, d) in asked:
                        yes = asked[a, d] == built[key].get((a, d))
                        found = list(kt.query(op, given, [kt.TensorType(asked[a, d], (3,))]))
                        assert len(found) == yes, (key, a, d, asked[a, d])
