"""One relation (DESIGN §7) for every catalogue Op called with parameters and inputs
drawn at random, beyond its examples (tests/test_one_relation.py retypes each example
at the example's own ranks and parameters):

1. parameters drawn from values of their kind (axes in and out of range, tuples,
   dtypes, sizes, the examples' values), inputs of ranks 0..3 over sizes 0..3 and of
   random dtypes: make_node, ``query``, ``relation`` in ``kanren.run`` and ``refine``
   agree, and a backward query is sound and complete against brute force
   (:func:`test_one_relation.check_all_known`, :func:`~test_one_relation.check_backwards`);
2. where the entry names a NumPy function that takes those parameters, NumPy judges the
   call (zeros, identity matrices, random normal data, ones: the first that runs): where
   it raises, make_node refuses; where it runs, make_node's types are its shapes and
   dtypes (kantensor's default float NumPy's, float64), but for kantensor's documented
   departures (docs/writing_ops.rst ``float(T)``: integer inputs give the default float
   where NumPy gives a narrower one, ``np.sqrt`` of int8 float16;
   docs/promotion.rst: a 0-d operand of another dtype; eig's complex eigenvalues;
   ``as_numpy=False`` LAPACK Ops);
   a refusal where NumPy runs is incomplete, not wrong, and only counted;
3. the inputs' axes named (``a``, ``b``, ``c``, tied as often as not) or ints: at every
   assignment of the names in 0..3, make_node's type under its conditions is what
   make_node builds on those sizes (or its conditions fail: a choice, counted; it
   refuses only where no assignment builds), ``query``
   gives exactly those types and holds for its own output types exactly there, and
   ``relation`` in ``kanren.run`` grounds no output no assignment gives (in 0..7) and
   every one some assignment in 0..3 gives (a refusal,
   :class:`~kantensor.query.UndecidedAnswer`, is allowed; the answers before it are
   judged);
4. a query backwards over the inputs' dtypes (their sizes the drawn ones) answers
   exactly the dtypes make_node builds the outputs at (brute force).

``KANTENSOR_RELATION_DRAWS`` (quick 2, long 60) sets the draws per entry and test,
``KANTENSOR_RELATION_DRAWN_SEED`` the seed. The figures are printed (``-s``).
"""

from __future__ import annotations

import inspect
import itertools
import os
import random
import warnings
from collections import Counter

import numpy as np
import pytest
from kanren import membero, run
from unification import var

import kantensor as kt
import sizing
from kantensor.ops.catalogue import _as_given, load_all
from kantensor.ops.family import OpFamily
from kantensor.query import UndecidedAnswer
from test_one_relation import FIGURES, check_all_known, check_backwards, forward
from test_one_relation_named import SIZES, _at, _instances

DRAWS = sizing.size("RELATION_DRAWS", 2, 60)
SEED = int(os.environ.get("KANTENSOR_RELATION_DRAWN_SEED", "31"))
ENTRIES = load_all()
AXIS = [0, 1, -1, 2, -2, 3, -4]
#: values of each parameter kind (beside the examples' own values)
VALUES = {
    "axis": AXIS, "maybe_axis": [None, *AXIS], "maybe_accumulated_axis": [None, 0, -1, 1],
    "axes": [None, 0, -1, 1, (0,), (0, 1), (1, 0), (), [0, -1], (0, 0), 3, 2, (2, 0)],
    "axis_tuple": [None, 0, -1, 1, (0,), (0, -1), (), (1, 0), 2, (0, 2)],
    "listed_axes": [0, -1, 1, (0,), (0, 1), (0, 0), 3, -3, (1, -1)],
    "bool": [True, False], "flag": [True, False], "int": [0, 1, 2, -1, 3, -2],
    "maybe_int": [None, 0, 1, 2, -1],
    "dtype": ["float32", "int64", "bool", "int8", "float16", "complex64", "uint8", "float64"],
    "maybe_dtype": [None, "float32", "int64", "bool", "int8", "complex64", "float64"],
    "number": [0, 1.5, -1, True, 2], "maybe_number": [None, 0, 1.5, -2],
    "cutoff": [None, 0.5, 1], "quantiles": [0.5, (0.25, 0.75), 0.0],
    "size": [0, 1, 2, 3, -1], "count": [0, 1, 2, 3], "maybe_size": [None, 0, 2, 3],
    "sizes": [2, (2,), (0, 1), (1, 2), 0, (2, 0), (1, 1, 2), ()],
    "shape": [2, (2, 3), (), (0,), (-1,), (3, -1), (1, -1), (-1, 0), 6, (2, 2), 1, 0],
    "norm_order": [None, 1, 2, "fro", np.inf, -1, "nuc", 0, -np.inf],
    "axis_pairs": [0, 1, 2, ((1,), (0,)), ((0,), (0,)), ((-1,), (0,)), ((0, 1), (1, 0))],
    "pad_width": [0, 1, (1, 2), ((1, 0),), ((0, 1), (2, 0)), ((1, 1), (0, 0), (0, 2))],
}
DTYPES = ("float32", "float64", "int8", "int32", "int64", "uint8", "bool", "float16",
          "complex64")
INTEGERS = ("bool", "int8", "int32", "int64", "uint8")
NUMPY: Counter = Counter()
NAMED: Counter = Counter()


def _dtypes(rng: random.Random, count: int) -> list[str]:
    """``count`` dtypes: one, or ones NumPy and kantensor promote alike (each pair)."""
    out = [rng.choice(DTYPES)]
    for _ in range(count - 1):
        other = rng.choice(DTYPES)
        same = all(str(kt.promote_types(d, other)) == str(np.promote_types(d, other))
                   for d in out)
        out.append(other if same and rng.random() < 0.5 else out[0])
    return out


def draw(entry, rng: random.Random) -> tuple[dict, list, list] | None:
    """(parameters, the entry's tensor parameters, per one the types given it: one, or
    1..3 for a list of tensors); None where a required parameter has no value here."""
    examples: dict = {}
    for example in entry.examples:
        for k, v in example.items():
            if k not in ("in", "out", "error"):
                examples.setdefault(k, []).append(v)
    params = {}
    for p in entry.spec.params:
        if p.is_tensor:
            continue
        required = p.default is inspect.Parameter.empty
        if not required and rng.random() < 0.35:
            continue
        choices = examples.get(p.name, [])
        if rng.random() < 0.5 or not choices:
            choices = VALUES.get(p.kind) or (list(p.choices) if p.kind == "choice"
                                             else choices)
        if not choices:
            if required:
                return None
            continue
        params[p.name] = rng.choice(choices)
    tensors = [p for p in entry.spec.params if p.is_tensor]
    counts = [1 if p.kind == "tensor" else rng.randint(1, 3) for p in tensors]
    dtypes = iter(_dtypes(rng, max(sum(counts), 1)))
    groups = [[kt.TensorType(next(dtypes), tuple(rng.choice(SIZES) for _ in
                                                  range(rng.randrange(4))))
               for _ in range(c)] for c in counts]
    return params, tensors, groups


def _bound(entry, params: dict):
    """The entry's Op with ``params`` bound; None where binding refuses them."""
    op = getattr(kt, entry.name)
    if not isinstance(op, OpFamily):
        return None if params else op
    try:
        return op.bind(**_as_given(op, params))
    except (TypeError, ValueError):
        return None


def _drawn(entry, rng: random.Random):
    """Each draw: (parameters, tensor parameters, type groups, the bound Op or None)."""
    for _ in range(DRAWS):
        found = draw(entry, rng)
        if found is not None:
            yield (*found, _bound(entry, found[0]))


def _ids(entries) -> list[str]:
    return [f"{e.name}-{e.index}" for e in entries]


@pytest.mark.parametrize("entry", ENTRIES, ids=_ids(ENTRIES))
def test_drawn_calls_every_front_end_agrees(entry):
    rng = random.Random(f"{SEED}-{entry.name}-{entry.index}")
    before = (len(FIGURES["disagree"]), len(FIGURES["unsound"]), len(FIGURES["missing"]))
    for _, _, groups, op in _drawn(entry, rng):
        if op is None:
            continue
        types = [t for g in groups for t in g]
        outs = forward(op, types)
        check_all_known(op, types, outs)
        if outs is not None and sum(t.ndim for t in types) <= 4:
            check_backwards(op, types, outs)
    after = (len(FIGURES["disagree"]), len(FIGURES["unsound"]), len(FIGURES["missing"]))
    assert after == before, (FIGURES["disagree"][before[0]:][:3],
                             FIGURES["unsound"][before[1]:][:3],
                             FIGURES["missing"][before[2]:][:3])


def _identity(shape: tuple) -> np.ndarray:
    """Identity matrices along the last two axes, ones below rank 2."""
    if len(shape) < 2:
        return np.ones(shape)
    a = np.zeros(shape)
    k = min(shape[-2:])
    a[..., range(k), range(k)] = 1
    return a


def run_numpy(fn, params: dict, tensors: list, groups: list):
    """NumPy's ``[(dtype, shape), ...]`` (on the first data it runs on), its exception
    where it runs on none, or None where ``fn`` takes not these parameters."""
    try:
        signature = inspect.signature(fn).parameters
    except (TypeError, ValueError):  # (a ufunc: tensors only)
        signature = {}
    keywords, positional = {}, []
    for k, v in params.items():
        if k == "as_numpy":
            continue
        if k not in signature:
            return None
        v = tuple(v) if isinstance(v, list) else v
        if signature[k].kind == inspect.Parameter.POSITIONAL_ONLY:
            positional.append(v)
        else:
            keywords[k] = v
    rng = np.random.default_rng(0)
    failed = None
    for make in (np.zeros, _identity, rng.standard_normal, np.ones):
        args: list = []
        for p, group in zip(tensors, groups, strict=True):
            arrays = [np.asarray(make(t.shape)).astype(t.dtype) for t in group]
            if p.kind == "tensor":
                args.append(arrays[0])
            elif p.kind == "tensors":
                args.append(arrays)
            else:
                args.extend(arrays)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                result = fn(*args, *positional, **keywords)
            except Exception as exc:  # noqa: BLE001 (NumPy's refusal, any kind)
                failed = exc
                continue
        results = list(result) if isinstance(result, tuple | list) else [result]
        return [(str(np.asarray(r).dtype), np.shape(r)) for r in results]
    return failed


def _departure(name: str, types: list, outs: tuple, numpy: list) -> bool:
    """Whether make_node's dtypes differ from NumPy's as documented: integer inputs give
    the default float (``float(T)``), a 0-d operand of another dtype (PyTorch's rule),
    eig's and eigvals' always complex (docs/numpy.rst: NumPy's are real where every
    eigenvalue is, a fact of the values)."""
    if name in ("eig", "eigvals") and all(
            o.dtype == str(np.promote_types(d, np.complex64)) for o, (d, _) in
            zip(outs, numpy, strict=True)):
        return True
    ints = all(t.dtype in INTEGERS for t in types) and all(
        o.dtype in ("float64", "complex128") and np.dtype(d).kind in "fc"
        for o, (d, _) in zip(outs, numpy, strict=True))
    zero_d = len({t.dtype for t in types}) > 1 and any(t.ndim == 0 for t in types)
    return ints or zero_d


NUMPY_ENTRIES = [e for e in ENTRIES if e.numpy]


@pytest.mark.parametrize("entry", NUMPY_ENTRIES, ids=_ids(NUMPY_ENTRIES))
def test_drawn_calls_are_numpys(entry):
    rng = random.Random(f"{SEED}-numpy-{entry.name}-{entry.index}")
    wrong = []
    for params, tensors, groups, op in _drawn(entry, rng):
        if "as_numpy" in {p.name for p in entry.spec.params} and \
                params.get("as_numpy") is not True:
            continue  # (kantensor's own LAPACK Op: its dtypes are documented apart)
        numpy = run_numpy(entry.numpy[0], params, tensors, groups)
        if numpy is None:
            continue
        types = [t for g in groups for t in g]
        with kt.default_dtype("float64"):  # (NumPy's default float)
            outs = None if op is None else forward(op, types)
        NUMPY["calls"] += 1
        where = f"{entry.name}{params} {[str(t) for t in types]}"
        if isinstance(numpy, BaseException):
            if outs is not None:
                wrong.append(f"{where}: typed {outs}, NumPy raises {numpy!r}"[:300])
            continue
        if outs is None:
            NUMPY["refused where NumPy runs"] += 1
            continue
        if [o.shape for o in outs] != [s for _, s in numpy]:
            wrong.append(f"{where}: typed {outs}, NumPy {numpy}")
        elif [o.dtype for o in outs] != [d for d, _ in numpy]:
            if not _departure(entry.name, types, outs, numpy):
                wrong.append(f"{where}: typed {outs}, NumPy {numpy}")
            NUMPY["documented dtype"] += 1
        else:
            NUMPY["agreed"] += 1
    NUMPY["wrong"] += len(wrong)
    assert not wrong, wrong[:3]


def _named(types: list, rng: random.Random) -> list:
    pool = rng.choice(["abc", "ab", "a"])
    return [kt.TensorType(t.dtype, tuple(kt.Dim(rng.choice(pool)) if rng.random() < 0.5
                                         else d for d in t.shape)) for t in types]


def _shapes(truth: dict, rank: int) -> set:
    return {(c[0].dtype, *c[0].shape) for c in truth.values()
            if c is not None and c[0].ndim == rank and set(c[0].shape) <= set(SIZES)}


def judge_named(op, types: list) -> list[str]:
    """What make_node, query and relation say of inputs with named sizes, against
    make_node on each assignment of the names (the module's doc, 3)."""
    names = sorted({d.name for t in types for d in t.shape if isinstance(d, kt.Dim)})
    truth = {key: forward(op, [_at(t, dict(zip(names, key, strict=True))) for t in types])
             for key in itertools.product(SIZES, repeat=len(names))}
    where = f"{op} {[str(t) for t in types]}"
    try:
        built = op(*[kt.tensor(f"x{i}", t.dtype, t.shape) for i, t in enumerate(types)])
    except (TypeError, ValueError, IndexError) as exc:
        NAMED["refused"] += 1
        built = [dict(zip(names, k, strict=True)) for k, c in truth.items() if c is not None]
        return [f"make_node {where} refused ({exc}) where {built[0]} builds"[:400]] \
            if built else []
    outs = built if isinstance(built, list | tuple) else [built]
    conditions = outs[0].owner.conditions
    NAMED["built"] += 1
    for key, concrete in truth.items():
        env = dict(zip(names, key, strict=True))
        if not all(c.holds(env) for c in conditions):
            NAMED["chosen"] += concrete is not None  # (a choice: its conditions say so)
            continue
        if tuple(_at(v.type, env) for v in outs) != concrete:
            return [f"make_node {where} at {env}: {[v.type for v in outs]} "
                    f"{conditions} != {concrete}"]
    zs = [f"Z{i}" for i in range(len(outs))]
    got: dict = {}
    for answer in kt.query(op, types, [var(z) for z in zs]):
        for key, value in _instances(answer, names, zs):
            got.setdefault(key, set()).add(value)
    for key, concrete in truth.items():
        if got.get(key, set()) != (set() if concrete is None else {concrete}):
            return [f"query {where} -> Z at {key}: {got.get(key)} != {concrete}"]
    said = [v.type for v in outs]
    holds = {key for a in kt.query(op, types, said) for key, _ in _instances(a, names, [])}
    for key, concrete in truth.items():
        env = dict(zip(names, key, strict=True))
        want = all(c.holds(env) for c in conditions) and \
            concrete == tuple(_at(t, env) for t in said)  # (no size where they fail)
        if (key in holds) != want:
            return [f"query {where} -> {said} at {env}: {key in holds}"]
    if len(outs) > 1 or outs[0].ndim > 3:
        return []
    rank, dtype, ns = outs[0].ndim, var(), [var() for _ in range(outs[0].ndim)]
    try:
        found = set(run(0, (dtype, *ns), kt.relation(op)(*types, kt.pattern(dtype, tuple(ns))),
                        *(membero(n, SIZES) for n in ns)))
        refused = False
    except UndecidedAnswer as exc:
        found, refused = set(exc.answers), True
    NAMED["runs"] += 1
    NAMED["run refused"] += refused
    wide = {key: forward(op, [_at(t, dict(zip(names, key, strict=True))) for t in types])
            for key in itertools.product(range(8 if len(names) <= 2 else 6),
                                         repeat=len(names))}
    if not found <= _shapes(wide, rank):
        return [f"relation {where}: {sorted(found - _shapes(wide, rank))}"]
    if not refused and not _shapes(truth, rank) <= found:
        return [f"relation {where} misses {sorted(_shapes(truth, rank) - found)}"]
    return []


@pytest.mark.parametrize("entry", ENTRIES, ids=_ids(ENTRIES))
def test_drawn_calls_with_named_sizes_are_one_relation(entry):
    rng = random.Random(f"{SEED}-named-{entry.name}-{entry.index}")
    wrong = []
    for _, _, groups, op in _drawn(entry, rng):
        types = [t for g in groups for t in g]
        if op is None or forward(op, types) is None and rng.random() < 0.7:
            continue
        named = _named(types, rng)
        if any(isinstance(d, kt.Dim) for t in named for d in t.shape):
            wrong += judge_named(op, named)
    NAMED["wrong"] += len(wrong)
    assert not wrong, wrong[:3]


#: the dtypes a backward query over dtypes is judged at (NumPy's and one it lacks)
BACK_DTYPES = ("bool", "int8", "uint8", "int32", "int64", "uint64", "float16", "float32",
               "float64", "complex64", "bfloat16")


@pytest.mark.parametrize("entry", ENTRIES, ids=_ids(ENTRIES))
def test_drawn_calls_queried_back_over_dtypes(entry):
    """``query(op, [inputs of unknown dtypes, the drawn sizes], make_node's outputs)``
    answers exactly the dtypes (of :data:`BACK_DTYPES`, one or two inputs) at which
    make_node builds those outputs (an answer leaving a dtype open is not judged)."""
    rng = random.Random(f"{SEED}-dtypes-{entry.name}-{entry.index}")
    wrong = []
    for _, _, groups, op in _drawn(entry, rng):
        types = [t for g in groups for t in g]
        outs = None if op is None or not 1 <= len(types) <= 2 else forward(op, types)
        if outs is None:
            continue
        ts = [var(f"t{i}") for i in range(len(types))]
        answers = [tuple(a[f"t{i}"] for i in range(len(types))) for a in kt.query(
            op, [kt.pattern(t, x.shape) for t, x in zip(ts, types, strict=True)], list(outs))]
        if not all(isinstance(d, str) for a in answers for d in a):
            NAMED["dtypes left open"] += 1
            continue
        want = {combo for combo in itertools.product(BACK_DTYPES, repeat=len(types))
                if forward(op, [kt.TensorType(d, x.shape)
                                for d, x in zip(combo, types, strict=True)]) == outs}
        got = {a for a in answers if all(d in BACK_DTYPES for d in a)}
        NAMED["dtype queries"] += 1
        if got != want:
            wrong.append(f"{op} {[str(t) for t in types]} -> {outs}: answered and not "
                         f"built {sorted(got - want)[:3]}, built and not answered "
                         f"{sorted(want - got)[:3]}")
    NAMED["wrong"] += len(wrong)
    assert not wrong, wrong[:3]


def test_report_figures():
    """Runs last: the figures of this module's run (printed with -s)."""
    print(f"\ndrawn: {dict(NUMPY)}; named: {dict(NAMED)}")
    assert NUMPY["calls"] + NAMED["built"] + NAMED["dtype queries"] > 0
