"""The corpus of tests/test_eval_shape_corpus.py (and its seeded mutants) through
``kt.eval_shape`` and ``kt.function``, judged by NumPy at sizes where every size differs,
0 and 1 included.

For each case, its literal sizes made named sizes (tests/shape_judge.py ``symbolize``),
NumPy runs the function at ``--draws`` assignments of sizes 0..13 (all different), and
every disagreement is listed by kind:

* **refused**: eval_shape refuses the function where NumPy runs it (or no case of its
  result covers those sizes: a loop over range of a size past its turns, say);
* **covered, NumPy raises**: the result's assumptions hold where NumPy raises;
* **type**: the result's type is not the shape NumPy computes where it is covered;
* **run-time refusal**: the graph of the case the sizes fall in, compiled by
  ``kt.function`` (NumPy backend; ``check=True`` where the sizes are covered), raises
  where NumPy runs;
* **values**: its values are not NumPy's (functions that draw random numbers are left
  out of this one).

Run: ``python benchmarks/function_judge.py [--seed 7] [--draws 8] [--mutants]``; with
``PYTHONPATH`` set to another tree's ``src`` it judges that tree.
"""

from __future__ import annotations

import argparse
import random
import sys
import warnings
from collections import Counter
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import kantensor as kt  # noqa: E402
import shape_judge as judge  # noqa: E402 - beside the tests, found through the path above
from mutation import Case, mutants  # noqa: E402

#: Functions of the corpus that draw random numbers: their values are not compared.
RANDOM = {"dropout", "random_init"}


def _draws(symbols: list[str], rng: random.Random, count: int) -> list[dict[str, int]]:
    out: list[dict[str, int]] = []
    for _ in range(50 * count):
        if len(out) == count or len(symbols) > 14:
            break
        sizes = dict(zip(symbols, rng.sample(range(14), len(symbols)), strict=True))
        if sizes not in out:
            out.append(sizes)
    return out


def _same(got: object, want: object) -> bool:
    a, b = np.asarray(got), np.asarray(want)
    if a.shape != b.shape:
        return False
    if a.dtype.kind in "fc" or b.dtype.kind in "fc":
        return bool(np.allclose(a, b, rtol=1e-6, atol=1e-9, equal_nan=True))
    return bool(np.array_equal(a, b))


def _run(fn, *args, **kwargs):  # noqa: ANN001, ANN202 - NumPy's warnings silenced
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


def judged(case: Case, types: list[str], rng: random.Random, draws: int
           ) -> list[tuple[str, dict, str]]:
    """The disagreements with NumPy of ``case`` at ``types``: (kind, sizes, detail)."""
    try:
        with kt.default_dtype("float64"):
            result = _run(kt.eval_shape, case.fn, *types, **case.kwargs)
    except Exception:  # noqa: BLE001 - judged below, where NumPy runs
        result = None
    found, compiled = [], {}
    for sizes in _draws(judge._symbols(types), rng, draws):
        try:
            values = judge.arrays(case, types, sizes, 0)
        except ValueError:  # an int input's values have no range at these sizes
            continue
        np.random.seed(0)
        try:
            out = _run(case.fn, *[v.copy() for v in values], **case.kwargs)
        except Exception:  # noqa: BLE001
            out = None
        covered = result is not None and result.holds(sizes)
        if result is None or out is None:
            if result is None and out is not None:
                found.append(("refused", sizes, ""))
            elif covered:
                found.append(("covered, NumPy raises", sizes, ""))
            continue
        out = tuple(out) if isinstance(out, tuple | list) else (out,)
        if covered and not judge._types_match(result, tuple(map(np.shape, out)), sizes):
            found.append(("type", sizes, str(result.type)))
        part = next((c for c in result.cases or (result,)
                     if all(x.holds(sizes) for x in c.conditions)), None)
        if part is None:  # (a refused case: a loop past loops.MAX_TURNS, say)
            found.append(("refused", sizes, "no case covers these sizes"))
            continue
        for check in (False, True) if covered else (False,):
            key = (id(part), check)
            try:
                if key not in compiled:
                    compiled[key] = kt.function(list(part.inputs), list(part.outputs),
                                                check=check)
                got = _run(compiled[key], *[v.copy() for v in values])
            except Exception as exc:  # noqa: BLE001
                found.append(("run-time refusal", sizes,
                              f"check={check}: {type(exc).__name__}: {exc}"))
                continue
            if case.fn.__name__ not in RANDOM and not (
                    len(got) == len(out) and all(map(_same, got, out))):
                found.append(("values", sizes, f"check={check}"))
    return found


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--draws", type=int, default=8)
    parser.add_argument("--mutants", action="store_true")
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    kinds: Counter = Counter()
    judged_cases = 0
    for case in judge.corpus_cases():
        types = judge.symbolize(case, rng)
        if types is None:
            continue
        programs = [(case.name, case, types)]
        if args.mutants:
            symbolic = Case(case.fn, types, case.kwargs, case.ranges)
            programs += [(str(m), Case(m.fn, m.types, case.kwargs, case.ranges), m.types)
                         for m in mutants(symbolic, rng, 3)]
        for name, program, program_types in programs:
            judged_cases += 1
            for kind, sizes, detail in judged(program, program_types, rng, args.draws):
                kinds[kind] += 1
                if args.verbose:
                    print(f"{kind}: {name} at {sizes} {detail[:300]}")
    print(f"programs judged: {judged_cases} (seed {args.seed}, {args.draws} draws each); "
          "disagreements with NumPy: "
          + (", ".join(f"{k} {v}" for k, v in sorted(kinds.items())) or "none"))


if __name__ == "__main__":
    main()
