"""Cases for the Dask backend: calls of every catalogue Op, made from the catalogue's own
examples (their input types and parameters), given random values and random chunks.

:func:`cases` turns each valid example into graph inputs of its types and concrete
shapes for them (a ``?`` or named size drawn at random until the Op's signature accepts
the shapes); :func:`random_chunks` splits every axis at random; :func:`computed` computes
a Dask array once and returns the chunks of the blocks it computed with their values
assembled (``pickled=True``: from a pickled copy of its graph, every task's function as a
worker of a cluster unpickles it).
"""

from __future__ import annotations

import pickle
import random
from collections import Counter
from collections.abc import Mapping
from typing import Any

import cloudpickle
import dask
import numpy as np

import kantensor as kt
from kantensor.ops.catalogue import _as_given, load_all
from kantensor.ops.family import OpFamily

#: Per Op: cases run, and cases where the Dask backend disagreed with the NumPy backend.
STATS: dict[str, Counter] = {}

#: Ops whose square inputs are made symmetric positive definite (else NumPy refuses).
DEFINITE = frozenset({"cholesky", "inv", "solve", "det"})
#: Ops whose integer inputs after the first are indices into the first.
INDICES = frozenset({"take", "take_along_axis", "index", "index_set", "index_add"})


def record(op: str, agree: bool) -> None:
    stats = STATS.setdefault(op, Counter())
    stats["cases"] += 1
    stats["disagree"] += not agree


def _sizes(text: str, rng: random.Random) -> kt.TensorType:
    """The type of ``text`` with every unknown or named size drawn (one draw per name)."""
    t = kt.TensorType.parse(text)
    drawn: dict[Any, int] = {}
    shape = []
    for s in t.shape:
        if isinstance(s, int):
            shape.append(s)
        elif s is None:
            shape.append(rng.randint(1, 5))
        else:
            shape.append(drawn.setdefault(str(s), rng.randint(1, 5)))
    return kt.TensorType(t.dtype, tuple(shape))


def _flat(args: list) -> list:
    return [t for a in args for t in (_flat(a) if isinstance(a, list) else [a])]


def _build(op: Any, example: dict, texts: list) -> tuple[list, Any]:
    """Graph inputs of the example's types (``texts``: nested like its ``in``) and the
    Op's output(s) on them."""
    def make(x: Any) -> Any:
        return [make(v) for v in x] if isinstance(x, list) else kt.TensorType.parse(x)()
    args = [make(v) for v in texts]
    params = _as_given(op, {k: v for k, v in example.items() if k not in ("in", "out")})
    out = op.bind(**params)(*_flat(args)) if isinstance(op, OpFamily) else op(*args, **params)
    return _flat(args), out


def _concrete(texts: list, rng: random.Random) -> list:
    def draw(x: Any) -> Any:
        return [draw(v) for v in x] if isinstance(x, list) else str(_sizes(x, rng))
    return [draw(v) for v in texts]


def cases(rng: random.Random, tries: int = 30) -> list[tuple[str, list, Any]]:
    """``(op name, graph inputs, output)`` for every valid example of every entry,
    with concrete shapes (an example whose sizes no draw fits is left out)."""
    out = []
    for entry in load_all():
        op = kt.CATALOGUE[entry.name]
        for example in entry.examples:
            if "out" not in example:
                continue
            for _ in range(tries):
                try:
                    inputs, y = _build(op, example, _concrete(example["in"], rng))
                except Exception:  # this draw of sizes does not fit the signature
                    continue
                out.append((entry.name, inputs, y))
                break
    return out + index_cases(rng)


def index_cases(rng: random.Random) -> list[tuple[str, list, Any]]:
    """Advanced indexing, which has no valid catalogue example: boolean masks (sizes
    the data decides) and integer arrays, beside slices and ints."""
    n, k = rng.randint(2, 6), rng.randint(2, 6)
    x = kt.tensor("x", "float32", shape=(n, k))
    m = kt.tensor("m", "bool", shape=(n,))
    i = kt.tensor("i", "int64", shape=(3,))
    j = kt.tensor("j", "int64", shape=(2, 3))
    v = kt.tensor("v", "float32", shape=(n, 3))
    return [("index", [x, m], x[m]), ("index", [x, i], x[:, i]),
            ("index", [x, j], x[j, 1:]), ("index", [x, m], x[m, 0]),
            ("index_set", [x, v, i], x.at[:, i].set(v)),
            ("index_add", [x, v, i], x.at[:, i].add(v))]


def values_for(name: str, inputs: list, rng: np.random.Generator) -> list[np.ndarray]:
    """Random values of the inputs' (concrete) types."""
    values = []
    for k, v in enumerate(inputs):
        t = v.type
        shape = tuple(t.shape)
        if name in INDICES and k > 0:
            x = rng.integers(0, max(min(values[0].shape, default=1), 1), shape).astype(t.dtype)
        elif t.dtype == "bool":
            x = rng.random(shape) < 0.5
        elif t.dtype.startswith(("int", "uint")):
            low = 0 if t.dtype.startswith("u") else -5
            x = rng.integers(low, 6, shape).astype(t.dtype)
        elif t.dtype.startswith("complex"):
            x = (rng.uniform(-2, 2, shape) + 1j * rng.uniform(-2, 2, shape)).astype(t.dtype)
        else:
            x = rng.uniform(0.1, 2, shape).astype(t.dtype)
        if name == "searchsorted" and k == 0:  # (a must be sorted: NumPy's search of
            x = np.sort(x)  # an unsorted one depends on the order the keys come in)
        if name in DEFINITE and x.ndim >= 2 and shape[-1] == shape[-2]:
            x = x.astype(np.complex128 if x.dtype.kind == "c" else np.float64)
            x = x @ np.conj(np.swapaxes(x, -1, -2)) + shape[-1] * np.eye(shape[-1])
            x = x.astype(t.dtype)
        values.append(x)
    return values


def random_chunks(shape: tuple[int, ...], rng: random.Random) -> tuple[tuple[int, ...], ...]:
    """Every axis cut at random places (at most 4 chunks)."""
    out = []
    for n in shape:
        if n <= 1:
            out.append((n,))
            continue
        cuts = sorted(rng.sample(range(1, n), rng.randint(0, min(3, n - 1))))
        edges = [0, *cuts, n]
        out.append(tuple(b - a for a, b in zip(edges, edges[1:], strict=False)))
    return tuple(out)


def unpickled_sync(dsk: Any, keys: Any, **kwargs: Any) -> Any:
    """Dask's synchronous scheduler on a copy of the graph pickled by cloudpickle (which
    ``distributed`` uses where pickle refuses; both pickle a kernel by its
    ``__reduce_ex__``, as a worker of a cluster unpickles it)."""
    graph = dict(dsk if isinstance(dsk, Mapping) else dsk.__dask_graph__())
    return dask.local.get_sync(pickle.loads(cloudpickle.dumps(graph)), keys, **kwargs)


def computed(y: Any, pickled: bool = False) -> tuple[tuple, np.ndarray]:
    """The chunks of the blocks of ``y`` as computed, and its value, in one compute
    (``pickled``: from a pickled copy of its graph). Every block has ``y``'s dtype
    (AssertionError otherwise): the lowering drops a cast of a Dask array that has the
    dtype already, trusting its blocks to have it, and assembling the value would
    promote a block of another dtype unseen."""
    blocks = y.to_delayed()
    flat = dask.compute(*blocks.ravel(), scheduler=unpickled_sync if pickled else "sync")
    grid = np.empty(blocks.shape, dtype=object)
    for k, b in enumerate(flat):
        grid.flat[k] = np.asarray(b)
        assert grid.flat[k].dtype == y.dtype, (k, grid.flat[k].dtype, y.dtype)
    if grid.ndim == 0:
        return (), grid[()]
    chunks = []
    for axis in range(grid.ndim):
        index = [0] * grid.ndim
        sizes = []
        for k in range(grid.shape[axis]):
            index[axis] = k
            sizes.append(grid[tuple(index)].shape[axis])
        chunks.append(tuple(sizes))
    value = np.block(grid.tolist()) if grid.size else np.empty(y.shape, y.dtype)
    return tuple(chunks), value
