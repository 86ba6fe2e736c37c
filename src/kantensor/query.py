"""Relational queries: kanren's ``run`` over a signature's relation and ``labelo``.

Any part of a type can be a logic variable (:func:`var`): a whole type, a dtype, one
size, or a whole shape. :func:`query` runs the Op's relation (the same one
``make_node`` runs forwards) together with :func:`~kantensor.logic.store.labelo`, and
returns every answer lazily as a :class:`Solutions` object.
"""

from __future__ import annotations

import hashlib
import itertools
import weakref
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from kanren import eq, lall
from kanren.constraints import ConstrainedState
from unification import isvar, var

from .logic.answers import REFUTED, symbolic_values, where_text
from .logic.store import TypeStore, labelo
from .logic.terms import ASSUMED, TensorTerm, prefix_of, term_vars, walk
from .ops import op_named
from .signature.arity import arities, check_arity
from .signature.display import solutions_html, solutions_text
from .signature.signature import Signature
from .signature.solve import DEFAULT_MAX_RANK, Relation
from .signature.solve import relation as signature_relation
from .types.conditions import Clause, Condition
from .types.dim import Dim
from .types.dtypes import normalize_dtype
from .types.symbols import free_symbols
from .types.type import TensorType

__all__ = ["Solutions", "TooManyAnswers", "pattern", "query", "relation", "resolve", "var"]



def resolve(op_or_signature: Any) -> Any:
    """What :func:`query` and :func:`relation` run, by one rule: an Op or a Signature as
    it is; a string that names a catalogue Op is that Op (``"add"``); any other string
    is signature text (``"+(m,n),(n,p)->(m,p)"``). A bare name that is no Op is an error
    that suggests the nearest Op name, not a signature that fails to parse."""
    if not isinstance(op_or_signature, str):
        return op_or_signature
    return op_named(op_or_signature.strip()) or Signature.parse(op_or_signature)


def relation(op_or_signature: Any, max_rank: int = DEFAULT_MAX_RANK) -> Relation:
    """The relation of an Op, a Signature, an Op's name or signature text (read as
    :func:`resolve` says), as a kanren goal maker: ``relation(op)(*inputs, *outputs)``
    is a goal. ``max_rank`` bounds the number of axes tried where a rank is unknown."""
    return signature_relation(resolve(op_or_signature), max_rank)

#: The anonymous variables :func:`pattern` made for what the user left open: they are
#: the pattern's, not the user's, so answers never show them (identity by object).
_ANONYMOUS: weakref.WeakSet = weakref.WeakSet()


def _anonymous() -> Any:
    v = var()
    _ANONYMOUS.add(v)
    return v


def pattern(dtype: Any = None, shape: Any = None, wrapped: Any = False) -> TensorTerm:
    """A tensor type whose dtype, shape or sizes may be logic variables.

    ``pattern(var("d"), (var("n"), 3))``; ``None`` means "anything" (a fresh anonymous
    variable, never shown in answers). ``wrapped`` may be a logic variable too: a
    wrapped operand is a Python number used in an operation (§3).
    """
    if dtype is None:
        dtype = _anonymous()
    elif not isvar(dtype):
        dtype = normalize_dtype(dtype)
    if shape is None:
        shape = _anonymous()
    elif not isvar(shape):
        shape = tuple(_anonymous() if d is None else _size(d) for d in shape)
    if wrapped is None:
        wrapped = _anonymous()
    elif not isvar(wrapped) and not isinstance(wrapped, bool):
        raise TypeError(f"wrapped must be True, False, None or a logic variable, got "
                        f"{wrapped!r}")
    return TensorTerm(dtype, shape, wrapped)


def _size(d: Any) -> Any:
    if isvar(d):
        return d
    if isinstance(d, bool) or not isinstance(d, int):
        raise TypeError(f"a size in a pattern must be an int, None or a logic variable, "
                        f"got {d!r}")
    if d < 0:
        raise ValueError(f"a size must be >= 0, got {d}")
    return d


#: Answers a :class:`Solutions` keeps, for indexing and display; past them answers are
#: streamed and forgotten (iterating again past them runs the search again).
KEEP = 1_000
#: Most answers ``len()`` counts before it raises :class:`TooManyAnswers`.
MAX_LEN = 10_000


class TooManyAnswers(OverflowError):
    """``len()`` of a query with more than :data:`MAX_LEN` answers (within its limit)."""


class Solutions:
    """The answers of a query, computed lazily: iterate, index, or take ``len``.

    Answers are read once, in order. The first :data:`KEEP` are kept (indexing and
    displays read them again for free); later ones are forgotten once handed out, so
    iterating a huge query takes constant memory besides a 16-byte digest per answer,
    which tells answers apart (no answer is given twice). An iteration that goes back
    over forgotten answers runs the search again. ``len`` reads the answers (up to
    ``limit``) and raises :class:`TooManyAnswers` past :data:`MAX_LEN`: count a huge
    query with ``sum(1 for _ in answers)``, or give ``limit``.
    """

    def __init__(self, search: Callable[[Callable, set], Iterator[dict]], names: list[str],
                 limit: int | None, max_rank: int = DEFAULT_MAX_RANK,
                 complete: Callable[[ConstrainedState], Iterator[dict]] | None = None):
        """``search(beyond, digests)`` gives every answer (the limit aside) once, adding
        each one's :func:`_digest` to ``digests`` and passing the states past the rank
        bound to ``beyond``; ``complete(S)`` gives the answers of such a state."""
        self._search = search
        self._keys: set[bytes] = set()  # the digest of every answer read
        self._stream = search(self._record, self._keys)
        self._complete = complete
        self._kept: list[dict] = []  # the first KEEP answers
        self._count = 0  # answers read (within the limit)
        self._exhausted = False
        self._beyond: list[Iterator[ConstrainedState]] = []
        self._pending: Iterator[dict] | None = None  # answers past the bound, being read
        self._candidates: set[bytes] = set()  # their digests, while not known to be new
        self._cut = False
        self.names = names
        self.limit = limit
        self.max_rank = max_rank

    # -- reading ---------------------------------------------------------------------
    def _full(self) -> bool:
        return self.limit is not None and self._count >= self.limit

    def _read(self) -> dict | None:
        """Read one more answer (kept while among the first KEEP); None when none is
        left or the limit is reached."""
        if self._exhausted or self._full():
            return None
        answer = next(self._stream, None)
        if answer is None:
            self._exhausted = True
            return None
        self._count += 1
        if len(self._kept) < KEEP:
            self._kept.append(answer)
        return answer

    @property
    def read_all(self) -> bool:
        """Have all the answers (up to ``limit``) been read?"""
        return self._exhausted or self._full()

    def __iter__(self) -> Iterator[dict]:
        i = 0
        while True:
            if i < len(self._kept):
                yield self._kept[i]
            elif i == self._count:  # at the front: read on
                answer = self._read()
                if answer is None:
                    return
                yield answer
            else:  # behind the front, past the kept answers: they are forgotten
                yield from self._again(i)
                return
            i += 1

    def _again(self, start: int) -> Iterator[dict]:
        """The answers from number ``start`` on, from a new run of the search."""
        stream = self._search(lambda states: None, set())
        stop = self.limit
        yield from itertools.islice(stream, start, stop)

    def __len__(self) -> int:
        while not self.read_all:
            if self._count >= MAX_LEN:
                raise TooManyAnswers(
                    f"more than {MAX_LEN} answers: len() counts at most {MAX_LEN} "
                    f"(give limit=..., or count with sum(1 for _ in answers))")
            self._read()
        return self._count

    def __getitem__(self, i: int) -> dict:
        if i < 0:
            i += len(self)
        if i >= 0:
            for answer in itertools.islice(self, i, None):
                return answer
        raise IndexError(f"solution {i} out of range")

    def __bool__(self) -> bool:
        return next(iter(self), None) is not None

    # -- the rank bound ------------------------------------------------------------------
    def _record(self, states: Iterator[ConstrainedState]) -> None:
        """labelo's ``beyond`` callback: states past the rank bound, checked lazily."""
        if not self._cut:
            self._beyond.append(states)
            if len(self._beyond) > 64:  # a long search: look at them as it goes (memory)
                self._rank_cut(budget=1000)

    def _rank_cut(self, budget: int | None = None) -> bool:
        """Did the bound cut an answer? Known as soon as an answer past the bound is new
        and shows more than ``max_rank`` axes, else once every answer is read (an
        answer past the bound is then cut iff the query did not list it). Looks at no
        more than ``budget`` answers past the bound (for displays)."""
        while not self._cut:
            if self._pending is None:
                if not self._beyond or self._complete is None:
                    break
                states = self._beyond.pop(0)
                self._pending = (a for S in states for a in self._complete(S))
            for answer in self._pending:
                key = _digest(answer)
                if key not in self._keys:
                    if any(_rank(v) > self.max_rank for v in answer.values()):
                        self._cut, self._pending = True, None
                        self._beyond.clear()
                        return True
                    self._candidates.add(key)
                if budget is not None:
                    budget -= 1
                    if budget <= 0:
                        return False
            self._pending = None
        if not self._cut and self._exhausted:
            self._cut = bool(self._candidates - self._keys)
        return self._cut

    @property
    def truncated_by_rank(self) -> bool:
        """True when ``max_rank`` cut answers: some type fits only with more than
        ``max_rank`` axes where the query leaves a rank open (pass a larger
        ``max_rank`` to list them). Reads answers until it knows: past the first few
        when the bound cuts, every answer (beyond ``limit`` too) when it does not."""
        while not self._rank_cut():
            if not self._read():
                return self._rank_cut()
        return True

    def _bound_note(self) -> str:
        """The line naming the bound, when it is known to have cut (read so far)."""
        if not self._rank_cut(budget=1000):
            return ""
        return (f"(the rank bound cut answers: an unknown rank takes at most "
                f"max_rank={self.max_rank} axes; max_rank={self.max_rank + 1} or more lists "
                f"them: query(..., max_rank=...), kantensor query --max-rank ...)")

    # -- display --------------------------------------------------------------------------
    def __repr__(self) -> str:
        return self.text()

    def text(self, show: int | None = None, start: int = 0) -> str:
        """Answers ``start`` to ``start + show`` (20 if None) one a line, and when there
        are others, how many it shows of how many (``... showing 20 of 63 solutions``)."""
        return solutions_text(self, _row, show, self._bound_note, start)

    def html(self, show: int | None = None, start: int = 0) -> str:
        """:meth:`text` as an HTML table (50 rows if ``show`` is None)."""
        return solutions_html(self.names, self, self._bound_note, show, start)

    def _repr_html_(self) -> str:
        return self.html()


def _digest(answer: Answer) -> bytes:
    """What tells two answers apart, in 16 bytes: a digest of their text."""
    text = repr((sorted(answer.items()), answer.where))
    return hashlib.blake2b(text.encode(), digest_size=16).digest()


def _row(answer: Answer) -> str:
    """One answer as text: ``X = float32[n], where m == n//2``. A size left symbolic
    under its own name (``m = m``) says nothing and is left out, unless it is all."""
    shown = {k: v for k, v in answer.items()
             if not (isinstance(v, Dim) and v.name == k)} or answer
    if not shown:  # no variable: the types given hold, where the constraints do
        return f"holds where {where_text(answer.where)}" if answer.where else "holds"
    return ", ".join(f"{k} = {_fmt(v)}" for k, v in shown.items()) + _where(answer)


def _where(answer: Answer) -> str:
    """``", where m > 2 and ..."``: an answer's constraints, or nothing."""
    return f", where {where_text(answer.where)}" if answer.where else ""


def _rank(value: Any) -> int:
    """The most axes a value of an answer shows (0 for a dtype or a size)."""
    if isinstance(value, TensorType):
        return value.ndim
    if isinstance(value, TensorTerm):
        value = value.shape
    return len(value) if isinstance(value, tuple) else 0


def _fmt(value: Any) -> str:
    if value is None:
        return "?"
    if isinstance(value, tuple):
        return "(" + ", ".join(map(_fmt, value)) + ("," if len(value) == 1 else "") + ")"
    return str(value)


# -- answers --------------------------------------------------------------------------
def _user_vars(terms: Sequence[Any]) -> list[Any]:
    """The logic variables the user wrote, in order of appearance."""
    return [v for v in term_vars(list(terms), {}) if v not in _ANONYMOUS]


def _names(user: Sequence[Any]) -> dict[Any, str]:
    """``{variable: name}``: how answers name the user's logic variables (their tokens,
    the names they were made with)."""
    return {v: str(v.token) for v in user}


class _Namer:
    """Fresh Dim names for sizes an answer leaves unknown (unique in the answer): a size
    the user named keeps that name, any other is ``n``, ``n1``, ..."""

    def __init__(self, taken: set[str], names: dict[Any, str]):
        self.taken = taken
        self.names = names

    def __call__(self, v: Any) -> Dim:
        base = self.names.get(v) or prefix_of(v)
        base = base if base.isidentifier() else "n"
        name, k = base, 1
        while name in self.taken:
            name, k = f"{base}{k}", k + 1
        self.taken.add(name)
        return Dim(name)


def _answer(user: list[Any], roles: set, S: ConstrainedState,
            names: dict[Any, str]) -> Answer | None:
    """The answer in state ``S``: each user variable's value under its name in ``names``
    (``roles``: the variables that stand for one size); None where the constraints left
    hold at no named sizes."""
    s = S.data
    store = S.constraints[TypeStore]
    named = {walk(v, s): dim for dim, v in reversed(list(store.dims.items()))
             if isvar(walk(v, s))}  # a given type's Dims first: they keep their names
    # every name a given size mentions is taken (``n`` of a size number ``n - 3`` too: a
    # fresh size named ``n`` would be that ``n``, a relation the answer does not have)
    taken = {x for d in store.dims for x in free_symbols(d) if isinstance(x, str)} | \
        set(names.values())
    for v in user:  # an unknown size a user variable stands for is named after it
        w = walk(v, s)
        if v in roles and isvar(w) and w not in named and names[v].isidentifier():
            named[w] = Dim(names[v])
    sizes = list(term_vars([*_shapes(user, s), *roles], s))
    residual: list[Clause] = []
    values = symbolic_values(sizes, s, store.pending, named, _Namer(taken, names), residual)
    if REFUTED in residual:
        return None  # the constraints left hold at no named sizes: no answer
    for a, b, _ in s.get(ASSUMED, ()):  # two named sizes (or one and an int) made equal
        if Condition(a, "==", b) not in residual:
            residual.append(Condition(a, "==", b))
    for dim, v in store.dims.items():  # a given type's Dim the relation gave a value
        w = walk(v, s)
        if dim.name is not None and (not isvar(w) or named.get(w, dim) != dim) and \
                (c := Condition(dim, "==", named[w] if isvar(w) else w)) not in residual:
            residual.append(c)

    def value(term: Any, is_size: bool = False) -> Any:
        t = walk(term, s)
        if isvar(t):
            return values.get(t) if is_size else None
        if isinstance(t, TensorTerm):
            dtype, shape = walk(t.dtype, s), value(t.shape)
            if isinstance(dtype, str) and isinstance(shape, tuple) and \
                    all(x is not None for x in shape):
                return TensorType(dtype, shape)
            return TensorTerm(None if isvar(dtype) else dtype, shape, walk(t.wrapped, s))
        if isinstance(t, tuple):
            return tuple(value(x, True) for x in t)
        return t

    return Answer({names[v]: value(v, v in roles) for v in user}, residual)


class Answer(dict):
    """One answer of a query: each user variable's value; ``where`` holds the
    constraints between its symbolic sizes that the values alone do not say
    (:class:`~kantensor.logic.answers.Condition`, such as ``m > 2``), so that
    ``X = float32[m]`` never claims every ``m``. Equal to a plain dict of the same
    values (``where`` aside)."""

    def __init__(self, values: dict[str, Any], where: Sequence[Condition] = ()):
        super().__init__(values)
        self.where = tuple(where)

    def __repr__(self) -> str:
        text = dict.__repr__(self)
        return f"Answer({text}, where={list(map(str, self.where))!r})" if self.where \
            else text


def _shapes(terms: list, s: dict) -> list:
    """Every size position of ``terms`` (walked), for naming unknown sizes."""
    out, stack = [], list(terms)
    while stack:
        t = walk(stack.pop(), s)
        if isinstance(t, TensorTerm):
            stack.append(t.shape)
        elif isinstance(t, tuple):
            out.extend(t)
    return out


def query(op_or_signature: Any, inputs: Sequence[Any], outputs: Sequence[Any],
          limit: int | None = None, max_rank: int = DEFAULT_MAX_RANK) -> Solutions:
    """Every assignment of the logic variables in ``inputs``/``outputs`` that fits.

    ``op_or_signature``: an Op, a Signature, or text: the name of a catalogue Op
    (``"add"``) is that Op, other text is signature text (``"(n),(n)->()"``).

    ``inputs``/``outputs`` hold TensorTypes (or compact text like ``"float32[3,?]"``),
    ``pattern(...)`` terms, or logic variables (a bare variable input stands for a tensor
    type, not a Python number). Each answer maps the user's variables to dtypes, sizes,
    shapes or types; a size the signature leaves open is a symbolic Dim. ``max_rank``
    (10 by default) bounds the axes tried where a rank is unknown; the answers say when
    it cut some (:attr:`Solutions.truncated_by_rank`).
    """
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int)
                              or limit < 0):
        raise ValueError(f"limit must be None or an int >= 0, got {limit!r}")
    rel = relation(op_or_signature, max_rank)
    for x in [*inputs, *outputs]:
        if isinstance(x, str):
            TensorType.parse(x)  # syntax errors now, not when the answers are read
    _check_counts(rel, inputs, len(outputs))
    user = _user_vars([*inputs, *outputs])
    names = _names(user)
    roles = {v for v in user if any(v is x for x in _shapes([*inputs, *outputs], {}))}
    typed = [eq(x, TensorTerm(var(), var(), False)) for x in inputs if isvar(x)]

    def search(beyond: Callable, seen: set[bytes]) -> Iterator[dict]:
        goal = lall(*typed, rel.goal(inputs, outputs, beyond), labelo(beyond=beyond))
        for S in goal(ConstrainedState()):
            answer = _answer(user, roles, S, names)
            if answer is None:
                continue
            key = _digest(answer)
            if key not in seen:
                seen.add(key)
                yield answer
                if not user:  # nothing to vary: at most one answer, {}
                    return

    def complete(S: ConstrainedState) -> Iterator[dict]:
        return (a for T in labelo()(S) if (a := _answer(user, roles, T, names)) is not None)

    return Solutions(search, list(names.values()), limit, max_rank, complete)


def _check_counts(rel: Relation, inputs: Sequence[Any], n_out: int) -> None:
    """The one arity check (:func:`kantensor.signature.arity.check_arity`); an Op whose
    signature its parameters render takes any number of inputs its builder accepts, and
    gives as many outputs as its signature rendered for the inputs, where they are all
    types (Attention's ``outputs``, one update per input of Adam): else as many as
    :attr:`Relation.n_outputs` counts on inputs of one rank."""
    n_in = len(inputs)
    if isinstance(rel.target, Signature):
        label = rel.name if rel.name == str(rel.target) else f"{rel.name} {rel.target}"
        check_arity(label, arities(rel.target), n_in, n_out, rel.target)
    else:
        check_arity(rel.name, {(n_in, n) for n in _output_counts(rel, inputs)}, n_in, n_out)


def _output_counts(rel: Relation, inputs: Sequence[Any]) -> frozenset[int]:
    """How many outputs ``rel``'s Op with parameters gives for ``inputs``: counted on its
    signature rendered for them where each is a type (the count make_node checks), else
    (or where the builder refuses them: the relation then has no answer) on inputs of
    one rank."""
    types = [TensorType.parse(x) if isinstance(x, str) else x for x in inputs]
    if all(isinstance(t, TensorType) for t in types):
        try:
            sig, _ = rel.target.signature_for(tuple(types))
        except (TypeError, ValueError, IndexError):  # (TypeInferenceError is a TypeError)
            pass
        else:
            return frozenset(len(a.outputs) for a in sig.alternatives)
    return frozenset({rel.n_outputs})
