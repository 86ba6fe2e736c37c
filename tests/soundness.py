"""Random graphs of catalogue Ops, typed by kantensor and checked against NumPy.

:func:`random_graph` grows a graph of up to 15 levels from a few inputs of random dtypes
and static shapes, each node a random catalogue Op (elementwise, with Python numbers too;
reductions; shape Ops; matmul) on random earlier nodes and random parameters. Every node
is built twice: symbolically, and in NumPy on the reference values. The oracle is NumPy:

* **rejection**: every size is static, so kantensor must reject a node exactly when NumPy
  raises for it (the operands' types alone decide; the menu avoids value-dependent errors
  such as integer powers with negative exponents);
* **types**: an accepted node's type is fully static, its shape is NumPy's, and its dtype is
  NumPy's, except for the promotion differences that ``docs/promotion.rst`` documents
  (PyTorch's rule): operands of different categories, a 0-d tensor or Python number beside
  a tensor, and the default float for float functions of integers. In those cases the dtype
  must still be of NumPy's category, and it is counted;
* **values**: the whole graph is compiled with ``check=True`` (every node's value checked
  against its type) with every node as an output, run, and each output compared with
  NumPy's value, computed in the dtype kantensor computes in (as ``conformance.py`` does).

:data:`STATS` counts graphs, nodes, rejections and documented dtype differences;
``conftest.py`` prints it.
"""

from __future__ import annotations

import warnings
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

import kantensor as kt
from kantensor.ops.params import ParamError
from kantensor.types.dtypes import category

STATS: Counter = Counter()

MAX_DEPTH = 15
DTYPES = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float16", "float32", "float64", "complex64", "complex128")
PY_NUMBERS = (0, 1, 2, 3, True, False, 0.5, 1.5, 2.0)
BUILD_ERRORS = (kt.TypeInferenceError, ParamError, TypeError, ValueError, IndexError)
RTOL = {"float16": 2e-2, "float32": 1e-4, "complex64": 1e-4}


class Disagreement(AssertionError):
    """kantensor and NumPy disagree."""


@dataclass
class Node:
    var: Any  # kantensor variable, or a Python number
    value: Any  # NumPy reference value (in kantensor's dtype), or the Python number
    depth: int
    text: str
    origin: str = ""  # the Op call that made it


def _is_number(x: Any) -> bool:
    return isinstance(x, bool | int | float)


# Each menu entry: (name, arity, compute mode, float function?, builder). A builder gets the
# random generator and returns (kantensor function, NumPy function, description of params).
# Compute mode as in the catalogue: "output" computes in the output dtype, "promote" in
# the operands' promoted dtype, "none" on the values as they are.
Builder = Callable[[np.random.Generator], tuple[Callable, Callable, str]]


def _fixed(kt_fn: Callable, np_fn: Callable) -> Builder:
    return lambda rng: (kt_fn, np_fn, "")


def _axis_op(name: str, np_fn: Callable, keepdims: bool = True) -> Builder:
    def build(rng: np.random.Generator) -> tuple[Callable, Callable, str]:
        axis = None if rng.random() < 0.3 else int(rng.integers(-3, 3))
        kwargs = {"axis": axis}
        if keepdims and rng.random() < 0.3:
            kwargs["keepdims"] = True
        return (lambda x: getattr(kt, name)(x, **kwargs),
                lambda x: np_fn(x, **kwargs), str(kwargs))
    return build


def _expand(rng: np.random.Generator) -> tuple[Callable, Callable, str]:
    axis = int(rng.integers(-3, 3))
    return lambda x: kt.expand_dims(x, axis), lambda x: np.expand_dims(x, axis), f"{axis}"


def _concat(rng: np.random.Generator) -> tuple[Callable, Callable, str]:
    axis = int(rng.integers(-2, 2))
    return (lambda a, b: kt.concatenate([a, b], axis=axis),
            lambda a, b: np.concatenate([a, b], axis=axis), f"axis={axis}")


def _cast(rng: np.random.Generator) -> tuple[Callable, Callable, str]:
    dtype = str(rng.choice(DTYPES[:-2]))  # complex -> real casts warn and drop the imaginary
    return lambda x: kt.cast(x, dtype), lambda x: x.astype(dtype), dtype


UNARY = {"neg": np.negative, "abs": np.absolute, "sign": np.sign, "isnan": np.isnan,
         "logical_not": np.logical_not}
FLOAT_UNARY = {"exp": np.exp, "sqrt": np.sqrt, "sin": np.sin, "tanh": np.tanh}
BINARY = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "maximum": np.maximum,
          "minimum": np.minimum, "floor_divide": np.floor_divide, "mod": np.remainder}
COMPARE = {"eq": np.equal, "ne": np.not_equal, "lt": np.less, "ge": np.greater_equal,
           "logical_and": np.logical_and, "logical_xor": np.logical_xor}

MENU: list[tuple[str, int, str, bool, Builder]] = [
    *[(n, 1, "none", False, _fixed(getattr(kt, n), f)) for n, f in UNARY.items()],
    *[(n, 1, "output", True, _fixed(getattr(kt, n), f)) for n, f in FLOAT_UNARY.items()],
    *[(n, 2, "output", False, _fixed(getattr(kt, n), f)) for n, f in BINARY.items()],
    ("true_divide", 2, "output", True, _fixed(kt.true_divide, np.true_divide)),
    *[(n, 2, "promote" if n in ("eq", "ne", "lt", "ge") else "none", False,
       _fixed(getattr(kt, n), f)) for n, f in COMPARE.items()],
    ("where", 3, "select", False, _fixed(kt.where, np.where)),
    ("matmul", 2, "output", False, _fixed(kt.matmul, np.matmul)),
    ("sum", 1, "none", False, _axis_op("sum", np.sum)),
    ("prod", 1, "none", False, _axis_op("prod", np.prod)),
    ("max", 1, "none", False, _axis_op("max", np.max)),
    ("any", 1, "none", False, _axis_op("any", np.any)),
    ("argmax", 1, "none", False, _axis_op("argmax", np.argmax, keepdims=False)),
    ("cumsum", 1, "none", False, _axis_op("cumsum", np.cumsum, keepdims=False)),
    ("transpose", 1, "none", False, _fixed(kt.transpose, np.transpose)),
    ("flatten", 1, "none", False, _fixed(kt.flatten, np.ravel)),
    ("reshape", 1, "none", False, _fixed(lambda x: kt.reshape(x, (-1, 1)),
                                         lambda x: np.reshape(x, (-1, 1)))),
    ("squeeze", 1, "none", False, _fixed(kt.squeeze, np.squeeze)),
    ("expand_dims", 1, "none", False, _expand),
    ("concatenate", 2, "none", False, _concat),
    ("cast", 1, "none", False, _cast),
]


def _dtype_of(x: Any) -> str:
    return x.type.dtype if hasattr(x, "type") else kt.constant(x).type.dtype


def _priority_mix(operands: list[Node]) -> bool:
    """A Python number or a 0-d tensor beside a tensor: PyTorch's priorities apply."""
    kinds = {"number" if _is_number(o.var) else "0-d" if o.var.type.ndim == 0 else "tensor"
             for o in operands}
    return len(kinds) > 1


def documented_difference(operands: list[Node], float_fn: bool) -> str | None:
    """Why kantensor's dtype may differ from NumPy's here (docs/promotion.rst), or None."""
    dtypes = [_dtype_of(o.var) for o in operands]
    if float_fn and all(category(d) < 2 for d in dtypes):
        return "float function of integers: the default float"
    if any(isinstance(o.var, float) for o in operands):
        return "Python floats: the default float dtype"
    if len({category(d) for d in dtypes}) > 1:
        return "categories: the higher category's dtype wins whatever the sizes"
    if _priority_mix(operands) and len(set(dtypes)) > 1:
        return "priorities: 0-d tensors and Python numbers do not widen tensors"
    return None


def _same_kind(ours: str, numpys: str, operands: list[Node]) -> bool:
    """A documented difference changes the width, not the category, except where NumPy
    itself leaves the category: uint64 with a signed integer is float64 in NumPy, while
    PyTorch's priorities let the tensor's integer dtype win."""
    if category(ours) == category(numpys):
        return True
    dtypes = {_dtype_of(o.var) for o in operands}
    return numpys == "float64" and "uint64" in dtypes and \
        bool(dtypes & {"int8", "int16", "int32", "int64"})


def _numpy(fn: Callable, args: list) -> Any:
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            return np.asarray(fn(*args))
        except Exception as exc:  # NumPy's way of saying "no"
            return exc


def _compute_dtype(mode: str, out_dtype: str, operands: list[Node]) -> str | None:
    if mode == "output":
        return out_dtype
    if mode == "promote":
        return kt.result_type(*[o.value for o in operands])
    return None if mode == "none" else out_dtype


def _pick(rng: np.random.Generator, pool: list[Node], numbers: bool) -> Node:
    if numbers and rng.random() < 0.15:
        value = PY_NUMBERS[int(rng.integers(len(PY_NUMBERS)))]
        return Node(value, value, 0, repr(value))
    usable = [n for n in pool if n.depth < MAX_DEPTH]
    weights = np.array([1.0 + 4 * n.depth**2 for n in usable])  # prefer deep nodes
    return usable[int(rng.choice(len(usable), p=weights / weights.sum()))]


def random_graph(rng: np.random.Generator, steps: int = 30) -> tuple[list, list, list[Node]]:
    """Inputs, their arrays, and the accepted nodes of one random graph (see module doc);
    raises Disagreement when kantensor and NumPy disagree on a node."""
    inputs, arrays, pool = [], [], []
    for i in range(int(rng.integers(1, 4))):
        dtype = str(rng.choice(DTYPES))
        shape = tuple(int(s) for s in rng.choice([0, 1, 2, 3, 3], size=rng.integers(0, 4)))
        value = (rng.standard_normal(shape) * 3).astype(dtype) if dtype != "bool" else \
            rng.random(shape) < 0.5
        if dtype.startswith("complex"):
            value = value + 1j * rng.standard_normal(shape).astype(dtype)
        var = kt.tensor(f"x{i}", dtype=dtype, shape=shape)
        inputs.append(var)
        arrays.append(value)
        pool.append(Node(var, value, 0, f"x{i}:{var.type}"))
    nodes: list[Node] = []
    for _ in range(steps):
        name, arity, mode, float_fn, builder = MENU[int(rng.integers(len(MENU)))]
        kt_fn, np_fn, params = builder(rng)
        operands = [_pick(rng, pool, numbers=arity > 1) for _ in range(arity)]
        if all(_is_number(o.var) for o in operands):
            continue
        node = _step(name, mode, float_fn, kt_fn, np_fn, params, operands)
        if node is not None:
            pool.append(node)
            nodes.append(node)
    return inputs, arrays, nodes


def _step(name: str, mode: str, float_fn: bool, kt_fn: Callable, np_fn: Callable,
          params: str, operands: list[Node]) -> Node | None:
    text = f"{name}{'{' + params + '}' if params else ''}({', '.join(o.text for o in operands)})"
    natural = _numpy(np_fn, [o.value for o in operands])
    STATS["nodes tried"] += 1
    try:
        var = kt_fn(*[o.var for o in operands])
    except BUILD_ERRORS as exc:
        if isinstance(natural, Exception):
            STATS["rejected by both"] += 1
            return None
        raise Disagreement(f"{text}: kantensor rejects ({type(exc).__name__}: {exc}) but "
                           f"NumPy gives {natural.dtype}{list(natural.shape)}") from None
    if isinstance(natural, Exception):
        raise Disagreement(f"{text}: kantensor gives {var.type} but NumPy raises "
                           f"{type(natural).__name__}: {natural}")
    ttype = var.type
    if None in ttype.shape or any(not isinstance(s, int) for s in ttype.shape):
        raise Disagreement(f"{text}: static inputs but a non-static type {ttype}")
    if tuple(ttype.shape) != natural.shape:
        raise Disagreement(f"{text}: type {ttype} but NumPy's shape is {natural.shape}")
    if ttype.dtype != natural.dtype.name:
        why = documented_difference(operands, float_fn)
        if why is None or not _same_kind(ttype.dtype, natural.dtype.name, operands):
            raise Disagreement(f"{text}: dtype {ttype.dtype} but NumPy's is {natural.dtype}")
        STATS[f"dtype differs as documented ({why})"] += 1
    compute = _compute_dtype(mode, ttype.dtype, operands)
    args = [o.value for o in operands]
    if compute is not None:  # kantensor computes in this dtype: so does the reference
        first = 1 if mode == "select" else 0  # where's condition is used as it is
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            args = args[:first] + [np.asarray(kt.constant(a).data if _is_number(a) else a)
                                   .astype(compute) for a in args[first:]]
    value = _numpy(np_fn, args)
    if isinstance(value, Exception):
        raise Disagreement(f"{text}: NumPy fails in kantensor's compute dtype {compute}: "
                           f"{value}")
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        value = value.astype(ttype.dtype)
    depth = 1 + max(o.depth for o in operands)
    STATS["nodes accepted"] += 1
    STATS["deepest node"] = max(STATS["deepest node"], depth)
    return Node(var, value, depth, f"n{STATS['nodes tried']}:{ttype}", text)


def run_graph(rng: np.random.Generator) -> None:
    """Build one random graph, run it with check=True, compare every node with NumPy."""
    inputs, arrays, nodes = random_graph(rng)
    STATS["graphs"] += 1
    if not nodes:
        return
    f = kt.function(inputs, [n.var for n in nodes], check=True)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = f(*arrays)
    for node, value in zip(nodes, got, strict=True):
        want = node.value
        if value.dtype != want.dtype or value.shape != want.shape:
            raise Disagreement(f"{node.text} = {node.origin}: ran to {value.dtype}"
                               f"{list(value.shape)}, NumPy's is {want.dtype}{list(want.shape)}")
        tol = RTOL.get(value.dtype.name, 1e-9)
        same = np.array_equal(value, want) if value.dtype.kind in "biu" else \
            np.allclose(value, want, rtol=tol, atol=tol, equal_nan=True)
        if not same:
            raise Disagreement(f"{node.text} = {node.origin}: value\n{value!r}\nNumPy's\n"
                               f"{want!r}")
        STATS["node values compared"] += 1
