"""Graph structures: the seed's examples (Theano "Graph Structures") and walkers."""


import numpy as np
import pytest

import kantensor as kt
import sizing
from kantensor import Apply, Constant, FunctionGraph, TensorType, Variable
from kantensor.graph.walk import ancestors_and_nodes


def test_seed_explicit_example():
    # The seed builds x + y * z by hand.
    add, mul = kt.add, kt.mul
    float64_matrix = TensorType(dtype="float64", broadcastable=(False, False))
    x = Variable(type=float64_matrix, name="x")
    y = Variable(type=float64_matrix, name="y")
    z = Variable(type=float64_matrix, name="z")
    mul_variable = Variable(type=float64_matrix)
    assert mul_variable.owner is None
    node_mul = Apply(op=mul, inputs=[y, z], outputs=[mul_variable])
    assert mul_variable.owner is node_mul
    assert mul_variable.index == 0
    add_variable = Variable(type=float64_matrix)
    assert add_variable.owner is None
    node_add = Apply(op=add, inputs=[x, mul_variable], outputs=[add_variable])
    assert add_variable.owner is node_add
    assert add_variable.index == 0
    e = add_variable
    assert e.owner.inputs[0] is x
    assert e.owner.inputs[1] is mul_variable
    assert e.owner.inputs[1].owner.inputs[0] is y
    assert e.owner.inputs[1].owner.inputs[1] is z
    # and the hand-built graph runs
    f = kt.function([x, y, z], e)
    a, b, c = (np.arange(4.0).reshape(2, 2) + k for k in range(3))
    np.testing.assert_array_equal(f(a, b, c), a + b * c)


def test_seed_short_example_operator_graph():
    x = kt.dmatrix("x")
    y = kt.dmatrix("y")
    z = x + y
    assert z.owner.op == kt.add
    assert z.owner.inputs == [x, y]
    w = x * 2.0
    assert w.owner.op == kt.mul
    two = w.owner.inputs[1]
    assert isinstance(two, Constant) and two.wrapped and two.data == 2.0
    assert w.type == TensorType("float64", (None, None))


def test_apply_rejects_non_variables_and_double_owner():
    x = kt.dscalar("x")
    with pytest.raises(TypeError, match="input 0 of add is not a Variable"):
        Apply(kt.add, [1.0], [kt.dscalar()])
    out = kt.dscalar()
    Apply(kt.add, [x, x], [out])
    with pytest.raises(ValueError, match="already belongs"):
        Apply(kt.add, [x, x], [out])


def test_constant_is_read_only_and_not_an_input():
    c = kt.constant(np.arange(3.0))
    assert not c.wrapped
    with pytest.raises(ValueError):
        c.data[0] = 5
    with pytest.raises(TypeError, match="is a Constant"):
        kt.function([c], c * 2)
    with pytest.raises(TypeError, match="is a Constant"):
        FunctionGraph([c], [c])


def test_op_props_equality_and_hash():
    a, b = kt.SpecifyShape((2, None)), kt.SpecifyShape((2, None))
    assert a == b and hash(a) == hash(b)
    assert a != kt.SpecifyShape((3, None))


def test_walkers_on_diamond():
    x, y = kt.dvector("x"), kt.dvector("y")
    s = x + y
    out = s * s - x
    nodes = kt.toposort([out])
    assert [n.op for n in nodes] == [kt.add, kt.mul, kt.sub]
    assert set(kt.graph_inputs([out])) == {x, y}
    assert kt.ancestors([out])[0] is out
    (x2, y2), (out2,) = kt.clone([x, y], [out])
    assert out2 is not out and x2 is not x
    assert set(kt.graph_inputs([out2])) == {x2, y2}


def test_one_walk_gives_ancestors_and_toposort_in_their_orders():
    """ancestors_and_nodes against the two walkers it stands for (refine uses it), on
    random graphs with shared inputs, repeated inputs and nodes of several outputs."""
    rng = np.random.default_rng(37)
    for _ in range(300):
        pool = [Variable(TensorType("float64", ())) for _ in range(rng.integers(1, 4))]
        for _ in range(rng.integers(0, 12)):
            k = int(rng.integers(1, 4))
            inputs = [pool[i] for i in rng.integers(0, len(pool), k)]
            outputs = [Variable(TensorType("float64", ())) for _ in range(rng.integers(1, 3))]
            Apply("op", inputs, outputs)
            pool += outputs
        outs = [pool[i] for i in rng.integers(0, len(pool), rng.integers(1, 4))]
        variables, nodes = ancestors_and_nodes(outs)
        assert variables == kt.ancestors(outs)
        assert nodes == kt.toposort(outs)


def test_function_graph_clients_toposort_replace():
    x, y = kt.dmatrix("x"), kt.dmatrix("y")
    s = x + y
    out = s * x
    fg = FunctionGraph([x, y], [out], clone=False)
    add_node, mul_node = fg.toposort()
    assert fg.clients[x] == [(add_node, 0), (mul_node, 1)]
    assert fg.clients[s] == [(mul_node, 0)]
    assert fg.clients[out] == [("output", 0)]
    # replace goes through filter_variable: a static-shape refinement is accepted as is
    z = kt.tensor("z", "float64", (2, 3))
    fg2 = FunctionGraph([x, y, z], [out], clone=False)
    fg2.replace(s, z)
    assert fg2.outputs[0].owner.inputs[0] is z
    assert fg2.clients[z] == [(fg2.outputs[0].owner, 0)]
    assert s not in fg2.clients
    with pytest.raises(TypeError, match="dtype"):
        fg2.replace(z, kt.tensor("w", "float32", (2, 3)))


def test_function_graph_missing_input_is_an_error():
    x, y = kt.dvector("x"), kt.dvector("y")
    with pytest.raises(ValueError, match="not among the inputs"):
        FunctionGraph([x], [x + y])


def test_clone_keeps_constants_shared():
    x = kt.dvector("x")
    out = x + 1.0
    (_,), (out2,) = kt.clone([x], [out])
    assert out2.owner.inputs[1] is out.owner.inputs[1]


#: The chain's length: 20 times Python's recursion limit (1,000), 100 times with
#: KANTENSOR_LONG=1 (tests/sizing.py).
CHAIN = sizing.size("CHAIN_NODES", 20_000, 100_000)


def test_long_chain_has_no_recursion_limit():
    x = kt.dscalar("x")
    z = x
    for _ in range(CHAIN):
        z = z + 1.0
    assert len(kt.toposort([z])) == CHAIN
    (_,), (z2,) = kt.clone([x], [z])
    assert z2.owner.op == kt.add
    text = kt.dprint(z, file="str")
    assert text.count("\n") == 2 * CHAIN  # each node: itself and its constant
    f = kt.function([x], z)
    assert f(0.0) == float(CHAIN)


def test_dprint_format():
    x, y = kt.dmatrix("x"), kt.dmatrix("y")
    s = x + y
    out = s * s
    text = kt.dprint(out, print_type=True, file="str")
    assert text.splitlines() == [
        "mul [id A] <float64[?,?]>",
        " ├─ add [id B] <float64[?,?]>",
        " │   ├─ x [id C] <float64[?,?]>",
        " │   └─ y [id D] <float64[?,?]>",
        " └─ add [id B] <float64[?,?]> ···",
    ]
    assert kt.dprint(out, file="str", depth=1) == "mul [id A]"


def test_replace_rejects_foreign_inputs_without_changing_the_graph():
    x, y = kt.dvector("x"), kt.dvector("y")
    s = x + y
    out = s * 2.0
    fg = FunctionGraph([x, y], [out], clone=False)
    stranger = kt.dvector("stranger")
    with pytest.raises(ValueError, match="depends on stranger, which is not an input"):
        fg.replace(s, stranger + 1.0)
    assert out.owner.inputs[0] is s and fg.clients[s] == [(out.owner, 0)]


def test_type_repr_and_tensor_truth_value():
    assert repr(kt.Type()) == "Type"
    with pytest.raises(TypeError, match="no truth value"):
        bool(kt.dscalar("x"))
