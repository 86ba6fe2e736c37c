"""Joins of blocks whose other axes have unknown sizes (a mask's rows) are named as the
user called them. Where Dask's own functions refuse ``nan`` sizes off the joined axis,
the lowering joins the blocks itself (one alias per block, :mod:`.joining`); that graph
was named ``concatenate-<token>`` whatever the call (``stack``, ``hstack``, ``tile``,
``roll``, ``pad``), so the tasks ``max_task_bytes`` names and the steps it says Dask
fuses read "concatenate" for an ``hstack``, and the plan said ``dask.array.hstack``,
which is not what runs. Each is now named after the call, the plan says how its
blocks are joined, and the values are NumPy's, computed by Dask block by block.
"""

from __future__ import annotations

import dask.array as da
import numpy as np
import pytest

import kantensor as kt
from kantensor.backend.dask import TaskTooLargeError

DATA = np.arange(40.0).reshape(10, 4) - 3
MASK = np.array([1, 0, 1, 1, 0, 0, 0, 1, 1, 1], bool)
CHUNKS = (((5, 5), (4,)), ((5, 5),))

CALLS = {
    "stack": (lambda r: kt.stack([r, 2 * r], axis=2), lambda r: np.stack([r, 2 * r], 2)),
    "hstack": (lambda r: kt.hstack([r, 2 * r]), lambda r: np.hstack([r, 2 * r])),
    "tile": (lambda r: kt.tile(r, (1, 2)), lambda r: np.tile(r, (1, 2))),
    "roll": (lambda r: kt.roll(r, 1, axis=1), lambda r: np.roll(r, 1, axis=1)),
    "pad": (lambda r: kt.pad(r, ((0, 0), (1, 1))), lambda r: np.pad(r, ((0, 0), (1, 1)))),
    "concatenate": (lambda r: kt.concatenate([r, r], axis=1),
                    lambda r: np.concatenate([r, r], 1)),
}


@pytest.mark.parametrize("name", list(CALLS))
def test_a_join_off_unknown_rows_is_named_as_called(name):
    make, numpy = CALLS[name]
    x, m = kt.matrix("x", "float64"), kt.vector("m", "bool")
    out = make(x[m])
    f = kt.function([x, m], out, backend="dask")
    line = str(f.plan(*CHUNKS)).splitlines()[-2]
    assert f"its blocks joined as {name} joins them, one alias per block, the unknown " \
           f"sizes off the joined axis aligned by origin (dask.array.{name} compares " \
           "them, and refuses nan)" in line
    assert ("concatenate" in line) == (name == "concatenate")
    y = f(da.from_array(DATA, chunks=(5, 4)), da.from_array(MASK, chunks=5))
    joined = [k for k in y.dask.layers if k.split("-")[0] in CALLS]
    assert joined and all(k.startswith(f"{name}-") for k in joined), list(y.dask.layers)
    # the blocks Dask computes: NumPy's values, one row block per block of the mask
    np.testing.assert_array_equal(y.compute(), numpy(DATA[MASK]))
    rows = [b.shape[0] for b in (y.blocks[i].compute() for i in range(y.numblocks[0]))]
    assert rows == [int(MASK[:5].sum()), int(MASK[5:].sum())]
    # the task the bound names is the call's
    g = kt.function([x, m], 2 * out, backend="dask", max_task_bytes=10)
    with pytest.raises(TaskTooLargeError) as refused:
        g(da.from_array(DATA, chunks=(5, 4)), da.from_array(MASK, chunks=5))
    named = str(refused.value)
    assert f"{name}-" in named and ("concatenate" in named) == (name == "concatenate")
