"""Ops with parameters: call conventions, parameter kinds, template signatures,
OpFamily / TemplateOp, methods, and the catalogue fields that declare them."""

from __future__ import annotations

import inspect
import itertools
import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import kantensor as kt
from kantensor.ops import callspec
from kantensor.ops.callspec import CallSpec, Param, _in_order
from kantensor.ops.catalogue import CatalogueError, load_file
from kantensor.ops.family import OpFamily
from kantensor.ops.params import (
    AxisError,
    ParamError,
    normalize_axes,
    normalize_axis,
)
from kantensor.ops.templateop import TemplateOp, placeholders
from kantensor.query import pattern, query, var
from kantensor.types.dtypes import DTYPES, is_integer, is_unsigned

# --------------------------------------------------------------------------- call specs


def test_call_spec_splits_tensors_and_parameters():
    spec = CallSpec("x, axis: axes = None, keepdims: bool = False", "sum")
    tensors, params = spec.bind((1,), {"axis": -1})
    assert tensors == [1] and params == {"axis": -1, "keepdims": False}
    assert spec.param_names == ("axis", "keepdims")
    assert str(spec.signature) == "(x, axis=None, keepdims=False)"


def test_call_spec_sequences_varargs_and_choices():
    spec = CallSpec("arrays: tensors, axis: axis = 0", "concatenate")
    assert spec.bind(([1, 2, 3],), {})[0] == [1, 2, 3]
    spec = CallSpec("subscripts: str, *operands", "einsum")
    assert spec.bind(("ij,jk", 1, 2), {}) == ([1, 2], {"subscripts": "ij,jk"})
    spec = CallSpec('a, v, mode: "full|same|valid" = "full"', "convolve")
    assert spec.bind((1, 2), {"mode": "same"})[1] == {"mode": "same"}
    with pytest.raises(ParamError, match=r"convolve: parameter mode: expected one of "
                                         r"'full', 'same', 'valid', got 'odd'"):
        spec.bind((1, 2), {"mode": "odd"})


@pytest.mark.parametrize("text", [
    "X, W, *B, strides: axes = None, group: int = 1",  # ONNX Conv's shape
    "*inputs, axis: int",  # ONNX Concat's
    "subscripts: str, *operands",
    "x, *rest, k: int = 0, m: int",
    "x, axis: axes = None, keepdims: bool = False",
])
def test_bind_plans_bind_as_inspect_does(text):
    """Every call of up to 4 positional arguments and any keywords (known, unknown, the
    ``*`` name's): the planned bind gives inspect's binding, or its TypeError."""
    spec = CallSpec(text, "op")
    names = [p.name for p in spec.params] + ["other"]
    values = {"axis": 1, "strides": (1, 1), "group": 2, "k": 3, "m": 4, "keepdims": True,
              "subscripts": "ij"}
    checked = 0
    for n in range(5):
        for r in range(3):
            for keys in itertools.combinations(names, r):
                args = tuple(values.get(spec.params[i].name, f"t{i}")
                             if i < len(spec.params) else f"t{i}" for i in range(n))
                kwargs = {k: values.get(k, f"k_{k}") for k in keys}
                try:
                    bound = spec.signature.bind(*args, **kwargs)
                except TypeError:
                    with pytest.raises(TypeError):
                        spec.bind(args, kwargs)
                    continue
                bound.apply_defaults()
                want_tensors, want_params = [], {}
                for p in spec.params:
                    value = bound.arguments[p.name]
                    if p.kind == "tensor":
                        want_tensors.append(value)
                    elif p.kind == "*tensors":
                        want_tensors.extend(value)
                    else:
                        want_params[p.name] = p.normalise(value, "op")
                try:
                    got = spec.bind(args, kwargs)
                except (TypeError, ParamError):  # a value its kind refuses (t0 as an int)
                    with pytest.raises((TypeError, ParamError)):
                        [p.normalise(bound.arguments[p.name], "op") for p in spec.params
                         if not p.is_tensor]
                    continue
                assert got == (want_tensors, want_params), (args, kwargs)
                checked += 1
    assert checked >= 5
    planned = [shape for shape, plan in spec._plans.items() if plan is not None]
    assert len(planned) >= 5  # most calls bound by plans, not by inspect


@pytest.mark.parametrize("text, message", [
    ("x, axis: axle = 0", "parameter axis has an unknown kind 'axle'"),
    ("x, axis: axis = f()", "the default of axis must be a literal or one of UNSET, got f()"),
    ("x, axis: axis = unset", "the default of axis must be a literal or one of UNSET, got "
                              "unset"),
    ("x = 1", "tensor x cannot have a default"),
    ("x, *rest: int", "*rest takes tensors; it cannot be annotated"),
    ("x, /, y", "'/' and '**' are not supported"),
    ("x, x", "call 'x, x': a name is used twice"),
    ("x, axis: axis = 'a'", "sum: parameter axis: expected an int, got 'a'"),
    ("x,,", "is not a Python parameter list"),
])
def test_call_spec_errors(text, message):
    with pytest.raises(ParamError, match=message.replace("(", r"\(").replace(")", r"\)")
                       .replace("*", r"\*")):
        CallSpec(text, "sum")


PARAMS = st.builds(
    lambda name, kind, keyword_only, default: Param(
        name, kind, inspect.Parameter.empty if default is None else default, (),
        keyword_only),
    st.sampled_from(["x", "y", "axis", "for", "a b", "_"]),
    st.sampled_from(["tensor", "*tensors", "int"]), st.booleans(), st.sampled_from([None, 0]))


@settings(max_examples=400, deadline=None)
@given(st.lists(PARAMS, max_size=5, unique_by=lambda p: p.name))
def test_a_call_in_order_is_one_inspect_takes(params):
    """A CallSpec makes its inspect.Signature when first asked; _in_order, checked at
    once in its stead, takes the parameters inspect takes, but two ``*name`` (which
    inspect takes and Python's grammar does not): a shipped call form is not parsed."""
    kinds = {"*tensors": inspect.Parameter.VAR_POSITIONAL}
    try:
        inspect.Signature([inspect.Parameter(
            p.name, kinds.get(p.kind, inspect.Parameter.KEYWORD_ONLY if p.keyword_only
                              else inspect.Parameter.POSITIONAL_OR_KEYWORD), default=p.default)
            for p in params])
        taken = True
    except ValueError:
        taken = False
    twice = sum(p.kind == "*tensors" for p in params) > 1
    assert _in_order(params) == (taken and not twice), params


def test_a_shipped_call_out_of_order_is_refused_as_inspect_words_it(monkeypatch):
    text = "x, axis: int = 0, y"  # (not Python: only a shipped form can say it)
    monkeypatch.setitem(callspec._SHIPPED, text, json.dumps(
        [["x", "tensor", [], False], ["axis", "int", [], False, 0], ["y", "tensor", [], False]]))
    with pytest.raises(ParamError, match="non-default argument follows default argument"):
        CallSpec(text, "sum")
    text = "*x, *y"
    monkeypatch.setitem(callspec._SHIPPED, text, json.dumps(
        [["x", "*tensors", [], False], ["y", "*tensors", [], False]]))
    with pytest.raises(ParamError, match=r"more than one \*name"):
        CallSpec(text, "sum")


def test_bind_errors_name_the_op_and_its_call():
    spec = CallSpec("x, axis: axis_tuple = None", "sum")
    with pytest.raises(TypeError, match=r"sum\(x, axis: axis_tuple = None\): missing a "
                                        r"required argument: 'x'"):
        spec.bind((), {})
    with pytest.raises(ParamError, match=r"sum: parameter axis: expected None, an int or a "
                                         r"tuple of ints, got 1.5"):
        spec.bind((1,), {"axis": 1.5})
    with pytest.raises(TypeError, match="sum: unknown parameter axes; expected axis"):
        spec.normalise({"axes": 1})


# --------------------------------------------------------------------------- kinds


@pytest.mark.parametrize("kind, value, expected", [
    ("axes", None, None), ("axes", 1, 1), ("axes", [1, -1], (1, -1)),
    ("axes", np.int64(2), 2), ("axes", (1,), (1,)), ("axis_tuple", (1, -1), (1, -1)),
    ("axis_tuple", None, None), ("axis_tuple", -1, -1), ("axis_tuple", (), ()),
    ("ints", 3, (3,)), ("ints", (2, -1), (2, -1)),
    ("maybe_axis", None, None), ("bool", np.True_, True), ("dtype", "f4", "float32"),
    ("dtype", np.float64, "float64"), ("number", np.float32(1.5), 1.5),
    ("pad_width", 2, ((2, 2),)), ("pad_width", (1, 2), ((1, 2),)),
    ("pad_width", ((1, 2), (0, 3)), ((1, 2), (0, 3))),
    ("index", (slice(1, 5), slice(None, None, 2), None, 3, ...),
     (("slice", 1, 5, None), ("slice", None, None, 2), None, 3, Ellipsis)),
    ("index", 2, (2,)),
])
def test_kinds_normalise(kind, value, expected):
    spec = CallSpec(f"x, p: {kind}", "op")
    assert spec.bind((0, value), {})[1] == {"p": expected}


@pytest.mark.parametrize("kind, value, message", [
    ("int", True, "expected an int, got True"),
    ("bool", 1, "expected True or False, got 1"),
    ("axis_tuple", [0], r"tuple of ints, got \[0\] \(NumPy takes a tuple here, not a list\)"),
    ("axis_tuple", (0, 1.5), "expected None, an int or a tuple of ints, got 1.5"),
    ("axes", "01", "expected None, an int or a sequence of ints, got '01'"),
    ("dtype", "float7", "float7"),
    ("pad_width", (-1, 2), "pad widths must be non-negative"),
    ("index", (slice(0, 3, 0),), "slice step cannot be zero"),
    ("index", (..., 1, ...), "an index can only have a single ellipsis"),
    ("index", ([0, 1],), "only basic indexing is supported"),
    ("index", (kt.vector("i", "int64"),), "only basic indexing is supported"),
])
def test_kinds_reject(kind, value, message):
    spec = CallSpec(f"x, p: {kind}", "op")
    with pytest.raises(ParamError, match=message):
        spec.bind((0, value), {})


def test_axis_normalisation():
    assert normalize_axis(-1, 3) == 2
    assert normalize_axes((2, -3), 3) == (0, 2)
    assert normalize_axes(None, 2) == (0, 1)
    with pytest.raises(AxisError, match="axis -4 is out of bounds for a tensor of dimension 3"):
        normalize_axis(-4, 3)
    with pytest.raises(AxisError, match=r"repeated axis in \(1, -2\)"):
        normalize_axes((1, -2), 3)
    assert issubclass(AxisError, IndexError) and issubclass(AxisError, ValueError)


# --------------------------------------------------------------------------- ops


def test_family_binds_and_caches_ops():
    op = kt.prod.bind(axis=1)
    assert isinstance(kt.prod, OpFamily) and isinstance(op, TemplateOp)
    assert op is kt.prod.bind(axis=1, keepdims=False)
    alike = TemplateOp("prod", op.template, op.impl, op.compute, None,
                       {"axis": 1, "keepdims": False, "dtype": None}, op.builder)
    assert op != alike and op.lowering == {"dask": "reduction"}  # (computed otherwise)
    alike.lowering = op.lowering
    assert op == alike and hash(op) == hash(alike)
    assert str(op) == "prod{axis=1, keepdims=False, dtype=None}"
    assert repr(kt.prod) == ("<kantensor op prod(x, axis: axis_tuple = None, keepdims: bool = "
                             "False, *, dtype: maybe_dtype = None)>")
    assert kt.prod.__doc__.startswith("Product over axis")


def test_the_applied_op_has_resolved_parameters():
    x = kt.tensor("x", "float32", (2, 3, kt.Dim("n")))
    y = kt.sum(x, axis=(-1, 0))
    assert str(y.owner.op) == "sum{axis=(0, 2), keepdims=False, dtype=None}"
    assert str(y.type) == "float32[3]"
    sig, op = kt.sum.bind(axis=-1).signature_for((x.type,))
    assert str(sig).startswith("(a0,a1,a2):t->(a0,a1):int64 where t in signed")
    assert op is y.owner.op or op == kt.sum.bind(axis=(2,))


def test_template_ops_run_and_methods_dispatch():
    x = kt.matrix("x", "int8", shape=(2, None))
    f = kt.function([x], [x.sum(axis=0), x.sum()], check=True)
    a = np.arange(6, dtype="int8").reshape(2, 3)
    got = f(a)
    assert [g.dtype for g in got] == [np.int64, np.int64]
    assert got[0].tolist() == a.sum(axis=0).tolist() and got[1] == 15
    with pytest.raises(AttributeError, match="'TensorVariable' object has no attribute "
                                             "'summ'"):
        x.summ()


def test_placeholders():
    assert placeholders("{x}:t->{y}:{dtype}{where}") == {"x", "y", "dtype", "where"}
    assert placeholders("(n)->()") == set()


def test_query_a_template_op():
    d = var("d")
    sols = query(kt.sum.bind(axis=1), [pattern(d, (2, 3))], ["uint64[2]"])
    # sum's rule: every unsigned integer (the low-precision ones too) accumulates in uint64
    assert sorted(s["d"] for s in sols) == sorted(t for t in DTYPES if is_unsigned(t))
    # an unknown rank is enumerated: sum over every axis of any rank up to max_rank
    sols = query(kt.sum, [var("X")], ["int64[]"], max_rank=2)
    ranks = {len(s["X"].shape) for s in sols}
    assert ranks == {0, 1, 2}
    assert {s["X"].dtype for s in sols} == {"bool"} | {
        t for t in DTYPES if is_integer(t) and not is_unsigned(t)}


# --------------------------------------------------------------------------- catalogue

ENTRY = '''
[[op]]
name = "total"
call = "x, axis: axes = None, keepdims: bool = False"
signature = "{x}:t->{y}:t"
builder = "kantensor.ops.families.reductions.reduce_strict"
impl = "numpy.sum"
examples = [{ in = ["float32[2,3]"], axis = 0, out = "float32[3]" }]
'''


def test_a_catalogue_entry_with_parameters():
    (entry,) = load_file("mine.toml", ENTRY)
    assert entry.is_template and entry.run_examples() == 1
    total = entry.make_op()
    x = kt.matrix("x", "float32", shape=(2, 3))
    assert str(total(x, axis=1).type) == "float32[2]"


@pytest.mark.parametrize("change, message", [
    (("{y}:t", "{y}:{dtype}"),
     "ValueError: total: template placeholder dtype filled by neither a parameter nor"),
    (("builder = ", "# "), "signature placeholders x, y name no parameter"),
    (('call = "x, axis: axes = None, keepdims: bool = False"\n', ""),
     "a template signature needs a call"),
    (("examples = [", "# "), "needs at least one example"),
    (("axis: axes", "axis: axle"), "parameter axis has an unknown kind 'axle'"),
    (("out = \"float32[3]\"", "out = \"float32[2]\""),
     "example 1: expected float32[2], got float32[3]"),
    (("axis = 0, out = \"float32[3]\"", "axis = 2, error = \"repeated\""),
     "example 1: AxisError: total: axis 2 is out of bounds"),
    (("out = \"float32[3]\"", "error = \"out of bounds\""),
     "example 1: expected an error containing 'out of bounds', got"),
    (("reductions.reduce_strict", "reductions.nothing"), "builder: cannot import"),
])
def test_catalogue_errors_for_parameters(change, message):
    text = ENTRY.replace(*change)
    with pytest.raises(CatalogueError, match=r"mine.toml: op #1 \(total\)") as info:
        for entry in load_file("mine.toml", text):
            entry.run_examples()
    assert message in str(info.value)


def test_normalised_index_is_accepted_again():
    spec = CallSpec("x, index: index", "getitem")
    index = spec.bind((0, (slice(1, None), None, 2)), {})[1]["index"]
    assert spec.bind((0, index), {})[1]["index"] == index


def test_iterating_over_a_tensor():
    a, b = kt.tensor("v", "int8", (2, 3))
    assert str(a.type) == "int8[3]" and str(b.owner.op) == "getitem{index=(1,)}"
    for x in (kt.tensor("w", "int8", (None, 3)), kt.scalar("s")):
        with pytest.raises(TypeError, match="cannot iterate over a tensor of type"):
            list(x)


def test_reshape_and_transpose_methods_take_separate_ints():
    x = kt.tensor("x", "float32", (2, 3, 4))
    assert x.reshape(4, -1).type == x.reshape((4, -1)).type == kt.TensorType("float32", (4, 6))
    assert x.transpose(2, 0, 1).owner.op == kt.transpose(x, (2, 0, 1)).owner.op
    assert str(x.transpose(2, 0, 1).type) == "float32[4,2,3]"
    # ndarray.sum's second positional is dtype, as in NumPy (which refuses True there)
    assert str(x.sum(0, None, None, True).type) == "float32[1,3,4]"
    with pytest.raises(ParamError, match="parameter dtype: unsupported dtype True"):
        x.sum(0, True)
    with pytest.raises(TypeError, match="Cannot interpret 'True' as a data type"):
        np.ones((2, 3, 4), np.float32).sum(0, True)


def test_index_parameters_print_like_python():
    t = kt.tensor("t", "int8", (4, None, 3))
    assert str(t[1:, None, ::2].owner.op) == "getitem{index=(1:, None, ::2)}"
    assert str(t[-2::-1, 0].owner.op) == "getitem{index=(-2::-1, 0)}"
