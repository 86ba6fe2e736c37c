"""The one solver entry point: a signature's relation, run by every front end.

:func:`solutions` applies a signature's compiled alternatives to tensor terms in a
kanren state. It is what ``make_node`` runs forwards (:mod:`.forward`, memoized), what
:func:`relation` hands to ``kanren.run`` as a goal, and what ``query`` and ``refine``
run. Overloads are tried in order: an alternative holds only where no earlier one
accepts the inputs (:class:`FirstMatch`), so a backward query answers exactly what
``make_node`` would build.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from functools import lru_cache
from typing import Any, Protocol, runtime_checkable

from kanren.constraints import ConstrainedState

from ..logic.pyints import PyIntFits
from ..logic.store import (
    Reason,
    TypeStore,
    copy_state,
    explaining,
    fresh_state,
    post,
    propagate,
    unify_oc,
)
from ..logic.terms import Symbol, TensorTerm, fresh, isvar, symbol, walk
from ..syntax.alternative import Overloads
from ..syntax.errors import RenderingLimit, Unrendered
from ..types.dim import Dim
from ..types.dtypes import Priority, get_default_dtype, priority
from ..types.limits import MAX_NDIM
from ..types.numpyrules import rules_key
from ..types.sizenum import NUMBER_VALUE
from ..types.type import TensorType
from ..types.variable import PYTHON_NUMBERS, SizeNumber, wrapped_number
from .compile import (
    DEFAULT_MAX_RANK,
    GUARD,
    known_dtypes,
)
from .messages import summary
from .overloads import FirstMatch, compiled, ground_key

__all__ = ["DEFAULT_MAX_RANK", "FirstMatch", "Relation", "Templated", "compiled", "explain",
           "failures", "relation", "solutions", "tensor_term", "wrapped_flags"]


# -- terms ------------------------------------------------------------------------------
def tensor_term(ttype: TensorType, S: ConstrainedState, wrapped: Any = False,
                where: str = "", value: Any = None) -> TensorTerm:
    """The term of a TensorType in state ``S``: unknown sizes are fresh variables, and a
    symbolic size (a named Dim, or an expression of them) the one rigid variable
    (:class:`~kantensor.logic.terms.Symbol`) the state's TypeStore keeps for it: never
    bound, so what a relation needs of it is a condition, not a merge. ``value``: a
    wrapped Python int's (see :func:`wrapped_value`)."""
    store = S.constraints[TypeStore]
    sizes: list[Any] = []
    for entry in ttype.shape:
        if entry is None:
            sizes.append(fresh())
        elif isinstance(entry, int):
            sizes.append(entry)
        else:
            sizes.append(_dim_var(store, entry))
    return TensorTerm(ttype.dtype, tuple(sizes), wrapped, value)


def wrapped_value(x: Any, S: ConstrainedState) -> Any:
    """The value term of the wrapped Python int that the graph Variable ``x`` is: a
    constant's int; for a size used as a number (:class:`SizeNumber`), the size's term
    (an int, or the rigid variable of its Dim in ``S``); else None (a wrapped float, or
    nothing known)."""
    if isinstance(x, SizeNumber):
        size = NUMBER_VALUE.fn(x)
        return size if isinstance(size, int) else None if size is None else \
            _dim_var(S.constraints[TypeStore], size)
    data = getattr(x, "data", None)
    if data is not None and x.type.dtype == "int64" and x.type.ndim == 0:
        return int(data)
    return None


def _dim_var(store: TypeStore, dim: Dim) -> Any:
    v = store.dims.get(dim)
    if v is None:
        v = store.dims[dim] = symbol(dim)
    return v


def wrapped_flags(types: Sequence[TensorType], priorities: Sequence[Priority] | None
                  ) -> tuple[bool, ...]:
    """Which inputs are wrapped Python numbers, from optional priorities (§3): the only
    thing a priority can add to a type, since rank gives the rest."""
    if priorities is None:
        return (False,) * len(types)
    priorities = tuple(priorities)
    if len(priorities) != len(types):
        raise ValueError(f"priorities has {len(priorities)} entries for {len(types)} inputs")
    flags = []
    for i, (t, p) in enumerate(zip(types, priorities, strict=True)):
        wrapped = Priority(p) is Priority.WRAPPED
        if not wrapped and Priority(p) is not priority(t.ndim, False):
            raise ValueError(f"input {i}: priority {Priority(p).name} contradicts its rank "
                             f"{t.ndim}; only WRAPPED can be given")
        flags.append(wrapped)
    return tuple(flags)


# -- the relation ---------------------------------------------------------------------
def solutions(sig: Overloads, S: ConstrainedState, in_terms: list, out_terms: list | None,
              max_rank: int = DEFAULT_MAX_RANK, ordered: bool = False, spend: bool = False
              ) -> Iterator[tuple[ConstrainedState, list]]:
    """``(state, output terms)`` for every alternative of ``sig`` that the terms fit.

    ``out_terms`` None gives each alternative fresh output variables (forward use).
    ``ordered``: the caller stops at the first solution, in order, so the first-match
    guard of later alternatives is implied and not posted. ``spend``: ``S`` is the
    caller's scratch state, which the last alternative that may apply is solved in
    (every other one in a copy)."""
    dtypes = known_dtypes(in_terms, S.data)
    n_out = None if out_terms is None else len(out_terms)
    candidates = [(k, c) for k, c in enumerate(compiled(sig))
                  if c.n_in == len(in_terms) and n_out in (None, len(c.alt.outputs))
                  and not c.refuses_dtypes(dtypes)]
    last = len(candidates) - 1
    for j, (k, c) in enumerate(candidates):
        S1 = S if spend and j == last else copy_state(S)
        outs = list(out_terms) if out_terms is not None else [fresh() for _ in c.alt.outputs]
        if not c.apply(S1, in_terms, outs, max_rank, axes_last=ordered):
            continue
        if k and not ordered and not post(S1, FirstMatch(sig, k, tuple(in_terms), max_rank,
                                                              fresh(prefix="settled"))):
            continue
        yield S1, outs


@runtime_checkable
class Templated(Protocol):
    """An Op whose signature is rendered from its inputs' ranks (an Op with parameters):
    its relation enumerates the ranks and solves the signature each gives."""

    def signature_for(self, types: tuple[TensorType, ...]) -> tuple[Overloads, Any]: ...


class Relation:
    """``relation(op_or_signature)``: ``R(*inputs, *outputs)`` is a kanren goal.

    Terms may be TensorTypes, compact text (``"float32[3,?]"``), graph Variables,
    ``pattern(...)`` terms, Python numbers (the wrapped constants an op call makes of
    them) or logic variables. ``R.goal(inputs, outputs)`` takes the two lists explicitly
    (for Ops whose number of inputs varies). A wrapped Python int whose value a term
    knows (a constant's, a size used as a number's) must fit the dtype an Op of
    ``compute = "output"`` computes in, as ``make_node`` requires (:attr:`fits`).
    """

    def __init__(self, target: Overloads | Templated, max_rank: int = DEFAULT_MAX_RANK,
                 name: str = "", fits: bool = False):
        self.target = target
        self.max_rank = max_rank
        self.name = name or str(getattr(target, "name", target))
        #: whether the Op computes in its (first) output's dtype, where a wrapped Python
        #: int must fit (:class:`~kantensor.logic.pyints.PyIntFits`): an Op's
        #: ``compute = "output"`` (a Signature alone computes nothing: False)
        self.fits = fits
        #: whether the Op's outputs are wrapped Python ints (``size_number``'s, whose
        #: builder's ``output_class`` is wrapped): its signature solves them as outputs
        #: are (never wrapped), and each output term is then that type, wrapped
        made = getattr(getattr(target, "builder", None), "output_class", None)
        self.wraps = getattr(made, "wrapped", False) is True
        #: whether ``R(*outputs)`` alone is a call: a signature of no inputs (``->(3)``),
        #: an Op whose call names no tensor (``zeros{shape=(n, 3)}``: its size inputs are
        #: added, see kantensor.query)
        self.takes_none = isinstance(target, Overloads) and any(
            i == 0 for i, _ in target.arities)

    @property
    def n_outputs(self) -> int:
        if isinstance(self.target, Overloads):
            return len(self.target.alternatives[0].outputs)
        return getattr(self.target, "n_outputs", 1)

    def __call__(self, *terms: Any) -> Callable[[Any], Iterator[ConstrainedState]]:
        n_out = self.n_outputs
        if len(terms) < n_out or len(terms) == n_out and not self.takes_none:
            raise TypeError(f"relation {self.name}: expected the input terms followed by "
                            f"{n_out} output term{'s' * (n_out != 1)}, got {len(terms)} "
                            "terms")
        return self.goal(terms[:-n_out], terms[-n_out:])

    def goal(self, inputs: Sequence[Any], outputs: Sequence[Any],
             beyond: Callable[[Iterator[ConstrainedState]], None] | None = None
             ) -> Callable[[Any], Iterator[ConstrainedState]]:
        """The goal; ``beyond`` (as in :func:`~kantensor.logic.store.labelo`) receives
        the states where an Op with parameters has inputs of ``max_rank + 1`` axes."""
        inputs, outputs = list(inputs), list(outputs)

        def relation_goal(S: Any) -> Iterator[ConstrainedState]:
            S = fresh_state(S)
            # walked first: a logic variable bound to a Variable or a type by an earlier
            # goal (a graph matched with eq) stands for that type
            in_terms = [as_term(walk(x, S.data), S, f"input {i}")
                        for i, x in enumerate(inputs)]
            out_terms = [as_term(walk(x, S.data), S, f"output {i}")
                         for i, x in enumerate(outputs)]
            if not isinstance(self.target, Overloads) and any(map(isvar, in_terms)):
                # a template Op's signature is rendered per input ranks: an unbound input
                # stands for a tensor type whose rank is enumerated (lazily) like any other
                s = S.data
                for x in in_terms:
                    if isvar(x):
                        s = unify_oc(x, TensorTerm(fresh(), fresh(), fresh()), s)
                S.data = s
                if not propagate(S, changed=True):
                    return
            ground = _ground_terms([*in_terms, *out_terms], S.data)
            if ground is not None and not (self.fits and _valued(in_terms, S.data)):
                # a yes or no, remembered (a kanren run asks again for every combination
                # of other goals' values, say after memberos); not where a wrapped int's
                # value is known, which the ground terms do not hold
                if _holds(self.target, self.max_rank, len(in_terms), ground,
                          rules_key()):
                    yield S
                return
            yield from self._states(S, in_terms, out_terms, self.max_rank)
            if beyond is not None and not isinstance(self.target, Overloads):
                beyond(self._beyond(S, in_terms, out_terms))

        relation_goal.posts_constraints = True  # (see logic.store.relations_first)
        return relation_goal

    def _beyond(self, S: ConstrainedState, in_terms: list, out_terms: list
                ) -> Iterator[ConstrainedState]:
        """The states past the rank bound: input ranks up to one more than ``max_rank``
        or than any shape the terms give."""
        known = [len(shape) for x in (*in_terms, *out_terms)
                 if isinstance(t := walk(x, S.data), TensorTerm)
                 and isinstance(shape := walk(t.shape, S.data), tuple)]
        for top in range(self.max_rank + 1, max([self.max_rank, *known]) + 2):
            yield from self._states(S, in_terms, out_terms, top)

    def _states(self, S: ConstrainedState, in_terms: list, out_terms: list, ranks: int
                ) -> Iterator[ConstrainedState]:
        """The relation's states with unknown input ranks up to ``ranks`` (the most
        exactly ``ranks`` when that is past ``max_rank``)."""
        for sig, S1 in self._signatures(S, in_terms, ranks):
            solved = [fresh() for _ in out_terms] if self.wraps else out_terms
            for S2, _ in solutions(sig, S1, in_terms, solved, self.max_rank):
                if self.wraps and not _wrapped_outputs(S2, solved, out_terms):
                    continue
                if not self.fits or _fitting(S2, in_terms, out_terms):
                    yield S2

    def _signatures(self, S: ConstrainedState, in_terms: list, max_rank: int
                    ) -> Iterator[tuple[Any, ConstrainedState]]:
        """The signature to apply, per rank of the inputs for a template Op (its
        signature is rendered from ranks, so unknown ranks are enumerated here)."""
        if isinstance(self.target, Overloads):
            yield self.target, S
            return
        # each open shape once: a logic variable repeated among the inputs
        # (concatenate([Y, Y])) is one shape, of one rank
        open_shapes = list({id(v): v for t in (walk(x, S.data) for x in in_terms)
                            if isinstance(t, TensorTerm)
                            and isvar(v := walk(t.shape, S.data))}.values())
        for ranks in _rank_choices(len(open_shapes), max_rank):
            if max_rank > self.max_rank and max(ranks, default=0) < max_rank:
                continue  # within the bound: enumerated already
            S1 = copy_state(S)
            s = S1.data
            for shape, n in zip(open_shapes, ranks, strict=True):
                s = unify_oc(shape, tuple(fresh() for _ in range(n)), s)
            S1.data = s
            proxies = []
            sizes = getattr(getattr(self.target, "builder", None), "renders_known_sizes",
                            False)  # (ops.templates.reads_known_sizes)
            for i, x in enumerate(in_terms):
                t = walk(x, s)
                if not isinstance(t, TensorTerm):
                    raise TypeError(f"relation {self.name}: input {i} of an Op with "
                                    "parameters must be a tensor term (its rank renders "
                                    f"the signature), got {t!r}")
                shape = walk(t.shape, s)
                dtype = walk(t.dtype, s)  # a builder may read it (LabelEncoder's keys)
                # a named size stays itself: it is the type's, as make_node sees it (a
                # builder may read it: reshape writes x.reshape(n, -1) over n's axis)
                proxies.append(TensorType(dtype if isinstance(dtype, str) else "float64",
                                          tuple(_proxy(walk(d, s), sizes) for d in shape)))
            try:
                sig, _ = self.target.signature_for(tuple(proxies))
            except RenderingLimit:
                raise  # a limit of the builder's, not "no such types": said, not hidden
            except Unrendered as exc:  # (a size the terms do not know: said, not hidden)
                raise RenderingLimit(f"{exc} (the relation is rendered from the sizes its "
                                     "terms know: give it)") from None
            except (TypeError, ValueError, IndexError):
                continue  # no signature for these ranks: no solutions there
            yield sig, S1


def _proxy(size: Any, known: bool) -> Any:
    """A size of a term as a builder sees it when the relation renders a signature: a
    named size as itself (it is the type's, as make_node sees it: reshape writes
    ``x.reshape(n, -1)`` of ``float32[n,6]`` over n's axis, where a query of that type
    answered nothing), an int where the builder reads known sizes (``known``), else
    unknown."""
    if type(size) is Symbol:  # (a named size's logic variable)
        return size.dim
    return size if known and isinstance(size, int) else None


def _wrapped_outputs(S: ConstrainedState, solved: list, out_terms: list) -> bool:
    """Make each output term (in ``S``, in place) the type its signature solved
    (``solved``), as a wrapped Python int: its wrapped flag True where it is open (a
    type given as an output, never wrapped, says nothing of it); False if they differ."""
    s = S.data
    for o, p in zip(out_terms, solved, strict=True):
        t = walk(p, s)
        if not isinstance(t, TensorTerm):
            return False
        given = walk(o, s)
        flag = given.wrapped if isinstance(given, TensorTerm) and \
            walk(given.wrapped, s) is False else True
        s = unify_oc(o, TensorTerm(t.dtype, t.shape, flag), s)
        if s is False:
            return False
    S.data = s
    return propagate(S, changed=True)


def _valued(in_terms: list, s: dict) -> bool:
    """Whether an input term says the value of its wrapped Python int."""
    return any(isinstance(t := walk(x, s), TensorTerm) and t.value is not None
               for x in in_terms)


def _fitting(S: ConstrainedState, in_terms: list, out_terms: list) -> bool:
    """Post into ``S`` (in place) that each wrapped Python int of a known value among
    the inputs fits the dtype of the first output (:class:`PyIntFits`); False if that
    fails at once."""
    s = S.data
    out = walk(out_terms[0], s) if out_terms else None
    if not isinstance(out, TensorTerm):
        return True
    found = [PyIntFits(t.value, out.dtype, f"input {i}") for i, x in enumerate(in_terms)
             if isinstance(t := walk(x, s), TensorTerm) and t.value is not None
             and walk(t.wrapped, s) is True]
    return not found or post(S, *found)


def _ground_terms(terms: list, s: dict) -> tuple | None:
    """The terms as ``(dtype, shape, wrapped)`` triples when all of them are ground
    (every size an int), else None: :func:`ground_key` with no size left unknown."""
    key = ground_key(terms, s)
    return key if key is not None and all(None not in sizes for _, sizes, _ in key) \
        else None


@lru_cache(maxsize=65536)
def _holds(target: Any, max_rank: int, n_in: int, ground: tuple, default_dtype: str) -> bool:
    """Does the relation of ``target`` hold on ground terms (see :func:`_ground_terms`)?
    Memoized on the default float dtype too (wrapped floats and float(T) use it)."""
    S = fresh_state({})
    terms = [TensorTerm(d, sizes, w) for d, sizes, w in ground]
    rel = Relation(target, max_rank)
    for _ in rel._states(S, terms[:n_in], terms[n_in:], max_rank):
        return True
    return False


def _rank_choices(n: int, max_rank: int) -> Iterator[tuple[int, ...]]:
    """Rank tuples for ``n`` inputs, smallest total first."""
    if n == 0:
        yield ()
        return
    for total in range(n * max_rank + 1):
        yield from _compositions(total, n, max_rank)


def _compositions(total: int, n: int, cap: int) -> Iterator[tuple[int, ...]]:
    if n == 1:
        if total <= cap:
            yield (total,)
        return
    for first in range(min(total, cap) + 1):
        for rest in _compositions(total - first, n - 1, cap):
            yield (first, *rest)


def relation(op_or_signature: Any, max_rank: int = DEFAULT_MAX_RANK) -> Relation:
    """The relation of an Op or a Signature, as a kanren goal maker (``kt.relation``,
    :func:`kantensor.query.relation`, also reads Op names and signature text).

    ``max_rank`` bounds the number of axes tried where a rank is unknown: at most
    ``MAX_NDIM`` (64, NumPy's limit: no tensor has more axes)."""
    if isinstance(max_rank, bool) or not isinstance(max_rank, int) or \
            not 0 <= max_rank <= MAX_NDIM:
        raise ValueError(f"max_rank must be an int from 0 to {MAX_NDIM} (NumPy's limit on "
                         f"axes), got {max_rank!r}")
    target = op_or_signature
    if isinstance(target, str):
        raise TypeError("this relation() takes an Op or a Signature; kt.relation also "
                        "reads Op names and signature text")
    name = str(getattr(target, "name", ""))
    fits = getattr(target, "compute", None) == "output"
    plain = getattr(target, "signature", None)
    if isinstance(plain, Overloads):  # an Op with one signature
        target = plain
    elif not isinstance(target, Overloads | Templated):
        raise TypeError(f"expected an Op with a signature or a Signature, got "
                        f"{type(target).__name__}")
    return Relation(target, max_rank, name, fits)


def as_term(x: Any, S: ConstrainedState, where: str) -> Any:
    """A relation argument as a term (see :class:`Relation`)."""
    if isinstance(x, TensorTerm) or isvar(x):
        return x
    if isinstance(x, str):
        return tensor_term(TensorType.parse(x), S, False, where)
    if type(x) in PYTHON_NUMBERS:  # a Python number: the wrapped constant a call makes
        x = wrapped_number(x, get_default_dtype())
    if isinstance(x, TensorType):
        return tensor_term(x, S, False, where)
    ttype = getattr(x, "type", None)
    if isinstance(ttype, TensorType):  # a graph Variable: one term wherever it is used
        variables = S.constraints[TypeStore].variables
        term = variables.get(x)
        if term is None:
            wrapped = bool(getattr(x, "wrapped", False))
            term = variables[x] = tensor_term(ttype, S, wrapped, where,
                                              wrapped_value(x, S) if wrapped else None)
        return term
    raise TypeError(f"{where}: expected a TensorType, compact text, a Variable, a pattern, "
                    f"a Python number or a logic variable, got {x!r}")


def input_terms(S: ConstrainedState, types: tuple, wrapped: tuple) -> list:
    return [tensor_term(t, S, w, f"input {i}")
            for i, (t, w) in enumerate(zip(types, wrapped, strict=True))]


@lru_cache(maxsize=1024)
def explain(sig: Overloads, types: Sequence[TensorType], wrapped: Sequence[bool]) -> str:
    """Why no alternative of ``sig`` accepts ``types``, in words."""
    found = failures(sig, types, wrapped)
    return found if isinstance(found, str) else summary(found)


def failures(sig: Any, types: Sequence[TensorType], wrapped: Sequence[bool]
             ) -> list[tuple[Any, Reason]] | str:
    """Each alternative of ``sig`` that could apply to ``types``, with the first reason
    it fails for (a message if no alternative could apply)."""
    found = []
    for c in compiled(sig):
        if c.n_in != len(types) or c.dead:  # dead: ruled out by its template (0 == 1)
            continue
        with explaining() as reasons:
            S = fresh_state({})
            ok = c.apply(S, input_terms(S, tuple(types), tuple(wrapped)),
                         [fresh() for _ in c.alt.outputs])
            if ok:  # pragma: no cover - explain runs only after a failure
                reasons.append("no solution")
        reason = reasons[0] if reasons else Reason("no solution")
        if reason is not GUARD:
            found.append((c, reason if isinstance(reason, Reason) else Reason(str(reason))))
    if not found:
        ndims = ", ".join(str(t.ndim) for t in types)
        return f"no variant of the flexible dims fits inputs with ({ndims}) axes"
    return found
