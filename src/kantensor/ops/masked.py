"""``np.sum(x, where=mask)`` and ``np.prod(x, where=mask)`` (and the methods): NumPy's
definition, the reduction of ``x`` with the elements where ``mask`` is false replaced by
the reduction's identity (0, 1), ``np.where(mask, x, identity)`` in x's dtype; ``mask``
(an array of bools: NumPy refuses an int or float array, a list it reads as truths)
broadcasts to x's shape, never x to its (NumPy raises ValueError where it would have
to). A graph computes every element, so this is the one meaning of ``where=`` it has.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np

from ..graph.basic import Variable
from ..types.numpyargs import plan, signature
from ..types.protocol import numpy_name
from ..types.variable import as_tensor_variable


def masked(op: Callable[..., Any], identity: Callable[..., Any],
           numpy_fn: Any = None) -> Callable[..., Any]:
    """``op`` (a reduction, its tensor first) taking ``where=``: the elements where it is
    false made ``identity(x)``'s (``np.zeros_like``, ``np.ones_like``) before reducing.
    With ``numpy_fn``, the arguments are NumPy's function's, passed to ``op`` by its
    plan (:func:`~kantensor.types.numpyargs.plan`); else ``op``'s own (a method's)."""
    steps = None if numpy_fn is None else plan(signature(numpy_fn), op,
                                               numpy_name(numpy_fn))

    @functools.wraps(op)
    def reduce(*args: Any, **kwargs: Any) -> Any:
        where = kwargs.pop("where", True)
        if where is not True and args:
            x = args[0] if isinstance(args[0], Variable) else as_tensor_variable(args[0])
            mask = where if isinstance(where, Variable) else as_tensor_variable(
                np.asarray(where, dtype=None if isinstance(where, np.ndarray) else bool))
            if mask.type.dtype != "bool":  # (an array is cast by the rule 'safe')
                raise TypeError(f"Cannot cast array data from dtype('{mask.type.dtype}') "
                                "to dtype('bool') according to the rule 'safe'")
            args = (np.where(np.broadcast_to(mask, x.shape), x, identity(x)), *args[1:])
        if steps is not None:
            args, kwargs = steps.arguments(args, kwargs)
        return op(*args, **kwargs)
    reduce.takes = ("where",)  # type: ignore[attr-defined] - (types/protocol.py reads it)
    return reduce
