"""Random calls of the NumPy functions the catalogue covers, judged by NumPy.

``PYTHONPATH=tests .venv/bin/python benchmarks/numpy_probe.py N SEED [--show KIND]``
draws N programs ``return np.f(x0, ..., param=value)``: each catalogue entry's NumPy
function (``numpy = ...`` in ``signatures/*.toml``), its tensors of ranks 0..3 over
the sizes ``A``, ``B``, ``C`` (tied as often as not) and of random dtypes (one dtype, or
two NumPy and kantensor promote alike: kantensor's promotion of others is documented to
differ), its parameters drawn from values of their kind (axes in and out of range,
tuples, arrays, dtypes, bools, sizes), given by NumPy's keyword or left at their default.
Each is judged by :func:`npprograms.judge` at every size 0..3 of each name: NumPy's
result or exception against eval_shape's type and what ``holds`` says.

It prints the counts: programs probed, typed (eval_shape gives a type), agreed (typed or
refused, and right at every size), wrong (a type NumPy does not give, or held where NumPy
fails: ``unsound``, ``shape``, ``dtype``; ``dtype-intfloat`` and ``dtype-0d``, kantensor's
documented promotion, apart), refused where NumPy runs (incomplete, not
wrong), undecided, crashed; and the programs of ``--show`` kinds.
"""

from __future__ import annotations

import inspect
import itertools
import random
import sys
from collections import Counter

import numpy as np

import kantensor as kt
from kantensor.ops.catalogue import load_all
from npprograms import compile_program, judge, run_numpy, run_on, shape_at

BOX = (0, 1, 2, 3)
DTYPES = ("float32", "float64", "int8", "int32", "int64", "uint8", "bool", "float16",
          "complex64")
AXIS = [0, 1, -1, 2, -2, 3]
VALUES = {
    "axis": AXIS,
    "maybe_axis": [None, *AXIS],
    "maybe_accumulated_axis": [None, 0, -1, (0,), (0, 1)],
    "axes": [None, 0, -1, 1, (0,), (0, 1), (1, 0), (), [0, -1], (0, 0), "np.array([0])",
             "np.array(1)", 3],
    "axis_tuple": [None, 0, -1, (0,), (0, -1), (), [0], 2],
    "listed_axes": [0, -1, (0,), [0, 1], (0, 0), 3],
    "bool": [True, False],
    "int": [0, 1, 2, -1, 3],
    "maybe_int": [None, 0, 1, 2, -1],
    "ints": [0, 1, -1, (1, 2), (0,)],
    "dtype": ["'float32'", "'int64'", "'bool'", "'int8'", "np.float16", "'complex64'",
              "'uint8'", "np.float64"],
    "maybe_dtype": [None, "'float32'", "'int64'", "'bool'", "np.int8", "'complex64'"],
    "number": [0, 1.5, -1, True, 2],
    "maybe_number": [None, 0, 1.5, -2],
    "cutoff": [None, 0.5, 1],
    "numbers": [0.5, (0.25, 0.75)],
    "quantiles": [0.5, [0.25, 0.75], 0.0],
    "size": [0, 1, 2, "x0.size", "len(x0) + 1"],
    "count": [0, 1, 2, "x0.size"],
    "maybe_size": [None, 0, 2, "x0.size"],
    "sizes": [2, (2,), (0, 1), "x0.shape", "(x0.size, 2)"],
    "shape": [2, (2, 3), (), "x0.shape", (0,)],
    "partial_sizes": [None, 2, (2, 3), "x0.shape"],
    "norm_order": [None, 1, 2, "'fro'", "np.inf", -1],
}


def _tensor_type(rng: random.Random, dtype: str) -> str:
    rank = rng.randrange(4)
    names = [rng.choice("ABC") for _ in range(rank)]
    return f"{dtype}[{','.join(names)}]"


def _dtypes(rng: random.Random, count: int) -> list[str]:
    """``count`` dtypes: one, or ones NumPy and kantensor promote alike (each pair)."""
    out = [rng.choice(DTYPES)]
    for _ in range(count - 1):
        other = rng.choice(DTYPES)
        try:
            same = all(str(kt.promote_types(d, other)) == str(np.promote_types(d, other))
                       for d in out)
        except (TypeError, ValueError):
            same = False
        out.append(other if same and rng.random() < 0.5 else out[0])
    return out


def _text(value: object) -> str:
    return value if isinstance(value, str) else repr(value)


def program(entry, fn, rng: random.Random) -> tuple[str, list[str]] | None:
    """A program calling ``fn`` (``entry``'s NumPy function) and its input types; None
    where a parameter's kind has no values here."""
    try:
        names = list(inspect.signature(fn).parameters)
    except (TypeError, ValueError):
        names = []
    tensors = [p for p in entry.spec.params if p.is_tensor]
    count = sum(rng.randint(1, 3) if p.kind != "tensor" else 1 for p in tensors)
    dtypes = _dtypes(rng, max(count, 1))
    types = [_tensor_type(rng, d) for d in dtypes]
    if not types:
        types = [_tensor_type(rng, "float64")]
    args: list[str] = []
    i = 0
    for p in tensors:
        if p.kind == "tensor":
            args.append(f"x{i}")
            i += 1
            continue
        k = rng.randint(1, 3)
        group = [f"x{j}" for j in range(i, min(i + k, len(types)))] or ["x0"]
        i += len(group)
        args.append(f"[{', '.join(group)}]" if p.kind != "*tensors" else ", ".join(group))
    types = types[:max(i, 1)]
    keywords = []
    for p in entry.spec.params:
        if p.is_tensor:
            continue
        required = p.default is inspect.Parameter.empty
        if not required and rng.random() < 0.4:
            continue
        values = VALUES.get(p.kind) or (list(p.choices) if p.kind == "choice" else None)
        if values is None:
            if required:
                return None
            continue
        value = rng.choice(values)
        text = repr(value) if p.kind == "choice" else _text(value)
        if p.name in names and (not required or rng.random() < 0.5):
            keywords.append(f"{p.name}={text}")
        elif required:
            args.append(text)
        else:
            continue
    call = f"np.{'linalg.' if fn.__module__.endswith('linalg') else ''}{fn.__name__}"
    # (a tuple or list of results, eig's or split's: its first)
    return f"(lambda r: r[0] if isinstance(r, tuple | list) else r)(" \
           f"{call}({', '.join(args + keywords)}))", types


def _documented(kind: str, note: str, types: list[str], source: str, sizes: dict) -> str:
    """``dtype-intfloat`` for a float result of integer (bool) inputs whose dtype is
    kantensor's default float where NumPy's is the smallest float holding the integers
    (``np.exp`` of int8 is float16): kantensor's ``float(x)`` (docs/writing_ops.rst);
    ``dtype-eig`` for eig's complex result (docs/numpy.rst), ``data-linalg`` where NumPy
    fails on the zeros it is run on (a singular matrix, no convergence) but runs at the
    same sizes on other data (:func:`_data_error`): a LinAlgError of the sizes ("Last 2
    dimensions of the array must be square") stays ``unsound``."""
    if kind == "unsound" and "LinAlgError" in note and _data_error(source, types, sizes):
        return "data-linalg"
    if kind != "dtype":
        return kind
    ints = all(kt.TensorType.parse(t).dtype in ("bool", "int8", "uint8", "int16", "uint16",
                                                 "int32", "uint32", "int64", "uint64")
               for t in types)
    numpy_dtype = note.rsplit("NumPy ", 1)[-1]
    if "complex" in note.split(", NumPy")[0] and "complex" not in numpy_dtype:
        return "dtype-eig"  # (eig and eigvals always complex: docs/numpy.rst)
    return "dtype-intfloat" if ints and numpy_dtype in ("float16", "float32", "complex64") \
        else kind


def _identity(shape: tuple[int, ...]) -> np.ndarray:
    """Identity matrices along the last two axes (nonsingular, positive definite where
    square), ones below rank 2."""
    if len(shape) < 2:
        return np.ones(shape)
    a = np.zeros(shape)
    k = min(shape[-2:])
    a[..., range(k), range(k)] = 1
    return a


def _data_error(source: str, types: list[str], sizes: dict) -> bool:
    """Whether NumPy runs ``source`` at ``sizes`` on some data (identity matrices, or
    random normal ones): its failure on zeros there is the data's, not the sizes'."""
    fn = compile_program(source)
    rng = np.random.default_rng(0)
    for make in (_identity, rng.standard_normal):
        arrays = [np.asarray(make(shape)).astype(dtype)
                  for shape, dtype in (shape_at(t, sizes) for t in types)]
        if not isinstance(run_on(fn, arrays), BaseException):
            return True
    return False


def _runs(source: str, types: list[str]) -> bool:
    """Whether NumPy runs the program at some size of the box."""
    fn = compile_program(source)
    names = sorted({c for t in types for c in t if c in "ABC"})
    return any(not isinstance(run_numpy(fn, types, dict(zip(names, v, strict=True))),
                              BaseException)
               for v in itertools.product(BOX, repeat=len(names)))


def main(count: int, seed: int, show: tuple[str, ...] = ()) -> Counter:
    rng = random.Random(seed)
    pairs = [(e, fn) for e in load_all() if e.numpy for fn in e.numpy
             if getattr(np, fn.__name__, None) is fn or
             getattr(np.linalg, fn.__name__, None) is fn]
    counts: Counter = Counter()
    kinds: Counter = Counter()
    for _ in range(count):
        entry, fn = rng.choice(pairs)
        drawn = program(entry, fn, rng)
        if drawn is None:
            counts["skipped"] += 1
            continue
        call, types = drawn
        source = f"def program({', '.join(f'x{i}' for i in range(len(types)))}):\n" \
                 f"    return {call}\n"
        verdict = judge(source, types, box=BOX)
        counts["probed"] += 1
        counts[verdict.status] += 1
        found = {_documented(kind, note, types, source, sizes)
                 for kind, sizes, note in verdict.wrong}
        wrong = found & {"unsound", "shape", "dtype", "no-case", "holds-crash"}
        if verdict.status == "unsupported" and _runs(source, types):
            found.add("refused-all")  # (an error where NumPy runs at some size)
        if verdict.status in ("typed", "refused", "unsupported") and not found:
            counts["agreed"] += 1
        if wrong:
            counts["wrong"] += 1
        for kind in found:
            kinds[kind] += 1
        if verdict.status == "crashed":
            found.add("crashed")
        if found & set(show) or (verdict.status in show):
            print(f"--- {types} {call}: {verdict.status} {verdict.note[:200]}")
            for kind, sizes, note in verdict.wrong[:2]:
                print(f"    {kind} {sizes} {note[:200]}")
    print(dict(counts))
    print("by kind (programs):", dict(kinds))
    return counts


if __name__ == "__main__":
    argv = sys.argv[1:]
    shown = tuple(argv[argv.index("--show") + 1].split(",")) if "--show" in argv else ()
    main(int(argv[0]), int(argv[1]), shown)
