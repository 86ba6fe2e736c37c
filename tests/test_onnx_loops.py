"""Loops and branches with sizes that change: models built with onnx.helper the way
exporters write them (an accumulating Concat, a KV cache, an early exit, zero
iterations, a nested Loop, a loop over a sequence, SequenceMap, Scan, If on an input and
on a size), typed by kantensor.onnx and run by onnxruntime (the oracle of control flow:
onnx.reference's Loop is wrong) at five random size assignments and both values of each
condition: every size kantensor states equals the run's, the size of its own a loop's
number of iterations is solved from the run and agrees with every other size, with its
conditions and with the cases noted; kt.function computes onnxruntime's values. The 16
control-flow cases of ONNX's node tests are checked against onnxruntime the same way."""

from __future__ import annotations

import warnings

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

import kantensor as kt
from kantensor.onnx import contract, from_onnx, size_conditions, size_notes
from kantensor.types.dim import Dim
from kantensor.types.dimfacts import NO_SOLUTION, solve_for
from kantensor.types.symbols import free_symbols, substitute
from onnx_cases import _as_array, cases, op_types, prepared

F, B, I64 = TensorProto.FLOAT, TensorProto.BOOL, TensorProto.INT64
DRAWS = 5


def t(name, elem=F, shape=None):
    return helper.make_tensor_value_info(name, elem, shape)


def const(name, value, dtype=np.int64):
    return numpy_helper.from_array(np.asarray(value, dtype=dtype), name)


def node(op, ins, outs, **attrs):
    return helper.make_node(op, ins, outs, **attrs)


def graph(nodes, inputs, outputs, name="g", inits=()):
    return helper.make_graph(nodes, name, inputs, outputs, list(inits))


def model(g, opset=18):
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])


def untyped(*names):
    out = []
    for n in names:
        info = onnx.ValueInfoProto()
        info.name = n
        out.append(info)
    return out


def size_of(x, axis, out):
    """Nodes giving ``out``: the size of axis ``axis`` of ``x`` as an int64 scalar."""
    return [node("Shape", [x], [out + "_shape"]),
            node("Gather", [out + "_shape", "axis_" + str(axis)], [out])]


AXES = [const(f"axis_{a}", a) for a in range(4)] + [const("zero1", [0]),
                                                     const("true", True, np.bool_)]


# -- the models ----------------------------------------------------------------------------
def accumulate(cond_input: bool):
    """acc (m, d) grows by one row of x (n, d) per iteration, for n iterations while cond;
    the rows are the scan output."""
    body = graph([node("Gather", ["x", "i"], ["row"], axis=0),
                  node("Unsqueeze", ["row", "zero1"], ["row1"]),
                  node("Concat", ["acc_in", "row1"], ["acc_out"], axis=0),
                  node("Identity", ["c_in"], ["c_out"])],
                 [t("i", I64, []), t("c_in", B, []), *untyped("acc_in")],
                 [*untyped("c_out", "acc_out"), t("row", F, ["d"])], "body")
    nodes = [*size_of("x", 0, "n"),
             node("Loop", ["n", "cond" if cond_input else "true", "a"], ["acc", "rows"],
                  body=body, name="acc_loop")]
    inputs = [t("x", F, ["n", "d"]), t("a", F, ["m", "d"])]
    if cond_input:
        inputs.append(t("cond", B, []))
    return model(graph(nodes, inputs, untyped("acc", "rows"), inits=AXES))


def kv_cache():
    """A cache (b, h, t, e) grows by one position per token of x (b, s, e); each step's
    scores (b, h) are a scan output; a buffer (u) that doubles at each step has no size
    in closed form."""
    body = graph([node("ReduceSum", ["cache_in", "axes2"], ["new"], keepdims=1),
                  node("Concat", ["cache_in", "new"], ["cache_out"], axis=2),
                  node("ReduceSum", ["cache_out", "axes23"], ["scores"], keepdims=0),
                  node("Concat", ["buf_in", "buf_in"], ["buf_out"], axis=0),
                  node("Identity", ["c_in"], ["c_out"])],
                 [t("i", I64, []), t("c_in", B, []), *untyped("cache_in", "buf_in")],
                 [*untyped("c_out", "cache_out", "buf_out"), t("scores", F, ["b", "h"])],
                 "body",
                 inits=[const("axes2", [2]), const("axes23", [2, 3])])
    nodes = [*size_of("x", 1, "s"),
             node("Loop", ["s", "true", "past", "buf"], ["cache", "doubled", "steps"],
                  body=body, name="decode")]
    return model(graph(nodes, [t("x", F, ["b", "s", "e"]), t("past", F, ["b", "h", "t", "e"]),
                               t("buf", F, ["u"])],
                       untyped("cache", "doubled", "steps"), inits=AXES))


def early_exit():
    """Up to n iterations, ending when the iteration number reaches an input's value;
    each adds two entries."""
    body = graph([node("Concat", ["acc_in", "two"], ["acc_out"], axis=0),
                  node("Add", ["i", "one"], ["next"]),
                  node("Less", ["next", "limit"], ["c_out"]),
                  node("Unsqueeze", ["i", "zero1"], ["i1"])],
                 [t("i", I64, []), t("c_in", B, []), *untyped("acc_in")],
                 [*untyped("c_out", "acc_out"), t("i1", I64, [1])], "body",
                 inits=[const("two", [1.0, 2.0], np.float32), const("one", 1)])
    nodes = [*size_of("x", 0, "n"),
             node("Loop", ["n", "true", "a"], ["acc", "seen"], body=body, name="early")]
    return model(graph(nodes, [t("x", F, ["n"]), t("a", F, ["m"]), t("limit", I64, [])],
                       untyped("acc", "seen"), inits=AXES))


def zero_trips():
    """A trip count of 0: the carried value comes out as it went in, no scan rows."""
    body = graph([node("Concat", ["acc_in", "acc_in"], ["acc_out"], axis=0),
                  node("Identity", ["acc_in"], ["snap"]),
                  node("Identity", ["c_in"], ["c_out"])],
                 [t("i", I64, []), t("c_in", B, []), *untyped("acc_in")],
                 [*untyped("c_out", "acc_out"), t("snap", F, ["m", "d"])], "body")
    nodes = [node("Loop", ["no_trips", "true", "a"], ["acc", "scanned"], body=body,
                  name="never")]
    return model(graph(nodes, [t("a", F, ["m", "d"])], untyped("acc", "scanned"),
                       inits=[*AXES, const("no_trips", 0)]))


def nested():
    """For each row of x (n of them), an inner loop adds one entry per row of y (k of
    them, an outer-scope value): n*k entries."""
    inner = graph([node("Concat", ["acc_in", "one_f"], ["acc_out"], axis=0),
                   node("Identity", ["c_in"], ["c_out"])],
                  [t("j", I64, []), t("c_in", B, []), *untyped("acc_in")],
                  [*untyped("c_out", "acc_out")], "inner")
    outer = graph([node("Loop", ["k", "true", "acc_in"], ["acc_out"], body=inner,
                        name="inner_loop"),
                   node("Identity", ["c_in"], ["c_out"])],
                  [t("i", I64, []), t("c_in", B, []), *untyped("acc_in")],
                  [*untyped("c_out", "acc_out")], "outer")
    nodes = [*size_of("x", 0, "n"), *size_of("y", 0, "k"),
             node("Loop", ["n", "true", "a"], ["acc"], body=outer, name="outer_loop")]
    return model(graph(nodes, [t("x", F, ["n"]), t("y", F, ["k"]), t("a", F, ["m"])],
                       untyped("acc"), inits=[*AXES, const("one_f", [1.0], np.float32)]))


def over_a_sequence():
    """A Loop over the elements of a sequence (SequenceLength, SequenceAt) summing them
    and stacking them; SequenceMap doubling each."""
    body = graph([node("SequenceAt", ["seq", "i"], ["e"]),
                  node("Add", ["sum_in", "e"], ["sum_out"]),
                  node("Identity", ["c_in"], ["c_out"])],
                 [t("i", I64, []), t("c_in", B, []), *untyped("sum_in")],
                 [*untyped("c_out", "sum_out"), t("e", F, ["d"])], "body")
    double = graph([node("Add", ["el", "el"], ["twice"])], [t("el", F, ["d"])],
                   [t("twice", F, ["d"])], "double")
    nodes = [node("SequenceLength", ["seq"], ["len"]),
             node("Loop", ["len", "true", "start"], ["total", "stacked"], body=body,
                  name="seq_loop"),
             node("SequenceMap", ["seq"], ["doubled"], body=double)]
    seq = helper.make_tensor_sequence_value_info("seq", F, ["d"])
    return model(graph(nodes, [seq, t("start", F, ["d"])],
                       untyped("total", "stacked", "doubled"), inits=AXES))


def scan_states():
    """Scan over the time axis of x (b, T, e) with scan_input_axes = 1: a running sum
    (b, e) and the sums stacked on axis 1."""
    body = graph([node("Add", ["s_in", "x_t"], ["s_out"]),
                  node("Identity", ["s_out"], ["y_t"])],
                 untyped("s_in", "x_t"), untyped("s_out", "y_t"), "body")
    nodes = [node("Scan", ["s0", "x"], ["s", "y"], num_scan_inputs=1, body=body,
                  scan_input_axes=[1], scan_output_axes=[1])]
    return model(graph(nodes, [t("s0", F, ["b", "e"]), t("x", F, ["b", "T", "e"])],
                       untyped("s", "y")))


def branches():
    """If on a condition input: x (n, d) doubled along axis 0, or x itself; If on a size:
    n > 3 picks a (n, d) or a (1, d) tensor."""
    then = graph([node("Concat", ["x", "x"], ["tx"], axis=0)], [], untyped("tx"), "then")
    other = graph([node("Identity", ["x"], ["ex"])], [], untyped("ex"), "else")
    big = graph([node("Relu", ["x"], ["bx"])], [], untyped("bx"), "big")
    small = graph([node("ReduceSum", ["x", "zero1"], ["sx"], keepdims=1)], [],
                  untyped("sx"), "small")
    nodes = [node("If", ["cond"], ["y"], then_branch=then, else_branch=other, name="pick"),
             *size_of("x", 0, "n"),
             node("Greater", ["n", "three"], ["large"]),
             node("If", ["large"], ["z"], then_branch=big, else_branch=small,
                  name="by_size")]
    return model(graph(nodes, [t("x", F, ["n", "d"]), t("cond", B, [])], untyped("y", "z"),
                       inits=[*AXES, const("three", 3)]))


#: name -> (model builder, the types kantensor states, in the model's size names)
MODELS = {
    # after no iteration, a scan output's sizes the body does not declare as ints are 0
    # (onnxruntime's; exporters declare the body's outputs, with their ranks), so n rows
    # of d are (n, d*min(1,n))
    "accumulate, cond known": (lambda: accumulate(False),
                               ["float32[m+n,d]", "float32[n,d*min(1,n)]"]),
    "accumulate, cond input": (lambda: accumulate(True),
                               ["float32[acc_loop_iters+m,d]",
                                "float32[acc_loop_iters,d*min(1,acc_loop_iters)]"]),
    "kv cache": (kv_cache, ["float32[b,h,s+t,e]", "float32[?]",
                            "float32[s,b*min(1,s),h*min(1,s)]"]),
    "early exit": (early_exit, ["float32[2*early_iters+m]", "int64[early_iters,1]"]),
    "zero trips": (zero_trips, ["float32[m,d]", "float32[0,0,0]"]),
    "nested": (nested, ["float32[k*n+m]"]),
    "over a sequence": (over_a_sequence, ["float32[d]",
                                          "float32[seq_loop_iters,d*min(1,seq_loop_iters)]",
                                          "seq(float32[d])"]),
    "scan": (scan_states, ["float32[b,e]", "float32[b,T,e]"]),
    # an If's size that its condition picks is named after it (one size per run)
    "branches": (branches, ["float32[pick,d]", "float32[by_size,d]"]),
}


# -- the check ------------------------------------------------------------------------------
def _dims_of(typ):
    """A tensor's sizes, the sizes a sequence's elements share, or None (not stated)."""
    if isinstance(typ, kt.OptionalType):
        return _dims_of(typ.element)
    if isinstance(typ, kt.TensorType):
        return typ.shape
    return typ.shape if isinstance(typ, kt.SequenceType) else None


def _solve(stated, shapes, sizes):
    """Bind the sizes of the stated types that no input gives (a loop's number of
    iterations) from the run's shapes, and check every stated size against them."""
    bound = dict(sizes)
    for where, (dims, shape) in enumerate(zip(stated, shapes, strict=True)):
        assert len(dims) == len(shape), f"output {where}: stated {dims}, ran {shape}"
    pending = [(d, n, where) for where, (dims, shape) in enumerate(zip(stated, shapes, strict=True))
               for d, n in zip(dims, shape, strict=True) if d is not None]
    while pending:
        left = []
        for d, n, where in pending:
            value = substitute(d, bound) if isinstance(d, Dim) else d
            if isinstance(value, int):
                assert value == n, f"output {where}: stated {d} = {value}, ran {n}"
                continue
            free = sorted(s for s in free_symbols(value) if s not in bound)
            if len(free) == 1:
                solved = solve_for(value, free[0], n)
                assert solved is not NO_SOLUTION and isinstance(solved, int) and solved >= 0, \
                    f"output {where}: no size {free[0]} makes {d} = {n}"
                bound[free[0]] = solved
                continue
            left.append((d, n, where))
        assert len(left) < len(pending), f"sizes no run decides: {left}"
        pending = left
    return bound


def _shapes(value):
    if isinstance(value, list):  # a sequence: each element's shape is the stated one
        return [np.shape(v) for v in value]
    return [np.shape(value)]


def run_and_check(m, outputs, sizes, feeds, cond=None):
    """onnxruntime runs ``m``; every size the kantensor types state equals the run's,
    the conditions and the noted cases hold, and kt.function gives the same values."""
    session = ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"])
    got = session.run(None, feeds)
    stated, shapes = [], []
    for o, value in zip(outputs, got, strict=True):
        dims = _dims_of(o.type)
        for shape in _shapes(value):
            stated.append(dims)
            shapes.append(shape)
        if isinstance(o.type, kt.SequenceType) and o.type.length is not None:
            stated.append((o.type.length,))
            shapes.append((len(value),))
    bound = _solve(stated, shapes, sizes)
    for c in size_conditions(outputs):
        assert c.holds(**bound), f"{c} fails at {bound}"
    for note in size_notes(outputs):
        if note.axis == "count" and cond is not None and note.cases:
            (_, yes), (_, no) = note.cases
            want = substitute(yes if cond else no, bound) if isinstance(yes, Dim) else \
                (yes if cond else no)
            by_name = {str(k): v for k, v in bound.items()}  # (a count is a DataSymbol,
            assert by_name[note.output] == want, note  # the note names it by its text)
    return got


def _feeds(m, ins, sizes, rng, cond):
    feeds = {}
    for v in ins:
        if isinstance(v.type, kt.SequenceType):
            length = int(rng.integers(0, 4))
            feeds[v.name] = [rng.standard_normal([substitute(d, sizes) for d in
                                                  v.type.shape]).astype(np.float32)
                             for _ in range(length)]
            sizes["seq_loop_iters"] = length
        elif v.type.dtype == "bool":
            feeds[v.name] = np.array(cond)
        elif v.type.dtype == "int64":
            feeds[v.name] = np.array(rng.integers(0, 6), dtype=np.int64)
        else:
            shape = [substitute(d, sizes) if isinstance(d, Dim) else d for d in v.type.shape]
            feeds[v.name] = rng.standard_normal(shape).astype(np.float32)
    return feeds


@pytest.mark.parametrize("name", list(MODELS))
def test_stated_sizes_are_the_runs(name):
    build, want = MODELS[name]
    m = build()
    ins, outs = from_onnx(m)
    assert [str(o.type) for o in outs] == want
    fn = kt.function(ins, outs, check=True)  # its own values of its types too
    rng = np.random.default_rng(len(name))
    has_cond = any(v.type.dtype == "bool" for v in ins)
    checked = 0
    for cond in ((True, False) if has_cond else (None,)):
        for _ in range(DRAWS):
            names = {s for v in ins for d in (_dims_of(v.type) or ()) if isinstance(d, Dim)
                     for s in free_symbols(d)}
            low = 1 if name == "scan" else 0  # onnxruntime refuses (or crashes on) an
            sizes = {s: int(rng.integers(low, 6)) for s in sorted(names)}  # empty scan
            feeds = _feeds(m, ins, sizes, rng, cond)
            sizes.pop("seq_loop_iters", None)
            got = run_and_check(m, outs, sizes, feeds, cond)
            mine = fn(*(feeds[v.name] for v in ins))
            for a, b in zip(mine, got, strict=True):
                if isinstance(b, list):
                    assert len(a) == len(b)
                    for x, y in zip(a, b, strict=True):
                        np.testing.assert_allclose(x, y, rtol=1e-5, atol=1e-5)
                else:
                    np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5)
            checked += 1
    assert checked == DRAWS * (2 if has_cond else 1)


def test_the_notes_say_why_a_size_is_unknown_and_the_conditions_bound_the_count():
    _, outs = from_onnx(accumulate(True))
    (note,) = [n for n in size_notes(outs) if n.axis == "count"]
    assert note.output == "acc_loop_iters"
    assert note.cases == (("the condition", Dim("n")), ("not the condition", 0))
    assert [str(c) for c in size_conditions(outs)] == ["0 <= acc_loop_iters",
                                                       "acc_loop_iters <= n"]
    _, outs = from_onnx(kv_cache())
    (doubled,) = [n for n in size_notes(outs) if n.output == "doubled"]
    assert doubled.axis == 0 and "which is no fixed step" in doubled.reason
    _, outs = from_onnx(branches())
    by_output = {n.output: n for n in size_notes(outs)}
    assert by_output["y"].cases == (("cond", 2 * Dim("n")), ("not cond", Dim("n")))
    assert by_output["z"].cases == (("n > 3", Dim("n")), ("n <= 3", 1))


# -- ONNX's node cases ------------------------------------------------------------------------
CONTROL_FLOW = {"If", "Loop", "Scan", "SequenceMap"}


def _control_flow_cases():
    return [c for c in cases() if op_types(c) & CONTROL_FLOW]


def test_the_16_control_flow_node_cases_run_as_onnxruntime_runs_them():
    found = _control_flow_cases()
    assert len(found) == 16
    for case in found:
        inputs = [_as_array(v) for v in case.data_sets[0][0]]
        names = [i.name for i in case.model.graph.input]
        session = ort.InferenceSession(case.model.SerializeToString(),
                                       providers=["CPUExecutionProvider"])
        got = session.run(None, dict(zip(names, inputs, strict=True)))
        m, values, _ = prepared(case, True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ins, outs = from_onnx(m)
        sizes = {s: int(s[1:]) for v in ins for d in (_dims_of(v.type) or ())
                 if isinstance(d, Dim) for s in free_symbols(d)}
        stated, shapes = [], []
        for o, value in zip(outs, got, strict=True):
            dims = _dims_of(o.type)
            if dims is None or value is None:  # elements of unknown ranks; no element
                continue
            for shape in _shapes(value):
                stated.append(dims)
                shapes.append(shape)
        _solve(stated, shapes, sizes)
        mine = kt.function(ins, outs, check=True)(*values)
        for a, b in zip(mine, got, strict=True):
            if isinstance(b, list):
                assert len(a) == len(b), case.name
                for x, y in zip(a, b, strict=True):
                    np.testing.assert_allclose(x, y, rtol=1e-5, err_msg=case.name)
            else:
                np.testing.assert_allclose(a, b, rtol=1e-5, err_msg=case.name)


@pytest.mark.parametrize("ask", [size_notes, size_conditions])
def test_a_model_given_as_it_is_says_to_read_it_first(ask):
    """``size_notes(model)`` failed with "'ModelProto' object is not iterable": both take
    the outputs ``from_onnx`` reads, and now say so, naming the call to make."""
    graph = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "g",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n"])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["n"])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    with pytest.raises(TypeError, match=rf"{ask.__name__} takes the outputs from_onnx reads "
                       r".*got ModelProto: call .*from_onnx\(model\)\[1\]"):
        ask(model)
    assert ask(from_onnx(model)[1]) == []


# -- a trip count that may be negative (onnxruntime then runs no iteration) -----------------
def _minus_five_loop(name, body_cond, out, prefix=""):
    """Nodes running a Loop of ``N - 5`` trips (``N`` the length of ``x``), its first
    condition true, its body's condition ``body_cond`` (nodes giving ``cout``+prefix from
    ``i``+prefix and ``cin``+prefix), scanning one float per iteration into ``out``."""
    p = prefix
    body = graph([*body_cond, node("Constant", [], ["f" + p], value=const("v", 1.0, np.float32))],
                 [t("i" + p, I64, []), t("cin" + p, B, [])],
                 [t("cout" + p, B, []), t("f" + p, F, [])],
                 name="body" + p)
    return [*size_of("x", 0, "n" + p), node("Sub", ["n" + p, "five"], ["m" + p]),
            node("Loop", ["m" + p, "true"], [out], body=body, name=name)]


def _judged_at_each_n(m, feeds):
    """onnxruntime runs ``m`` on ``feeds(n, c)`` at every ``N`` in 0..7 and both values of
    ``c``: each stated size is the run's, the size conditions hold and the contract does
    not say the model fails."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _, outs = from_onnx(m)
        stated_contract = contract(m)
    session = ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"])
    for n in range(8):
        assert stated_contract.holds(N=n).value is not False, (n, str(stated_contract))
        for c in (True, False):
            got = session.run(None, feeds(n, c))
            bound = _solve([_dims_of(o.type) for o in outs], [np.shape(v) for v in got],
                           {"N": n})
            for cond in size_conditions(outs):
                assert cond.holds(**bound), (n, c, str(cond))
    return outs


def test_a_negative_trip_count_runs_no_iteration():
    """A Loop of ``N - 5`` trips whose condition stays true scans ``max(0, N - 5)``
    floats: onnxruntime runs no iteration where the trip count is negative. Main typed
    the scan ``float32[N-5]`` with the contract ``exact where N >= 5``, where onnxruntime
    runs at every ``N``."""
    nodes = [*_minus_five_loop("Loop_3", [node("Identity", ["cin"], ["cout"])], "y"),
             node("Shape", ["y"], ["ys"]), node("ConstantOfShape", ["ys"], ["z"])]
    m = model(graph(nodes, [t("x", F, ["N"]), t("c", B, [])], [t("y", F), t("z", F)],
                    inits=[*AXES, const("five", 5)]), opset=17)
    outs = _judged_at_each_n(m, lambda n, c: {"x": np.zeros(n, np.float32),
                                              "c": np.array(c)})
    assert [str(o.type) for o in outs] == ["float32[max(0,N-5)]"] * 2, \
        [str(o.type) for o in outs]
    stated = contract(m)
    assert stated.exact and not stated.atoms, str(stated)


def test_a_negative_trip_count_bounds_no_if_count_below_zero():
    """An If of two such Loops (their bodies end them early: ``i < kk``, ``i > kk``),
    then ``x[:5]``: each Loop's count is at most ``max(0, N - 5)``, not ``N - 5`` (main
    stated ``If_1 <= N - 5``, so ``N >= 5``, and typed ``x[:5]`` ``float32[5]``, where
    onnxruntime gives ``(N,)`` at ``N < 5``)."""
    then = graph(_minus_five_loop("Loop_3", [node("Less", ["i", "kk"], ["cout"])], "scan"),
                 [], [t("scan", F)], name="then")
    other = graph(_minus_five_loop("Loop_4", [node("Greater", ["ib", "kk"], ["coutb"])],
                                   "scanb", prefix="b"), [], [t("scanb", F)], name="else")
    nodes = [node("If", ["c"], ["y"], then_branch=then, else_branch=other, name="If_1"),
             node("Slice", ["x", "zero1", "five1"], ["z"])]
    m = model(graph(nodes, [t("x", F, ["N"]), t("c", B, []), t("kk", I64, [])],
                    [t("y", F), t("z", F)], inits=[*AXES, const("five", 5),
                                                   const("five1", [5])]), opset=17)
    outs = _judged_at_each_n(m, lambda n, c: {"x": np.zeros(n, np.float32), "c": np.array(c),
                                              "kk": np.array(100 if c else -1)})
    assert str(outs[1].type) == "float32[min(5,N)]", outs[1].type
