"""Every catalogue Op at the size boundaries where its alternatives switch (issue 38):
forward, query and run agree.

Each valid example of each catalogue entry (``signatures/*.toml``) is moved to sizes
around the boundaries of its relation: one size set to another's ``k - 1``, ``k`` or
``k + 1`` (where an equality, an order, a broadcast or an overload switches), or to 0, 1
or 2. At each such call:

* the forward build (make_node) types it, or refuses it;
* ``kt.query`` on those input types has exactly one answer, the forward build's types,
  or none when the forward build refuses;
* a typed call runs, to values of the stated types equal to NumPy's (the entry's NumPy
  function on the same arrays, cast to the stated dtype); a refused call is refused by
  NumPy too;
* built with the moved size unknown (``?``), the graph runs on the same arrays to
  NumPy's value with a shape its type allows, or raises: never another answer.

``KANTENSOR_BOUNDARY_VARIANTS`` (default 3) sets the calls per example and
``KANTENSOR_BOUNDARY_SEED`` (default 38) the seed; figures in the summary.
"""

from __future__ import annotations

import os
import random
import warnings
from typing import Any

import numpy as np
import pytest

import kantensor as kt
import sizing
from differential import REFUSALS, bound, build, count, tensor_types
from kantensor.ops.catalogue import _as_given, load_all
from kantensor.query import var

VARIANTS = sizing.size("BOUNDARY_VARIANTS", 3, 40)
SEED = int(os.environ.get("KANTENSOR_BOUNDARY_SEED", "38"))

ENTRIES = [e for e in load_all() if any("out" in x for x in e.examples)]


def _examples(entry) -> list[tuple[list, list, dict]]:
    """The entry's valid examples as (shapes, dtypes, params), concrete (a named or
    unknown size made 3); examples with a list of tensors are left out."""
    out = []
    for example in entry.examples:
        if "out" not in example or any(isinstance(t, list) for t in example["in"]):
            continue
        types = [kt.TensorType.parse(t) for t in example["in"]]
        shapes = [[e if isinstance(e, int) else 3 for e in t.shape] for t in types]
        params = _as_given(entry.spec, {k: v for k, v in example.items()
                                        if k not in ("in", "out")})
        out.append((shapes, [t.dtype for t in types], params))
    return out


def variants(shapes: list, rng: random.Random, n: int) -> list[tuple[list, tuple]]:
    """``n`` moves of one size to a boundary: (new shapes, (input, axis) moved)."""
    slots = [(i, j) for i, s in enumerate(shapes) for j in range(len(s))]
    moves = set()
    for s in slots:
        for value in (0, 1, 2):
            moves.add((s, value))
        for t in slots:
            if t != s:
                for d in (-1, 0, 1):
                    if shapes[t[0]][t[1]] + d >= 0:
                        moves.add((s, shapes[t[0]][t[1]] + d))
    moves = sorted(m for m in moves if shapes[m[0][0]][m[0][1]] != m[1])
    out = []
    for (i, j), value in rng.sample(moves, min(n, len(moves))):
        new = [list(s) for s in shapes]
        new[i][j] = value
        out.append((new, (i, j)))
    return out


def _arrays(shapes: list, dtypes: list, rng: np.random.Generator) -> list:
    out = []
    for s, d in zip(shapes, dtypes, strict=True):
        values = rng.integers(1, 4, size=s) if d != "bool" else rng.integers(0, 2, size=s)
        out.append(values.astype(d))
    return out


def _numpy(entry, arrays: list, params: dict) -> Any:
    """The entry's NumPy function on the arrays (an exception if NumPy refuses; None if
    the entry has none or it takes other arguments)."""
    if not entry.numpy:
        return None
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            if entry.name == "argsort":  # kantensor's is stable (ties keep their order)
                return entry.numpy[0](*arrays, **params, kind="stable")
            if "subscripts" in params:  # einsum takes them first
                rest = {k: v for k, v in params.items() if k != "subscripts"}
                return entry.numpy[0](params["subscripts"], *arrays, **rest)
            return entry.numpy[0](*arrays, **params)
        except TypeError as exc:
            if "argument" in str(exc) or "keyword" in str(exc):
                return None  # NumPy's function is called otherwise (not a refusal)
            return exc
        except (ValueError, IndexError, np.linalg.LinAlgError) as exc:
            return exc


def _numpy_quirk(entry, params: dict, shapes: list) -> bool:
    """NumPy's einsum does not compare a repeated subscript's sizes after a 0 on its
    view path (``np.einsum("ii->i", np.zeros((0, 3)))`` is a ``(3,)`` array of values
    read outside the operand, not an error); kantensor refuses the mismatch, when built
    and when the graph with the size unknown runs (checked below)."""
    return entry.name == "einsum" and any(0 in s for s in shapes) and any(
        len(term) != len(set(term)) for term in params["subscripts"].split("->")[0]
        .replace("...", "").split(","))


def _same(got: list, want: Any, types: list) -> bool:
    want = list(want) if isinstance(want, tuple | list) else [want]
    if len(want) != len(got):
        return False
    for g, w, t in zip(got, want, types, strict=True):
        w = np.asarray(w)
        if g.shape != w.shape:
            return False
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            w = w.astype(t.numpy_dtype)
        if not np.allclose(np.asarray(g, np.complex128), np.asarray(w, np.complex128),
                           rtol=1e-3, atol=1e-3, equal_nan=True):
            return False
    return True


def _run(inputs, outs, arrays):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            return kt.function(inputs, outs)(*arrays)
        except Exception as exc:  # a refusal when it runs
            return exc


def _fits(shape: tuple, ttype: kt.TensorType) -> bool:
    return len(shape) == ttype.ndim and all(
        not isinstance(e, int) or e == n for e, n in zip(ttype.shape, shape, strict=True))


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: e.name)
def test_forward_query_and_run_agree_at_the_boundaries(entry):
    rng = random.Random(f"{SEED}:{entry.name}")
    values = np.random.default_rng(SEED)
    op = getattr(kt, entry.name)
    problems = []
    for shapes, dtypes, params in _examples(entry):
        for moved, (i, j) in variants(shapes, rng, VARIANTS):
            count("boundaries: calls")
            types = tensor_types(moved, dtypes)
            built = build(op, params, types)
            refused = isinstance(built, Exception)
            where = f"{entry.name}({', '.join(map(str, types))}, {params})"
            # -- query: one answer, the forward build's, or none
            try:
                n_out = len(built[1]) if not refused else bound(op, params).n_outputs
                answers = [[a[f"o{k}"] for k in range(n_out)] for a in kt.query(
                    bound(op, params), types, [var(f"o{k}") for k in range(n_out)])]
            except (*REFUSALS, AttributeError):
                answers = None if not refused else []
            if answers is not None:
                want = [] if refused else [[v.type for v in built[1]]]
                if answers != want:
                    problems.append(f"{where}: query answers {answers}, forward "
                                    f"{'refuses' if refused else want}")
                else:
                    count("boundaries: query agreed")
            # -- run, against NumPy
            arrays = _arrays(moved, dtypes, values)
            reference = _numpy(entry, arrays, params)
            if not refused:
                got = _run(*built, arrays)
                if isinstance(got, Exception):
                    if reference is not None and not isinstance(reference, Exception):
                        problems.append(f"{where}: typed {[v.type for v in built[1]]} but "
                                        f"the run raised {got!r}; NumPy computes it")
                    continue
                got = got if isinstance(got, list) else [got]
                types_out = [v.type for v in built[1]]
                if [g.shape for g in got] != [tuple(t.shape) for t in types_out]:
                    problems.append(f"{where}: typed {types_out}, ran to shapes "
                                    f"{[g.shape for g in got]}")
                elif isinstance(reference, Exception):
                    problems.append(f"{where}: typed {types_out}, NumPy refuses: {reference}")
                elif reference is not None and not _same(got, reference, types_out):
                    problems.append(f"{where}: values differ from NumPy's")
                else:
                    count("boundaries: typed, ran as NumPy")
            elif reference is not None and not isinstance(reference, Exception):
                if _numpy_quirk(entry, params, moved):
                    count("boundaries: refused, NumPy's einsum computes an empty operand's "
                          "mismatched diagonal")
                else:
                    problems.append(f"{where}: refused ({built}) but NumPy computes it")
            else:
                count("boundaries: refused, as NumPy")
            # -- the moved size unknown: NumPy's value, of a shape the type allows, or an error
            hidden = [list(s) for s in moved]
            hidden[i][j] = None
            loose = build(op, params, tensor_types(hidden, dtypes))
            if isinstance(loose, Exception):
                count("boundaries: '?' build refused")
                continue
            got = _run(*loose, arrays)
            if isinstance(got, Exception):
                count("boundaries: '?' graph refused the values")
                continue
            got = got if isinstance(got, list) else [got]
            if refused:
                problems.append(f"{where}: refused, but with axis {j} of input {i} unknown "
                                f"the graph ran to {[g.shape for g in got]}")
            elif not all(_fits(g.shape, v.type) for g, v in zip(got, loose[1], strict=True)):
                problems.append(f"{where}: with axis {j} of input {i} unknown, typed "
                                f"{[v.type for v in loose[1]]}, ran to {[g.shape for g in got]}")
            elif reference is not None and not isinstance(reference, Exception) and \
                    not _same(got, reference, [v.type for v in built[1]]):
                problems.append(f"{where}: with axis {j} of input {i} unknown, values differ "
                                "from NumPy's")
            else:
                count("boundaries: '?' graph ran as NumPy")
    assert not problems, f"{len(problems)} disagreements:\n" + "\n".join(problems[:10])
