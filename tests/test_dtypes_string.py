"""The string dtype: a row of the table in no numeric category, held in NumPy's
StringDType, promoting with nothing, and taken by an Op only where a where-clause says
``T in string``: every example of every catalogue entry (NumPy's and ONNX's) with one input
made a string is refused, except where the entry admits strings."""

from __future__ import annotations

import numpy as np
import pytest
from kanren import var

import kantensor as kt
from kantensor.onnx.registry import registry
from kantensor.ops.catalogue import _as_given, load_all
from kantensor.ops.family import OpFamily
from kantensor.ops.params import ParamError
from kantensor.types import dtypes as d
from kantensor.types.numpy_dtypes import NUMPY_DTYPES
from kantensor.types.variable import constant

EQUAL = "+():T,():T->():bool | +():T,():T->():bool where T in string"


def test_the_row_its_category_and_its_numpy_dtype():
    assert d.category("string") is d.STRING
    assert [c for c, members in d.CATEGORIES.items() if "string" in members] == ["string"]
    assert set(d.DEFAULT_RANGE) == set(d.DTYPES) - {"string"}
    assert NUMPY_DTYPES["string"] == np.dtypes.StringDType() == d.NUMPY_STRING
    assert d.normalize_dtype(np.dtypes.StringDType()) == "string"
    assert d.normalize_dtype(np.array(["a"], dtype=d.NUMPY_STRING).dtype) == "string"
    for other in (np.dtype("U3"), object, np.dtypes.StringDType(na_object=None), str):
        with pytest.raises(TypeError, match="unsupported dtype"):
            d.normalize_dtype(other)
    assert not d.is_inexact("string") and not d.is_integer("string")
    assert str(kt.TensorType.parse("string[n,2]")) == "string[n,2]"


@pytest.mark.parametrize("other", d.DTYPES)
def test_string_promotes_with_nothing(other):
    with pytest.raises(d.PromotionError, match="does not promote string"):
        d.promote_types("string", other)
    for p in d.Priority:
        with pytest.raises(d.PromotionError):
            d.result_type_of([(other, d.Priority.TENSOR), ("string", p)])
    assert d.is_lossless_cast("string", other) == d.is_lossless_cast(other, "string") == \
        (other == "string")


def test_values_are_numpy_strings_and_compare_as_numpy_does():
    t = kt.TensorType("string", (None,))
    x = np.array(["a", "é", "", "string1"], dtype=object)  # ONNX's form
    got = t.filter(x)
    assert got.dtype == d.NUMPY_STRING and got.tolist() == x.tolist()
    assert t.filter(["a", "b"]).tolist() == ["a", "b"]
    assert t.filter(np.array(["ab", "c"])).dtype == d.NUMPY_STRING  # NumPy's fixed-width str
    for bad in (np.array([b"a"], dtype=object), np.array([1], dtype=object), [1, "a"],
                np.arange(2)):
        with pytest.raises(TypeError):
            t.filter(bad)
    with pytest.raises(TypeError, match="strict"):
        t.filter(x, strict=True)
    with pytest.raises(TypeError):
        kt.TensorType("float64", (None,)).filter(x)
    y = np.array(["a", "x", "", "string1"], dtype=object)
    assert np.array_equal(np.equal(got, t.filter(y)), np.equal(x, y))  # NumPy on objects
    c = constant(np.array(["u", "v"], dtype=d.NUMPY_STRING))
    assert str(c.type) == "string[2]"


def test_a_dtype_variable_ranges_over_every_dtype_but_string():
    sig = kt.Signature.parse(EQUAL)
    s2, s1 = kt.TensorType("string", (2,)), kt.TensorType("string", (1,))
    assert [str(t) for t in sig.infer([s2, s1])] == ["bool[2]"]
    with pytest.raises(kt.TypeInferenceError, match="strings only where a where-clause"):
        kt.Signature.parse("(n):T->(n):T").infer([s2])
    D = var("D")
    # backwards: only the alternative that admits strings gives them
    assert len(kt.query("(n):T->(n):T", [var("X")], ["string[3]"])) == 0
    answers = kt.query(EQUAL, [kt.pattern(D, (2,)), kt.pattern(D, (2,))], ["bool[2]"])
    assert "string" in {a["D"] for a in answers}
    assert [a["D"] for a in kt.query(EQUAL, [kt.pattern(D, (2,)), "string[1]"],
                                     ["bool[2]"])] == ["string"]


@pytest.mark.parametrize("param", [{"dtype": "string"}])
def test_dtype_parameters_refuse_string(param):
    x = kt.tensor("x", "float32", (2,))
    for build in (lambda: x.astype(**param), lambda: kt.zeros((2,), **param),
                  lambda: kt.sum(x, **param)):
        with pytest.raises(ParamError, match="not a dtype to compute in"):
            build()


def _flat(value):
    return [t for v in value for t in (_flat(v) if isinstance(v, list) else [v])]


def _calls():
    """(label, Op bound to the example's parameters, input types, admits strings) for
    every example of the NumPy catalogue and of the ONNX entries."""
    for entry in load_all():
        for example in entry.examples:
            if "out" in example:
                yield entry.name, getattr(kt, entry.name), example, False
    for ops in registry().values():
        for o in ops:
            for example in o.entry.examples:
                if "out" in example:
                    yield o.entry.name, o.op, example, o.takes_strings


def test_only_an_entry_that_says_so_takes_a_string_input():
    tried = taken = 0
    for name, op, example, admits in _calls():
        params = _as_given(op, {k: v for k, v in example.items() if k not in ("in", "out")})
        types = [kt.TensorType.parse(t) for t in _flat(example["in"])]
        for i, t in enumerate(types):
            retyped = [*types[:i], t.clone(dtype="string"), *types[i + 1:]]
            try:
                bound = op.bind(**params) if isinstance(op, OpFamily) else op
                bound(*[u() for u in retyped], **({} if isinstance(op, OpFamily) else params))
            except (TypeError, ValueError, IndexError):
                continue
            finally:
                tried += 1
            taken += 1
            assert admits, f"{name} takes a string as input {i}: {retyped}"
    assert tried > 600 and 0 < taken < 20, (tried, taken)  # Equal, the text ops, LabelEncoder
