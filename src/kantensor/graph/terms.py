"""Graphs as kanren terms: cons/etuples registrations for Variables.

An output ``v`` of a single-output Apply is the term ``(op, *inputs)``: ``car(v)`` is
the Op, ``cdr(v)`` the inputs, so ``etuplize(v)`` is ``etuple(op, *inputs)`` (the Op
first, as in PyTensor's kanren bridge) whose ``evaled_obj`` is ``v`` itself, and
evaluating such an etuple calls the Op, i.e. ``make_node``: a rebuilt graph is
re-typed. A graph input, a constant, or an output of a multi-output node is an atom.
kanren goals can then match and rewrite graphs: ``eq(v, etuple(op, x, y))``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from cons.core import ConsError, _car, _cdr
from etuples import etuplize
from etuples.core import ExpressionTuple
from unification.core import _unify

from .basic import Variable

__all__ = ["etuplize"]


def _single_owner(v: Variable) -> Any:
    node = v.owner
    if node is None or len(node.outputs) != 1:
        raise ConsError(f"{v} is not the output of a single-output Apply")
    return node


def _car_variable(v: Variable) -> Any:
    return _single_owner(v).op


def _cdr_variable(v: Variable) -> list[Any]:
    return list(_single_owner(v).inputs)


_car.add((Variable,), _car_variable)
_cdr.add((Variable,), _cdr_variable)


def _unify_variable_etuple(u: Any, v: Any, s: Mapping) -> Any:
    """A Variable unifies with an etuple (or tuple) pattern through its own etuple."""
    var_side, other = (u, v) if isinstance(u, Variable) else (v, u)
    try:
        term = etuplize(var_side, shallow=True)
    except TypeError:  # an atom: no structure to match
        yield False
        return
    yield _unify(term, other, s)


for _pattern in (ExpressionTuple, tuple):
    _unify.add((Variable, _pattern, Mapping), _unify_variable_etuple)
    _unify.add((_pattern, Variable, Mapping), _unify_variable_etuple)
