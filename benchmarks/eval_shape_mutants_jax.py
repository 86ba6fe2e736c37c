"""Seeded shape bugs, caught by kantensor and by JAX: the mutation harness of
tests/mutation.py on the project's eval_shape corpus (tests/data/numpy_models.py), with
``jax.eval_shape`` beside ``kt.eval_shape`` on the functions that port to ``jax.numpy``.

A function ports when the corpus module, executed with ``import jax.numpy as np``, gives
a function that ``jax.eval_shape`` types with the case's symbolic sizes
(``jax.export.symbolic_shape``: every named size a symbol, distinct from the others).
Every mutant of a ported function is made the same way (the same syntax-tree edit, or the
same swapped weight) and judged by NumPy at distinct sizes, as the harness does; a
checker catches a real shape bug when it raises. Run:
``python benchmarks/eval_shape_mutants_jax.py`` (needs ``pip install -e '.[jax]'``).
"""

from __future__ import annotations

import ast
import copy
import inspect
import random
import sys
import warnings
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))
sys.path.insert(0, str(HERE.parent / "tests" / "data"))

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402

import mutation  # noqa: E402
import shape_judge  # noqa: E402
from kantensor.types.dim import Dim  # noqa: E402

jax.config.update("jax_enable_x64", True)


def jax_module(module: Any) -> dict[str, Any]:
    """The corpus module's namespace, executed with ``np`` being ``jax.numpy``."""
    source = inspect.getsource(module).replace("import numpy as np", "import jax.numpy as np")
    namespace: dict[str, Any] = {"__name__": module.__name__ + "_jax"}
    exec(compile(source, inspect.getsourcefile(module), "exec"), namespace)  # noqa: S102
    return namespace


def structs(types: list[str]) -> list[Any]:
    """``jax.ShapeDtypeStruct`` of each type, every named size one symbol."""
    parsed = [shape_judge.kt.TensorType.parse(t) for t in types]
    names = sorted(shape_judge._symbols(types))
    symbols = dict(zip(names, jax.export.symbolic_shape(", ".join(names)), strict=True)) \
        if names else {}
    out = []
    for t in parsed:
        shape = tuple(eval(str(d), {}, symbols) if isinstance(d, Dim) else d  # noqa: S307
                      for d in t.shape)
        out.append(jax.ShapeDtypeStruct(shape, jnp.dtype(t.dtype)))
    return out


def port(m: mutation.Mutant, namespace: dict[str, Any]) -> Any:
    """The mutant's function in the JAX namespace (the same edit, if any)."""
    if m.line is None:
        return namespace[m.case.name]
    tree, filename = mutation._source_tree(m.case.fn)
    for kind, node, choice in mutation._sites(tree.body[0]):
        shown = f"line {node.lineno}: {ast.unparse(mutation._apply(node, kind, choice))}"
        if kind == m.kind and shown == m.detail:
            copied = copy.deepcopy(tree)
            edited = mutation._Edit(mutation._find(copied, node), kind, choice).visit(copied)
            break
    else:
        return None
    local = dict(namespace)
    exec(compile(ast.fix_missing_locations(edited), filename, "exec"), local)  # noqa: S102
    return local[m.case.name]


def jax_raises(fn: Any, types: list[str], kwargs: dict) -> bool:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            jax.eval_shape(lambda *a: fn(*a, **kwargs), *structs(types))
    except Exception:  # noqa: BLE001
        return True
    return False


def main() -> None:
    import numpy_models

    namespace = jax_module(numpy_models)
    rng = random.Random(mutation.SEED)
    ported, total = 0, 0
    counts = {"bugs": 0, "kantensor": 0, "jax": 0, "mutants": 0, "alarms_jax": 0,
              "alarms_kt": 0}
    for case in shape_judge.corpus_cases():
        types = shape_judge.symbolize(case, rng)
        if types is None:
            continue
        sizes = shape_judge.assignments(case, types, rng)
        if len(sizes) < 2:
            continue
        total += 1
        symbolic = mutation.Case(case.fn, types, case.kwargs, case.ranges)
        muts = mutation.mutants(symbolic, rng)
        if jax_raises(namespace[case.name], types, case.kwargs):
            continue  # does not port (writes into arrays, NumPy-only calls, ...)
        ported += 1
        for m in muts:
            jfn = port(m, namespace)
            if jfn is None:
                continue
            v = shape_judge.judge(m, types, sizes)
            counts["mutants"] += 1
            caught_jax = jax_raises(jfn, m.types, case.kwargs)
            if v.bug:
                counts["bugs"] += 1
                counts["kantensor"] += v.caught
                counts["jax"] += caught_jax
            else:
                counts["alarms_jax"] += caught_jax
                counts["alarms_kt"] += v.caught
    b = max(counts["bugs"], 1)
    print(f"functions typing symbolically {total}, porting to jax.numpy {ported}; their "
          f"mutants {counts['mutants']}, real shape bugs {counts['bugs']}")
    print(f"caught: jax.eval_shape {counts['jax']} ({100 * counts['jax'] / b:.0f}%), "
          f"kt.eval_shape {counts['kantensor']} ({100 * counts['kantensor'] / b:.0f}%)")
    print(f"false alarms (raised where NumPy runs): jax {counts['alarms_jax']}, "
          f"kantensor {counts['alarms_kt']}")


if __name__ == "__main__":
    main()
