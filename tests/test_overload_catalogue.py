"""Every catalogue Op built on named sizes, judged at every small size by the same Op
built on ints (issues 32, 33): a build's type and conditions never say a wrong thing.

Each valid example of each entry of ``signatures/*.toml`` and ``signatures/onnx/*.toml``
has its sizes renamed (each int ``v`` a named size ``s{v}``, so sizes equal in the
example stay equal; and, one axis at a time, that axis alone renamed). At every
assignment of sizes 0..2 to the names:

* where the build's conditions hold, the Op built on those ints gives the build's type
  with the sizes put in (an unknown size matches any);
* where a condition that is a need (not an overload's choice) fails, the Op built on
  those ints refuses;
* where only a choice fails (``Source.otherwise``: a later alternative of another rank
  or dtype applies), the Op on ints gives another rank or dtype, the one the choice
  names.

``KANTENSOR_OVERLOAD_NAMES`` (default 3) caps the names per build.
"""

from __future__ import annotations

import itertools

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

import kantensor as kt
import kantensor.onnx as ko
import ortrun
import sizing
from differential import build, count
from kantensor.onnx.registry import registry
from kantensor.ops.catalogue import _as_given, load_all
from kantensor.types.conditions import AnyOf
from kantensor.types.symbols import substitute

MAX_NAMES = sizing.size("OVERLOAD_NAMES", 3, 6)
SIZES = range(3)


def _entries():
    """(entry, Op) of the NumPy catalogue and of the ONNX one (``signatures/onnx``)."""
    for entry in load_all():
        op = getattr(kt, entry.name, None)
        if op is not None:
            yield entry, op
    for ops in registry().values():
        for onnx_op in ops:
            if not onnx_op.structured:
                yield onnx_op.entry, onnx_op.op


def _examples():
    for entry, op in _entries():
        for example in entry.examples:
            if "out" not in example or any(isinstance(t, list) for t in example["in"]):
                continue
            params = _as_given(entry.spec, {k: v for k, v in example.items()
                                            if k not in ("in", "out")})
            types = [kt.TensorType.parse(t) for t in example["in"]]
            if all(isinstance(d, int) for t in types for d in t.shape):
                yield entry.name, op, params, types


def _renamings(types):
    """The example's types with every int renamed, and with one axis at a time renamed."""
    def named(v):
        return kt.Dim(f"s{v}")

    yield [kt.TensorType(t.dtype, tuple(named(d) for d in t.shape)) for t in types]
    for i, t in enumerate(types):
        for axis in range(t.ndim):
            shape = list(t.shape)
            shape[axis] = kt.Dim("z")
            yield [*types[:i], kt.TensorType(t.dtype, tuple(shape)), *types[i + 1:]]


def _holds(clause, sizes):
    try:
        return clause.holds(sizes)
    except ValueError:
        return None  # over a size that is no input: not judged here
    except ZeroDivisionError:
        return False  # as contracts take it (``3 % n == 0`` at n = 0)


def _is_choice(clause):
    cs = [x for case in clause.cases for x in case] if isinstance(clause, AnyOf) else [clause]
    return all(c.source is not None and c.source.otherwise for c in cs)


def test_catalogue_builds_agree_with_builds_on_ints():
    problems, choices, ops = [], set(), set()
    for name, op, params, types in _examples():
        for renamed in _renamings(types):
            made = build(op, params, renamed)
            if isinstance(made, Exception):
                continue
            _, outs = made
            if not outs or not all(isinstance(v.type, kt.TensorType) for v in outs):
                continue
            node = outs[0].owner
            conditions = node.conditions if node is not None else ()
            names = sorted({d.name for t in renamed for d in t.shape
                            if isinstance(d, kt.Dim)})
            if len(names) > MAX_NAMES:
                continue
            ops.add(name)
            for values in itertools.product(SIZES, repeat=len(names)):
                sizes = dict(zip(names, values, strict=True))
                concrete = [kt.TensorType(t.dtype, tuple(substitute(d, sizes) for d in t.shape))
                            for t in renamed]
                said = [_holds(c, sizes) for c in conditions]
                if None in said:
                    continue
                got = build(op, params, concrete)
                count("overload brute force: points")
                where = f"{name}{params} on {renamed} at {sizes}"
                if all(said):
                    want = [kt.TensorType(v.type.dtype, tuple(
                        None if d is None else substitute(d, sizes) for d in v.type.shape))
                        for v in outs]
                    if isinstance(got, Exception):
                        problems.append(f"{where}: conditions hold, refused: {got}")
                    elif any(g.type.ndim != w.ndim or g.type.dtype != w.dtype or any(
                            a is not None and a != b for a, b in zip(w.shape, g.type.shape,
                                                                     strict=True))
                            for g, w in zip(got[1], want, strict=True)):
                        problems.append(f"{where}: typed {want}, on ints "
                                        f"{[g.type for g in got[1]]}")
                    continue
                failing = [c for c, ok in zip(conditions, said, strict=True) if not ok]
                if all(_is_choice(c) for c in failing):
                    choices.add(name)
                    count("overload brute force: a choice fails")
                    if not isinstance(got, Exception) and all(
                            g.type.ndim == v.type.ndim and g.type.dtype == v.type.dtype
                            for g, v in zip(got[1], outs, strict=True)):
                        problems.append(f"{where}: a choice fails, but on ints the type is "
                                        f"the first alternative's rank and dtype")
                elif not isinstance(got, Exception):
                    problems.append(f"{where}: {failing[0]} fails, but on ints it builds to "
                                    f"{[g.type for g in got[1]]}")
    count("overload brute force: ops", len(ops))
    print(f"\noverloads: Ops whose builds on named sizes chose an alternative: {sorted(choices)}")
    assert not problems, f"{len(problems)} problems:\n" + "\n".join(problems[:10])
    assert "squeeze" in choices


def _quantize_model(op: str, zero: tuple | None) -> onnx.ModelProto:
    """``op(x: [2, n], scale: [z], zero point of shape ``zero``)`` (None: no zero point),
    opset 21, per axis 1."""
    x, y = (TensorProto.FLOAT, TensorProto.UINT8)[::1 if op == "QuantizeLinear" else -1]
    inputs = [helper.make_tensor_value_info("x", x, [2, "n"]),
              helper.make_tensor_value_info("s", TensorProto.FLOAT, ["z"])]
    if zero is not None:
        inputs.append(helper.make_tensor_value_info("zp", TensorProto.UINT8, list(zero)))
    node = helper.make_node(op, [i.name for i in inputs], ["y"], name="q")
    graph = helper.make_graph([node], "g", inputs,
                              [helper.make_tensor_value_info("y", y, None)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])


@pytest.mark.parametrize("op", ["QuantizeLinear", "DequantizeLinear"])
@pytest.mark.parametrize("zero", [None, ("z",), ()], ids=["none", "per-axis", "scalar"])
def test_a_per_axis_scale_of_a_named_size_is_one_or_the_axis(op, zero):
    """The brute force above found it: a 1-D scale of a named size was typed as the
    axis's size only (``z == n``), so the contract refused ``z = 1``, which onnxruntime
    runs; a zero point of no axes needs ``z == 1``. Judged by onnxruntime at n, z in
    0..3."""
    model = _quantize_model(op, zero)
    c = ko.contract(model)
    dtype = np.float32 if op == "QuantizeLinear" else np.uint8
    for n, z in itertools.product(range(4), repeat=2):
        feeds = {"x": np.ones((2, n), dtype), "s": np.ones(z, np.float32)}
        if zero is not None:
            feeds["zp"] = np.zeros((z,) if zero else (), np.uint8)
        ran = not isinstance(ortrun.run(model, feeds), ortrun.Refusal)
        assert c.holds(n=n, z=z).value is ran, (n, z, ran)
