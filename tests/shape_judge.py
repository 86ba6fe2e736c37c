"""NumPy's judgement of seeded shape bugs (tests/mutation.py), and what the checkers
catch: the mutation harness of ``eval_shape``.

A case's sizes are symbolic: every literal size of its input types is made a named size
where the unmutated function still types and runs (:func:`symbolize`). NumPy judges at
size assignments where every size differs (:func:`assignments`, drawn with the seed and
kept where the unmutated function runs and has the type eval_shape gives it): a mutant
that raises there is a **real shape bug**; one that runs everywhere is *correct* there
(its output shapes may still differ from the unmutated function's, reported apart).

:func:`judge` runs the checkers on one mutant: ``kt.eval_shape`` on the symbolic types
(a bug is caught when it raises, or reports an assumption that the assignment breaks),
``kt.eval_shape`` at the distinct concrete sizes, and NumPy at equal sizes (the sizes a
user tries first). For a caught bug, it records whether the first ``file, line`` the
message names is the mutated line. Run ``python tests/shape_judge.py [SEED ...]`` for
the table and the wrong answers (:func:`wrong_answers`) at each seed.
"""

from __future__ import annotations

import inspect
import random
import re
import traceback
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

import kantensor as kt
from kantensor.types.dim import Dim
from kantensor.types.symbols import free_symbols, substitute
from mutation import _NAMES, SEED, Case, Mutant, _shape_items, mutants, weight_lines

# -- sizes -------------------------------------------------------------------------------

def _parse(types: list[str]) -> list[kt.TensorType]:
    return [kt.TensorType.parse(t) for t in types]


def _symbols(types: list[str]) -> list[str]:
    return sorted({s for t in _parse(types) for d in t.shape if isinstance(d, Dim)
                   for s in free_symbols(d) if isinstance(s, str)})


def _shape(t: kt.TensorType, sizes: dict[str, int]) -> tuple[int, ...]:
    return tuple(substitute(d, sizes) if isinstance(d, Dim) else d for d in t.shape)


def arrays(case: Case, types: list[str], sizes: dict[str, int], seed: int) -> list[Any]:
    rng = np.random.default_rng(seed)
    out = []
    for i, t in enumerate(_parse(types)):
        shape = _shape(t, sizes)
        if any(s < 0 for s in shape):
            raise ValueError(f"negative size in {shape}")
        if t.dtype.startswith("int"):
            low, high = case.ranges[i](sizes) if i in case.ranges else (0, 2)
            out.append(rng.integers(low, high, shape).astype(t.dtype))
        else:
            out.append(rng.random(shape).astype(t.dtype))
    return out


def run_numpy(fn: Callable[..., Any], case: Case, types: list[str], sizes: dict[str, int],
              seed: int = 0) -> tuple[tuple[int, ...], ...]:
    """The output shapes of ``fn`` at ``sizes`` (raises what NumPy raises)."""
    values = arrays(case, types, sizes, seed)
    np.random.seed(seed)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        out = fn(*values, **case.kwargs)
    out = tuple(out) if isinstance(out, tuple | list) else (out,)  # as eval_shape flattens
    return tuple(np.shape(o) for o in out)


def _types_match(result: Any, shapes: tuple, sizes: dict[str, int]) -> bool:
    found = result.type if isinstance(result.type, tuple) else (result.type,)
    return len(found) == len(shapes) and all(
        len(t.shape) == len(s) and all(d is None or (substitute(d, sizes) if isinstance(
            d, Dim) else d) == v for d, v in zip(t.shape, s, strict=True))
        for t, s in zip(found, shapes, strict=True))


def eval_shape(fn: Callable[..., Any], types: list[str], kwargs: dict) -> Any:
    with kt.default_dtype("float64"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return kt.eval_shape(fn, *types, **kwargs)


def assignments(case: Case, types: list[str], rng: random.Random, count: int = 2,
                tries: int = 300) -> list[dict[str, int]]:
    """``count`` assignments of the symbols of ``types``, every size different from the
    others and from the literal sizes, where the unmutated function runs in NumPy."""
    symbols = _symbols(types)
    literals = {d for t in _parse(types) for d in t.shape if isinstance(d, int)}
    pool = [v for v in range(2, 17) if v not in literals]
    found: list[dict[str, int]] = []
    for _ in range(tries):
        if len(found) == count or len(pool) < len(symbols):
            break
        sizes = dict(zip(symbols, rng.sample(pool, len(symbols)), strict=True))
        if sizes in found:
            continue
        try:
            shapes = run_numpy(case.fn, case, types, sizes)
        except Exception:  # noqa: BLE001 - not an assignment the function accepts
            continue
        values = [substitute(d, sizes) if isinstance(d, Dim) else d
                  for t in _parse(types) for d in t.shape]
        if len(set(values) - literals) < len(symbols):  # expressions meet other sizes
            continue
        found.append(sizes)
        del shapes
    return found


def symbolize(case: Case, rng: random.Random) -> list[str] | None:
    """The case's types with each literal size made a named size (or a multiple of one
    made before) where the unmutated function still types under eval_shape and runs in
    NumPy at distinct sizes; None if the case does not type with its own types."""
    types = list(case.types)
    try:
        eval_shape(case.fn, types, case.kwargs)
    except Exception:  # noqa: BLE001
        return None
    used = set(_symbols(types))
    names = (n for n in _NAMES if n not in used)
    made: dict[int, str] = {}
    literals = sorted({d for t in _parse(types) for d in t.shape
                       if isinstance(d, int) and d > 1})
    for value in literals:
        name = next(names)
        options = [name] + [f"{value // v}*{s}" for v, s in made.items() if value % v == 0]
        for option in options:
            trial = [_replace(t, value, option) for t in types]
            if _accepts(case, trial, rng):
                types = trial
                if option == name:
                    made[value] = name
                break
    return types


def _replace(text: str, value: int, by: str) -> str:
    dtype, items = _shape_items(text)
    return f"{dtype}[{','.join(by if s == str(value) else s for s in items)}]"


def _accepts(case: Case, types: list[str], rng: random.Random) -> bool:
    try:
        result = eval_shape(case.fn, types, case.kwargs)
    except Exception:  # noqa: BLE001
        return False
    sizes = assignments(case, types, rng, count=2)
    return len(sizes) == 2 and all(
        _types_match(result, run_numpy(case.fn, case, types, s), s) for s in sizes)


# -- judging ------------------------------------------------------------------------------

_LINE = re.compile(r"(?:, line |\.py:)(\d+)")  # traceback's style, or a Source's file:line


@dataclass
class Verdict:
    mutant: Mutant
    bug: bool  # NumPy raises at some distinct assignment
    changed: bool  # runs everywhere, with other output shapes than the unmutated function
    symbolic: str  # "raised", "assumed", "accepted"
    named_line: int | None  # the first line the symbolic message names (None: none)
    concrete: str  # "raised" or "accepted": eval_shape at the first distinct assignment
    # where NumPy raises (else the first)
    equal_sizes: str  # "raised", "changed" or "accepted": NumPy at equal sizes
    message: str = ""
    concrete_line: int | None = None  # the first line the concrete message names
    numpy_line: int | None = None  # the innermost line of the function's file NumPy names
    concrete_message: str = ""

    @property
    def caught(self) -> bool:
        return self.symbolic in ("raised", "assumed")

    @property
    def line_first(self) -> bool:
        return self.names_mutated(self.named_line)

    def names_mutated(self, line: int | None) -> bool:
        """Whether ``line`` is the mutated line (for a swapped weight, a line reading it or
        a value it flows into: :func:`mutation.weight_lines`)."""
        m = self.mutant
        if m.line is not None:
            return line == m.line
        return line is not None and line in weight_lines(m.case, m.weight)


def _assumption_broken(result: Any, sizes: dict[str, int]) -> bool:
    """Whether an assumption the result reports (in the case ``sizes`` meet) is false
    at ``sizes``; not where a loop over ``range`` of a size turns more times than
    eval_shape types (``evalshape/loops.py``): those sizes are not covered, never said
    to fail."""
    return not result.holds(sizes) and not _past_loop(result, sizes)


def _past_loop(result: Any, sizes: dict[str, int]) -> bool:
    """Whether ``sizes`` are past a loop's last typed turn (a condition of op ``loop``
    marked as a choice, false there)."""
    for a in result.assumptions:
        parts = [a] if isinstance(a, kt.Condition) else [x for c in a.cases for x in c]
        if any(x.source is not None and x.source.op == "loop" and x.source.otherwise
               and not x.holds(sizes) for x in parts):
            return True
    return False


def _first_broken(result: Any, sizes: dict[str, int]) -> str:
    """The first assumption false at ``sizes``, described with its line."""
    case = next((c for c in result.cases if all(x.holds(sizes) for x in c.conditions)),
                result)
    for a in (*result.assumptions, *case.assumptions):
        if not a.holds(sizes):
            return kt.evalshape.located.described(a)
    return ""


def judge(m: Mutant, original: list[str], sizes: list[dict[str, int]]) -> Verdict:
    """The verdict of NumPy and of the checkers on one mutant (see the module)."""
    bug, changed, numpy_line, failing = False, False, None, None
    for k, s in enumerate(sizes):
        try:
            got = run_numpy(m.fn, m.case, m.types, s, seed=k)
        except Exception as exc:  # noqa: BLE001 - NumPy refuses: a shape bug at these sizes
            bug = True
            failing = s if failing is None else failing
            numpy_line = numpy_line or _innermost(exc, m.case.fn)
            continue
        if got != run_numpy(m.case.fn, m.case, original, s, seed=k):
            changed = True
    symbolic, named, message = "accepted", None, ""
    try:
        result = eval_shape(m.fn, m.types, m.case.kwargs)
    except Exception as exc:  # noqa: BLE001
        symbolic, message = "raised", str(exc)
    else:
        broken = [s for s in sizes if _assumption_broken(result, s)]
        if broken:
            symbolic = "assumed"
            message = _first_broken(result, broken[0])
    found = _LINE.search(message)
    if found is not None:
        named = int(found.group(1))
    concrete, concrete_line, concrete_message = "accepted", None, ""
    # at the first assignment where NumPy raises (a bug some sizes hide is judged where
    # it shows), else at the first one
    fixed = [_concrete(t, failing or sizes[0]) for t in m.types]
    try:
        eval_shape(m.fn, fixed, m.case.kwargs)
    except Exception as exc:  # noqa: BLE001
        concrete, concrete_message = "raised", str(exc)
        found = _LINE.search(concrete_message)
        concrete_line = int(found.group(1)) if found else None
    equal = _equal_sizes(m, original)
    return Verdict(m, bug, changed and not bug, symbolic, named, concrete, equal, message,
                   concrete_line, numpy_line, concrete_message)


def names_anywhere(v: Verdict, message: str) -> bool:
    """Whether ``message`` names the mutated line at all (first or in the chain of the
    operands' lines)."""
    return any(v.names_mutated(int(n)) for n in _ANY_LINE.findall(message))


_ANY_LINE = re.compile(r"(?:, line |\.py:)(\d+)")


def _innermost(exc: BaseException, fn: Callable[..., Any]) -> int | None:
    """The innermost line of ``fn``'s file in ``exc``'s traceback (NumPy's own answer
    to "where")."""
    try:
        filename = inspect.getsourcefile(fn)
    except TypeError:
        return None
    lines = [f.lineno for f in traceback.extract_tb(exc.__traceback__)
             if f.filename == filename]
    return lines[-1] if lines else None


def _concrete(text: str, sizes: dict[str, int]) -> str:
    t = kt.TensorType.parse(text)
    return f"{t.dtype}[{','.join(str(v) for v in _shape(t, sizes))}]"


def _equal_sizes(m: Mutant, original: list[str]) -> str:
    """NumPy with every symbol at one value (the first where the unmutated function
    runs): "raised", "changed" (other output shapes) or "accepted"."""
    symbols = _symbols(original)
    for v in (4, 6, 8, 12):
        sizes = dict.fromkeys(symbols, v)
        try:
            want = run_numpy(m.case.fn, m.case, original, sizes)
        except Exception:  # noqa: BLE001
            continue
        try:
            got = run_numpy(m.fn, m.case, m.types, sizes)
        except Exception:  # noqa: BLE001
            return "raised"
        return "changed" if got != want else "accepted"
    return "accepted"


# -- the whole run ------------------------------------------------------------------------

@dataclass
class Figures:
    cases: int = 0
    typed: int = 0
    verdicts: list[Verdict] = field(default_factory=list)
    false_alarms_unmutated: list[str] = field(default_factory=list)

    def count(self, test: Callable[[Verdict], bool]) -> int:
        return sum(1 for v in self.verdicts if test(v))

    def table(self) -> str:
        bugs = [v for v in self.verdicts if v.bug]
        caught = [v for v in bugs if v.caught]
        coded = [v for v in caught if v.mutant.line is not None]
        fine = [v for v in self.verdicts if not v.bug]
        alarms = [v for v in fine if v.caught]
        rows = [
            f"cases {self.cases}, typing symbolically {self.typed}; mutants "
            f"{len(self.verdicts)}: real shape bugs {len(bugs)}, correct at every distinct "
            f"assignment {len(fine)} (of which {self.count(lambda v: v.changed)} change "
            "the output shapes)",
            f"kt.eval_shape, symbolic sizes:  caught {len(caught)} of {len(bugs)} "
            f"({_pct(len(caught), len(bugs))}; raised "
            f"{sum(v.symbolic == 'raised' for v in caught)}, assumed "
            f"{sum(v.symbolic == 'assumed' for v in caught)})",
            f"  the mutated line (for a swapped weight, a line using it) named first: "
            f"{sum(v.line_first for v in caught)} of {len(caught)} "
            f"({_pct(sum(v.line_first for v in caught), len(caught))}; NumPy's traceback: "
            f"{sum(v.names_mutated(v.numpy_line) for v in caught)}): "
            f"{sum(v.line_first for v in coded)} of "
            f"{len(coded)} code edits ({_pct(sum(v.line_first for v in coded), len(coded))});"
            f" swapped weights: a line using the weight named first in "
            f"{sum(v.line_first for v in caught if v.mutant.line is None)} of "
            f"{sum(v.mutant.line is None for v in caught)}",
            f"  the mutated line (or one using the weight) named anywhere in the message "
            f"(the operands' lines included): "
            f"{sum(names_anywhere(v, v.message) for v in caught)} of {len(caught)}; "
            "NumPy's traceback names it first in "
            f"{sum(v.names_mutated(v.numpy_line) for v in caught)}",
            f"  false alarms: {len(alarms)} on mutants correct at every size, "
            f"{len(self.false_alarms_unmutated)} on unmutated functions",
            f"kt.eval_shape, distinct concrete sizes: caught "
            f"{sum(v.concrete == 'raised' for v in bugs)} of {len(bugs)} "
            f"({_pct(sum(v.concrete == 'raised' for v in bugs), len(bugs))}); the mutated "
            f"line named first in {_first(bugs, 'concrete')} code edits (NumPy's traceback, "
            f"its innermost line of the function's file: {_first(bugs, 'numpy')}); named "
            f"anywhere in the message (the operands' lines included) in "
            f"{sum(names_anywhere(v, v.concrete_message) for v in bugs if v.mutant.line)} of "
            f"{sum(1 for v in bugs if v.mutant.line and v.concrete == 'raised')}",
            f"NumPy, equal sizes: caught {sum(v.equal_sizes != 'accepted' for v in bugs)} of "
            f"{len(bugs)} ({_pct(sum(v.equal_sizes != 'accepted' for v in bugs), len(bugs))})",
        ]
        return "\n".join(rows)


def _first(bugs: list[Verdict], who: str) -> str:
    """``x of y``: the code-edit bugs caught by ``who`` whose first named line is the
    mutated one."""
    coded = [v for v in bugs if v.mutant.line is not None and (
        v.concrete == "raised" if who == "concrete" else v.numpy_line is not None)]
    hit = sum(v.names_mutated(v.concrete_line if who == "concrete" else v.numpy_line)
              for v in coded)
    return f"{hit} of {len(coded)}"


def _pct(a: int, b: int) -> str:
    return f"{100 * a / b:.0f}%" if b else "-"


def run(cases: list[Case], per_kind: int = 3, seed: int = SEED,
        progress: Callable[[str], None] | None = None) -> Figures:
    """Symbolize each case, make its mutants, judge them all."""
    rng = random.Random(seed)
    figures = Figures(cases=len(cases))
    for case in cases:
        types = symbolize(case, rng)
        if types is None:
            continue
        sizes = assignments(case, types, rng)
        if len(sizes) < 2:
            continue
        figures.typed += 1
        symbolic = Case(case.fn, types, case.kwargs, case.ranges)
        try:
            result = eval_shape(case.fn, types, case.kwargs)
            if any(_assumption_broken(result, s) for s in sizes):
                figures.false_alarms_unmutated.append(case.name)
        except Exception:  # noqa: BLE001
            figures.false_alarms_unmutated.append(case.name)
        for m in mutants(symbolic, rng, per_kind):
            figures.verdicts.append(judge(m, types, sizes))
        if progress is not None:
            progress(f"{case.name}: {len(figures.verdicts)} mutants so far")
    return figures


def corpus_cases() -> list[Case]:
    """The cases of tests/test_eval_shape_corpus.py."""
    import test_eval_shape_corpus as corpus  # the corpus and its data, beside this file

    return [Case(fn, list(types), dict(kwargs), dict(ranges))
            for fn, types, kwargs, ranges in corpus.CASES]


def wrong_answers(figures: Figures) -> list[str]:
    """The wrong answers of a run, one line each: an unmutated function refused, a
    mutant correct at every assignment caught (a false alarm), a real bug accepted with
    symbolic sizes (missed)."""
    out = [f"REFUSED unmutated {name}" for name in figures.false_alarms_unmutated]
    out += [f"ALARM {v.mutant} line {v.mutant.line}: {v.message[:300]}"
            for v in figures.verdicts if not v.bug and v.caught]
    out += [f"MISSED {v.mutant} line {v.mutant.line} {v.mutant.types}"
            for v in figures.verdicts if v.bug and v.symbolic == "accepted"]
    return out


if __name__ == "__main__":
    # python tests/shape_judge.py [SEED ...]: the table and the wrong answers per seed
    import sys
    import time

    warnings.simplefilter("ignore")
    for seed in [int(a) for a in sys.argv[1:]] or [SEED]:
        start = time.perf_counter()
        figures = run(corpus_cases(), seed=seed, progress=lambda s: print(s, file=sys.stderr))
        print(f"seed {seed}:")
        print(figures.table())
        print("\n".join(wrong_answers(figures)) or "no wrong answer")
        print(f"({time.perf_counter() - start:.0f} s)")
