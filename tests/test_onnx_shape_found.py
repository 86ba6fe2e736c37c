"""Wrong answers the shape-arithmetic differential harness found
(tests/test_onnx_shape_differential.py), each minimised to a small model and judged the
same way: every value's type (named sizes replaced) is onnxruntime's shape or unknown,
and the contract holds exactly where onnxruntime runs, at sizes from 0."""

from __future__ import annotations

import itertools

import numpy as np
from onnx import TensorProto, helper, numpy_helper

import kantensor.onnx as ko
from test_onnx_shape_differential import check, typed

BIG = 2**63 - 1


def _model(nodes, names, consts):
    inits = [numpy_helper.from_array(np.array(v, np.int64), k) for k, v in consts.items()]
    kinds = {"i": TensorProto.INT64, "j": TensorProto.INT32, "b": TensorProto.BOOL}  # by
    # the name's first letter
    outputs = [helper.make_tensor_value_info(o, kinds.get(o[0], TensorProto.FLOAT), None)
               for n in nodes for o in n.output]
    graph = helper.make_graph(nodes, "found", [helper.make_tensor_value_info(
        "x", TensorProto.FLOAT, list(names))], outputs, inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])


def _judged(model, names, points):
    stats: dict[str, int] = {}
    problems: list[str] = []
    check(model, names, [dict(zip(names, p, strict=True)) for p in points], stats, problems)
    assert not problems, "\n".join(problems)
    return stats


def _sizes(names):
    return [helper.make_node("Shape", ["x"], ["i_shape"]),
            helper.make_node("Gather", ["i_shape", "zero"], ["i_n"], axis=0),
            helper.make_node("Unsqueeze", ["i_n", "axis0"], ["i_n1"])]


def test_a_slice_bound_past_the_walks_end_empties_the_axis():
    """Slice bounds of INT64_MAX/MIN were all read as omitted: a start of INT64_MAX
    (or an end of INT64_MIN) with a positive step is past the axis's end (before its
    start): the axis is empty, where the slice was typed whole (``N``)."""
    points = [(0, 2), (1, 3), (3, 1), (2, 0)]
    for starts, ends in (("big", "big"), ("zero1", "small"), ("big", "i_n1")):
        nodes = _sizes("NS") + [helper.make_node("Slice", ["x", starts, ends, "axis0"],
                                                 ["y"])]
        model = _model(nodes, "NS", {"zero": 0, "axis0": [0], "zero1": [0], "big": [BIG],
                                     "small": [-BIG]})
        stats = _judged(model, "NS", points)
        assert stats["values exact"] == 4 * len(nodes), (starts, ends, stats)


def test_a_slice_bound_not_known_is_no_omitted_one():
    """An entry of a Slice's starts or ends whose value is not known (a size cast to
    int32 and back is not folded) was read as omitted: ``x[N:]`` typed whole (``N``)
    where it is empty. It is unknown now; and ``Abs`` of the size, folded (``N``),
    empties the axis."""
    nodes = _sizes("NS") + [
        helper.make_node("Cast", ["i_n1"], ["j_32"], to=TensorProto.INT32),
        helper.make_node("Cast", ["j_32"], ["i_back"], to=TensorProto.INT64),
        helper.make_node("Slice", ["x", "i_back", "big", "axis0"], ["y"])]
    model = _model(nodes, "NS", {"zero": 0, "axis0": [0], "big": [BIG]})
    shape = typed(model)[0][-1]
    assert shape[0] is None or not isinstance(shape[0], int) and str(shape[0]) != "N"
    stats = _judged(model, "NS", [(0, 2), (1, 3), (3, 1), (2, 0)])
    assert stats["contract agreed"] == 4 and stats["values unknown"] == 4, stats
    nodes = _sizes("NS") + [helper.make_node("Abs", ["i_n1"], ["i_abs"]),
                            helper.make_node("Slice", ["x", "i_abs", "big", "axis0"], ["y"])]
    model = _model(nodes, "NS", {"zero": 0, "axis0": [0], "big": [BIG]})
    assert typed(model)[0][-1][0] == 0
    stats = _judged(model, "NS", [(0, 2), (1, 3), (3, 1), (2, 0)])
    assert stats["values exact"] == 4 * len(nodes), stats


def test_slice_lengths_at_every_bound_and_step_are_onnxruntimes_or_unknown():
    """Slice typed at n = 0..4 and at a named n, for starts and ends from INT64_MIN to
    INT64_MAX and steps of both signs (one model, a node for each), against
    onnxruntime's lengths. ONNX starts a negative walk from below ``-n`` at index 0 where
    Python takes nothing (x[-9::-1] of 4 entries was typed 0, onnxruntime gives 1);
    onnxruntime reads an end of INT32_MAX or INT64_MAX with a negative step as running
    through index 0 (x[-1:INT64_MAX:-1] of 4 is 4 there, 0 by the spec and
    onnx.reference): unknown."""
    small = 2**31 - 1
    values = [-BIG - 1, -BIG, -5, -2, -1, 0, 3, small, BIG]
    nodes, consts = [], {"a": [0]}
    for k, (b, e, s) in enumerate(itertools.product(values, values, (1, 2, -1, -2))):
        consts.update({f"s{k}": [b], f"e{k}": [e], f"t{k}": [s]})
        nodes.append(helper.make_node("Slice", ["x", f"s{k}", f"e{k}", "a", f"t{k}"],
                                      [f"y{k}"]))
    model = _model(nodes, "n", consts)
    stats = _judged(model, "n", [(n,) for n in range(5)])
    assert stats["values exact"] > 2 * stats["values unknown"], stats


def test_a_reshape_of_a_divided_size_is_typed():
    """``Reshape(Reshape(x[N, S], [-1, S, S]), [S])``: the second Reshape asked whether
    its input's size ``N//S`` is 0 where ``S`` is, by putting ``S = 0`` into it, and the
    import raised ZeroDivisionError. A size undefined there is not shown 0."""
    nodes = [helper.make_node("Shape", ["x"], ["i_shape"], start=-1),
             helper.make_node("Gather", ["i_shape", "zero"], ["i_s"], axis=0),
             helper.make_node("Unsqueeze", ["i_s", "axis0"], ["i_s1"]),
             helper.make_node("Concat", ["minus1", "i_s1", "i_s1"], ["i_target"], axis=0),
             helper.make_node("Reshape", ["x", "i_target"], ["y"]),
             helper.make_node("Reshape", ["y", "i_shape"], ["z"])]
    model = _model(nodes, "NS", {"zero": 0, "axis0": [0], "minus1": [-1]})
    stats = _judged(model, "NS", [(0, 2), (4, 2), (2, 0), (1, 1), (0, 1), (2, 1)])
    assert stats["onnxruntime ran"] == 1 and stats["contract agreed"] == 6, stats


def test_a_reshape_to_a_shape_not_known_leaves_the_contract_undecided():
    """``Reshape(x[N, S], [N, 0, int32(N)])``: a size cast to int32 and back is not
    folded, so the shape is not known when the model is read. The contract said every
    size valid (the Reshape stated nothing) where onnxruntime refuses most of them; it
    says undecided now, in a note naming the node."""
    nodes = _sizes("NS") + [
        helper.make_node("Cast", ["i_n"], ["j_n"], to=TensorProto.INT32),
        helper.make_node("Cast", ["j_n"], ["i_back"], to=TensorProto.INT64),
        helper.make_node("Unsqueeze", ["i_back", "axis0"], ["i_back1"]),
        helper.make_node("Concat", ["i_n1", "zero1", "i_back1"], ["i_target"], axis=0),
        helper.make_node("Reshape", ["x", "i_target"], ["y"], name="reshape_y")]
    model = _model(nodes, "NS", {"zero": 0, "axis0": [0], "zero1": [0]})
    contract = ko.contract(model)
    notes = " ".join(contract.notes)
    assert "'reshape_y' (Reshape): its shape is computed from sizes but not known" in notes
    stats = _judged(model, "NS", [(2, 3), (3, 2), (0, 1), (1, 1), (1, 0)])
    assert stats["contract undecided"] == 5 and stats["onnxruntime refused"] == 3, stats


def test_a_size_entry_that_may_be_negative_is_a_condition():
    """``Shape(x) % -2`` is ``-(N % 2)``: negative where N is odd. ConstantOfShape,
    Expand and Tile of it were typed with that size and no condition (the contract said
    every size valid); each needs the entry ``>= 0`` now, as onnxruntime does."""
    points = [(2, 4), (3, 2), (0, 1), (1, 0), (4, 6), (6, 3)]
    for op in ("ConstantOfShape", "Expand", "Tile"):
        nodes = [helper.make_node("Shape", ["x"], ["i_shape"]),
                 helper.make_node("Mod", ["i_shape", "minus2"], ["i_mod"], fmod=0),
                 helper.make_node(op, [] if op == "ConstantOfShape" else ["x"], ["y"])]
        nodes[-1].input.append("i_mod")
        model = _model(nodes, "NS", {"minus2": -2})
        stats = _judged(model, "NS", points)
        assert stats["contract agreed"] == len(points), (op, stats)
        assert stats["onnxruntime refused"] >= 4, (op, stats)  # N or S odd, and more


def test_a_reshape_with_allowzero_of_a_zero_and_a_minus_one_is_invalid_by_the_spec():
    """``Reshape(x, [0, -1], allowzero=1)``: ONNX calls a shape with both a 0 and a -1
    invalid under allowzero, and onnx.reference refuses it; onnxruntime runs it. The
    model is refused (a point is valid where both run it), and the harness counts such
    points apart."""
    nodes = [helper.make_node("Shape", ["x"], ["i_shape"]),  # [0, -1], computed: a
             helper.make_node("Mul", ["i_shape", "zeros"], ["i_zeros"]),  # constant one
             helper.make_node("Add", ["i_zeros", "shape"], ["i_target"]),  # onnxruntime
             helper.make_node("Reshape", ["x", "i_target"], ["y"], allowzero=1)]  # refuses
    model = _model(nodes, "NS", {"shape": [0, -1], "zeros": [0, 0]})  # when it loads
    assert typed(model)[0] is None
    stats = _judged(model, "NS", [(2, 3), (2, 0)])
    spec = "model refused, invalid by the spec (onnx.reference), run by onnxruntime"
    assert stats.get(spec) == 1 and stats["onnxruntime refused"] == 1, stats


def test_a_reshape_entry_that_falls_as_its_size_grows_is_typed():
    """``Reshape(x[N], [2 - N] * 3)``: asking whether the entry ``2 - N`` is a monomial
    in N (0 only where N is), its value at N = 2 (0) passed as a power of two, the
    builder made ``N**-1`` and compared a symbolic value: the import raised TypeError."""
    nodes = [helper.make_node("Size", ["x"], ["i_n"]),
             helper.make_node("Sub", ["two", "i_n"], ["i_d"]),
             helper.make_node("Unsqueeze", ["i_d", "axis0"], ["i_d1"]),
             helper.make_node("Concat", ["i_d1", "i_d1", "i_d1"], ["i_target"], axis=0),
             helper.make_node("Reshape", ["x", "i_target"], ["y"])]
    model = _model(nodes, "N", {"two": 2, "axis0": [0]})
    stats = _judged(model, "N", [(n,) for n in range(5)])  # N >= 3: negative, a choice
    assert stats["onnxruntime ran"] == 1 and stats["contract agreed"] == 3, stats


def test_a_reshape_entry_of_either_sign_is_a_choice():
    """``Reshape(x[N, S], [-N])``: at N = 1 the entry is -1 (inferred: S), at N >= 2 it
    is refused, at N = 0 it copies N. It was read as a size with a volume condition,
    ``N*S == N**2``: invalid at N = 1 where onnxruntime runs. The entry's sign is a
    choice now: the sizes where it is negative are not covered."""
    nodes = [helper.make_node("Shape", ["x"], ["i_shape"]),
             helper.make_node("Neg", ["i_shape"], ["i_neg"]),
             helper.make_node("Gather", ["i_neg", "first"], ["i_target"], axis=0),
             helper.make_node("Reshape", ["x", "i_target"], ["y"])]
    model = _model(nodes, "NS", {"first": [0]})
    stats = _judged(model, "NS", [(1, 0), (1, 2), (2, 2), (0, 3), (3, 1)])
    assert stats["contract agreed"] == 1 and stats["contract undecided"] == 4, stats


def test_a_choice_is_no_fact_that_refuses_a_later_node():
    """``x[N:-N]`` reads its end as counting from the end, a choice (``N >= 1``), which
    was a fact for every later node: ``Reshape(Pad(x, [N, 0]), Shape(x))`` needs
    ``2*N == N``, false under it, and the whole model was refused where onnxruntime runs
    it at N = 0. A choice is no fact now (the Reshape needs ``N == 0``)."""
    nodes = _sizes("N") + [helper.make_node("Neg", ["i_n1"], ["i_neg"]),
                           helper.make_node("Slice", ["x", "i_n1", "i_neg"], ["y"]),
                           helper.make_node("Concat", ["i_n1", "zero1"], ["i_pads"], axis=0),
                           helper.make_node("Pad", ["x", "i_pads"], ["padded"]),
                           helper.make_node("Reshape", ["padded", "i_shape"], ["z"])]
    model = _model(nodes, "N", {"zero": 0, "axis0": [0], "zero1": [0]})
    stats = _judged(model, "N", [(n,) for n in range(4)])
    assert stats["onnxruntime ran"] == 1 and stats["contract agreed"] == 3, stats  # N = 0:
    # not covered (the slice's choice fails there)


def test_a_reshape_to_an_ifs_size_leaves_the_contract_undecided():
    """``Reshape(x[N, S], [If(N >= int32(N)) then S else N, 0])``: the If's value is
    computed from sizes alone but not known when the model is read; a node with
    subgraphs was never taken for one computed from sizes, so the contract said every
    size valid where onnxruntime refuses all but the volume's."""
    branches = [helper.make_graph([helper.make_node("Identity", [src], [f"i_out{k}"])],
                                  f"b{k}", [], [helper.make_tensor_value_info(
                                      f"i_out{k}", TensorProto.INT64, None)])
                for k, src in enumerate(("i_s", "i_n"))]
    nodes = _sizes("NS") + [
        helper.make_node("Gather", ["i_shape", "one"], ["i_s"], axis=0),
        helper.make_node("Cast", ["i_n"], ["j_n"], to=TensorProto.INT32),
        helper.make_node("Cast", ["j_n"], ["i_back"], to=TensorProto.INT64),
        helper.make_node("GreaterOrEqual", ["i_n", "i_back"], ["b_cond"]),
        helper.make_node("If", ["b_cond"], ["i_pick"], then_branch=branches[0],
                         else_branch=branches[1]),
        helper.make_node("Unsqueeze", ["i_pick", "axis0"], ["i_pick1"]),
        helper.make_node("Concat", ["i_pick1", "zero1"], ["i_target"], axis=0),
        helper.make_node("Reshape", ["x", "i_target"], ["y"], name="reshape_y")]
    model = _model(nodes, "NS", {"zero": 0, "one": 1, "axis0": [0], "zero1": [0]})
    stats = _judged(model, "NS", [(2, 3), (1, 4), (0, 2), (3, 1), (2, 0)])
    assert stats["contract undecided"] == 5 and stats["onnxruntime ran"] == 1, stats


def test_a_choice_the_facts_refute_takes_the_other_reading():
    """``Reshape(x[N, S], [0], allowzero=1)`` makes ``N*S == 0`` a fact; the Slice
    ``x[-N*S:N*S]`` after it read its start as counting from the end, a choice (``N*S >=
    1``) the fact refutes: the build found no solution and the whole model was refused,
    where onnxruntime runs it (at every size where ``N*S == 0``). The start is read as the
    other sign there (``-N*S >= 0``): the slice is empty."""
    nodes = [helper.make_node("Reshape", ["x", "zero1"], ["r"], allowzero=1),
             helper.make_node("Shape", ["x"], ["i_shape"]),
             helper.make_node("ReduceProd", ["i_shape"], ["i_count"], keepdims=1),
             helper.make_node("Neg", ["i_count"], ["i_neg"]),
             helper.make_node("Slice", ["x", "i_neg", "i_count", "zero1"], ["y"])]
    model = _model(nodes, "NS", {"zero1": [0]})
    stats = _judged(model, "NS", [(0, 3), (2, 0), (0, 0), (1, 2), (3, 4)])
    assert stats["onnxruntime ran"] == 3 and stats["contract agreed"] == 5, stats


def test_a_reshape_entry_whose_choice_fails_at_every_size_is_minus_one():
    """``Reshape(x[N, S], [-N - 1])``: the entry was read as a size under the choice
    ``-N - 1 >= 0``, false at every size: the build found no solution and the model was
    refused, where onnxruntime runs it at N = 0 (the entry is -1, inferred). A later
    alternative reads it as -1 (a need, ``N == 0``): valid there only, as onnxruntime."""
    nodes = _sizes("NS") + [helper.make_node("Neg", ["i_n1"], ["i_neg"]),
                            helper.make_node("Sub", ["i_neg", "one1"], ["i_target"]),
                            helper.make_node("Reshape", ["x", "i_target"], ["y"])]
    model = _model(nodes, "NS", {"zero": 0, "axis0": [0], "one1": [1]})
    stats = _judged(model, "NS", [(0, 3), (0, 0), (1, 2), (2, 1), (3, 0)])
    assert stats["onnxruntime ran"] == 2 and stats["contract agreed"] == 5, stats


def test_an_untyped_value_where_onnxruntime_and_the_spec_differ_is_counted_apart():
    """``ConstantOfShape(Slice(Shape(x), [-INT64_MAX], [INT64_MAX], [0], [-1]))`` (seeds
    7006 and 7007 of the long run): onnxruntime walks that Slice through index 0 (its
    shape [1], a 1-d output) where the spec and onnx.reference take nothing (a scalar).
    The Slice's length is unknown, so ConstantOfShape's rank is, and the value is left
    untyped (NotKnown, no invalid model): the harness counts it apart instead of as a
    refusal where onnxruntime runs it."""
    nodes = [helper.make_node("Shape", ["x"], ["i_shape"]),
             helper.make_node("Slice", ["i_shape", "low", "big", "axis0", "back"], ["i_s"]),
             helper.make_node("ConstantOfShape", ["i_s"], ["y"])]
    model = _model(nodes, "NS", {"low": [-BIG], "big": [BIG], "axis0": [0], "back": [-1]})
    assert typed(model)[1].startswith("NotKnown")
    stats = _judged(model, "NS", [(2, 3), (0, 1), (3, 0)])
    assert stats["model untyped where onnxruntime and the spec (onnx.reference) differ"] \
        == 3, stats


def test_a_node_refused_under_a_choice_is_typed_where_the_choice_fails():
    """``Gather(Slice(x[N, D], [-(D//3)], [INT64_MAX]), -(D//3) - 1)`` (seed 7002 of the
    long run, reduced): the Slice reads ``-(D//3)`` as counting from the end (a choice,
    ``D >= 3``), so its axis is ``min(D//3, N)`` long and the Gather's index is out of
    it at every size; the model was refused, where onnxruntime runs it at ``D < 3`` (the
    bound is 0: the axis whole). It is read again with ``D//3 < 1`` given: valid where
    ``N >= 1`` and ``D <= 2``, each value onnxruntime's shape."""
    nodes = [helper.make_node("Shape", ["x"], ["i_shape"]),
             helper.make_node("Gather", ["i_shape", "minus1"], ["i_d"], axis=0),
             helper.make_node("Div", ["i_d", "minus3"], ["i_q"]),
             helper.make_node("Unsqueeze", ["i_q", "axis0"], ["i_q1"]),
             helper.make_node("Slice", ["x", "i_q1", "big", "axis0"], ["y"]),
             helper.make_node("Sub", ["i_q", "one"], ["i_index"]),
             helper.make_node("Gather", ["y", "i_index"], ["z"], axis=0)]
    model = _model(nodes, "ND", {"minus1": -1, "minus3": -3, "axis0": [0], "big": [BIG],
                                 "one": 1})
    assert typed(model)[0] is not None, typed(model)[1]
    assert "DSL: where N >= 1, D <= 2" in str(ko.contract(model))
    stats = _judged(model, "ND", [(2, 0), (1, 2), (0, 1), (3, 4), (2, 5), (1, 3)])
    assert stats["onnxruntime ran"] == 2 and stats["contract agreed"] == 6, stats
    assert stats["values exact"] == 2 * len(nodes), stats


def test_one_choice_made_by_two_nodes_is_read_again_where_it_fails():
    """Two Slices by ``-(D//3)`` (axes 0 and 1 of ``x[N, D]``) make one choice twice
    (``D//3 >= 1``, equal conditions); the Gather at ``-(D//3) - 1`` fails under it at
    every size. The model was refused ('several choices'), where onnxruntime runs it at
    ``D <= 2`` and ``N >= 1``: the one choice's negation is given as for one Slice."""
    nodes = [helper.make_node("Shape", ["x"], ["i_shape"]),
             helper.make_node("Gather", ["i_shape", "minus1"], ["i_d"], axis=0),
             helper.make_node("Div", ["i_d", "minus3"], ["i_q"]),
             helper.make_node("Unsqueeze", ["i_q", "axis0"], ["i_q1"]),
             helper.make_node("Slice", ["x", "i_q1", "big", "axis0"], ["y0"]),
             helper.make_node("Slice", ["y0", "i_q1", "big", "axis1"], ["y"]),
             helper.make_node("Sub", ["i_q", "one"], ["i_index"]),
             helper.make_node("Gather", ["y", "i_index"], ["z"], axis=0)]
    model = _model(nodes, "ND", {"minus1": -1, "minus3": -3, "axis0": [0], "axis1": [1],
                                 "big": [BIG], "one": 1})
    assert typed(model)[0] is not None, typed(model)[1]
    assert "DSL: where N >= 1, D <= 2" in str(ko.contract(model))
    stats = _judged(model, "ND", [(2, 0), (1, 2), (0, 1), (3, 4), (2, 5), (1, 3)])
    assert stats["onnxruntime ran"] == 2 and stats["contract agreed"] == 6, stats


def test_a_range_whose_delta_is_a_size_cast_to_float_leaves_the_contract_undecided():
    """``Range(0.0, float(N), float(S))``: a size cast to float is folded (a FloatSize),
    but no builder reads a float of sizes, so Range took its delta as not known and
    stated nothing, and the value, being folded, was not noted as unread: the contract
    said every size valid, where onnxruntime refuses a delta of 0 (``S == 0``). It says
    undecided now, in a note naming the node (main: valid at every point)."""
    nodes = _sizes("NS") + [
        helper.make_node("Gather", ["i_shape", "one"], ["i_s"], axis=0),
        helper.make_node("Cast", ["i_n"], ["f_n"], to=TensorProto.FLOAT),
        helper.make_node("Cast", ["i_s"], ["f_s"], to=TensorProto.FLOAT),
        helper.make_node("Cast", ["zero"], ["f_0"], to=TensorProto.FLOAT),
        helper.make_node("Range", ["f_0", "f_n", "f_s"], ["y"], name="range_y")]
    model = _model(nodes, "NS", {"zero": 0, "one": 1, "axis0": [0]})
    notes = " ".join(ko.contract(model).notes)
    assert "'range_y' (Range): its limit is computed from sizes but not known" in notes
    stats = _judged(model, "NS", [(2, 3), (3, 0), (0, 0), (4, 1), (1, 2)])
    assert stats["contract undecided"] == 5 and stats["onnxruntime refused"] == 2, stats
