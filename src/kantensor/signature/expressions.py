"""The values of a signature's dim expressions in a direct build
(:mod:`.direct`): over the sizes the names have there (ints or named sizes), kept per
build and across builds."""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import Any

from ..logic.dims import COMPARE
from ..syntax import ast as A
from ..syntax.vocabulary import MIN
from ..types.dim import Dim
from ..types.dimminmax import DIM_CALLS
from ..types.divisors import size_divisors
from ..types.facts import Facts
from ..types.factsatoms import nonzero
from ..types.poly import MAX_TERMS
from ..types.symbols import free_symbols
from .broadcasts import Fails

__all__ = ["Open", "constant_holds", "decided", "evaluated", "named", "output_size", "symbolic"]


class Open(Exception):
    """Not decided without search: the relation answers."""


def named(x: Any) -> bool:
    """A size over the user's named sizes only (no unknown of another solve)."""
    if not isinstance(x, Dim):
        return False
    for u in free_symbols(x):
        if not isinstance(u, str):
            return False
    return True


def constant_holds(clause: A.Compare) -> bool:
    """Whether a comparison of constant expressions holds."""
    try:
        diff = evaluated(clause.left, {}, {}) - evaluated(clause.right, {}, {})
    except (ZeroDivisionError, KeyError, Open):
        return False
    return type(diff) is int and COMPARE[clause.op](diff, 0)


def ceiling(node: Any) -> int | None:
    """An int that a dim expression never exceeds, read from its text alone: a ``min``
    over names and ints with an int among its arguments (a pool's ``w >= min(n, 1)``:
    where a fact states ``w >= 1`` it holds, with no min evaluated, no sum made and no
    prover asked; defined at every size, as no argument divides). None: no such min."""
    if type(node) is not A.Call or node.fn != MIN.text:
        return None
    if not all(type(a) in (A.DimVar, A.FixedDim) for a in node.args):
        return None
    return min((a.size for a in node.args if type(a) is A.FixedDim), default=None)


#: Dim expressions' values across builds, by the node and its names' values (the node
#: kept beside, so its id names it while the entry lives): a model's nodes of one kind
#: over the same sizes (a fire module's two 1x1 convs, a template's build) evaluate one
#: expression once. Emptied when full.
_VALUES: dict[tuple, tuple] = {}
_NAMES: dict[int, tuple] = {}  # a node's names, in order (by id, the node kept beside)
MAX_VALUES = 4096


def evaluated(node: Any, dims: dict, values: dict[int, Any]) -> Any:
    """A dim expression's value over the sizes the names have (ints or named sizes);
    Open where a name is unknown (the relation keeps what it needs of it). ``values``
    keeps it by the node's identity for one build: a template's output size and its
    clause ``size >= 1`` are one node, and a ``min`` over named sizes is ordered by the
    prover, which costs; :data:`_VALUES` keeps it across builds."""
    kind = type(node)
    if kind is A.FixedDim:
        return node.size
    if kind is A.DimVar:  # (KeyError: a name unbound)
        found = dims[node.name]
        if found is None:
            raise Open
        return found
    found = values.get(id(node))
    if found is not None:
        return found
    names = _NAMES.get(id(node))
    if names is None or names[0] is not node:
        if len(_NAMES) >= MAX_VALUES:
            _NAMES.clear()
        names = _NAMES[id(node)] = (node, tuple(A.expr_names(node)))
    key = (id(node), *[dims[name] for name in names[1]])  # (KeyError: a name unbound)
    for x in key:
        if x is None:
            raise Open
    kept = _VALUES.get(key)
    if kept is not None and kept[0] is node:
        found = kept[1]
    else:
        found = _compiled(node)(dims)
        if len(_VALUES) >= MAX_VALUES:
            _VALUES.clear()
        _VALUES[key] = (node, found)
    values[id(node)] = found
    return found


#: Facts.decide's answers to ``d op 0`` by the facts and the question, across builds:
#: the nodes of one stage of a model share their facts (the same object) and ask the same
#: questions of the sizes they pass on (each conv of a fire module asks its output size
#: ``>= 0``); emptied when full.
_NOT_ASKED = object()
_AT_LEAST = frozenset((">=", ">"))
_DECIDED: dict[tuple, bool | None] = {}
MAX_DECIDED = 4096


def decided(facts: Facts, d: Any, op: str) -> bool | None:
    """``facts.decide((d, op, 0))``, remembered in :data:`_DECIDED` for ``op`` one of ``>=
    >`` (asked alike wherever they are; an equality's answer may depend on where it is
    asked: :meth:`Facts.decide` forms its sides only outside a simplification)."""
    if op not in _AT_LEAST:
        return facts.decide((d, op, 0))
    key = (facts, d, op)
    found = _DECIDED.get(key, _NOT_ASKED)
    if found is _NOT_ASKED:
        found = facts.decide((d, op, 0))
        if len(_DECIDED) >= MAX_DECIDED:
            _DECIDED.clear()
        _DECIDED[key] = found
    return found


def divides_by_size(node: Any) -> bool:
    """Whether an output's expression divides by anything but an int (``n//m``, ``n %
    (m + 1)``): its size is one only where that divisor is not 0 (the direct path asks
    the facts then; a pool's ``(h - 3)//2 + 1`` never needs to)."""
    return bool(A.divisors(node))


def nonzero_divisors(facts: Facts, x: Dim) -> bool:
    """Whether the facts show every size ``x`` divides by nonzero (:func:`nonzero`)."""
    return all(facts.decide(nonzero(d)) is True for d in size_divisors(x))


def divisors_nonzero(facts: Facts, nodes: list, dims: dict, values: dict) -> bool:
    """Whether the facts show each divisor of ``nodes`` that is no int
    (:func:`~kantensor.syntax.ast.divisors`) nonzero over the names' sizes: the value of
    an expression may have dropped one (``(n//m) % 1`` is 0, ``n//m - n//m`` too), where
    the expression is still undefined at ``m == 0``. False: not shown (the relation
    states the rest)."""
    for node in nodes:
        for d in A.divisors(node):
            try:
                value = evaluated(d, dims, values)
            except (ZeroDivisionError, KeyError, Open):
                return False
            if value == 0 or type(value) is not int and facts.decide(nonzero(value)) is not True:
                return False
    return True


def output_size(node: Any, dims: dict, values: dict, facts: Facts) -> Any:
    """An output's dim expression, as its equation and the forward answer give it: an
    int (none negative), or over named sizes the value the equation defines, simplified
    under the facts."""
    try:
        size = evaluated(node, dims, values)
    except (ZeroDivisionError, KeyError):
        raise Open from None
    if type(size) is int:
        if size < 0:
            raise Fails
        return size
    if not named(size):
        raise Open
    # the equation out == size defines out as size itself: solve_for(out - size)
    # gives size back (a coefficient 1, no other term holds out; Dims are canonical)
    return facts.simplify(size)


def symbolic(node: Any) -> bool:
    """Whether a dim expression is within the limits of a size over named sizes (the
    relation may evaluate it over unknowns before it knows their values, and refuse
    one that may expand past them: ``(n+m+k+1)**40``): evaluated over its names as
    sizes, compiled (the function its builds then use). A fixed size is; a name is if it
    may name a size (most of the expressions asked about: asked directly)."""
    if type(node) is A.FixedDim:
        return True
    if type(node) is A.DimVar:
        return _may_name(node.name)
    names = _NAMES.get(id(node))
    names = A.expr_names(node) if names is None or names[0] is not node else names[1]
    if not all(map(_may_name, names)):
        return False
    if _within_limits(node, 0):
        return True
    try:
        _compiled(node)({name: Dim(name) for name in names})
    except (ValueError, OverflowError, ZeroDivisionError):
        return False
    return True


@lru_cache(maxsize=4096)
def _may_name(name: str) -> bool:
    """Whether ``name`` may name a size (a Dim of that name can be made): asked once a
    name, where every expression of every plan asked it again."""
    try:
        Dim(name)
    except ValueError:
        return False
    return True


def _within_limits(node: Any, depth: int) -> bool:
    """Whether ``node`` is, by its form alone, within the limits over any named sizes:
    sums, int multiples, floors and remainders by a nonzero int, min and max of such,
    and products of such whose terms cannot pass :data:`MAX_TERMS` (a product of sizes
    is refused only past it: :func:`~kantensor.types.poly.check_product`), no deeper
    than :data:`MAX_DEPTH`. False: not shown so (the caller evaluates it). Evaluating a
    window's size over named sizes costs about 20 us a floor, a reshape's product of
    sizes about 70 us; a model's first build of each signature asked it of every one."""
    terms = _terms(node, depth)
    return terms is not None and terms <= MAX_TERMS


def _terms(node: Any, depth: int) -> int | None:
    """An upper bound on the terms of ``node``'s value over named sizes, where its form
    shows it within the limits (see :func:`_within_limits`); None otherwise. A name or
    a fixed size is one term; a sum or difference at most both sides'; an int multiple
    its other side's; a product of sizes at most the product of both sides' (refused
    past :data:`MAX_TERMS`); a min or max, one of its arguments or a term of its own,
    at most all of theirs; a floor or remainder by an int, its quotient's terms and a
    floor's (at most twice its argument's, and two more)."""
    kind = type(node)
    if kind is A.FixedDim or kind is A.DimVar:
        return 1
    if depth > MAX_DEPTH:
        return None
    if kind is A.Call:
        total = 0
        for a in node.args:
            found = _terms(a, depth + 1)
            if found is None:
                return None
            total += found
        return total
    if kind is not A.BinOp:
        return None
    op = node.op
    if op == "+" or op == "-":
        left = _terms(node.left, depth + 1)
        right = None if left is None else _terms(node.right, depth + 1)
        return None if right is None else left + right
    if op == "*":
        left_int, right_int = _constant(node.left, depth), _constant(node.right, depth)
        if left_int is not None and right_int is not None:
            return 1
        if left_int is not None or right_int is not None:
            return _terms(node.right if right_int is None else node.left, depth + 1)
        left = _terms(node.left, depth + 1)
        right = None if left is None else _terms(node.right, depth + 1)
        return None if right is None or left * right > MAX_TERMS else left * right
    if op == "//" or op == "%":
        if not _constant(node.right, depth):
            return None
        inner = _terms(node.left, depth + 1)
        return None if inner is None else 2 * inner + 2
    return None  # ** (a power's expansion is bounded where it is evaluated)


def _constant(node: Any, depth: int) -> int | None:
    """The int ``node`` is when it names no size (None otherwise, or where evaluating it
    raises)."""
    found = _compile(node, depth + 1)
    return None if callable(found) else found


#: The deepest expression :func:`_compile` takes apart (deeper: A.evaluate's loop).
MAX_DEPTH = 32
_FNS: dict[int, tuple] = {}  # a node's compiled function (by id, the node kept beside)


def _compiled(node: Any) -> Callable[[dict], Any]:
    found = _FNS.get(id(node))
    if found is None or found[0] is not node:
        if len(_FNS) >= MAX_VALUES:
            _FNS.clear()
        fn = _compile(node, 0)
        found = _FNS[id(node)] = (node, fn if callable(fn) else lambda _, c=fn: c)
    return found[1]


def _compile(node: Any, depth: int) -> Any:
    """``node`` as an int (no names) or a function of the names' sizes that computes
    what :func:`A.evaluate` computes: the same operators on the same sizes (so the same
    canonical sizes and the same errors), with a sum of int multiples taken as one
    linear form (``a2+1-3`` adds -2 once; ``(w2-1)*1+1`` is ``w2``). ``**`` and what
    is deeper than :data:`MAX_DEPTH` are left to A.evaluate."""
    kind = type(node)
    if kind is A.FixedDim:
        return node.size
    if kind is A.DimVar:
        name = node.name
        return lambda env: env[name]
    if depth > MAX_DEPTH or kind is A.BinOp and node.op == "**" or kind not in (
            A.BinOp, A.Call):
        return lambda env: A.evaluate(node, env.__getitem__, calls=DIM_CALLS)
    if kind is A.Call:
        fn, args = DIM_CALLS[node.fn], [_function(a, depth + 1) for a in node.args]
        return lambda env: fn(*[f(env) for f in args])
    if node.op in ("+", "-", "*"):
        terms: list = []
        const = _linear(node, 1, terms, depth)
        if not terms:
            return const
        if len(terms) == 1 and terms[0][0] == 1:
            (_, f), = terms
            return (lambda env: f(env) + const) if const else f
        return lambda env: _sum(env, terms, const)
    left, right = _compile(node.left, depth + 1), _compile(node.right, depth + 1)
    op = node.op
    if not callable(left) and not callable(right):
        try:
            return left // right if op == "//" else left % right
        except ZeroDivisionError:  # raised where it is evaluated, as A.evaluate does
            pass
    if op == "//" and not callable(right) and right == 1:
        return left  # x//1 is x (an int, or a size: the same one)
    f, g = _function(left, depth), _function(right, depth)
    if not callable(right):
        return (lambda env: f(env) // right) if op == "//" else (lambda env: f(env) % right)
    return (lambda env: f(env) // g(env)) if op == "//" else (lambda env: f(env) % g(env))


def _function(x: Any, depth: int) -> Callable[[dict], Any]:
    """A compiled node (or a node, compiled now) as a function of the sizes."""
    if not callable(x) and not isinstance(x, int):
        x = _compile(x, depth + 1)
    return x if callable(x) else lambda _, c=x: c


def _linear(node: Any, scale: int, terms: list, depth: int) -> int:
    """Add ``scale*node``'s terms to ``terms`` (``(coefficient, function)``; one of
    coefficient 0 is kept, so an error in it is raised as A.evaluate raises it) and
    return its constant."""
    kind = type(node)
    if kind is A.FixedDim:
        return scale * node.size
    if kind is A.BinOp and node.op in ("+", "-") and depth <= MAX_DEPTH:
        return _linear(node.left, scale, terms, depth + 1) + _linear(
            node.right, scale if node.op == "+" else -scale, terms, depth + 1)
    if kind is A.BinOp and node.op == "//" and depth <= MAX_DEPTH and \
            _constant(node.right, depth) == 1:  # a stride of 1: x//1 is x
        return _linear(node.left, scale, terms, depth + 1)
    if kind is A.BinOp and node.op == "*" and depth <= MAX_DEPTH:
        left, right = _compile(node.left, depth + 1), _compile(node.right, depth + 1)
        if not callable(left):
            left, right = right, left
        if not callable(right):  # a multiple: its factor joins the scale
            if not callable(left):
                return scale * left * right
            terms.append((scale * right, left))
            return 0
        terms.append((scale, lambda env: left(env) * right(env)))
        return 0
    f = _compile(node, depth + 1)
    if not callable(f):
        return scale * f
    terms.append((scale, f))
    return 0


def _sum(env: dict, terms: list, const: int) -> Any:
    """``const`` plus each coefficient times its function's size: the ints summed as
    ints, then the sizes."""
    total: Any = const
    sizes: Any = None
    for k, f in terms:
        v = f(env)
        if type(v) is int:
            total += k * v
        else:
            v = v if k == 1 else v * k
            sizes = v if sizes is None else sizes + v
    return total if sizes is None else sizes + total if total else sizes
