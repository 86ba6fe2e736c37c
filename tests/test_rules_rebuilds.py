"""A node's dtype rules are the node's wherever it is typed again: a clone that re-infers
(``clone_with_new_inputs(strict=False)``), the graph ``refine`` rebuilds with its types
(``retyped``), the nodes refine reads the sizes of a given type from, running the graph
(NumPy, Dask), whatever the caller's rules are. eval_shape's nodes were built under
NumPy's rules (NEP 50); a graph built with kt directly under the default dtype it had
(kantensor's rule, DESIGN.md §3).

Oracles: NumPy's own dtype of each program run on real arrays (eval_shape's graphs), and
the types the graph was built with (kt's graphs: its forward typing). Brute force: a share
of tests/test_eval_shape_dtype_oracle.py's sweep (every operation with every kind of
operand at every dtype), each node of each graph cloned under both default dtypes outside
``numpy_rules()``; a share of them rebuilt by ``refine``, judged by NumPy.
"""

from __future__ import annotations

import warnings

import dask.array as da
import numpy as np
import pytest

import kantensor as kt
from kantensor.graph.walk import toposort
from kantensor.refinement.contracted import graph_sizes
from kantensor.types import numpyrules as dt
from test_eval_shape_dtype_oracle import DTYPES, programs

#: Every how many (program, dtype) pairs of the sweep one is cloned, and of those every
#: how many is also rebuilt by refine (all ~19,000 would be minutes).
STEP, REFINE_STEP = 5, 4


def _numpy_dtype(fn, dtype: str) -> str | None:
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            return np.asarray(fn(np.arange(1, 3).astype(dtype))).dtype.name
        except Exception:  # noqa: BLE001 - NumPy refuses: no oracle here
            return None


def _traced(fn, spec: str):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return kt.eval_shape(fn, spec)


def _sweep() -> list:
    out = []
    for i, ((name, fn), dtype) in enumerate((p, d) for p in programs() for d in DTYPES):
        if i % STEP:
            continue
        want = _numpy_dtype(fn, dtype)
        if want is None:
            continue
        try:
            result = _traced(fn, f"{dtype}[n]")
        except (TypeError, ValueError, OverflowError):
            continue
        if len(result.outputs) == 1 and isinstance(result.outputs[0].type, kt.TensorType):
            out.append((name, dtype, want, result))
    return out


def _own_rules_dtype(node) -> str | None:
    """The dtype kantensor's own rule (the caller's, outside numpy_rules) gives ``node``'s
    first output: None where it refuses the build."""
    try:
        return node.op.make_node(*node.inputs).outputs[0].type.dtype
    except (TypeError, ValueError):
        return None


@pytest.mark.parametrize("default", ["float32", "float64"])
def test_every_node_of_the_sweep_cloned_keeps_its_rules(default: str) -> None:
    results = _sweep()
    assert len(results) > 1000  # (the sweep ran)
    wrong, differs = [], 0
    with kt.default_dtype(default):
        assert dt.rules_key() == default  # outside numpy_rules()
        for k, (name, dtype, want, result) in enumerate(results):
            out = result.outputs[0]
            for node in toposort([out]):
                own = _own_rules_dtype(node)
                try:
                    clone = node.clone_with_new_inputs(list(node.inputs), strict=False)
                except (TypeError, ValueError) as exc:
                    wrong.append((name, dtype, str(node.op), str(exc).splitlines()[0][:100]))
                    continue
                differs += own != node.outputs[0].type.dtype
                got = [(o.type, o.wrapped) for o in clone.outputs]
                if got != [(o.type, o.wrapped) for o in node.outputs]:
                    wrong.append((name, dtype, str(node.op), got))
            if k % REFINE_STEP == 0:
                rebuilt = kt.refine([out]).retyped(out).type.dtype
                if rebuilt != want:
                    wrong.append((name, dtype, "refine's rebuild", rebuilt, want))
    assert differs > 100  # (nodes whose dtype the caller's rules would change)
    assert not wrong, f"{len(wrong)} wrong, e.g. {wrong[:5]}"


#: Programs whose dtype differs between NumPy's rules and kantensor's: a Python float, a
#: NumPy scalar and a 0-d array (strong under NEP 50), bool ** 2 (np.square), an int64
#: with a uint64, a Python float made of sizes (weak: a rebuild that made it a 0-d array
#: would make it strong), and an Op with parameters on a strong 0-d array (a build the
#: family's cached call makes the second time: ``np.tensordot`` twice).
CASES = [
    ("x * 1.5", lambda x: x * 1.5, "int8"),
    ("x * np.int64(2)", lambda x: x * np.int64(2), "int8"),
    ("x + np.array(1, int16)", lambda x: x + np.array(1, dtype="int16"), "uint8"),
    ("x ** 2", lambda x: x ** 2, "bool"),
    ("x * np.uint64(1)", lambda x: x * np.uint64(1), "int64"),
    ("np.uint64(3) > x - 1", lambda x: np.uint64(3) > x - 1, "int64"),
    ("x * np.float32(1)", lambda x: x * np.float32(1), "int32"),
    ("x + n * 1.5", lambda x: x + x.shape[0] * 1.5, "float16"),
    ("x * -(len(x) * 0.5)", lambda x: x * -(len(x) * 0.5), "complex64"),
    ("einsum twice", lambda x: np.einsum("i,->i", x, np.asarray(len(x)))
     + np.einsum("i,->i", x, np.asarray(len(x))), "int8"),
    ("tensordot twice", lambda x: (np.tensordot(x, np.asarray(len(x)), axes=0) * 1.5,
                                   np.tensordot(x, np.asarray(len(x)), axes=0)), "int16"),
]


def _oracle(fn, dtype: str) -> list[str]:
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        out = fn(np.arange(1, 3).astype(dtype))
    return [np.asarray(o).dtype.name for o in (out if isinstance(out, tuple) else (out,))]


@pytest.mark.parametrize("default", ["float32", "float64"])
@pytest.mark.parametrize(("name", "fn", "dtype"), CASES, ids=[c[0] for c in CASES])
def test_rebuilds_of_eval_shapes_graph_give_numpys_dtypes(name: str, fn, dtype: str,
                                                          default: str) -> None:
    want = _oracle(fn, dtype)
    result = _traced(fn, f"{dtype}[n]")
    outs = list(result.outputs)
    assert [o.type.dtype for o in outs] == want  # (eval_shape's own typing)
    with kt.default_dtype(default):
        refined = kt.refine(outs)
        assert [refined.retyped(o).type.dtype for o in outs] == want, name
        assert [refined[o].dtype for o in outs] == want, name
        for node in toposort(outs):  # every node, as its clone re-infers it
            clone = node.clone_with_new_inputs(list(node.inputs), strict=False)
            assert [(o.type, o.wrapped) for o in clone.outputs] == \
                [(o.type, o.wrapped) for o in node.outputs], (name, str(node.op))
        x = np.arange(1, 3).astype(dtype)
        got = kt.function(list(result.inputs), outs, check=True)(x)
        assert [g.dtype.name for g in got] == want, name
        blocks = kt.function(list(result.inputs), outs, backend="dask")(
            da.from_array(x, chunks=1))
        assert [b.compute().dtype.name for b in blocks] == want, name


def test_every_node_eval_shape_builds_says_its_rules() -> None:
    """The second ``np.tensordot`` is built by the family's cached call (a memo hit, no
    make_node): it is tagged with NumPy's rules as the first is, and typed so again."""
    fn = lambda x: (np.tensordot(x, np.asarray(len(x)), axes=0),  # noqa: E731
                    np.tensordot(x, np.asarray(len(x)), axes=0))
    result = _traced(fn, "int8[n]")
    nodes = [o.owner for o in result.outputs]
    assert nodes[0] is not nodes[1]
    assert [n.rules for n in nodes] == ["numpy", "numpy"]
    want = _oracle(fn, "int8")
    for n in nodes:
        assert [o.type.dtype for o in n.clone_with_new_inputs(n.inputs, False).outputs] == \
            want[:1]


#: kt's own graphs whose dtypes depend on the default dtype (DESIGN.md §3: ``float(T)`` of
#: an integer, a wrapped float): built under one default, typed again under the other.
def _kt_graph(dtype: str) -> list:
    x = kt.vector("x", dtype)
    return [kt.sqrt(x), kt.mean(x), x * 1.5, kt.sqrt(x) + 1.5, kt.arctan2(x, x)]


@pytest.mark.parametrize(("built", "caller"), [("float64", "float32"), ("float32", "float64"),
                                               ("float16", "float64")])
@pytest.mark.parametrize("dtype", ["int8", "int32", "uint16"])
def test_kts_graph_is_typed_again_under_the_default_it_was_built_with(
        built: str, caller: str, dtype: str) -> None:
    with kt.default_dtype(built):
        outs = _kt_graph(dtype)
    forward = [o.type for o in outs]
    with kt.default_dtype(caller):
        assert [o.type for o in _kt_graph(dtype)] != forward  # (the defaults differ here)
        refined = kt.refine(outs)  # refused before: "the graph's dtypes contradict"
        assert [refined[o] for o in outs] == forward
        assert [refined.retyped(o).type for o in outs] == forward
        for node in toposort(outs):
            clone = node.clone_with_new_inputs(list(node.inputs), strict=False)
            assert [o.type for o in clone.outputs] == [o.type for o in node.outputs]
        got = kt.function([outs[0].owner.inputs[0]], outs, check=True)(
            np.arange(1, 4).astype(dtype))
        assert [g.dtype.name for g in got] == [t.dtype for t in forward]


def test_the_sizes_a_graph_computes_rebuild_each_node_under_its_rules() -> None:
    """``graph_sizes`` (refine's sizes of given Variables) rebuilds alike nodes once: two
    ``x * s`` of one Op on the same inputs, one built under NumPy's rules (int64) and one
    under kantensor's (int8), are not alike; taking the second's int8 output for the first
    refused the ``* 300`` after it, whose size was then left unknown."""
    x, s = kt.vector("x", "int8"), kt.scalar("s", "int64")
    y2 = x * s
    with dt.numpy_rules():
        y1 = x * s
        z = y1 * 300
    w = kt.concatenate([y2, y2])
    assert (y1.type.dtype, y2.type.dtype, z.type.dtype) == ("int64", "int8", "int64")
    sizes = graph_sizes([w, z])
    assert str(sizes[z][0]) == "x.shape[0]" and str(sizes[w][0]) == "2*x.shape[0]"
