"""The direct forward path (:mod:`kantensor.signature.direct`) gives exactly the
relation's answer: wherever it answers, the kanren solve (:func:`relational`) gives the
same output types and the very same conditions (in order, with their sources). Checked
by brute force over small domains of sizes (ints, named sizes, unknowns, expressions of
named sizes) and facts, on hand-written signatures and on the catalogue's examples
retyped at random.

``KANTENSOR_DIRECT_RETYPINGS`` (default 4) sets how many random retypings each catalogue
example gets; ``KANTENSOR_DIRECT_SEED`` the seed.
"""

from __future__ import annotations

import itertools
import os
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import kantensor as kt
import sizing
from kantensor.onnx.shared import NotKnown
from kantensor.ops.catalogue import _as_given, load_all
from kantensor.ops.family import OpFamily
from kantensor.signature.direct import direct_build
from kantensor.signature.expressions import _terms, symbolic
from kantensor.signature.forward import Build, relational
from kantensor.syntax import ast as A
from kantensor.types.conditions import Condition
from kantensor.types.dim import Dim
from kantensor.types.dimminmax import DIM_CALLS, dim_min
from kantensor.types.facts import EMPTY, Facts
from kantensor.types.poly import MAX_TERMS
from kantensor.types.symbols import substitute

RETYPINGS = sizing.size("DIRECT_RETYPINGS", 4, 40)
SEED = int(os.environ.get("KANTENSOR_DIRECT_SEED", "0"))

N, M = Dim("n"), Dim("m")
FACTS = (EMPTY, Facts([Condition(N, ">=", 2)]), Facts([Condition(N, "==", 3)]),
         Facts([Condition(N, "==", M)]), Facts([Condition(N, "<=", 1)]))
DTYPES = ("bool", "int8", "int64", "uint8", "float32", "float64", "complex64")


def disagreement(sig, types, wrapped=None, facts=EMPTY) -> tuple[str | None, bool]:
    """(what differs, or None; whether the direct path answered)."""
    types = tuple(types)
    wrapped = (False,) * len(types) if wrapped is None else tuple(wrapped)
    direct = direct_build(sig, types, wrapped, facts)
    if direct is None:
        return None, False
    solved = relational(sig, types, wrapped, facts)
    if isinstance(solved, Build) and solved.types == direct[0] and \
            exact(solved.conditions) == exact(direct[1]):
        return None, True
    return (f"{sig} {[str(t) for t in types]} wrapped={wrapped} {facts}: direct "
            f"{[str(t) for t in direct[0]]} {exact(direct[1])}, relation {solved}"), True


def exact(clauses) -> list:
    """Conditions as everything that tells them apart: each side, op and source, in
    order (a disjunction: its cases in order, and its source)."""
    def one(c):
        return (str(c.left), c.op, str(c.right), c.source)
    return [one(c) if isinstance(c, Condition) else
            ([[one(x) for x in case] for case in c.cases], c.source) for c in clauses]


# -- exhaustive over small domains ------------------------------------------------------
SIGNATURES = [
    ("+(),()->()", (None, None)),
    ("+(m?,n),(n,p?)->(m?,p?)", (None, None)),
    ("(n),(m)->(n+m)", (1, 1)),
    ("(n)->(n-2) where n >= 2", (1,)),
    ("(n)->(n-1)", (1,)),  # a size only where n >= 1: the relation keeps it
    ("(n),(m)->(n-m)", (1, 1)),
    ("(n)->(max(0,n-3))", (1,)),
    ("(n,k)->(n//k) where k >= 1", (2,)),
    ("(a,b)->(a*b)", (2,)),
    ("(n,m)->(m,n)", (2,)),
    ("(n,2),(n)->(n,3)", (2, 1)),
    ("(...),(...)->(...)", (None, None)),
    ("(*s),(*s)->(*s,2)", (None, None)),
    ("+(n)->()", (None,)),
    ("(n)->(n) where n >= 2 | (n)->(1)", (1,)),
]
SMALL = (0, 1, 2, None, N)


def _shapes(rank: int | None) -> list[tuple]:
    ranks = (0, 1, 2) if rank is None else (rank,)
    return [s for r in ranks for s in itertools.product(SMALL, repeat=r)]


@pytest.mark.parametrize(("text", "ranks"), SIGNATURES, ids=[s for s, _ in SIGNATURES])
def test_direct_answers_are_the_relations_on_every_small_input(text, ranks):
    sig = kt.Signature.parse(text)
    bad, answered, total = [], 0, 0
    for shapes in itertools.product(*(_shapes(r) for r in ranks)):
        for dtypes in (("float32",) * len(ranks), ("int8", "float64")[:len(ranks)]):
            types = [kt.TensorType(d, s) for d, s in zip(dtypes, shapes, strict=True)]
            for facts in FACTS[:3]:
                total += 1
                wrong, did = disagreement(sig, types, facts=facts)
                answered += did
                if wrong:
                    bad.append(wrong)
    assert not bad, bad[:5]
    assert answered >= 10, (answered, total)  # it does answer: not vacuous


def _judged(sig, shapes) -> tuple[list, int, int]:
    """Every combination of ``shapes`` (one shape per input) under every fact set of
    FACTS: (the disagreements, how many the direct path answered, how many of those it
    answered under conditions)."""
    bad, answered, conditioned = [], 0, 0
    for combo in shapes:
        types = tuple(kt.TensorType("float32", s) for s in combo)
        for facts in FACTS:
            wrong, did = disagreement(sig, types, facts=facts)
            answered += did
            if wrong:
                bad.append(wrong)
            elif did:
                conditioned += bool(direct_build(sig, types, (False,) * len(types), facts)[1])
    return bad, answered, conditioned


@pytest.mark.parametrize("text", ["+(),()->()", "+(),(),()->()", "+(n),(n)->(n)",
                                  "+(),()->() | (n),(m)->(n,m)"])
def test_direct_keeps_the_relations_broadcast_conditions(text):
    """Where a broadcast holds only under a condition (an unknown size against another
    size, two named sizes the facts do not equate), the direct path gives the relation's
    answer with the very same conditions, in order, with their sources; an overload
    that would split into cases is left to the relation."""
    sig = kt.Signature.parse(text)
    n_in = min(n for n, _ in sig.arities)
    shapes = [s for r in (0, 1) for s in itertools.product((0, 1, 2, None, N, M), repeat=r)]
    if n_in == 2:
        shapes += list(itertools.product((1, 2, None, N), repeat=2))
    bad, answered, conditioned = _judged(sig, itertools.product(shapes, repeat=n_in))
    print(f"\n{text}: {answered} answered directly, {conditioned} under conditions")
    assert not bad, bad[:5]
    assert conditioned >= 20, (conditioned, answered)  # it does keep conditions


@pytest.mark.parametrize("text", [
    "(a),(b)->(u) where broadcast(a,b) == u",
    "(a)->(u) where broadcast(a,3) == u",
    "(a,b),(c,d)->(u,v) where broadcast(a,c) == u, broadcast(b,d) == v",
    "(a),(b)->(u) where broadcast(a,b) == u, a >= 1",
    "+(a),(b)->(u) where broadcast(a,b) == u",
    "(a),(b)->(b) where broadcast(a,b) == b",
    "(a0,a1),(s0),(s1)->(s0,u1) where broadcast(a1,s1) == u1",  # an ONNX Expand
])
def test_direct_answers_the_relations_broadcast_clauses(text):
    """A ``broadcast(...) == u`` where-clause over the inputs' sizes, defining a size of
    its own, is answered directly with the relation's answer: the same sizes (NumPy's
    rule, ``min(2, n)`` against ``n``), the same conditions in order with their
    sources; an unknown argument, a result an input binds, or a broadcast of loop dims
    open beside it is left to the relation."""
    sig = kt.Signature.parse(text)
    ranks = [len(op.dims) for op in sig.alternatives[0].inputs]
    sizes = (1, 2, None, N, M, dim_min(2, N))
    bad, answered, conditioned = _judged(
        sig, itertools.product(*(itertools.product(sizes, repeat=r) for r in ranks)))
    print(f"\n{text}: {answered} answered directly, {conditioned} under conditions")
    assert not bad, bad[:5]
    if "== b" not in text:
        assert answered >= 15 and conditioned >= 5, (answered, conditioned)


@pytest.mark.parametrize("default", ["float64", "float32"])
@pytest.mark.parametrize("name", ["add", "true_divide", "sqrt", "arctan2"])
def test_wrapped_numbers_and_float_of_follow_the_default_dtype(name, default):
    """Wrapped Python numbers and ``float(T)`` read the default float dtype: both paths
    read the same one."""
    op = getattr(kt, name)
    bad = []
    n = op_arity(op)
    with kt.default_dtype(default):
        for types, wrapped in wrapped_cases():
            try:
                sig, _ = op.signature_for(tuple(types[:n]))
            except (TypeError, ValueError):
                continue
            wrong, _ = disagreement(sig, types[:n], wrapped[:n])
            if wrong:
                bad.append(wrong)
    assert not bad, bad[:5]


def wrapped_cases():
    """Pairs of input types and their wrapped flags: a tensor of every shape kind and a
    0-d one, the 0-d one a wrapped Python number (first or second) or neither wrapped."""
    for a, b in itertools.product(DTYPES, repeat=2):
        for shape in ((), (2,), (None,), (N,)):
            for wrapped in ((False, True), (True, False), (False, False)):
                types = [kt.TensorType(a, shape), kt.TensorType(b, ())]
                if wrapped[0]:
                    types.reverse()
                yield types, wrapped


def op_arity(op) -> int:
    return min(n_in for n_in, _ in op.signature.arities)


def test_wrapped_numbers_take_the_relations_promotion():
    sig = kt.add.signature
    bad = []
    for types, wrapped in wrapped_cases():
        wrong, _ = disagreement(sig, types, wrapped)
        if wrong:
            bad.append(wrong)
    assert not bad, bad[:5]


# -- the catalogue ----------------------------------------------------------------------
def _flat(value):
    return [t for v in value for t in (_flat(v) if isinstance(v, list) else [v])]


def _examples():
    for entry in load_all():
        op = getattr(kt, entry.name, None)
        if op is None:
            continue
        for example in entry.examples:
            if "in" not in example:
                continue
            params = {k: v for k, v in example.items() if k not in ("in", "out", "error")}
            try:
                params = _as_given(op, params)
                bound = op.bind(**params) if isinstance(op, OpFamily) else op
                types = [kt.TensorType.parse(t) for t in _flat(example["in"])]
            except (TypeError, ValueError):
                continue
            if params and not isinstance(op, OpFamily):
                continue
            yield entry.name, bound, types


def _retyped(types, rng):
    yield list(types)
    sizes = (0, 1, 2, 3, N, M, None, N // 2, N + 1)
    for _ in range(RETYPINGS):
        out = []
        for t in types:
            rank = max(0, t.ndim + rng.choice((0, 0, 0, -1, 1)))
            out.append(kt.TensorType(
                rng.choice(DTYPES) if rng.random() < 0.2 else t.dtype,
                tuple(rng.choice(sizes) if rng.random() < 0.7 or k >= t.ndim
                      else t.shape[k] for k in range(rank))))
        yield out


def test_direct_answers_are_the_relations_on_the_catalogue():
    rng = random.Random(SEED)
    bad, answered, total, ops = [], 0, 0, set()
    for name, op, types in _examples():
        for retyped in _retyped(types, rng):
            retyped = tuple(retyped)
            try:
                sig, _ = op.signature_for(retyped)
            except (TypeError, ValueError, kt.TypeInferenceError):
                continue  # a parameter that does not fit these ranks
            wrapped = tuple(t.ndim == 0 and rng.random() < 0.3 and
                            t.dtype in ("int64", "float64", "bool", "complex128")
                            for t in retyped)
            facts = rng.choice(FACTS) if retyped != tuple(types) else EMPTY
            total += 1
            wrong, did = disagreement(sig, retyped, wrapped, facts)
            answered += did
            ops.add(name) if did else None
            if wrong:
                bad.append(f"{name}: {wrong}")
    print(f"\ndirect path on the catalogue: {answered} of {total} builds answered "
          f"directly, over {len(ops)} ops; {len(bad)} disagree")
    assert not bad, bad[:5]
    assert len(ops) >= 100 and answered >= total // 2, (len(ops), answered, total)


def test_make_node_answers_what_the_relation_answers():
    """The memoized front end (make_node through forward.build) on the cases the
    benchmarks time: an unknown size passed through, a named size, a reduction."""
    x = kt.tensor("x", "float64", (1000, 3))
    y = kt.tensor("y", "float64", (3, None))
    s = kt.tensor("s", "float64", (N, 3, 4))
    cases = [(kt.matmul, [x, y]), (kt.add, [x, x]), (kt.sum.bind(axis=-1), [s])]
    for op, inputs in cases:
        node = op.make_node(*inputs)
        types = tuple(v.type for v in inputs)
        sig, _ = op.signature_for(types)
        assert direct_build(sig, types, (False,) * len(types), EMPTY) is not None
        want = relational(sig, types, (False,) * len(types))
        assert tuple(v.type for v in node.outputs) == want.types
        assert node.conditions == want.conditions == ()


@pytest.mark.parametrize("text", ["(n,m,k)->() where (n+m+k+1)**40 >= 1",
                                  "(n,m,k)->((n+m+k+1)**40)"])
def test_expressions_the_relation_refuses_as_too_large_are_left_to_it(text):
    """The relation evaluates a clause over unknowns and refuses one that may expand
    past the limits, even where the values are small: the direct path declines."""
    sig = kt.Signature.parse(text)
    types = (kt.TensorType.parse("float32[2,3,4]"),)
    assert direct_build(sig, types, (False,), EMPTY) is None
    try:
        answer = relational(sig, types, (False,))
    except ValueError as exc:  # the where-clause: refused while it is solved
        answer = str(exc)
    assert "too large" in answer  # the output: a message of the build


def _expressions():
    """DSL dim expressions over three names: sums, products, floors, remainders, powers,
    min and max, constants 0 to 7 (0 divides too)."""
    leaves = st.one_of(st.integers(0, 7).map(A.FixedDim),
                       st.sampled_from("abc").map(A.DimVar))

    def grow(inner):
        return st.one_of(
            st.tuples(st.sampled_from(["+", "-", "*", "//", "%"]), inner, inner).map(
                lambda t: A.BinOp(*t)),
            st.tuples(inner, st.integers(0, 3)).map(
                lambda t: A.BinOp("**", t[0], A.FixedDim(t[1]))),
            st.tuples(st.sampled_from(["min", "max"]), st.lists(inner, min_size=1,
                                                                max_size=3)).map(
                lambda t: A.Call(t[0], tuple(t[1]))))

    return st.recursive(leaves, grow, max_leaves=12)


@settings(max_examples=300, deadline=None)
@given(_expressions())
def test_an_expression_is_within_the_limits_where_its_value_over_named_sizes_is(node):
    """symbolic() says by an expression's form alone that sums, int multiples, floors
    and remainders by nonzero ints, min and max stay sizes; it must say what evaluating
    it over named sizes says (A.evaluate, the relation's own evaluation)."""
    names = {n: Dim(n) for n in A.expr_names(node)}
    try:
        A.evaluate(node, names.__getitem__, calls=DIM_CALLS)
        fits = True
    except (ValueError, OverflowError, ZeroDivisionError):
        fits = False
    assert symbolic(node) is fits


def _sum(prefix: str, n: int) -> A.DimExpr:
    """``prefix0 + prefix1 + ...``: ``n`` names summed in a balanced tree."""
    items: list = [A.DimVar(f"{prefix}{i}") for i in range(n)]
    while len(items) > 1:
        items = [A.BinOp("+", *items[i:i + 2]) if i + 1 < len(items) else items[i]
                 for i in range(0, len(items), 2)]
    return items[0]


@pytest.mark.parametrize("k, m", [(30, 33), (31, 33), (32, 32), (1, 1000), (2, 501),
                                  (10, 100), (10, 101), (45, 23)])
@pytest.mark.parametrize("wrap", ["plain", "floor", "floor3", "mod", "min"])
def test_a_product_of_sizes_is_within_the_limits_where_its_value_is(k, m, wrap):
    """symbolic() says by its form that a product of sums of sizes whose terms cannot
    pass the limit (the Dim algebra's product refuses past 1,000) stays a size, and
    leaves the others to the evaluation: what evaluating it over named sizes says, on
    each side of the limit, with floors, remainders and min() inside."""
    left, right = _sum("a", k), _sum("b", m)
    if wrap == "floor":
        left = A.BinOp("//", left, A.FixedDim(2))
    elif wrap == "floor3":
        left = A.BinOp("//", A.BinOp("*", A.FixedDim(3), left), A.FixedDim(2))
    elif wrap == "mod":
        right = A.BinOp("%", right, A.FixedDim(3))
    elif wrap == "min":
        left = A.Call("min", (left, A.DimVar("z")))
    for node in (A.BinOp("*", left, right),
                 A.BinOp("*", A.BinOp("*", left, right), A.DimVar("q"))):
        names = {n: Dim(n) for n in A.expr_names(node)}
        try:
            A.evaluate(node, names.__getitem__, calls=DIM_CALLS)
            fits = True
        except ValueError:
            fits = False
        assert symbolic(node) is fits
    assert symbolic(A.BinOp("*", _sum("a", 30), _sum("b", 33))) is True
    assert symbolic(A.BinOp("*", _sum("a", 32), _sum("b", 32))) is False



def _random_form(rng: random.Random, depth: int):
    """A random dim expression: names, fixed sizes, sums, products of sizes, floors and
    remainders by an int (some of a multiple, which the algebra splits), min and max."""
    if depth == 0 or rng.random() < 0.2:
        return A.DimVar(f"a{rng.randrange(12)}") if rng.random() < 0.8 else \
            A.FixedDim(rng.randint(1, 5))
    r = rng.random()
    if r < 0.25:
        return A.BinOp(rng.choice("+-"), _random_form(rng, depth - 1),
                       _random_form(rng, depth - 1))
    if r < 0.6:
        return A.BinOp("*", _random_form(rng, depth - 1), _random_form(rng, depth - 1))
    if r < 0.85:
        inner = _random_form(rng, depth - 1)
        if rng.random() < 0.5:
            inner = A.BinOp("*", A.FixedDim(rng.randint(2, 5)), inner)
        return A.BinOp(rng.choice(["//", "%"]), inner, A.FixedDim(rng.randint(2, 5)))
    return A.Call(rng.choice(["min", "max"]),
                  (_random_form(rng, depth - 1), _random_form(rng, depth - 1)))


def test_a_form_within_the_limits_has_at_most_the_terms_its_bound_says():
    """symbolic()'s bound on a form's terms (floors and remainders at most twice their
    argument's and two, products multiplying) is not proved: over random products of
    floors, remainders, min and max it is checked against the Dim algebra's own
    expansion, which must succeed with no more terms than the bound (review13)."""
    checked = 0
    for seed in range(sizing.size("TERM_FORMS", 1500, 15000)):
        rng = random.Random(seed)
        node = _random_form(rng, rng.randint(4, 9))
        bound = _terms(node, 0)
        if bound is None or bound > MAX_TERMS:
            continue
        names = {n: Dim(n) for n in A.expr_names(node)}
        value = A.evaluate(node, names.__getitem__, calls=DIM_CALLS)
        assert isinstance(value, int) or len(value._terms) <= bound, (seed, node, bound)
        assert symbolic(node) is True
        checked += 1
    assert checked >= 500


# -- ONNX pools: a window's output size over a min() of floors (ceil_mode) -------------
POOL_SIZES = (*range(1, 8), 0, N, N + 3, N // 2 + 1, None)
POOL_FACTS = (EMPTY, Facts([Condition(N, ">=", 2)]), Facts([Condition(N, "<=", 1)]))


def _pool_windows():
    for kernel, stride, dilation in itertools.product((1, 2, 3), (1, 2, 3), (1, 2)):
        for pads in ((0, 0), (1, 0), (0, 1), (1, 1), (2, 1)):
            if max(pads) < kernel:
                yield kernel, stride, dilation, pads


@pytest.mark.parametrize("ceil_mode", [1, 0])
def test_direct_answers_the_relations_pools(ceil_mode):
    """A pool's output size is a floor (``ceil_mode=0``) or the min of two floors (the
    last window starts inside the input or its left pad), and its where-clauses (every
    output size at least 1) hold only under a condition for a named size: the direct
    path keeps the relation's conditions, with their sources, over every window
    (kernel, stride, dilation, pads) and input size (ints, a named size, expressions of
    it, unknown) under facts, and it answers every named input."""
    from kantensor.onnx.registry import lookup
    pool = lookup("MaxPool", "", 18, "pool").op
    bad, answered, conditioned, missed = [], 0, 0, []
    for kernel, stride, dilation, pads in _pool_windows():
        op = pool.bind(kernel_shape=(kernel,), strides=(stride,), dilations=(dilation,),
                       pads=pads, ceil_mode=ceil_mode)
        for size in POOL_SIZES:
            types = (kt.TensorType("float32", (N, 3, size)),)
            sig, _ = op.signature_for(types)
            for facts in POOL_FACTS if isinstance(size, Dim) else POOL_FACTS[:1]:
                wrong, did = disagreement(sig, types, facts=facts)
                answered += did
                if wrong:
                    bad.append(wrong)
                elif did:
                    conditioned += bool(direct_build(sig, types, (False,), facts)[1])
                elif isinstance(size, Dim) and isinstance(
                        relational(sig, types, (False,), facts), Build):
                    missed.append((kernel, stride, dilation, pads, str(size), str(facts)))
    print(f"\npools (ceil_mode={ceil_mode}): {answered} answered directly, "
          f"{conditioned} under conditions")
    assert not bad, bad[:5]
    assert not missed, missed[:5]  # every named input the relation types is answered
    assert conditioned >= len(list(_pool_windows())), conditioned


def _spec_size(n, kernel, stride, dilation, pads, ceil_mode):
    """ONNX's output-size formula for a pool (PyTorch's rule in ceil mode: the last
    window starts inside the input or its left pad), on ints."""
    span = n + pads[0] + pads[1] - (kernel - 1) * dilation - 1
    if not ceil_mode:
        return span // stride + 1
    out = -(-span // stride) + 1
    return out - 1 if (out - 1) * stride >= n + pads[0] else out


@pytest.mark.parametrize("ceil_mode", [1, 0])
def test_pool_sizes_over_a_named_size_are_the_spec_formula(ceil_mode):
    """The output size over ``n`` (one floor in the signature, the least of the two a
    ceil-mode window allows) is ONNX's formula at every ``n`` from 1 to 40 where the
    build's conditions hold; where they fail, the formula gives no position (< 1)."""
    from kantensor.onnx.registry import lookup
    pool = lookup("MaxPool", "", 18, "pool").op
    bad = []
    for kernel, stride, dilation, pads in _pool_windows():
        op = pool.bind(kernel_shape=(kernel,), strides=(stride,), dilations=(dilation,),
                       pads=pads, ceil_mode=ceil_mode)
        types = (kt.TensorType("float32", (M, 3, N)),)
        sig, _ = op.signature_for(types)
        out, conditions = direct_build(sig, types, (False,), EMPTY)
        size = out[0].shape[2]
        assert "min" not in str(size), size
        for n in range(1, 41):
            want = _spec_size(n, kernel, stride, dilation, pads, ceil_mode)
            holds = all(c.holds({"n": n, "m": 2}) for c in conditions)
            got = substitute(size, {"n": n})
            if holds != (want >= 1) or (holds and got != want):
                bad.append((kernel, stride, dilation, pads, n, str(size), got, want))
    assert not bad, bad[:5]


def _conv_spec_size(n, kernel, stride, dilation, pads, auto_pad):
    """ONNX's output-size formula for a Conv on ints (tests/ortwindows.py's, which
    tests/test_contracts_onnx.py checks against onnx.reference and onnxruntime)."""
    from onnx import helper

    from ortwindows import spec_sizes
    node = helper.make_node("Conv", ["x", "w"], ["y"], kernel_shape=[kernel],
                            strides=[stride], dilations=[dilation], pads=list(pads),
                            auto_pad=auto_pad)
    return spec_sizes(node, (1, 1, n), {})[0]


@pytest.mark.parametrize("auto_pad", ["NOTSET", "VALID", "SAME_UPPER"])
def test_conv_sizes_over_a_named_size_are_the_spec_formula(auto_pad):
    """A Conv's output size over ``n`` (written with the fewest operations: a stride-1
    window that keeps its size is ``n`` itself, a floor plus one the floor of the sum)
    is ONNX's formula at every ``n`` from 1 to 30 where the build's conditions hold, and
    gives no position (< 1) where they fail; with the kernel as the weight's axis, at
    every kernel size 1 to 3 too. A dilated SAME Conv, which onnxruntime refuses, is
    left untyped."""
    from kantensor.onnx.registry import lookup
    conv = lookup("Conv", "", 18, "conv").op
    k = Dim("k")
    bad = []
    for kernel, stride, dilation, pads in _pool_windows():
        pads = pads if auto_pad == "NOTSET" else (0, 0)
        for stated in (kernel, None):
            op = conv.bind(kernel_shape=None if stated is None else (kernel,),
                           strides=(stride,), dilations=(dilation,), pads=pads,
                           auto_pad=auto_pad)
            types = (kt.TensorType("float32", (M, 3, N)),
                     kt.TensorType("float32", (5, 3, kernel if stated else k)))
            if auto_pad.startswith("SAME") and dilation != 1:
                # onnxruntime refuses it at every size: left untyped
                # (tests/test_onnx_conv_same.py)
                with pytest.raises(NotKnown):
                    op.signature_for(types)
                continue
            sig, _ = op.signature_for(types)
            out, conditions = direct_build(sig, types, (False, False), EMPTY)
            size = out[0].shape[2]
            for n in range(1, 31):
                sizes = {"n": n, "m": 2, "k": kernel}
                want = _conv_spec_size(n, kernel, stride, dilation, pads, auto_pad)
                holds = all(c.holds(sizes) for c in conditions)
                got = size if type(size) is int else substitute(size, sizes)
                if holds != (want >= 1) or (holds and got != want):
                    bad.append((kernel, stride, dilation, pads, stated, n, str(size), got,
                                want))
    assert not bad, bad[:5]


def test_direct_answers_a_stack_of_ceil_mode_pools():
    """Pools on pools, each over the last's output size under the facts its conditions
    gave (as a model's importer builds them): the direct path answers every step and
    gives the relation's types and conditions."""
    from kantensor.onnx.registry import lookup
    pool = lookup("MaxPool", "", 18, "pool").op.bind(kernel_shape=(3, 3), strides=(2, 2),
                                                      ceil_mode=1)
    h, w = Dim("h"), Dim("w")
    t, facts = kt.TensorType("float32", (N, 8, h, w)), EMPTY
    for _ in range(7):
        sig, _ = pool.signature_for((t,))
        wrong, did = disagreement(sig, (t,), facts=facts)
        assert did and wrong is None, wrong
        types, conditions = direct_build(sig, (t,), (False,), facts)
        assert conditions  # each output size at least 1, over h and w
        t, facts = types[0], facts.with_(*conditions)
    assert str(t) == "float32[n,8,h//128,w//128]", str(t)  # 3x3/2 ceil: h//2 each
