"""``numpy.linalg``'s LAPACK functions on tensors: the catalogue's Ops with
``as_numpy=True``, whose relations state NumPy's dtypes.

The catalogue's ``inv``, ``det``, ``solve``, ... compute a float16 matrix in float32
and give float16 (a kantensor extension: ``signatures/linalg.toml``), which ``kt.inv``
keeps, and keep bfloat16 bfloat16. NumPy's LAPACK-based functions raise TypeError "array
type float16 is unsupported in linalg" instead, and compute a low-precision tensor
(bfloat16, float8, float4, int4, int2: dtypes NumPy lacks, which its ``_commonType``
reads as no float) in float64: their NumPy entries on tensors (``np.linalg.inv(x)``,
what ``eval_shape`` traces) are the Ops with ``as_numpy=True``, whose relation says so
(:mod:`kantensor.ops.families.lapack`): make_node, query and refine agree, backwards
too. NumPy's ``pinv`` gives an empty matrix of a dtype it reads as not inexact
(integers, bool, the low-precision ones; float16 too) back in its own dtype, a
non-empty one in float64 (float16: refused), and raises for ``rtol=None`` at every size:
its relation has an alternative for each, the sizes choosing (unknown ones assumed
non-empty, the build's choice; :func:`~kantensor.ops.families.lapack.numpy_pinv`), and
refuses ``rtol=None`` of such a dtype, where ``kt.pinv`` gives float(x) at every size.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np

from ..types.protocol import NUMPY_OPS, register_numpy

#: numpy.linalg's functions that refuse float16 (its LAPACK wrappers; ``norm``,
#: ``matmul``, ``vecdot``, ``tensordot`` and ``matrix_transpose`` compute it).
LAPACK = ("cholesky", "det", "eig", "eigh", "eigvals", "eigvalsh", "inv", "pinv", "qr",
          "slogdet", "solve", "svd")


def _as_numpy(op: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(op)
    def linalg(*args: Any, **kwargs: Any) -> Any:
        return op(*args, **kwargs, as_numpy=True)
    return linalg


def register() -> None:
    """Make the NumPy entries of :data:`LAPACK` (each the catalogue's Op) call it with
    ``as_numpy=True``."""
    for name in LAPACK:
        fn = getattr(np.linalg, name)
        if fn in NUMPY_OPS:
            register_numpy(fn, _as_numpy(NUMPY_OPS[fn]))
