"""The dtype half of a direct build's plan (:mod:`.direct`): each input's dtype
annotation checked and the dtype variables bound, as the dtype constraints of
:meth:`~.compile.CompiledAlternative.apply` do on ground dtypes, and the value of a
dtype term (``promote``, ``float(T)``, an unannotated output's promotion). Its own
module so that the plan's sizes (:mod:`.direct`) and its dtypes each have one home."""

from __future__ import annotations

from typing import Any

from ..logic.dtypes import wrapped_dtypes
from ..syntax import ast as A
from ..types.dtypes import DEFAULT_RANGE, DTYPE_FUNCTIONS, Priority, PromotionError, priority
from ..types.numpyrules import loop_float, promoted
from .broadcasts import Fails as _Fails

__all__ = ["DtypePlan", "promote"]

_IN_RANGE = frozenset(DEFAULT_RANGE)
_TENSOR = Priority.TENSOR


class DtypePlan:
    """The dtype steps of a plan whose ``c`` (the compiled alternative), ``inputs``
    (its input operands) and ``binders`` (each dtype variable's binding inputs) the
    plan sets."""

    __slots__ = ()
    c: Any
    inputs: Any
    binders: Any

    def _dtypes(self, types: tuple, wrapped: tuple) -> dict[str, str]:
        """The dtype variables' values, after every input's annotation is checked (as the
        dtype constraints of :meth:`CompiledAlternative.apply`)."""
        c = self.c
        env: dict[str, str] = {}
        for i, op in enumerate(self.inputs):
            d = types[i].dtype
            if wrapped[i] and (types[i].shape or d not in wrapped_dtypes()):
                raise _Fails  # WrappedOk: a Python number has no axes
            ann = op.dtype
            if type(ann) is A.DTypeVar:
                seen = env.get(ann.name)
                if seen is None:
                    env[ann.name] = d
                elif seen != d:
                    raise _Fails
        for i in c._ranged:
            if types[i].dtype not in _IN_RANGE:
                raise _Fails
        for i, op in enumerate(self.inputs):
            ann = op.dtype
            if ann is not None and type(ann) is not A.DTypeVar and \
                    self._dtype(ann, env, types, wrapped) != types[i].dtype:
                raise _Fails
        return env

    def _dtype(self, node: Any, env: dict, types: tuple, wrapped: tuple) -> str:
        """The value of a dtype term (``promote``, ``float(T)``, ...)."""
        if isinstance(node, A.DTypeName):
            return node.name
        if isinstance(node, A.DTypeVar):
            return env[node.name]
        if isinstance(node, A.Promote):
            operands: list = []
            for a in node.args:
                d = self._dtype(a, env, types, wrapped)
                inputs = self.binders.get(a.name, ()) if isinstance(a, A.DTypeVar) else ()
                if node.joint or not inputs:
                    operands.append((d, _TENSOR))
                else:
                    operands += [(d, priority(len(types[i].shape), wrapped[i]))
                                 for i in inputs]
            try:
                return (loop_float if node.loop else promoted)(tuple(operands))
            except PromotionError:
                raise _Fails from None
        d = self._dtype(node.arg, env, types, wrapped)
        if d not in _IN_RANGE:
            raise _Fails
        return DTYPE_FUNCTIONS[node.word](d)


def promote(types: tuple, wrapped: tuple, inputs: range) -> str:
    """An unannotated output's dtype: the promotion of every input, each by its priority."""
    try:
        return promoted(tuple([(types[i].dtype, priority(len(types[i].shape), wrapped[i]))
                               for i in inputs]))
    except PromotionError:
        raise _Fails from None
