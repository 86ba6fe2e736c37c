"""np.unique and np.unique_values of a non-empty input keep at least one element: the
``index`` Op's relation bounds their count ``min(1, n) <= m <= n`` (the mask of first
occurrences is true at its first element: ``ArrayRef.leading``), so ``holds`` decides
what the code needs of it (``np.unique(x)[0]`` runs wherever ``x`` has an element);
before, it said it could not decide (only ``m <= n`` was known).

Judged by NumPy (tests/npprograms.judge) at every size of a box holding 0, 1 and sizes
that all differ: where the result holds NumPy runs with the type's shape and dtype,
where it does not NumPy fails; ``holds`` may leave a size undecided only where NumPy's
outcome there depends on the data (it runs on zeros and fails for other data, or the
reverse: :func:`npprograms.fails_for_some_data`)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from kantensor.ops import CATALOGUE
from kantensor.ops.paramvalues import ArrayRef
from kantensor.query import query
from npprograms import compile_program, fails_for_some_data, judge, returning, run_numpy

PROGRAMS = [
    ("np.unique(x0)[0]", ["float32[A]"]),
    ("np.unique(x0)[-1] + x1", ["int8[A,B]", "float64[B]"]),
    ("np.unique_values(x0)[0]", ["float32[A,B]"]),
    ("np.unique(x0, equal_nan=False)[-1]", ["float16[A]"]),
    ("np.zeros(3)[len(np.unique(x0)) - 1]", ["int32[A]"]),
    ("x0[len(np.unique(x0)) - 1]", ["uint8[A]"]),
    ("x1[len(np.unique_values(x0)) - 1]", ["int16[A]", "float32[B]"]),
    ("np.arange(5)[len(np.unique(x0)) - 2]", ["float32[A,B]"]),
    ("x1[:len(np.unique(x0))][0]", ["int64[A]", "float32[B]"]),
]


@pytest.mark.parametrize(("source", "types"), PROGRAMS)
def test_unique_keeps_one_element_of_a_nonempty_input(source: str, types: list[str]
                                                       ) -> None:
    program = returning(source, len(types))
    verdict = judge(program, types)
    fn = compile_program(program)
    assert verdict.status == "typed", verdict.note
    for kind, sizes, note in verdict.wrong:
        # undecided only where the data decide NumPy's outcome
        runs_on_zeros = not isinstance(run_numpy(fn, types, sizes), BaseException)
        assert kind == "undecided" and runs_on_zeros and \
            fails_for_some_data(fn, types, sizes), (kind, sizes, note)


def test_the_relation_says_the_counts_np_unique_has() -> None:
    """query (and make_node, the same relation) of the index Op np.unique builds: the
    lengths it answers at n elements are those np.unique gives over every data of n
    values drawn from n (brute force)."""
    mask = ArrayRef(0, leading=True)
    op = CATALOGUE["index"].bind(index=(mask,))
    for n in range(5):
        counts = {len(np.unique(np.array(v))) for v in itertools.product(range(n), repeat=n)}
        answered = {k for k in range(n + 2)
                    if list(query(op, [f"float32[{n}]", f"bool[{n}]"], [f"float32[{k}]"],
                                  limit=1))}
        assert answered == counts, (n, answered, counts)
