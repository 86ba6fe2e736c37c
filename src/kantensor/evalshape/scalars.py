"""Which 0-d values of a traced program are NumPy scalars, not 0-d arrays.

NumPy gives a scalar (``np.float32``, immutable) for almost every 0-d result: a ufunc's,
a reduction's (``x.sum()``), an index that removes every axis (``x[0]``, ``a[()]``), a
product of vectors (``v @ v``, ``np.dot``, ``np.linalg.norm``). So ``s = x.sum(); s +=
0.5`` rebinds ``s`` to ``s + 0.5`` (a new float), where an array's ``a += 0.5`` writes
into ``a`` in its own dtype (and refuses the float with casting ``same_kind``). A 0-d
array comes from an input, a view (``x[..., 0]``, ``np.reshape(x, ())``,
``np.squeeze``, ``x.T``), ``np.where``, ``np.broadcast_to``, ``np.copy``,
``np.tensordot`` or a creation function (``np.zeros(())``, ``np.full_like``); a view, a
cast (``astype``) or ``real``/``imag`` of a 0-d value is of the kind of that value
(checked against NumPy by ``tests/test_eval_shape_scalars.py``).
A value written into once is an array (only arrays take writes).
"""

from __future__ import annotations

from typing import Any

from ..graph.basic import Variable
from ..types.protocol import NUMPY_SCALAR
from .trace import current

#: Ops whose 0-d output is a 0-d array whatever their inputs are.
_ARRAYS = frozenset({"where", "broadcast_to", "tensordot", "setitem", "additem",
                     "index_set", "index_add", "zeros", "ones", "full", "zeros_like",
                     "ones_like", "full_like", "empty_like"})

#: Ops whose 0-d output is of the kind of their 0-d first input (a view or a cast).
_OF_INPUT = frozenset({"cast", "copy", "real", "imag", "squeeze", "reshape", "transpose",
                       "permute_dims", "matrix_transpose", "flip", "ravel"})


def numpy_scalar(x: Any) -> bool:
    """Whether NumPy gives the traced program a scalar where ``x`` stands (see the
    module's doc); False outside a trace and for anything not 0-d."""
    trace = current()
    if trace is None:
        return False
    while True:
        if not isinstance(x, Variable) or getattr(x.type, "ndim", None) != 0 \
                or x in trace.written:
            return False
        node = x.owner
        if node is None:  # an input (a 0-d array), or a Python number's constant
            return bool(getattr(x, "wrapped", False))
        name = getattr(node.op, "name", None)
        if name is None or name in _ARRAYS:
            return False
        if name == "getitem":  # x[0], a[()]: a scalar; x[..., 0]: a 0-d view
            return Ellipsis not in dict(node.op.params).get("index", ())
        if name not in _OF_INPUT:
            return True
        x = node.inputs[0]  # (a view of an array of more axes is an array: not 0-d)


NUMPY_SCALAR.set(numpy_scalar)
