"""``numpy.linalg``'s functions on tensors refuse float16, as NumPy does, and
``np.linalg.pinv`` an empty integer matrix.

The catalogue's ``inv``, ``det``, ``solve``, ... compute a float16 matrix in float32
and give float16 (a kantensor extension: ``signatures/linalg.toml``), which ``kt.inv``
keeps. NumPy's LAPACK-based functions raise TypeError "array type float16 is unsupported
in linalg" instead, so their NumPy entries on tensors (``np.linalg.inv(x)``, what
``eval_shape`` traces) raise it too: the NumPy front end types only what NumPy runs.
A low-precision tensor (bfloat16, float8, float4, int4, int2: dtypes NumPy lacks, which
its ``_commonType`` reads as no float) is computed in float64 there, as NumPy does, where
``kt.inv`` keeps bfloat16. NumPy's ``pinv`` gives an empty matrix of a dtype it reads as
not inexact (integers, bool, the low-precision ones) back in its own dtype, a non-empty
one in float64, and raises for ``rtol=None`` at every size: ``np.linalg.pinv`` of a
tensor is the Op with ``as_numpy=True``, whose relation needs such an input's matrices
to have elements (refused where they have none: one type cannot say both), types a
low-precision one float64 and refuses ``rtol=None`` (``build_pinv``), where ``kt.pinv``
gives float(x) at every size.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np

from ..graph.basic import Variable
from ..types.dtypes import is_low_precision
from ..types.protocol import NUMPY_OPS, register_numpy

#: numpy.linalg's functions that refuse float16 (its LAPACK wrappers; ``norm``,
#: ``matmul``, ``vecdot``, ``tensordot`` and ``matrix_transpose`` compute it).
LAPACK = ("cholesky", "det", "eig", "eigh", "eigvals", "eigvalsh", "inv", "pinv", "qr",
          "slogdet", "solve", "svd")


def _numpy_dtypes(op: Callable[..., Any], name: str) -> Callable[..., Any]:
    @functools.wraps(op)
    def linalg(*args: Any, **kwargs: Any) -> Any:
        for a in (*args, *kwargs.values()):
            if isinstance(a, Variable) and getattr(a.type, "dtype", None) == "float16":
                raise TypeError("array type float16 is unsupported in linalg")
        if name != "pinv":  # (pinv's low precision: its relation, as_numpy)
            args = tuple(map(_float64, args))
            kwargs = {k: _float64(v) for k, v in kwargs.items()}
        return op(*args, **kwargs)
    return linalg


def _float64(a: Any) -> Any:
    """A low-precision tensor as float64 (NumPy's linalg computes it so)."""
    if isinstance(a, Variable) and is_low_precision(getattr(a.type, "dtype", "float32")):
        return a.astype("float64")
    return a


def _numpy_pinv(op: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(op)
    def pinv(*args: Any, **kwargs: Any) -> Any:
        return op(*args, **kwargs, as_numpy=True)
    return pinv


def register() -> None:
    """Wrap the NumPy entries of :data:`LAPACK` (each the catalogue's Op) so that a
    float16 tensor is refused and a low-precision one made float64, and ``pinv``'s with
    ``as_numpy``."""
    register_numpy(np.linalg.pinv, _numpy_pinv(NUMPY_OPS[np.linalg.pinv]))
    for name in LAPACK:
        fn = getattr(np.linalg, name)
        if fn in NUMPY_OPS:
            register_numpy(fn, _numpy_dtypes(NUMPY_OPS[fn], name))
