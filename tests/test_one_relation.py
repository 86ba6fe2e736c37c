"""One relation for every Op of the catalogue (DESIGN §7): make_node, query, relation and
refine agree on every example and on random retypings of it, and a backward query is
sound and complete against brute force over a finite domain of sizes.

``KANTENSOR_RELATION_RETYPINGS`` (default 1) sets how many random retypings each
example gets; ``KANTENSOR_RELATION_SEED`` the seed. The figures of a run are printed
(``-s``) and kept in ``FIGURES``.
"""

from __future__ import annotations

import itertools
import os
import random
import re

import numpy as np
import pytest
from kanren import run
from unification import var

import kantensor as kt
import sizing
from kantensor.logic.terms import TensorTerm
from kantensor.ops.catalogue import _as_given, load_all
from kantensor.ops.family import OpFamily
from kantensor.types.symbols import free_symbols, substitute

RETYPINGS = sizing.size("RELATION_RETYPINGS", 1, 10)
SEED = int(os.environ.get("KANTENSOR_RELATION_SEED", "0"))
#: Sizes of the brute-force domain, and the most size combinations tried per instance.
SIZES = (0, 1, 2, 3)
MAX_COMBOS = 256
DTYPES = ("bool", "int8", "int64", "uint8", "float32", "float64", "complex64")
FIGURES = {"ops": set(), "comparisons": 0, "answers": 0, "instances": 0, "unsound": [],
           "missing": [], "disagree": []}

ENTRIES = load_all()


def _flat(value):
    return [t for v in value for t in (_flat(v) if isinstance(v, list) else [v])]


def _bound(entry, example):
    """The Op of an example (parameters bound) and its input types; None if the example
    is not a call of tensors of given types."""
    op = getattr(kt, entry.name)
    params = {k: v for k, v in example.items() if k not in ("in", "out", "error")}
    params = _as_given(op, params)
    try:
        bound = op.bind(**params) if isinstance(op, OpFamily) else op
    except (TypeError, ValueError):
        return None
    if params and not isinstance(op, OpFamily):
        return None
    types = [kt.TensorType.parse(t) for t in _flat(example["in"])]
    return bound, types


def _cases():
    for entry in ENTRIES:
        for number, example in enumerate(entry.examples):
            if "in" in example:
                yield pytest.param(entry, example, id=f"{entry.name}-{number}")


def forward(op, types):
    """The output types make_node builds, or None if it refuses."""
    try:
        out = op(*[t() for t in types])
    except (TypeError, ValueError, IndexError):
        return None
    return tuple(v.type for v in (out if isinstance(out, list | tuple) else [out]))


def retypings(types, rng):
    """The example's types, then random ones of the same ranks (sizes 0..3, sometimes
    another dtype)."""
    yield list(types)
    for _ in range(RETYPINGS):
        yield [kt.TensorType(rng.choice(DTYPES) if rng.random() < 0.2 else t.dtype,
                             tuple(rng.choice(SIZES) for _ in t.shape)) for t in types]


def _concrete(types):
    return all(isinstance(d, int) for t in types for d in t.shape)


def _term(t, wrapped=False):
    return TensorTerm(t.dtype, tuple(t.shape), wrapped)


def check_all_known(op, types, outs):
    """query, relation and refine agree with make_node on known inputs (an unknown or
    symbolic size: refine only, query names it and may enumerate branches)."""
    n_out = op.n_outputs if hasattr(op, "n_outputs") else len(op.signature.alternatives[0].outputs)
    zs = [var(f"Z{i}") for i in range(n_out)]
    try:
        got = [tuple(a[f"Z{i}"] for i in range(n_out)) for a in kt.query(op, types, zs)]
    except kt.TypeInferenceError as exc:  # a count of inputs the Op's call refuses
        if outs is not None or not re.search(r"takes [0-9 or]+ inputs?, got", str(exc)):
            FIGURES["disagree"].append(f"query {op} {list(map(str, types))}: {exc}")
        return
    want = [] if outs is None else [outs]
    if _concrete(types) and got != want:
        FIGURES["disagree"].append(f"query {op} {list(map(str, types))}: {got} != {want}")
    made = None
    if outs is not None:
        made = op(*[t() for t in types])
        made = made if isinstance(made, list | tuple) else [made]
    rel = run(0, tuple(zs), kt.relation(op).goal(types, zs))
    # (as make_node makes them: size_number's output is a wrapped Python int)
    want_terms = () if outs is None else (tuple(_term(t, v.wrapped)
                                                for t, v in zip(outs, made, strict=True)),)
    if _concrete(types) and tuple(rel) != want_terms:
        FIGURES["disagree"].append(f"relation {op} {list(map(str, types))}: {rel}")
    if outs is not None:
        refined = kt.refine(made)
        if tuple(refined[v] for v in made) != outs:
            FIGURES["disagree"].append(f"refine {op} {list(map(str, types))}")
    FIGURES["comparisons"] += 1


def check_backwards(op, types, outs):
    """query(op, [inputs of these dtypes and ranks, sizes unknown], outs): every answer
    instance builds to ``outs`` (sound), every domain instance that does is an answer's
    (complete)."""
    n_axes = sum(t.ndim for t in types)
    domain = SIZES
    while len(domain) ** n_axes > MAX_COMBOS and len(domain) > 1:
        domain = domain[1:]  # drop 0, then 1...: keep the domain small
    if len(domain) ** n_axes > MAX_COMBOS:
        return
    names = [[f"s{i}_{j}" for j in range(t.ndim)] for i, t in enumerate(types)]
    patterns = [kt.pattern(t.dtype, tuple(var(n) for n in row))
                for t, row in zip(types, names, strict=True)]
    covered = set()
    for answer in kt.query(op, patterns, list(outs), max_rank=3):
        FIGURES["answers"] += 1
        values = {n: answer[n] for row in names for n in row}
        symbols = sorted({s for v in values.values() if isinstance(v, kt.Dim)
                          for s in free_symbols(v)} |
                         {s for c in answer.where for s in free_symbols(c.left) |
                          free_symbols(c.right)})
        for choice in itertools.product(SIZES, repeat=len(symbols)):
            env = dict(zip(symbols, choice, strict=True))
            if not all(c.holds(env) for c in answer.where):
                continue
            sizes = {n: substitute(v, env) if isinstance(v, kt.Dim) else v
                     for n, v in values.items()}
            if not all(isinstance(x, int) and x >= 0 for x in sizes.values()):
                continue
            combo = tuple(kt.TensorType(t.dtype, tuple(sizes[n] for n in row))
                          for t, row in zip(types, names, strict=True))
            FIGURES["instances"] += 1
            if forward(op, combo) != outs:
                FIGURES["unsound"].append(f"{op} {list(map(str, combo))} -> {outs}")
            covered.add(combo)
    for combo_sizes in itertools.product(domain, repeat=n_axes):
        it = iter(combo_sizes)
        combo = tuple(kt.TensorType(t.dtype, tuple(next(it) for _ in range(t.ndim)))
                      for t in types)
        if combo not in covered and forward(op, combo) == outs:
            FIGURES["missing"].append(f"{op} {list(map(str, combo))} -> {outs}")


@pytest.mark.parametrize(("entry", "example"), list(_cases()))
def test_every_front_end_agrees(entry, example):
    found = _bound(entry, example)
    if found is None:
        return
    op, types = found
    rng = random.Random(f"{SEED}-{entry.name}-{example}")
    before = (len(FIGURES["disagree"]), len(FIGURES["unsound"]), len(FIGURES["missing"]))
    for retyped in retypings(types, rng):
        outs = forward(op, retyped)
        check_all_known(op, retyped, outs)
        if outs is not None and retyped and _concrete(retyped):
            check_backwards(op, retyped, outs)
    FIGURES["ops"].add(entry.name)
    after = (len(FIGURES["disagree"]), len(FIGURES["unsound"]), len(FIGURES["missing"]))
    assert after == before, (FIGURES["disagree"][before[0]:][:3],
                             FIGURES["unsound"][before[1]:][:3],
                             FIGURES["missing"][before[2]:][:3])


def test_report_figures():
    """Runs last in this module: the figures of the run (also printed with -s)."""
    figures = {k: len(v) if isinstance(v, list | set) else v for k, v in FIGURES.items()}
    print(f"\none relation: {figures}")
    assert figures["ops"] >= 100 and figures["comparisons"] > figures["ops"], figures


# -- the reproducers of issue 21 ----------------------------------------------------------
def test_einsum_states_its_repeated_index_in_the_relation():
    op = kt.einsum.bind(subscripts="ij,jk->ik")
    assert list(kt.query(op, ["float32[2,5]", "float32[3,4]"], [var("Z")])) == []
    with pytest.raises(kt.TypeInferenceError):
        op(kt.TensorType.parse("float32[2,5]")(), kt.TensorType.parse("float32[3,4]")())
    n = var("n")
    answers = kt.query(op, [kt.pattern("float32", (2, n)), "float32[3,4]"], [var("Z")])
    assert sorted(a["n"] for a in answers) == [1, 3]  # j broadcasts: 1 or 3, nothing else


def test_take_along_axis_states_its_empty_axis_rule_in_the_relation():
    op = kt.take_along_axis.bind(axis=0)
    assert list(kt.query(op, ["int8[0,2]", "int64[3,2]"], [var("Z")])) == []
    assert [a["Z"] for a in kt.query(op, ["int8[0,2]", "int64[0,2]"], [var("Z")])] == \
        [kt.TensorType("int8", (0, 2))]


def test_squeeze_none_is_a_relation_over_sizes():
    assert [a["Z"] for a in kt.query(kt.squeeze, ["float32[1,3]"], [var("Z")])] == \
        [kt.TensorType("float32", (3,))] == [kt.squeeze(kt.tensor("x", "float32",
                                                                   (1, 3))).type]
    backwards = {a["X"] for a in kt.query(kt.squeeze, [var("X")], ["int8[3,2]"],
                                           max_rank=3)}
    assert backwards == {kt.TensorType("int8", s) for s in
                         [(3, 2), (1, 3, 2), (3, 1, 2), (3, 2, 1)]}
    both = kt.query(kt.squeeze, ["float32[?,3]"], [var("Z")])
    assert sorted(str(a["Z"]) for a in both)[0] == "float32[3]" and len(both) == 2


@pytest.mark.parametrize(("j0", "j1"), [(5, 3), (2, 4), (0, 2)])
def test_a_failing_broadcast_clause_names_operands_axes_and_sizes(j0, j1):
    """make_node's error when a builder's ``broadcast(j_0,j_1) == j`` fails says which
    operands, which axes and which sizes, never the builder's j_0/j_1 (NumPy refuses
    the same call)."""
    x, w = np.zeros((2, j0)), np.zeros((j1, 4))
    with pytest.raises(ValueError):
        np.einsum("ij,jk->ik", x, w)
    with pytest.raises(kt.TypeInferenceError) as info:
        kt.einsum("ij,jk->ik", kt.tensor("x", "float64", x.shape),
                  kt.tensor("w", "float64", w.shape))
    first = str(info.value).splitlines()[0]
    assert first == f"operands float64[2,{j0}] and float64[{j1},4] could not be broadcast: " \
                    f"axis 1 is {j0} and axis 0 is {j1}"
    a, i = np.zeros((j0, 3)), np.zeros((j1, 2), "int64")
    with pytest.raises(IndexError, match="could not be broadcast"):
        np.take_along_axis(a, i, axis=1)
    with pytest.raises(kt.TypeInferenceError) as info:
        kt.take_along_axis(kt.tensor("a", "float64", a.shape), kt.tensor("i", "int64", i.shape),
                           axis=1)
    assert str(info.value).splitlines()[0] == \
        f"operands float64[{j0},3] and int64[{j1},2] could not be broadcast: axis 0 is {j0} " \
        f"and {j1}"


def test_squeeze_none_takes_any_rank_whose_sizes_are_known():
    """squeeze(axis=None) is written for the sizes known when it runs: an 11-d input
    with every size known, or two unknown, squeezes as NumPy does (make_node and query
    alike); more than MAX_SQUEEZE_NONE_UNKNOWN unknown sizes is refused in words, by
    make_node and by a query that reaches them (not left out of its answers)."""
    shape = (1, 3, 1, 2, 1, 4, 5, 1, 2, 1, 1)
    want = kt.TensorType("float32", np.squeeze(np.zeros(shape)).shape)
    assert kt.squeeze(kt.tensor("x", "float32", shape)).type == want
    assert [a["Z"] for a in kt.query(kt.squeeze, [kt.TensorType("float32", shape)],
                                     [var("Z")])] == [want]
    open_ = (None, *shape[1:-1], None)
    answers = kt.query(kt.squeeze, [kt.TensorType("float32", open_)], [var("Z")])
    assert len(answers) == 4  # each unknown axis kept (!= 1) or dropped
    for first, last in itertools.product((1, 2), repeat=2):  # every instance is covered
        built = np.squeeze(np.zeros((first, *shape[1:-1], last))).shape
        assert any(len(a["Z"].shape) == len(built) and all(
            isinstance(d, kt.Dim) or d == b for d, b in zip(a["Z"].shape, built, strict=True))
            for a in answers)
    with pytest.raises(kt.TypeInferenceError, match="axis=None on 9 axes of unknown size"):
        kt.squeeze(kt.tensor("x", "float32", (None,) * 9))
    with pytest.raises(kt.TypeInferenceError, match="give the axes to drop"):
        len(kt.query(kt.squeeze, [var("X")], ["float32[3]"], max_rank=9))
    found = {a["X"].shape for a in kt.query(kt.squeeze, [var("X")], ["float32[3]"],
                                             max_rank=3)}
    assert found == {s for r in range(4) for s in itertools.product((0, 1, 2, 3), repeat=r)
                     if np.squeeze(np.zeros(s)).shape == (3,)}


def test_a_compiled_squeeze_of_an_unknown_axis_follows_its_type():
    """The issue's reproducer: squeeze of float32[?,3] is typed float32[?,3] (the unknown
    axis kept under ``!= 1``); given a (1,3) array, where NumPy returns (3,), check=True
    refuses it, and so does an unchecked run (issue 38: keeping the axis would be a value
    NumPy never gives), never another rank."""
    x = kt.tensor("x", "float32", (None, 3))
    y = kt.squeeze(x)
    assert y.type == kt.TensorType("float32", (None, 3))
    a = np.zeros((1, 3), "float32")
    assert np.squeeze(a).shape == (3,)
    with pytest.raises(kt.TypeInferenceError):
        kt.function([x], y, check=True)(a)
    with pytest.raises(ValueError, match="axis 0 of the value .1, 3. has size 1"):
        kt.function([x], y)(a)
    assert kt.function([x], y, check=True)(np.zeros((2, 3), "float32")).shape == \
        np.squeeze(np.zeros((2, 3))).shape


# -- builders whose alternatives read a size's sign both ways -----------------------------
N = kt.Dim("n")


def _onnx(op_type, **params):
    from kantensor.onnx.registry import registry
    return registry()[("", op_type)][-1].op.bind(**params)


def _numpy_slice(index):
    """The shape NumPy gives x[index(n)] of a 1-d x of size a, n the size input's."""
    return lambda a, n: np.zeros(a)[index(n)].shape


def _onnx_reshape(shape, allowzero=0):
    """ONNX's Reshape of a 1-d x of size a to ``shape(n)`` (0 copies, -1 is inferred),
    or None where ONNX refuses it."""
    def out(a, n):
        entries = list(shape(n))
        if any(e < -1 for e in entries) or entries.count(-1) > 1:
            return None
        got = [a if e == 0 and not allowzero and i < 1 else e for i, e in enumerate(entries)]
        if -1 in got:
            rest = int(np.prod([e for e in got if e != -1]))
            if rest == 0 or a % rest:
                return None
            got[got.index(-1)] = a // rest
        return tuple(got) if int(np.prod(got)) == a else None
    return out


#: (name, Op, the types of its inputs at sizes (a, n), what the oracle computes there)
READINGS = [
    ("x[-n:n]", kt.getitem.bind(index=(slice(-N, N),)), _numpy_slice(lambda n: np.s_[-n:n])),
    ("x[1-n:]", kt.getitem.bind(index=(slice(1 - N, None),)),
     _numpy_slice(lambda n: np.s_[1 - n:])),
    ("x[:2-n]", kt.getitem.bind(index=(slice(None, 2 - N),)),
     _numpy_slice(lambda n: np.s_[:2 - n])),
    ("x[-n::2]", kt.getitem.bind(index=(slice(-N, None, 2),)),
     _numpy_slice(lambda n: np.s_[-n::2])),
    ("x[2-n::-1]", kt.getitem.bind(index=(slice(2 - N, None, -1),)),
     _numpy_slice(lambda n: np.s_[2 - n::-1])),
    ("x[1-n:n:-2]", kt.getitem.bind(index=(slice(1 - N, N, -2),)),
     _numpy_slice(lambda n: np.s_[1 - n:n:-2])),
    ("Slice(x, [-n], [n])", _onnx("Slice", starts_value=(-N,), ends_value=(N,)),
     _numpy_slice(lambda n: np.s_[-n:n])),
    ("Slice(x, [1-n], [2-n])", _onnx("Slice", starts_value=(1 - N,), ends_value=(2 - N,)),
     _numpy_slice(lambda n: np.s_[1 - n:2 - n])),
    ("Reshape(x, [-n-1])", _onnx("Reshape", shape_value=(0 - N - 1,)),
     _onnx_reshape(lambda n: (-n - 1,))),
    ("Reshape(x, [1-n, -1])", _onnx("Reshape", shape_value=(1 - N, -1)),
     _onnx_reshape(lambda n: (1 - n, -1))),
]


def _reading_types(op, a, n):
    t = kt.TensorType
    if "Slice" in str(op):
        return [t("float32", (a,)), t("int64", (1,)), t("int64", (1,)), t("bool", (n,))]
    if "Reshape" in str(op):
        entries = len(dict(op.params)["shape_value"])
        return [t("float32", (a,)), t("int64", (entries,)), t("bool", (n,))]
    return [t("float32", (a,)), t("bool", (n,))]


@pytest.mark.parametrize(("name", "op", "oracle"), READINGS, ids=[r[0] for r in READINGS])
def test_a_sign_read_both_ways_is_one_relation(name, op, oracle):
    """Every reading of a size bound's (or Reshape entry's) sign is an alternative of the
    relation: at each size of x and of the size input (0..4), make_node gives NumPy's
    (ONNX's) shape or refuses where it refuses, and query, relation and refine agree with
    it; a backward query is sound and complete against brute force."""
    before = (len(FIGURES["disagree"]), len(FIGURES["unsound"]), len(FIGURES["missing"]))
    for a, n in itertools.product(range(5), repeat=2):
        types = _reading_types(op, a, n)
        outs = forward(op, types)
        want = oracle(a, n)
        assert (outs and outs[0].shape) == want or outs is None and want is None, \
            (name, a, n, outs, want)
        check_all_known(op, types, outs)
        if outs is not None and a + n <= 5:
            check_backwards(op, types, outs)
    after = (len(FIGURES["disagree"]), len(FIGURES["unsound"]), len(FIGURES["missing"]))
    assert after == before, (FIGURES["disagree"][before[0]:][:3],
                             FIGURES["unsound"][before[1]:][:3],
                             FIGURES["missing"][before[2]:][:3])


def _onnx_examples(op_types=None):
    """The ONNX catalogue's examples that type: of ``op_types`` in the default domain, or
    every domain's (None)."""
    from kantensor.onnx.registry import registry
    keys = sorted(registry()) if op_types is None else [("", t) for t in op_types]
    for domain, op_type in keys:
        for entry in registry()[(domain, op_type)]:
            for k, example in enumerate(entry.entry.examples):
                if "in" in example and "error" not in example:
                    yield pytest.param(entry, example,
                                       id=f"{domain + '.' if domain else ''}{op_type}-{k}")


def _open(t):
    """A type with each unknown size as a stand-in, to compare a query's answer (which
    names a size it leaves open) with make_node's (which leaves it unknown)."""
    return t.dtype, tuple(d if isinstance(d, int) else "open" for d in t.shape)


def _queried(entry, example):
    """The example's Op, make_node's output types, their variables, and the query's
    answers for them (each type by :func:`_open`)."""
    params = {k: v for k, v in example.items() if k not in ("in", "out", "error")}
    op = entry.op.bind(**_as_given(entry.op, params)) if hasattr(entry.op, "bind") \
        else entry.op  # (a signature entry: no parameters)
    types = [kt.TensorType.parse(t) for t in example["in"]]
    outs = forward(op, types)
    assert outs is not None
    zs = [var(f"Z{i}") for i in range(len(outs))]
    got = [tuple(_open(a[f"Z{i}"]) for i in range(len(outs)))
           for a in kt.query(op, types, zs)]
    return op, types, outs, zs, got


@pytest.mark.parametrize(("entry", "example"), list(_onnx_examples(
    ("Slice", "Expand", "GatherND", "Reshape", "Squeeze", "Unsqueeze"))))
def test_an_onnx_builder_that_reads_sizes_is_queried_as_built(entry, example):
    """A builder that reads its inputs' sizes (a shape input's length, the sizes Squeeze
    drops) renders its relation from the sizes the query knows (``reads_known_sizes``):
    a query of the example's inputs answers make_node's types. It answered nothing for
    each of these: the relation rendered from ranks alone, and the builder refused."""
    op, _, outs, _, got = _queried(entry, example)
    assert got == [tuple(map(_open, outs))], (str(op), got, outs)


#: where a query is less precise than make_node, and why (the test fails once it is not)
LESS_PRECISE = {
    # the substrings' count of no string: 0 by the builder's reading of the data's size,
    # left open by the relation
    ("StringSplit", 1): [(("string", (0, "open")), ("int64", (0,)))],
}


@pytest.mark.parametrize(("entry", "example"), list(_onnx_examples()))
def test_every_onnx_example_is_queried_as_built(entry, example):
    """``query`` of each ONNX catalogue example's inputs answers make_node's types (with
    the count of outputs its signature renders for them). It refused Attention(outputs=4),
    Adam, Momentum and Adagrad ('gives 1 output for 5 inputs': the count taken on inputs
    of one rank), and answered nothing for LabelEncoder of strings (the relation rendered
    the builder, which reads the dtype, for float64 proxies)."""
    op, types, outs, zs, got = _queried(entry, example)
    key = (entry.op_type, entry.entry.examples.index(example))
    assert got == LESS_PRECISE.get(key, [tuple(map(_open, outs))]), (str(op), got, outs)
    if len(outs) > 1:
        with pytest.raises(TypeError, match=f"gives {len(outs)} outputs"):
            kt.query(op, types, zs[:-1])


def _multi_output_examples():
    return [p for p in _onnx_examples() if len(forward(
        p.values[0].op.bind(**_as_given(p.values[0].op, {
            k: v for k, v in p.values[1].items() if k not in ("in", "out", "error")}))
        if hasattr(p.values[0].op, "bind") else p.values[0].op,
        [kt.TensorType.parse(t) for t in p.values[1]["in"]]) or ()) > 1]


@pytest.mark.parametrize(("entry", "example"), _multi_output_examples())
def test_a_multi_output_onnx_example_is_queried_back_from_its_ranks(entry, example):
    """``query`` of an ONNX example's inputs of the example's dtypes and ranks, sizes
    unknown, and make_node's output types: the example's inputs are an answer's instance
    (complete). Adam, Adagrad, Momentum and Attention(outputs=4) refused ('gives 1
    output for 5 inputs'): the count of outputs was taken on inputs of one rank where the
    inputs were not all types, not on inputs of the ranks given."""
    op, types, outs, _, _ = _queried(entry, example)
    names = [[f"s{i}_{j}" for j in range(t.ndim)] for i, t in enumerate(types)]
    patterns = [kt.pattern(t.dtype, tuple(var(n) for n in row))
                for t, row in zip(types, names, strict=True)]
    want = {n: d for t, row in zip(types, names, strict=True)
            for n, d in zip(row, t.shape, strict=True)}
    found = False
    for answer in kt.query(op, patterns, list(outs), limit=64):
        values = {n: answer[n] for n in want}
        symbols = sorted({s for v in values.values() if isinstance(v, kt.Dim)
                          for s in free_symbols(v)}, key=str)
        env = {}
        for s in symbols:  # (each free size named by an input axis: the example's value)
            env[s] = next((want[n] for n, v in values.items() if v == kt.Dim(s)), None)
        if None in env.values() or not all((substitute(v, env) if isinstance(v, kt.Dim)
                                            else v) == want[n] for n, v in values.items()):
            continue
        rest = sorted({s for c in answer.where for s in c.symbols()} - set(env), key=str)
        if any(all(c.holds({**env, **dict(zip(rest, more, strict=True))})
                   for c in answer.where)  # (an output's open size: some value of it)
               for more in itertools.product(range(9), repeat=len(rest))):
            found = True
            break
    assert found, (str(op), [str(t) for t in types], outs)
