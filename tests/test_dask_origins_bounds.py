"""``max_task_bytes`` and ``f.memory`` on a graph that masks inside it (reviewer's
finding 2 on origins25): a mask keeps at most every row of the block it masks, so a
task on its rows holds at most what it would on the unmasked block (a join's blocks are
its parts', a repeat's ``times`` as large). Those upper bounds are what the report
counts ("at most") and what the bound is checked against; a task on an input's chunks
of unknown size has no such bound and is refused, worded for that case. Expected bytes
are the blocks' own arithmetic (rows x columns x 8 bytes), and each bound is checked
against the blocks Dask computes with a mask that keeps every row.
"""

from __future__ import annotations

import dask.array as da
import numpy as np
import pytest

import kantensor as kt
from kantensor.backend.dask import TaskTooLargeError

DATA = np.arange(40.0).reshape(10, 4) - 3
MASK = np.array([1, 0, 1, 1, 0, 0, 0, 1, 1, 1], bool)
#: one block of x: 5 rows of 4 float64
BLOCK = 5 * 4 * 8


def _masked(bound: float | None):
    x, m = kt.matrix("x", "float64"), kt.vector("m", "bool")
    return kt.function([x, m], 2 * x[m], backend="dask", max_task_bytes=bound)


def _args(mask=MASK):
    return da.from_array(DATA, chunks=(5, 4)), da.from_array(mask, chunks=5)


def test_a_mask_inside_the_graph_is_bounded_by_the_blocks_it_masks():
    """The product's task reads the x block and the mask block (5 B), makes the masked
    rows (at most BLOCK) and their double (at most BLOCK): at most 2 * BLOCK + 5 + BLOCK
    held. It was refused whatever the bound, advising .compute_chunk_sizes() on an input
    whose chunks are known."""
    report = _masked(None).memory(((5, 5), (4,)), ((5, 5),))
    assert (report.unknown, report.at_most, report.tasks) == (0, 2, 2)
    held = BLOCK + 5 + 2 * BLOCK
    assert report.largest[1].held == held and report.largest[1].at_most
    assert str(report).splitlines()[1].startswith(
        "  mul: 2 tasks, largest at most 165 B in + 160 B out, 320 B at once inside "
        "(the steps Dask fuses into it) (block (")  # (both blocks alike)
    assert "peak per worker (1 thread) of its largest task at most 485 B; 2 tasks counted "\
        "at most" in str(report)
    plan = str(_masked(None).plan(((5, 5), (4,)), ((5, 5),)))
    assert "[2 tasks, largest at most 165 B in + 160 B out" in plan
    # the bound is a bound: the blocks a mask keeping every row makes are as large
    every = np.ones(10, bool)
    blocks = _masked(None)(*_args(every)).compute_chunk_sizes()
    assert max(b.nbytes for b in blocks.blocks.ravel()) * 1.0 == BLOCK == \
        report.largest[1].output
    # within the bound it runs, NumPy's values; one byte under, refused by the bound
    got = _masked(held)(*_args()).compute()
    np.testing.assert_array_equal(got, 2 * DATA[MASK])
    with pytest.raises(TaskTooLargeError, match=r"^mul: task .* may hold up to 485 B "
                       r"\(165 B in, 160 B out, 320 B at once inside .*\) \(sizes the data "
                       r"decides counted as the blocks a mask keeps rows of\), above "
                       r"max_task_bytes=484 B$"):
        _masked(held - 1)(*_args())


def test_joins_and_repeats_of_masked_rows_multiply_the_bound():
    """Rows joined with their repeat by 3: the repeat's blocks are at most 3 blocks'
    rows; the reviewer's call (exp of the masked rows plus one, bound 10**9) runs."""
    x, m = kt.matrix("x", "float64"), kt.vector("m", "bool")
    y = x[m]
    f = kt.function([x, m], kt.concatenate([y, kt.repeat(y, 3, axis=0)]) * 2,
                    backend="dask", max_task_bytes=10**9)
    report = f.memory(((5, 5), (4,)), ((5, 5),))
    assert report.unknown == 0 and report.largest[1].at_most
    assert report.largest_output == 3 * BLOCK
    got = f(*_args()).compute()
    np.testing.assert_array_equal(got, np.concatenate([DATA[MASK],
                                                       np.repeat(DATA[MASK], 3, 0)]) * 2)
    g = kt.function([x, m], kt.exp(y) + 1, backend="dask", max_task_bytes=10**9)
    np.testing.assert_allclose(g(*_args()).compute(), np.exp(DATA[MASK]) + 1, rtol=1e-12)


def test_an_input_of_unknown_chunks_has_no_bound():
    """An input whose chunks are unknown (the user's mask, before the call) bounds
    nothing: refused, saying to compute its sizes (or to compile without the bound)."""
    x = kt.matrix("x", "float64")
    X, M = _args()
    f = kt.function([x], x * 2, backend="dask", max_task_bytes=10**9)
    with pytest.raises(TaskTooLargeError, match=r"no block known to bound them\), which "
                       r"max_task_bytes=953\.7 MiB cannot bound\. Where an input has chunks "
                       r"of unknown size, call \.compute_chunk_sizes\(\) on it first; where "
                       r"the graph makes them, compile without max_task_bytes$"):
        f(X[M])
    np.testing.assert_array_equal(f(X[M].compute_chunk_sizes()).compute(), DATA[MASK] * 2)


def test_the_masked_rows_own_tasks_are_counted_at_most():
    """The masking node's own tasks (``x[m]`` alone, its result a graph output): Dask
    records the masked layer with the chunks of the blocks it masks and sets ``nan`` on
    the array only after, so those tasks were reported as exact ("largest task 165 B
    in, 160 B out; ... at least 325 B") where 160 B is only a bound. Every display says
    "at most", and the bound holds against the blocks Dask computes."""
    x, m = kt.matrix("x", "float64"), kt.vector("m", "bool")
    f = kt.function([x, m], x[m], backend="dask", max_task_bytes=10**9)
    chunks = (((5, 5), (4,)), ((5, 5),))
    report = f.memory(*chunks)
    assert (report.unknown, report.at_most, report.tasks) == (0, 2, 2)
    task = report.largest[1]
    assert task.at_most and (task.inputs, task.output) == (BLOCK + 5, BLOCK)
    text = str(report)
    assert text.splitlines()[0] == (
        "2 tasks; largest task at most 165 B in, 160 B out; peak per worker (1 thread) "
        "of its largest task at most 325 B; 2 tasks counted at most (chunks of unknown "
        "size as the blocks a mask keeps rows of)")
    assert text.splitlines()[1].startswith("  index{index=(<array 0>,)}: 2 tasks, largest "
                                           "at most 165 B in + 160 B out")
    assert "[2 tasks, largest at most 165 B in + 160 B out]" in str(f.plan(*chunks))
    with pytest.raises(TaskTooLargeError, match=r"may hold up to 325 B .*sizes the data "
                       r"decides counted as the blocks a mask keeps rows of"):
        kt.function([x, m], x[m], backend="dask", max_task_bytes=324)(*_args())
    # the bound holds for the blocks Dask computes, and is reached by a mask of all rows
    for mask in (MASK, np.ones(10, bool), np.zeros(10, bool)):
        blocks = f(*_args(mask)).compute_chunk_sizes().blocks
        sizes = [blocks[i].compute().nbytes for i in range(blocks.shape[0])]
        assert max(sizes) <= task.output
    assert max(sizes) == 0 and task.output == BLOCK
    every = f(*_args(np.ones(10, bool))).compute_chunk_sizes().blocks
    assert max(every[i].compute().nbytes for i in range(2)) == task.output
