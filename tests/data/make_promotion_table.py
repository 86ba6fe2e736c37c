"""Write promotion_table.tsv, promotion_triples.tsv and promotion_all_triples.tsv.gz
(beside this file) from PyTorch.

The oracle for ``kantensor.types.dtypes.result_type_of``.  Not part of the test suite and
imports nothing from kantensor; run it by hand in a throwaway venv outside the project::

    python3.11 -m venv /tmp/torchvenv
    /tmp/torchvenv/bin/pip install torch==2.13.0 numpy ninja   # ninja + g++ for the triples
    /tmp/torchvenv/bin/python tests/data/make_promotion_table.py

Operands are ``(dtype, priority)`` over the 15 dtypes PyTorch promotes (NumPy's 14 numeric
ones and bfloat16) and the priority classes
TENSOR (``torch.zeros(2, dtype=...)``), ZERO_DIM (``torch.zeros((), dtype=...)``) and
WRAPPED (a Python number: True, 1, 1.5 or 1j).  A wrapped number only ever has the dtype
bool, int64, the default float dtype or the default complex dtype, so other wrapped dtypes
are skipped.  The pairs are computed under each default dtype (float32, float64, float16;
under float16 torch's default complex is complex32, so wrapped complex is left out there)
and merged, each row keeping the dtypes it shows.  All pairs use ``torch.result_type``.

Triples: ``torch.result_type`` takes two operands, so a tiny C++ extension (compiled with
``torch.utils.cpp_extension.load_inline``) calls ``at::native::result_type`` on a list of
tensors, marking wrapped ones with ``set_wrapped_number`` as torch does for Python numbers;
it is checked against ``torch.result_type`` on every pair.  The rule is then checked
against torch on every triple torch answers, and 300 random triples (fixed seed) are
written, half of them chosen so that ``result`` differs from ``left_fold``: the naive
pairwise fold, whose intermediate has the higher priority of its two operands.  Every
triple (under the default dtypes float32 and float64, merged as the pairs are) is written
to ``promotion_all_triples.tsv.gz``: 45,000 rows, gzipped.

``source`` columns: ``torch`` (torch answered with a supported dtype); ``rule`` (torch gave
complex32, which does not exist here: complex64 instead; or uint16/32/64 met a complex,
which wins as it does over any integer; or torch raised only because it folds in operand
order); ``numpy-rule`` (torch raised because uint16/32/64 met bool or another integer:
``np.promote_types`` of the two).  Rows not from torch are computed by
``reference_result_type`` below: PyTorch's algorithm with that extended promotion.
"""

from __future__ import annotations

import gzip
import itertools
import random
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import torch

HERE = Path(__file__).resolve().parent
DTYPES = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float16", "float32", "float64", "complex64", "complex128", "bfloat16")
PRIORITIES = ("WRAPPED", "ZERO_DIM", "TENSOR")  # lowest to highest
COMPLEX_OF = {"float16": "complex64", "float32": "complex64", "float64": "complex128",
              "bfloat16": "complex64"}
DEFAULTS = ("float32", "float64", "float16")
Operand = tuple[str, str]  # (dtype, priority name)


def kind(dtype: str) -> int:
    """0 bool, 1 integer, 2 floating, 3 complex."""
    return (0 if dtype == "bool" else 1 if "int" in dtype
            else 2 if dtype.startswith(("float", "bfloat")) else 3)


def operands_for(default: str) -> list[Operand]:
    wrapped = ["bool", "int64", default] + ([COMPLEX_OF[default]] if default != "float16" else [])
    return ([(d, p) for p in ("TENSOR", "ZERO_DIM") for d in DTYPES]
            + [(d, "WRAPPED") for d in wrapped])


def to_torch(op: Operand) -> object:
    dtype, priority = op
    if priority == "WRAPPED":
        return {0: True, 1: 1, 2: 1.5, 3: 1j}[kind(dtype)]
    return torch.zeros(2 if priority == "TENSOR" else (), dtype=getattr(torch, dtype))


def to_tensor(op: Operand) -> tuple[torch.Tensor, bool]:
    """The tensor torch makes of an operand (wrapped numbers as scalar_to_tensor does)."""
    value = to_torch(op)
    if isinstance(value, torch.Tensor):
        return value, False
    dtype = {bool: torch.bool, int: torch.int64, float: torch.float64,
             complex: torch.complex128}[type(value)]
    return torch.tensor(value, dtype=dtype), True


def torch_name(dtype: torch.dtype) -> str:
    return str(dtype).removeprefix("torch.")


# -- the documented rule, used where torch has no answer ------------------------------------
def reference_promote(a: str, b: str, used: set[str]) -> str:
    """torch.promote_types where it answers; NumPy for integer pairs; else the complex."""
    try:
        result = torch_name(torch.promote_types(getattr(torch, a), getattr(torch, b)))
        assert result in DTYPES, (a, b, result)
        return result
    except RuntimeError:
        pass
    if kind(a) <= 1 and kind(b) <= 1:
        used.add("numpy-rule")
        return np.promote_types(a, b).name
    used.add("rule")
    assert {kind(a), kind(b)} == {1, 3}, (a, b)
    return a if kind(a) == 3 else b


def reference_result_type(ops: Sequence[Operand], used: set[str]) -> str:
    """PyTorch's result_type algorithm (TypeProperties.cpp) with reference_promote."""
    results: dict[str, str | None] = {}
    for priority in PRIORITIES:
        result = None
        # Highest dtype first: once inexact, integers are absorbed (as everywhere in torch).
        for d in sorted((d for d, p in ops if p == priority), key=DTYPES.index, reverse=True):
            result = d if result is None else reference_promote(result, d, used)
        results[priority] = result

    def combine(higher: str | None, lower: str | None) -> str | None:
        kh = None if higher is None else kind(higher)
        kl = None if lower is None else kind(lower)
        if kh == 3:
            return higher
        if kl == 3:
            if kh == 2:
                if higher == "float16":
                    used.add("rule")  # torch: complex32
                return COMPLEX_OF[higher]
            return lower
        if kh == 2:
            return higher
        if (kh == 0 or kl == 2) and higher is not None and lower is not None:
            return reference_promote(higher, lower, used)
        return higher if higher is not None else lower

    final = combine(results["TENSOR"], combine(results["ZERO_DIM"], results["WRAPPED"]))
    assert final is not None
    return final


def oracle(ops: Sequence[Operand], torch_result_type: Callable[..., torch.dtype]
           ) -> tuple[str, str, bool]:
    """(result, source, whether the documented rule disagrees with torch)."""
    used: set[str] = set()
    ref = reference_result_type(ops, used)
    try:
        got = torch_name(torch_result_type(*ops))
    except RuntimeError:  # may raise in operand order where our canonical order does not
        return ref, ("numpy-rule" if "numpy-rule" in used else "rule"), False
    if got in DTYPES:
        return got, "torch", got != ref
    assert got == "complex32" and ref == "complex64", (ops, got, ref)
    return ref, "rule", False


def raw(result_type: Callable[..., torch.dtype], *ops: Operand) -> str:
    try:
        return torch_name(result_type(*ops))
    except RuntimeError:
        return "error"


def pair_result_type(a: Operand, b: Operand) -> torch.dtype:
    return torch.result_type(to_torch(a), to_torch(b))


# -- triples ---------------------------------------------------------------------------------
CPP = r"""
#include <torch/extension.h>
#include <ATen/native/TypeProperties.h>
at::ScalarType result_type_n(std::vector<at::Tensor> ts, std::vector<bool> wrapped) {
  std::vector<at::Tensor> xs;
  for (size_t i = 0; i < ts.size(); ++i) {
    at::Tensor t = ts[i];
    if (wrapped[i]) { t = t.clone(); t.unsafeGetTensorImpl()->set_wrapped_number(true); }
    xs.push_back(t);
  }
  return at::native::result_type(xs);
}
"""


def load_extension() -> Callable[..., torch.dtype] | None:
    from torch.utils.cpp_extension import load_inline
    try:
        ext = load_inline("kantensor_result_type_n", cpp_sources=[CPP],
                          functions=["result_type_n"], build_directory=tempfile.mkdtemp())
    except Exception as exc:  # no compiler, no ninja...
        print(f"cannot build the C++ extension ({exc}); triples not written", file=sys.stderr)
        return None

    def result_type_n(*ops: Operand) -> torch.dtype:
        tensors, wrapped = zip(*map(to_tensor, ops), strict=True)
        return ext.result_type_n(list(tensors), list(wrapped))
    return result_type_n


def max_priority(*ps: str) -> str:
    return max(ps, key=PRIORITIES.index)


def write_tsv(path: Path, header: Sequence[str], rows: list[Sequence[str]]) -> None:
    path.write_text("\n".join("\t".join(r) for r in [header, *rows]) + "\n")


def main() -> None:
    rt_n = load_extension()
    pairs: dict[tuple[Operand, Operand], tuple[str, str]] = {}
    disagreements = []
    for default in DEFAULTS:
        torch.set_default_dtype(getattr(torch, default))
        ops = operands_for(default)
        for a in ops:
            for b in ops:
                result, source, differs = oracle((a, b), pair_result_type)
                if differs:
                    disagreements.append((a, b, result))
                if rt_n is not None:  # the extension must agree with torch.result_type
                    assert raw(rt_n, a, b) == raw(pair_result_type, a, b), (a, b)
                old = pairs.setdefault((a, b), (result, source))
                assert old == (result, source), (a, b, old, result, source, default)
    torch.set_default_dtype(torch.float32)
    rows = [(*a, *b, *pairs[a, b]) for a, b in sorted(pairs, key=lambda k: (
        DTYPES.index(k[0][0]), PRIORITIES.index(k[0][1]),
        DTYPES.index(k[1][0]), PRIORITIES.index(k[1][1])))]
    write_tsv(HERE / "promotion_table.tsv",
              ("dtype_a", "priority_a", "dtype_b", "priority_b", "result", "source"), rows)
    counts = {s: sum(r[-1] == s for r in rows) for s in ("torch", "rule", "numpy-rule")}
    print(f"promotion_table.tsv: {len(rows)} rows {counts}")
    print(f"torch rows where the documented algorithm disagrees: {disagreements}")
    if rt_n is None:
        return

    checked = 0
    every: dict[tuple[Operand, ...], tuple[str, str]] = {}
    for default in DEFAULTS[:2]:  # the rule must agree with torch on every triple it answers
        torch.set_default_dtype(getattr(torch, default))
        ops = operands_for(default)
        for triple in itertools.product(ops, repeat=3):
            result, source, differs = oracle(triple, rt_n)
            assert not differs, (triple, result)
            checked += source == "torch"
            old = every.setdefault(triple, (result, source))
            assert old == (result, source), (triple, old, result, source, default)
    print(f"all triples: the rule agrees with torch on the {checked} that torch answers")
    header = ("dtype_a", "priority_a", "dtype_b", "priority_b", "dtype_c", "priority_c",
              "result", "source")
    with gzip.open(HERE / "promotion_all_triples.tsv.gz", "wt", compresslevel=9) as f:
        f.write("\n".join("\t".join(r) for r in [header, *(
            (*a, *b, *c, *v) for (a, b, c), v in every.items())]) + "\n")
    print(f"promotion_all_triples.tsv.gz: {len(every)} rows")

    rng = random.Random(20240531)
    triples: dict[tuple[Operand, ...], tuple[str, str, str, str]] = {}
    witnesses = 0
    for _ in range(200_000):
        if len(triples) >= 300:
            break
        default = rng.choice(DEFAULTS[:2])
        torch.set_default_dtype(getattr(torch, default))
        ops = operands_for(default)
        a, b, c = (rng.choice(ops) for _ in range(3))
        if (a, b, c) in triples:
            continue
        result, source, differs = oracle((a, b, c), rt_n)
        assert not differs, (a, b, c, result)
        ab, _, _ = oracle((a, b), rt_n)
        fold, fold_source, _ = oracle(((ab, max_priority(a[1], b[1])), c), rt_n)
        witness = fold != result
        if witness and witnesses >= 150 or not witness and len(triples) - witnesses >= 150:
            continue
        witnesses += witness
        triples[a, b, c] = (result, source, fold, fold_source)
    torch.set_default_dtype(torch.float32)
    write_tsv(HERE / "promotion_triples.tsv",
              ("dtype_a", "priority_a", "dtype_b", "priority_b", "dtype_c", "priority_c",
               "result", "source", "left_fold", "left_fold_source"),
              [(*a, *b, *c, *v) for (a, b, c), v in triples.items()])
    print(f"promotion_triples.tsv: {len(triples)} rows, {witnesses} where result != left_fold")


if __name__ == "__main__":
    main()
