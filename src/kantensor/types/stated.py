"""Questions about sizes answered without the prover, as it answers them: under no
facts, those over one or two sizes (:func:`unfacted`); under facts, what one fact states
of its own terms (the least value it gives the non-constant part of its size: ``out - 1
>= 0`` says ``out >= 1``, so ``out >= 0``). Used by
:meth:`kantensor.types.facts.Facts.decide` before it asks :mod:`.prove`, which proves
the same but first builds its box of every fact."""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache
from typing import Any, Final

from .poly import Opaque

__all__ = ["GENERAL", "implied", "lower_bounds", "rising", "rising_facts", "same_term",
           "settled", "unfacted"]

#: What :func:`unfacted` (and ``disjunctions.plain_cases``) give for what is not of their form.
GENERAL: Final = object()


def split_constant(d: Any) -> tuple[tuple, int]:
    """A Dim ``d`` as ``(its terms but the constant, the constant)``."""
    terms = d._terms
    if terms and not terms[-1][0]:  # the constant term is last (no monomial)
        return terms[:-1], terms[-1][1]
    return terms, 0


def lower_bounds(atoms: Iterable[Any]) -> dict[tuple, int]:
    """For the conditions ``atoms``, by the non-constant terms ``v`` of each one's size
    ``v + c`` (its key ``v + c op 0``, op ``>=``, ``>`` or ``==``): the greatest least
    value of ``v`` one of them states (``-c``, or ``1 - c`` for ``>``; integers)."""
    lows: dict[tuple, int] = {}
    for condition in atoms:
        e, op = condition.key
        if op == "!=" or isinstance(e, int):
            continue
        v, const = split_constant(e)
        low = -const + (op == ">")
        if v not in lows or lows[v] < low:
            lows[v] = low
    return lows


def implied(lows: dict[tuple, int], d: Any, op: str, shift: int = 0) -> bool:
    """Whether ``d + shift op 0`` (op ``>=`` or ``>``) follows from one bound of
    ``lows``: ``d`` is ``v + k`` and ``v >= low`` with ``low + k + shift >= 0`` (``>= 1``
    for ``>``)."""
    v, k = split_constant(d)
    low = lows.get(v)
    return low is not None and low + k + shift >= (op == ">")


def same_term(x: Any, y: Any) -> bool:
    """Whether two sizes (ints or Dims) are the same by structure, not by any traced
    program's answer (a Dim's ``==`` may consult one: types.dimorder)."""
    return x is y or (type(x) is type(y) is int and x == y) or (
        type(x) is type(y) and hasattr(x, "_terms") and x._terms == y._terms)


def unfacted(d: Any, op: str) -> bool | None | object:
    """``facts._decide`` of ``d op 0`` under no facts where ``d`` is ``±u + c`` or ``u - v
    + c`` (``u``, ``v`` named sizes or unknowns, every size ``>= 0``): ``u - v + c`` may
    be anything; ``±u + c`` is decided by the interval ``u`` is in (the prover's answer:
    it is exact over one size, and sound). And True for ``d >= 0`` (``> 0``) where ``d``
    is a sum of positive multiples of sizes plus ``c >= 0`` (``>= 1``): at least ``c``
    at every size (a channel product's ``7*batch >= 0``, which the prover proves from
    its box of every fact; a Concat's ``n0 + ... + n89 >= 0``, past the prover's
    :data:`~.prove.MAX_QUESTION_TERMS`). GENERAL for any other ``d``."""
    c, units, multiples = 0, [], False
    for mono, k in d._terms:
        if not mono:
            c = k
        elif len(mono) != 1 or mono[0][1] != 1 or isinstance(mono[0][0], Opaque):
            return GENERAL
        elif k == 1 or k == -1:
            units.append(k)
        elif k > 1:
            multiples = True
        else:
            return GENERAL
    if op in (">=", ">") and -1 not in units and c >= (op == ">"):
        return True  # (a sum of sizes, each >= 0: a Concat of 90 inputs' n0 + ... + n89)
    if multiples:  # (k*u with k > 1: the units' rules below do not apply)
        return GENERAL
    if len(units) == 2:
        return None if units[0] != units[1] else GENERAL
    if len(units) != 1:
        return GENERAL
    if op == "!=":
        found = unfacted(d, "==")
        return None if found is None else not found
    if units[0] == 1:  # u + c op 0, u >= 0
        if op == "==":
            return False if c > 0 else None
        return True if c >= (op == ">") else None
    # c - u op 0: u == c, u <= c, u < c
    if op == "==":
        return False if c < 0 else None
    return False if c < (op == ">") else None


def rising(x: Any) -> bool:
    """Whether a size grows past every bound as its sizes do, never falling as one
    grows: an int plus positive multiples of sizes and of floors by ints of such sizes
    (a stack of windows' output, ``(h + 3)//8 - 1``). Under facts that all say such a
    size is at least an int (:func:`rising_facts`) it has no upper bound: the facts hold
    at every point past some point, where it is as large as one likes."""
    return not isinstance(x, int) and _rising(x._terms)


@lru_cache(maxsize=1 << 14)
def _rising(terms: tuple) -> bool:
    grows = False
    for mono, c in terms:
        if not mono:
            continue
        if c <= 0 or len(mono) != 1 or mono[0][1] != 1:
            return False
        atom = mono[0][0]
        if isinstance(atom, Opaque) and not (
                atom.op == "//" and type(atom.args[1]) is int and atom.args[1] > 0
                and rising(atom.args[0])):
            return False
        grows = True
    return grows


def settled(x: Any) -> bool:
    """Whether ``x`` is :func:`rising` with each floor over a polynomial in sizes (no
    atom inside): what :meth:`~kantensor.types.facts.Facts.simplify` leaves as it is
    under facts that are all rising (it has no min or max to order, no fact equates
    an atom with an int, and no floor's argument has an upper bound)."""
    return rising(x) and _plain_floors(x._terms)


@lru_cache(maxsize=1 << 14)
def _plain_floors(terms: tuple) -> bool:
    return all(not isinstance(atom, Opaque) or not any(
        isinstance(a, Opaque) for m, _ in atom.args[0]._terms for a, _ in m)
        for mono, _ in terms for atom, _ in mono)


def rising_facts(atoms: Iterable[Any]) -> bool:
    """Whether every condition of ``atoms`` (but ``!=``, which the prover does not use)
    says a :func:`rising` size is ``>=`` or ``>`` an int (a window's kept ``out >= 1``):
    they hold together wherever the sizes are large enough."""
    return all(c.op == "!=" or c.key[1] in (">=", ">") and rising(c.key[0]) for c in atoms)
