"""One relation for what a node needs of its wrapped Python ints and index values.

make_node, ``query``, ``kt.relation`` inside ``kanren.run`` and the graph's contract
(what ``refine`` fixes) say the same thing, judged by NumPy at every small size:

* a wrapped Python int must fit the dtype an arithmetic Op computes in (NumPy 2, NEP 50):
  a constant out of range is refused by every front end; a size used as a number (``x +
  (n - 3)``) holds only where it fits, a condition every front end states, over the
  graph's own sizes (never the call's placeholder of an axis size);
* ``size_number``'s output is the wrapped Python int it is, in its own relation too, so
  one term of it serves the relations of its node and of the nodes that take it;
* an index array whose value bounds are sizes (``x[(kt.arange(n) + 1) % 3]``, built with
  the kt API, not traced) is checked by the index Op's relation, as ``eval_shape`` does:
  NumPy raises IndexError exactly where the conditions fail.
"""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest
from kanren import lall, run
from unification import var

import kantensor as kt
from kantensor.ops import op_named
from kantensor.ops.located import VariableAxis
from kantensor.types.variable import SizeNumber, wrapped_number

SIZES = range(6)
NARROW = ("int8", "uint8", "int16")


def _numpy_ok(fn, *args) -> bool:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            fn(*args)
        except (OverflowError, IndexError):
            return False
    return True


def _holds(conditions, env) -> bool:
    return all(c.holds(env) for c in conditions)


# -- wrapped Python ints that must fit ----------------------------------------------------
SHIFTED = {"plus n - 3": lambda x: x + (x.shape[0] - 3),
           "minus n - 1": lambda x: x - (x.shape[0] - 1),
           "times 60 n": lambda x: x * (60 * x.shape[0])}


@pytest.mark.parametrize("dtype", NARROW)
@pytest.mark.parametrize("name", list(SHIFTED))
def test_a_size_as_a_number_fits_in_every_front_end(name, dtype):
    """make_node's conditions, a query of the node on its Variables and of the node's Op
    on its input types, and the contract hold at n exactly where NumPy 2 runs."""
    program = SHIFTED[name]
    r = kt.eval_shape(program, f"{dtype}[n]")
    node = r.graph.outputs[0].owner
    (number,) = [v for v in node.inputs if isinstance(v, SizeNumber)]
    answers = list(kt.query(node.op, list(node.inputs), [var("Z")]))
    assert len(answers) == 1 and answers[0]["Z"] == r.type
    assert set(map(str, answers[0].where)) == set(map(str, node.conditions))
    for n in SIZES:
        ok = _numpy_ok(program, np.zeros(n, dtype))
        assert _holds(node.conditions, {"n": n}) == ok, (n, node.conditions)
        assert _holds(answers[0].where, {"n": n}) == ok, (n, answers[0].where)
        assert bool(r.holds({"n": n})) == ok, n
        try:
            kt.refine(r.graph.outputs, given={"n": n})
        except kt.TypeInferenceError:
            assert not ok, n
        else:
            assert ok, n
    q = var()
    assert len(run(0, q, kt.relation(node.op)(*node.inputs, q))) == 1
    assert number.owner.op.name == "size_number"


@pytest.mark.parametrize("dtype", NARROW)
@pytest.mark.parametrize("value", [-129, -1, 0, 127, 128, 255, 256, 32768])
def test_a_constant_python_int_fits_in_every_front_end(dtype, value):
    """``x + 200`` on uint8 builds, ``x + 256`` does not (NumPy 2 raises): a query and a
    kanren run of add's relation on the wrapped constant answer exactly where make_node
    builds; a comparison (computed in the promoted dtype, exactly) always answers."""
    add, gt = op_named("add"), op_named("gt")
    x = kt.tensor("x", dtype, (3,))
    c = wrapped_number(value, "float32")
    ok = _numpy_ok(lambda: np.zeros(3, dtype) + value)
    try:
        add(x, value)
    except OverflowError:
        built = False
    else:
        built = True
    assert built == ok
    q = var()
    assert bool(list(kt.query(add, [x, c], [var("Z")]))) == ok
    assert bool(run(0, q, kt.relation(add)(x, c, q))) == ok
    assert bool(run(0, q, kt.relation(add)(c, x, q))) == ok  # either side
    assert len(list(kt.query(gt, [x, c], [var("Z")]))) == 1


def test_an_axis_size_as_a_number_is_stated_over_the_graph_s_sizes():
    """``x + (x.shape[0] - 3)`` of an unknown axis: the conditions name the length of
    the shape_of input of size_number (as every Op's condition on an unknown input axis
    does), not the call's placeholder of an axis size, which is the same Dim in every
    call; the contract prints (it raised on the placeholder's name)."""
    x = kt.tensor("x", "uint8", (None,))
    y = x + (x.shape[0] - 3)
    conditions = y.owner.conditions
    assert len(conditions) == 2
    for c in conditions:
        (key,) = c.symbols()
        assert isinstance(key, VariableAxis) and key.variable.owner.op.name == "shape_of"
    assert "shape_of" in str(kt.contract([y]))
    (answer,) = kt.query(y.owner.op, list(y.owner.inputs), [var("Z")])
    assert len(answer.where) == 2
    # two calls on two variables: two sizes (a placeholder would make them one)
    w = kt.tensor("w", "uint8", (None,))
    z = w + (w.shape[0] - 3)
    keys = {k.variable for c in (*conditions, *z.owner.conditions) for k in c.symbols()}
    assert len(keys) == 2


# -- size_number's output is a wrapped Python int -------------------------------------------
def _size_number_node(r):
    (node,) = [n for n in kt.toposort(r.graph.outputs)
               if getattr(n.op, "name", "") == "size_number"]
    return node


def test_size_number_s_own_output_is_its_relation_s_output():
    """kanren.run with the graph's own output Variable (a wrapped int) as the output of
    size_number's relation: it answered nothing, as the relation made outputs unwrapped."""
    r = kt.eval_shape(lambda a: a / a.shape[0], "float32[n]")
    node = _size_number_node(r)
    (out,) = node.outputs
    assert isinstance(out, SizeNumber) and out.wrapped
    q = var()
    assert run(0, q, kt.relation(node.op)(*node.inputs, out)) != ()
    # one term for the Variable in a conjunction of both nodes' relations
    div = r.graph.outputs[0].owner
    z = var()
    (answer,) = run(0, z, lall(kt.relation(node.op)(*node.inputs, out),
                               kt.relation(div.op)(*div.inputs, z)))
    assert answer.dtype == "float32" and len(answer.shape) == 1
    # a logic variable for it: wrapped, so it ranks as the Python int does
    v = var()
    (term,) = run(0, v, kt.relation(node.op)(*node.inputs, v))
    assert term.wrapped is True and term.dtype == "int64" and term.shape == ()
    # make_node of the Op called directly makes the same wrapped number
    assert isinstance(op_named("size_number")(size=kt.Dim("n")), SizeNumber)


@pytest.mark.parametrize("dtype", ["int8", "uint8", "float32", "bool"])
def test_size_number_conjunction_agrees_with_make_node_and_numpy(dtype):
    """``x * n`` (n a size used as a number) at n in 0..5: make_node's type, the
    relation of size_number joined with mul's (the number a logic variable), and NumPy
    2's dtype (a Python int is weak) agree."""
    r = kt.eval_shape(lambda x: x * x.shape[0], f"{dtype}[n]")
    node = _size_number_node(r)
    mul = r.graph.outputs[0].owner
    x = mul.inputs[0]
    v, z = var(), var()
    (answer,) = run(0, z, lall(kt.relation(node.op)(*node.inputs, v),
                               kt.relation(mul.op)(x, v, z)))
    assert answer.dtype == r.type.dtype
    for n in SIZES:
        try:
            got = np.zeros(n, dtype) * n
        except OverflowError:
            assert not r.holds({"n": n})
            continue
        assert got.dtype.name == r.type.dtype


# -- index arrays whose value bounds are sizes --------------------------------------------------
INDICES = {
    "(arange(n) + 1) % 3": (lambda a: (a + 1) % 3),
    "arange(n) + 2": (lambda a: a + 2),
    "-arange(n) - 1": (lambda a: -a - 1),
    "arange(n) * 2": (lambda a: a * 2),
    "arange(n)[::-1] + 1": (lambda a: a[::-1] + 1),
}


@pytest.mark.parametrize("name", list(INDICES))
def test_index_values_made_of_sizes_are_checked_by_the_index_op(name):
    """``x[f(kt.arange(n))]`` built with the kt API: its node's conditions, a query of
    the index Op on the node's Variables, and the contract hold at (m, n) exactly where
    NumPy does not raise IndexError; the function runs there and gives NumPy's values."""
    f = INDICES[name]
    m, n = kt.Dim("m"), kt.Dim("n")
    x = kt.tensor("x", "float32", (m,))
    y = x[f(kt.arange(n))]
    node = y.owner
    contract = kt.contract([y])
    (answer,) = kt.query(node.op, list(node.inputs), [var("Z")])
    k = kt.tensor("k", "float32", (n,))  # (binds n when the function runs)
    fn = kt.function([x, k], y + k.sum() * 0)
    for mv, nv in itertools.product(range(5), SIZES):
        env = {"m": mv, "n": nv}
        values = np.arange(mv, dtype="float32")
        ok = _numpy_ok(lambda: values[f(np.arange(nv))])  # noqa: B023
        assert _holds(node.conditions, env) == ok, (env, node.conditions)
        assert _holds(answer.where, env) == ok, (env, answer.where)
        assert bool(contract.holds(env)) == ok, env
        if ok:
            got = fn(values, np.zeros(nv, "float32"))
            assert np.array_equal(got, values[f(np.arange(nv))])


@pytest.mark.parametrize("name", list(INDICES))
def test_eval_shape_and_the_kt_graph_state_the_same_bounds(name):
    """The same program traced by eval_shape (its index values read by the same bounds)
    and built with kt: their contracts agree at every small (m, n)."""
    f = INDICES[name]
    traced = kt.eval_shape(lambda x, k: x[f(np.arange(k.shape[0]))], "float32[m]",
                           "float32[n]")
    m, n = kt.Dim("m"), kt.Dim("n")
    y = kt.tensor("x", "float32", (m,))[f(kt.arange(n))]
    built = kt.contract([y])
    for mv, nv in itertools.product(range(5), SIZES):
        env = {"m": mv, "n": nv}
        assert bool(traced.holds(env)) == bool(built.holds(env)), env
    assert all(isinstance(s, str) for c in y.owner.conditions for s in c.symbols())


def test_a_query_names_a_fresh_size_apart_from_a_size_number_s_sizes():
    """``kt.query(add, [X, n - 3], [Z])`` (the size number of ``x + (x.shape[0] - 3)``):
    an answer of rank one leaves X's length open, so it must not be named ``n``, which
    would say X is ``n`` long, the size the number is of. Judged by NumPy: X of a length
    other than n runs (``np.zeros(5, int8) + (7 - 3)``), so no answer may tie them."""
    n = kt.Dim("n")
    x = kt.tensor("x", "uint8", (n,))
    number = (x + (x.shape[0] - 3)).owner.inputs[1]
    answers = list(itertools.islice(
        kt.query(op_named("add"), [var("X"), number], [var("Z")]), 60))
    ranked = [a for a in answers if a["X"].ndim == 1]
    assert ranked, answers
    np.zeros(5, "int8") + (7 - 3)  # X's length is not n's (runs in NumPy)
    for a in ranked:
        (length,) = a["X"].shape
        assert length is not n and str(length) != "n", a
        assert a["Z"].shape == (length,), a
        assert all(str(c).startswith("n - 3") for c in a.where), a
