"""Run-time checks of values against TensorTypes, with named Dims bound per call."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..graph.basic import Apply
from ..ops.op import SignatureOp
from ..syntax.errors import TypeInferenceError
from ..types.basic_ops import cast_array
from ..types.conditions import is_choice
from ..types.containers import OptionalType, SequenceType
from ..types.dim import Dim
from ..types.dimfacts import NO_SOLUTION, solve_for
from ..types.dtypes import COMPUTED_AS, category, is_lossless_cast
from ..types.symbols import free_symbols, substitute
from ..types.type import TensorType


class ShapeBindingError(ValueError):
    """A named Dim has two different sizes in one call."""


class OutputTypeError(RuntimeError):
    """An Op produced a value that does not match its inferred type (check=True)."""


#: Errors that already say which node and value they are about.
_OWN_ERRORS = (ShapeBindingError, OutputTypeError)


def node_error(node: Any, values: list, exc: Exception, bindings: dict | None = None,
               origins: dict | None = None) -> Exception:
    """``exc`` raised while running ``node``, restated in the graph's terms: which Op,
    which output(s) it was computing, the shapes of the values it got (the error
    NumPy raises names none of them), and, given the call's ``bindings``, the node's
    conditions on the sizes that fail there (``zeros((n - 3,))`` at ``n = 1``: its type
    needs ``n - 3 >= 0``). Same exception class when it can be rebuilt from a message,
    else a RuntimeError."""
    if isinstance(exc, _OWN_ERRORS) or str(exc).startswith("at run time: "):
        return exc
    shapes = ", ".join(_shape_text(v) for v in values)
    named = [v.name for v in node.outputs if v.name is not None]
    computing = f" (computing {', '.join(named)})" if named else ""
    message = (f"{node.op}{computing} failed at run time on inputs of shapes {shapes}: "
               f"{exc}{_failed_conditions(node, bindings or {}, origins or {})}")
    try:
        return type(exc)(message)
    except Exception:  # an exception class that does not take a message
        return RuntimeError(f"{message} ({type(exc).__name__})")


def failed_conditions(node: Any, bindings: dict) -> list:
    """The conditions of ``node`` over bound sizes that fail at ``bindings``."""
    return [c for c in getattr(node, "conditions", ())
            if c.symbols() <= bindings.keys() and not c.holds(bindings)]


def _bound(names: Any, bindings: dict, origins: dict) -> str:
    return "; ".join(f"{k} = {bindings[k]}" + (f" in {origins[k]}" if k in origins else "")
                     for k in sorted(names, key=str))


def _failed_conditions(node: Any, bindings: dict, origins: dict) -> str:
    """``"; its type needs C, which fails (n = 1 in ...)"`` for each condition of
    ``node`` over bound sizes that fails at ``bindings`` (empty if none does)."""
    failed = failed_conditions(node, bindings)
    if not failed:
        return ""
    names = {s for c in failed for s in c.symbols()}
    return f"; its type needs {' and '.join(map(str, failed))}, which fails " \
           f"({_bound(names, bindings, origins)})"


def check_conditions(node: Any, bindings: dict, origins: dict) -> None:
    """``check=True``: TypeInferenceError where a condition the node was typed under
    fails at the call's sizes: its output types do not hold there. A choice (the sign
    read of a slice bound ``n - 5``) names what NumPy computes instead."""
    failed = failed_conditions(node, bindings)
    if not failed:
        return
    c = failed[0]
    types = ", ".join(str(v.type) for v in node.outputs)
    why = f"{c}, which fails at {_bound(c.symbols(), bindings, origins)}"
    if is_choice(c):
        raise TypeInferenceError(
            f"at run time: {node.op} was typed under a choice, {why}: NumPy computes "
            f"{c.source.otherwise}, not {types} (the graph's types hold where the choice "
            f"does; build it for these sizes, e.g. with eval_shape's where=)")
    raise TypeInferenceError(f"at run time: {node.op} needs {why} (its output types: "
                             f"{types})")


def _shape_text(value: Any) -> str:
    """A value's shape as a message says it (a sequence by its elements' shapes)."""
    if isinstance(value, list):
        return f"[{', '.join(_shape_text(v) for v in value)}]"
    if value is None:
        return "None"
    return str(np.shape(value))


def size_value(size: Dim, users: str, bindings: dict[str, int], origins: dict[str, str]
               ) -> np.ndarray:
    """The value of a SizeOp (see :mod:`kantensor.ops.sizes`) under the call's bindings:
    a read-only bool vector of length ``size``, a zero-stride view of one element.
    ShapeBindingError when a name of ``size`` is not bound or its value is negative."""
    if size.name is not None and size.name in bindings:  # the common case: a plain Dim
        return np.ndarray((bindings[size.name],), bool, _FALSE, 0, (0,))
    unbound = sorted(free_symbols(size) - bindings.keys())
    if unbound:
        raise ShapeBindingError(f"{users} takes the size {size} as a parameter, but the "
                                f"shapes of the inputs do not determine "
                                f"{', '.join(unbound)}")
    n = substitute(size, bindings)
    if n < 0:
        named = "; ".join(f"{k} = {bindings[k]} in {origins[k]}"
                          for k in sorted(free_symbols(size)))
        raise ShapeBindingError(f"{users} takes the size {size} as a parameter, which is "
                                f"{n} ({named}): a size must be non-negative")
    return np.ndarray((n,), bool, _FALSE, 0, (0,))


#: The one element every size value views (read-only, with a stride of 0).
_FALSE = np.zeros(1, bool)
_FALSE.setflags(write=False)


def _check_rank(ttype: TensorType, shape: tuple[int, ...], where: str) -> None:
    if len(shape) != ttype.ndim:
        raise TypeError(f"{where}: expected {ttype.ndim} dimension{'s' * (ttype.ndim != 1)} "
                        f"for {ttype}, got a value of shape {tuple(shape)}")


def bind_dims(ttype: TensorType, shape: tuple[int, ...], bindings: dict[str, int],
              origins: dict[str, str], where: str) -> None:
    """Bind the plain named Dims of ``ttype`` to the sizes in ``shape``.

    ``bindings``/``origins`` are updated in place; a conflict raises
    ShapeBindingError saying where each size came from; a rank that differs from the
    type's raises TypeError.
    """
    _check_rank(ttype, shape, where)
    for axis, (entry, size) in enumerate(zip(ttype.shape, shape, strict=True)):
        if not isinstance(entry, Dim):
            continue
        name = entry.name
        if name is not None:
            if name in bindings and bindings[name] != size:
                raise ShapeBindingError(
                    f"dimension {name} is {bindings[name]} in {origins[name]} "
                    f"but {size} in {where} (axis {axis})"
                )
            if name not in bindings:
                bindings[name] = size
                origins[name] = f"{where} (axis {axis})"


def solve_dims(typed: list[tuple[TensorType, tuple[int, ...], str]], bindings: dict[str, int],
               origins: dict[str, str]) -> None:
    """Bind the Dims used only inside expressions: an axis typed ``2*n`` of length 6 gives
    ``n = 3``; of length 5 it raises ShapeBindingError (no size ``n`` fits), as does a
    size that would have to be negative. Repeats while something new is bound; an
    expression that is not linear in its one unknown name (``n**2``, ``n//2``) is left
    to :func:`check_dim_expressions` once its name is bound elsewhere."""
    progress = True
    while progress:
        progress = False
        for ttype, shape, where in typed:
            for axis, (entry, size) in enumerate(zip(ttype.shape, shape, strict=True)):
                if not isinstance(entry, Dim):
                    continue
                unknown = free_symbols(entry) - bindings.keys()
                if len(unknown) != 1:
                    continue
                (name,) = unknown
                value = solve_for(substitute(entry, bindings), name, size)
                if value is None:
                    continue
                if value is NO_SOLUTION or value < 0:
                    why = "" if value is NO_SOLUTION else f" (only {name} = {value} does)"
                    raise ShapeBindingError(f"{where} axis {axis} has length {size}, but "
                                            f"no size {name} >= 0 makes {entry} == {size}"
                                            f"{why}")
                bindings[name] = value
                origins[name] = f"{where} (axis {axis}, {entry} == {size})"
                progress = True


def check_dim_expressions(ttype: TensorType, shape: tuple[int, ...], bindings: dict[str, int],
                          where: str) -> None:
    """Check sizes given by Dim expressions (e.g. ``2*n``) once their names are bound."""
    for axis, (entry, size) in enumerate(zip(ttype.shape, shape, strict=True)):
        if isinstance(entry, Dim) and free_symbols(entry) <= bindings.keys():
            want = substitute(entry, bindings)
            if want != size:
                raise ShapeBindingError(
                    f"{where} axis {axis} has length {size} but its type says "
                    f"{entry} = {want}"
                )


def check_value(ttype: Any, value: Any, bindings: dict[str, int],
                origins: dict[str, str], where: str) -> None:
    """Raise OutputTypeError unless ``value`` is exactly a value of ``ttype`` (a tensor
    type; a sequence's each element against its type, its length too; an optional's
    value when it holds one)."""
    if isinstance(ttype, OptionalType):
        if value is not None:
            check_value(ttype.element, value, bindings, origins, where)
        return
    if isinstance(ttype, SequenceType):
        if not isinstance(value, list):
            raise OutputTypeError(f"{where} is a {type(value).__name__}, expected a list of "
                                  f"type {ttype}")
        if ttype.length is not None:
            check_value(TensorType("bool", (ttype.length,)), np.zeros(len(value), bool),
                        bindings, origins, f"{where} (its length)")
        for i, item in enumerate(value):
            t = ttype.at(i) or TensorType(ttype.dtype, (None,) * np.ndim(item))
            check_value(t, item, bindings, origins, f"{where} element {i}")
        return
    if not isinstance(ttype, TensorType):  # another type checks its own values
        return
    if not isinstance(value, np.ndarray):
        raise OutputTypeError(f"{where} is a {type(value).__name__}, expected an ndarray "
                              f"of type {ttype}")
    if value.dtype != ttype.numpy_dtype:
        raise OutputTypeError(f"{where} has dtype {value.dtype}, its type is {ttype}")
    try:
        ttype._check_shape(value)
        bind_dims(ttype, value.shape, bindings, origins, where)
        solve_dims([(ttype, value.shape, where)], bindings, origins)
        check_dim_expressions(ttype, value.shape, bindings, where)
    except (TypeError, ShapeBindingError) as exc:
        raise OutputTypeError(f"{where} does not match its type {ttype}: {exc}") from None


def checked_perform(node: Apply, inputs: list, bindings: dict[str, int],
                    origins: dict[str, str]) -> list:
    """One node under ``check=True``: its Op's ``check_inputs``, the conditions it was
    typed under (:func:`check_conditions`), then its outputs, each checked against its
    type. A :class:`~kantensor.ops.op.SignatureOp`'s own results are
    checked before they are cast to the output dtypes: the dtype NumPy computes must be
    the inferred one (or, for a low-precision integer, the NumPy integer it is computed
    in; for an Op of compute mode "wider", a dtype of the same category that holds the
    inferred one), so that a wrong dtype rule is an error rather than a silent cast."""
    op = node.op
    op.check_inputs(node, inputs)
    check_conditions(node, bindings, origins)
    if isinstance(op, SignatureOp):
        values = []
        for j, (v, value) in enumerate(zip(node.outputs, op.results(node, inputs),
                                           strict=True)):
            check_own_dtype(v.type, value, f"output {j} of {op}", op.compute == "wider")
            values.append(cast_array(value, v.type.dtype))
    else:
        cells: list[list] = [[None] for _ in node.outputs]
        op.perform(node, inputs, cells)
        values = [cell[0] for cell in cells]
    for j, (v, value) in enumerate(zip(node.outputs, values, strict=True)):
        check_value(v.type, value, bindings, origins, f"output {j} of {op}")
    return values


def check_own_dtype(ttype: TensorType, value: Any, where: str, wider: bool = False) -> None:
    """Raise OutputTypeError unless an implementation's own result ``value`` has the
    dtype of ``ttype`` (with ``wider``: or a dtype of its category that holds it; see
    :func:`checked_perform`)."""
    if not isinstance(ttype, TensorType):
        return
    own = np.asarray(value).dtype
    if own == ttype.numpy_dtype or own.name == COMPUTED_AS.get(ttype.dtype, ttype.dtype):
        return
    if wider and own.name in COMPUTED_AS and category(own.name) is category(ttype.dtype) \
            and is_lossless_cast(ttype.dtype, own.name):
        return
    raise OutputTypeError(f"{where}: its implementation computes {own}, but its type is "
                          f"{ttype} (the signature's dtype rule and the computation "
                          "disagree; the value would be cast)")
