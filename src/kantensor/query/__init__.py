"""Relational queries: kanren's ``run`` over a signature's relation and ``labelo``.

Any part of a type can be a logic variable (:func:`var`): a whole type, a dtype, one
size, or a whole shape. :func:`query` runs the Op's relation (the same one
``make_node`` runs forwards) together with :func:`~kantensor.logic.store.labelo`, and
returns every answer lazily as a :class:`Solutions` object.

Here: what a query runs (:func:`resolve`, :func:`relation`), the patterns it takes and
:func:`query` itself; one answer read from a solver state is :mod:`.answers`, the lazy
sequence of them and its displays :mod:`.solutions` (all importable from here), the size
inputs an Op's symbolic size parameters add :mod:`.hidden`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

from kanren import eq, lall
from kanren.constraints import ConstrainedState
from unification import isvar, var

from ..logic.store import labelo
from ..logic.terms import TensorTerm
from ..logic.witness import UndecidedAnswer as UndecidedAnswer
from ..ops import op_named
from ..ops.inputcount import check_count
from ..signature.arity import arities, check_arity
from ..signature.signature import Signature
from ..signature.solve import DEFAULT_MAX_RANK, Relation
from ..signature.solve import relation as signature_relation
from ..types.dtypes import normalize_dtype
from ..types.type import TensorType
from .answers import Answer as Answer
from .answers import anonymous, answer_in, size_positions, user_vars, variable_names
from .hidden import adds_inputs, node_inputs, with_hidden
from .opendtypes import settled_states
from .solutions import KEEP as KEEP
from .solutions import MAX_LEN as MAX_LEN
from .solutions import Solutions, TooManyAnswers, digest

__all__ = ["Solutions", "TooManyAnswers", "UndecidedAnswer", "pattern", "query", "relation",
           "resolve", "var"]


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
    is a goal. ``max_rank`` bounds the number of axes tried where a rank is unknown.
    An Op whose parameters hold symbolic sizes takes its inputs as its call names them
    (the size inputs then added, :mod:`.hidden`) or as its node has them."""
    rel = signature_relation(resolve(op_or_signature), max_rank)
    sized = adds_inputs(rel.target)
    if sized:
        rel.takes_none = (node_inputs(rel.target) or (None,))[0] == 0
    rel.goal = _checked_goal(rel.goal, rel, sized)
    return rel


def _checked_goal(goal: Callable, rel: Relation, sized: bool) -> Callable:
    """``goal`` given as many inputs and outputs as the Op takes (:func:`_check_counts`,
    make_node's and query's arity error: ``einsum{subscripts='ij,jk->ik'}`` given three
    inputs had no answer), with the size inputs of its parameters added where ``sized``
    and the inputs are the ones its call names (:func:`.hidden.with_hidden`)."""
    def checked_goal(inputs: Sequence[Any], outputs: Sequence[Any], beyond: Any = None
                     ) -> Callable:
        if sized:
            inputs = with_hidden(rel.target, inputs)
        _check_counts(rel, inputs, len(outputs))
        return goal(inputs, outputs, beyond)
    return checked_goal


def pattern(dtype: Any = None, shape: Any = None, wrapped: Any = False) -> TensorTerm:
    """A tensor type whose dtype, shape or sizes may be logic variables.

    ``pattern(var("d"), (var("n"), 3))``; ``None`` means "anything" (a fresh anonymous
    variable, never shown in answers). ``wrapped`` may be a logic variable too: a
    wrapped operand is a Python number used in an operation (§3).
    """
    if dtype is None:
        dtype = anonymous()
    elif not isvar(dtype):
        dtype = normalize_dtype(dtype)
    if shape is None:
        shape = anonymous()
    elif not isvar(shape):
        shape = tuple(anonymous() if d is None else _size(d) for d in shape)
    if wrapped is None:
        wrapped = anonymous()
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
    inputs = with_hidden(rel.target, inputs)  # (the relation's goal adds none then)
    for x in [*inputs, *outputs]:
        if isinstance(x, str):
            TensorType.parse(x)  # syntax errors now, not when the answers are read
    _check_counts(rel, inputs, len(outputs))
    terms = [*inputs, *outputs]
    user = user_vars(terms)
    names = variable_names(user)
    roles = {v for v in user if any(v is x for x in size_positions([*inputs, *outputs], {}))}
    typed = [eq(x, TensorTerm(var(), var(), False)) for x in inputs if isvar(x)]

    def search(beyond: Callable, seen: set[bytes]) -> Iterator[dict]:
        goal = lall(*typed, rel.goal(inputs, outputs, beyond), labelo(beyond=beyond))
        for S, opened in (T for L in goal(ConstrainedState()) for T in settled_states(L, terms)):
            answer = answer_in(user, roles, S, names, opened)
            if answer is None:
                continue
            key = digest(answer)
            if key not in seen:
                seen.add(key)
                yield answer
                if not user and not answer.where:  # nothing to vary and no condition:
                    return  # it holds, and any later answer would say it again

    def complete(S: ConstrainedState) -> Iterator[dict]:
        return (a for L in labelo()(S) for T, opened in settled_states(L, terms)
                if (a := answer_in(user, roles, T, names, opened)) is not None)

    return Solutions(search, list(names.values()), limit, max_rank, complete)


def _check_counts(rel: Relation, inputs: Sequence[Any], n_out: int) -> None:
    """The one arity check (:func:`kantensor.signature.arity.check_arity`); an Op whose
    signature its parameters render is checked against that signature rendered for the
    inputs, where they are all types, as make_node checks it (the inputs that carry its
    symbolic size parameters counted: ``zeros{shape=(n, 3)}`` takes one, a ``bool[n]``;
    the query answered 'no solutions' without it), and gives as many outputs as it has
    (Attention's ``outputs``, one update per input of Adam); else as many inputs as its
    node has where its parameters say it (:func:`.hidden.node_inputs`: ``flatten`` takes
    one, ``index{index=(<array 0>,)}`` two, ``einsum{subscripts='ij,jk->ik'}`` two; a
    builder refusing another count answered 'no solutions'; a sequence of tensors one
    or more, :func:`kantensor.ops.inputcount.check_count`) or as given, and as many
    outputs as :attr:`Relation.n_outputs` counts on inputs of one rank. A bound Op is
    checked first as make_node checks it, so the error names it as make_node does
    (``tril{k=Dim('n')}: takes 2 inputs, got 3``, not its rendered signature)."""
    n_in = len(inputs)
    if isinstance(rel.target, Signature):
        label = rel.name if rel.name == str(rel.target) else f"{rel.name} {rel.target}"
        check_arity(label, arities(rel.target), n_in, n_out, rel.target)
        return
    check_count(rel.target, inputs)  # make_node's check of a bound Op, in its words
    sig = _rendered(rel, inputs)
    if sig is None:
        found = node_inputs(rel.target, inputs)  # the call's inputs and the size inputs
        takes = n_in if found is None else found[0] + len(found[1])
        check_arity(str(rel.target), {(takes, rel.n_outputs)}, n_in, n_out)
    else:
        check_arity(lambda: f"{rel.name} {sig}", arities(sig), n_in, n_out, sig)


def _rendered(rel: Relation, inputs: Sequence[Any]) -> Signature | None:
    """``rel``'s Op's signature rendered for ``inputs`` where each is a type (the one
    make_node runs), or a pattern of a known dtype and rank (its sizes unknown: Adam's
    count of outputs is its inputs'); None where one is not, or the builder refuses
    them (the relation then has no answer)."""
    types = [TensorType.parse(x) if isinstance(x, str) else _ranked(x) for x in inputs]
    if all(isinstance(t, TensorType) for t in types):
        try:
            sig, _ = rel.target.signature_for(tuple(types))
        except (TypeError, ValueError, IndexError):  # (TypeInferenceError is a TypeError)
            return None
        return sig
    return None


def _ranked(x: Any) -> Any:
    """A pattern of a known dtype and rank as the type of those with its sizes that are
    not ints unknown; anything else as it is."""
    if isinstance(x, TensorTerm) and isinstance(x.dtype, str) and \
            isinstance(x.shape, tuple) and x.wrapped is False:
        return TensorType(x.dtype, tuple(d if type(d) is int else None for d in x.shape))
    return x
