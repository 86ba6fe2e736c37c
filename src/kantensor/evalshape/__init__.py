"""``eval_shape``: run an unmodified NumPy function on symbolic tensors.

The function's parameters become graph inputs of the given types (``TensorType`` or the
compact text ``"float32[n,3]"``); NumPy's functions and operators on them build a
kantensor graph through ``__array_ufunc__``/``__array_function__`` (see
:mod:`kantensor.types.protocol`). The result gives the output types (symbolic sizes
included) and the graph. When the function cannot be typed, the error says which line
of the user's function failed, and why, in kantensor's words.

While the function runs, NumPy's entries that cannot dispatch (creation functions,
samplers, ``math``, ``len``/``int``/``range``) reach kantensor (:mod:`.namespaces`), and
writing into arrays rebinds them to functional updates (:mod:`.trace`).
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
from collections.abc import Callable, Iterable, Sequence
from typing import Any, NamedTuple

from ..graph.basic import Apply, Variable
from ..graph.fgraph import FunctionGraph
from ..syntax.errors import TypeInferenceError
from ..types.casewise import plainest_under
from ..types.conditions import Clause, Condition, is_choice
from ..types.dim import unknown
from ..types.facts import Facts
from ..types.numpyrules import numpy_rules
from ..types.tidy import tidy
from ..types.tidysize import tidy_size
from ..types.type import TensorType
from .assumptions import AssumptionError, assumed, facts_of, unimplied, without_assumptions
from .branches import BranchError, Path, explore
from .code import own_package
from .conflicts import choice_refuted, conflict, contradicted, contradicting, refused_build
from .counts import count_bounds, same_counts
from .limits import own_limit
from .located import (
    Locator,
    Site,
    assumptions,
    described,
    failed_operands,
    local_names,
    operand_chain,
)
from .namespaces import installed, reach, traced_kwargs
from .placing import placed_refused
from .result import Refusal, ShapeResult, merged
from .sameaxes import renamed, same_axes
from .scalars import numpy_scalar  # noqa: F401 - installs the numpy_scalar hook
from .trace import Trace, tracing

__all__ = ["AssumptionError", "ShapeResult", "eval_shape"]


@functools.lru_cache(maxsize=1024)
def _parsed(text: str) -> TensorType:
    """``TensorType.parse``, remembered: the same few texts come back at every call."""
    return TensorType.parse(text)


def _as_type(t: Any, i: int) -> TensorType:
    if isinstance(t, TensorType):
        return t
    if isinstance(t, str):
        return _parsed(t)
    raise TypeError(f"eval_shape: type {i} must be a TensorType or text such as "
                    f"'float32[n,3]', got {t!r}")


def _rethrow(fn: Callable[..., Any], exc: Exception, trace: Trace) -> Exception:
    """``exc`` with the user's line that failed, and where the operands of a refused Op
    were made (from the inputs' sizes to the conflict)."""
    site = trace.locator.failed_at(exc)
    name = getattr(fn, "__qualname__", repr(fn))
    failed = f"failed at {site}\n{type(exc).__name__}: {exc}" if site \
        else f"failed: {type(exc).__name__}: {exc}"
    names = {**{x: x.name for x in trace.inputs if x.name},
             **local_names(exc, trace.locator)}
    contradiction = conflict(exc, trace.sites, trace.names, site)
    moved = _placed(exc, trace, site)
    if contradiction:  # the earlier lines whose needs the refused Op's contradict first
        message = f"eval_shape({name}): no sizes meet all of\n  " + \
            "\n  and ".join(contradiction) + f"\nso it {failed}"
    elif moved is not None:  # the earlier line that placed the refused operand's axes
        at, op = trace.sites[moved.node], getattr(moved.op, "name", "the Op")
        operand = names.get(moved.operand) or "an operand"
        message = (f"eval_shape({name}): {at}\nplaced the axes of {operand} that {op} "
                   f"aligns; with its input {names.get(moved.before) or moved.before.type} "
                   f"in their place, {op} accepts it at every size\nso it {failed}")
    else:
        message = f"eval_shape({name}) {failed}"
    operands = failed_operands(exc)
    if operands:
        chain = operand_chain(operands, trace.sites, names)
        if chain:
            message += "\nwhere the operands come from:\n" + "\n".join(chain)
    if trace.path is not None and trace.path.taken:
        message += "\nin the case " + " and ".join(map(described, trace.path.taken))
    try:
        return type(exc)(message)
    except Exception:  # an exception class that does not take a message
        return TypeError(message)


class ChoiceConflict(TypeInferenceError):
    """What the code needs contradicts a build's choice (the sign a slice bound that is a
    size is read with, ``x[:3 - n]``): not a failure at every size, since the relation's
    other reading applies where ``needs`` (the code's other needs in the contradiction)
    hold, which :func:`eval_shape` gives the builds as facts to trace again."""

    def __init__(self, message: str, needs: tuple[Clause, ...]):
        super().__init__(message)
        self.needs = needs


class _Moved(NamedTuple):
    node: Apply  # the node whose line placed the axes
    op: Any  # the refused Op
    operand: Variable
    before: Variable


def _placed(exc: BaseException, trace: Trace, site: Site | None) -> _Moved | None:
    """The earlier node that placed an axis of the refused build's operand, with whose
    input in its place the Op accepts its operands at every size (see :mod:`.placing`);
    None if ``exc`` is not a refused build or there is none."""
    frame = refused_build(exc)
    if frame is None or site is None:
        return None
    op, inputs = frame.get("self"), frame.get("inputs")
    try:
        found = placed_refused(op, inputs, trace.sites, site.lineno)
    except Exception:  # noqa: BLE001 - a diagnosis only: never hide the user's error
        return None
    return None if found is None else _Moved(found.node, op, inputs[found.operand],
                                             found.before)


def _flatten(result: Any, fn: Any) -> tuple[Variable, ...]:
    values = result if isinstance(result, tuple | list) else (result,)
    for i, v in enumerate(values):
        if not isinstance(v, Variable):
            raise TypeError(f"eval_shape: {getattr(fn, '__qualname__', fn)} returned "
                            f"{type(v).__name__} (value {i}), not a symbolic tensor: it does "
                            "not depend on the inputs")
    return tuple(values)


def _names(fn: Any, count: int) -> list[str]:
    try:
        params = list(inspect.signature(fn).parameters)
    except (TypeError, ValueError):
        params = []
    return params[:count] if len(params) >= count else [f"x{i}" for i in range(count)]


def _run(fn: Callable[..., Any], in_types: list[TensorType], names: Sequence[str],
         kwargs: dict[str, Any], locator: Locator, path: Path, given: Facts) -> ShapeResult:
    """One run of ``fn`` on fresh symbolic inputs (whose sizes meet ``given``), answering
    comparisons as ``path``."""
    inputs = tuple(t(name) for t, name in zip(in_types, names, strict=True))
    if given:
        for x in inputs:
            x.facts = given
    trace = Trace(inputs, locator)
    trace.path = path
    try:
        with tracing(trace):
            result = fn(*inputs, **kwargs)
        if path.stopped is not None:  # caught by the code: what it did next is untyped
            raise path.stopped
        outputs = _flatten(result, fn)
    except BranchError:
        raise
    except Exception as exc:
        # the types it raised on may be an overload's choice's (see result.merged)
        choices = tuple(c for node in trace.sites for c in node.conditions if is_choice(c))
        path.chosen = (*path.limits, *choices)
        if path.stopped is None and own_limit(exc):  # not covered, never invalid
            path.limit = f"{type(exc).__name__}: {str(exc).splitlines()[0][:200]}"
        if choices:  # a build under a choice that what the code needs contradicts
            try:
                trace.name_operands()
                never = _never(fn, _found(trace, path, given))
                refuted = choice_refuted(exc, trace.sites, trace.names,
                                         trace.locator.failed_at(exc))
            except Exception:  # noqa: BLE001 - a diagnosis only: never hide the user's error
                never, refuted = None, None
            if isinstance(never, ChoiceConflict):
                raise never from exc
            if refuted:  # the refused Op's own needs contradict the choice
                error = _rethrow(fn, exc, trace)
                raise ChoiceConflict(str(error), refuted) from exc
        raise _rethrow(fn, exc, trace) from exc
    trace.name_operands()
    found = _found(trace, path, given)
    never = _never(fn, found)
    if never is not None:
        raise never
    inputs = tuple(trace.input(x) for x in inputs)
    graph = FunctionGraph(list(inputs), list(outputs), clone=False)
    out_types = tuple(_under(v.type, path.facts, found) for v in outputs)
    single = not isinstance(result, tuple | list)
    return ShapeResult(out_types[0] if single else out_types, inputs, outputs, graph,
                       conditions=tuple(path.taken),
                       assumptions=found,
                       sites=trace.sites, notes=trace.notes,
                       counts=count_bounds(trace.sites))


def _found(trace: Trace, path: Path, given: Facts) -> tuple[Clause, ...]:
    """What the code traced so far needs of the sizes, as the result reports it: less
    what the facts imply with the bounds of the masks' counts (``count <= n``: a need
    that holds at every count a mask can select is none)."""
    sames = same_axes(trace.sites, same_counts(trace.sites))
    needs = renamed(assumptions(trace.sites, trace.names), sames)
    counts = count_bounds(trace.sites)
    bounds = [Condition(unknown(k), op, b) for k, bounds in counts.items()
              for op, b in zip((">=", "<="), bounds, strict=True)]
    facts = path.facts.with_(*bounds) if counts else path.facts
    # (a bound as its cases, m >= 1 or A*B == 0, where the facts cannot read min(1, A*B))
    known = dict.fromkeys(renamed(
        [x for c in bounds if c.op == ">=" and c.right != 0 for x in tidy(c)], sames))
    return unimplied(assumed(needs, facts, given), facts, known)


def _never(fn: Any, found: tuple[Clause, ...]) -> TypeInferenceError | None:
    """The error where what the code needs at different lines no sizes meet together
    (:class:`ChoiceConflict` where a build's choice is one of them); None if they meet."""
    never = contradicting(found)
    if not never:
        return None
    name = getattr(fn, "__qualname__", repr(fn))
    text = f"eval_shape({name}): no sizes meet all of\n  " + \
        "\n  and ".join(contradicted(tuple(never)) or ())
    if any(map(is_choice, never)):
        return ChoiceConflict(text + "\nso it fails at every size where the build's choice "
                              "holds", tuple(c for c in never if not is_choice(c)))
    return TypeInferenceError(text + "\nso it fails at every size")


def _under(t: TensorType, facts: Facts, assumed: tuple[Clause, ...] = ()) -> TensorType:
    """``t`` with its sizes simplified where ``facts`` hold (a case's answers: ``L - 1``
    where ``L > 1`` was taken, not ``max(0, L - 1)``), and in their plainest form at
    every size (``n``, not ``n*min(1, n)``: :func:`~kantensor.types.tidysize.tidy_size`),
    or where the code's ``assumed`` conditions hold, case by case (a size the result
    only has where they hold: :func:`~kantensor.types.casewise.plainest_under`)."""
    if not isinstance(t, TensorType) or t.shape is None:
        return t
    shape = tuple(d if d is None or isinstance(d, int) else
                  plainest_under(tidy_size(facts.simplify(d) if facts else d), assumed,
                                 facts) for d in t.shape)
    return t if shape == t.shape else TensorType(t.dtype, shape)


def _shadowing(fn: Callable[..., Any], exc: Exception, **given: Any) -> Exception:
    """``exc`` (a bad value of eval_shape's own ``assume``, ``where`` or ``names``), saying
    how to pass it to ``fn`` instead where ``fn`` takes a parameter of that name."""
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return exc
    shadowed = [k for k, v in given.items() if k in params and v is not None
                and not (k == "assume" and v == "report")]
    if not shadowed:
        return exc
    k = shadowed[0]
    return type(exc)(f"{exc}\n({k}= is eval_shape's own keyword; to give "
                     f"{getattr(fn, '__qualname__', 'the function')}'s parameter {k}, "
                     f"trace functools.partial(fn, {k}=...) or a lambda)")


def _cases(fn: Callable[..., Any], in_types: list[TensorType], names: Sequence[str],
           kwargs: dict[str, Any], locator: Locator, given: Facts
           ) -> tuple[list[ShapeResult], list[Refusal]]:
    """The runs of ``fn`` under ``given``, one per case: those that typed, those refused."""
    cases: list[ShapeResult] = []
    refused: list[Refusal] = []
    for path, outcome in explore(
            lambda p: _run(fn, in_types, names, kwargs, locator, p, given), given):
        if isinstance(outcome, BaseException):
            refused.append(Refusal(tuple(path.taken), outcome, path.chosen, path.limit))
        else:
            cases.append(outcome)
    return cases, refused


def _under_needs(cases: list[ShapeResult], refused: list[Refusal], given: Facts
                 ) -> tuple[Facts, tuple[Clause, ...]] | None:
    """Where every case is refused and one only because what the code needs contradicts
    a build's choice (:class:`ChoiceConflict`), the facts to trace again under (``given``
    and those needs: the builds then read the other way) and the needs; else None."""
    if cases:
        return None
    conflict = next((r.error for r in refused if isinstance(r.error, ChoiceConflict)), None)
    if conflict is None or not conflict.needs:
        return None
    more = given.with_(*conflict.needs)
    return (more, conflict.needs) if more.consistent() else None


def _assuming(result: ShapeResult, needs: tuple[Clause, ...]) -> ShapeResult:
    """``result`` (and its cases) traced under ``needs`` as facts, which the code needs
    all the same: they are its first assumptions."""
    return dataclasses.replace(
        result, assumptions=tuple(dict.fromkeys(needs + result.assumptions)),
        cases=tuple(_assuming(c, needs) for c in result.cases))


#: What eval_shape does with an assumption: report it (the default), raise at the first
#: (``"error"``), or accept it silently (``"allow"``: named sizes taken to be whatever the
#: code needs, as before sizes were distinct).
ASSUME = ("report", "error", "allow")


def eval_shape(fn: Callable[..., Any], *types: TensorType | str,
               names: Sequence[str] | None = None, assume: str = "report",
               where: str | Clause | Iterable[Clause] | Facts | None = None,
               **kwargs: Any) -> ShapeResult:
    """Call ``fn`` on symbolic tensors of ``types`` (and the keyword arguments
    ``kwargs``, passed as they are) and return the output types and the graph it built
    (see :class:`ShapeResult`). Named sizes are distinct: what ``fn`` needs of them is
    reported as the result's ``assumptions`` (``assume="error"`` raises at the first,
    ``assume="allow"`` reports none); ``where`` gives what is known of the sizes
    (``"D == 2*N and T <= 1024"``, conditions or a :class:`~kantensor.Facts`), so
    that nothing it implies is an assumption. Where ``fn`` branches on sizes that
    nothing decides (``if L > 1:``), it runs once per case (see :mod:`.branches`).

    >>> import numpy as np, kantensor as kt
    >>> kt.eval_shape(lambda x, w: np.tanh(x @ w), "float32[n,3]", "float32[3,4]").type
    TensorType(float32, (n, 4))
    """
    try:
        if assume not in ASSUME:
            raise ValueError(f"eval_shape: assume must be one of {', '.join(ASSUME)}, got "
                             f"{assume!r}")
        given = facts_of(where)
        if names is not None and (isinstance(names, str) or not isinstance(
                names, Sequence) or not all(isinstance(n, str) for n in names)):
            raise TypeError(f"eval_shape: names= names the inputs (a sequence of str), got "
                            f"{names!r}")
    except (TypeError, ValueError) as exc:
        raise _shadowing(fn, exc, assume=assume, where=where, names=names) from None
    in_types = [_as_type(t, i) for i, t in enumerate(types)]
    names = _names(fn, len(in_types)) if names is None else list(names)
    own = own_package(fn)
    locator = Locator(own)
    kwargs = traced_kwargs(kwargs)
    found = reach(fn, own, tuple(kwargs.values()))
    with numpy_rules(), installed(found):  # NumPy's dtypes: Python floats float64, NEP 50
        cases, refused = _cases(fn, in_types, names, kwargs, locator, given)
        again = _under_needs(cases, refused, given)
        if again is not None:
            more, needs = again
            retried, refused_again = _cases(fn, in_types, names, kwargs, locator, more)
            if retried:
                cases = [_assuming(c, needs) for c in retried]
                refused = refused_again
    if not cases:
        raise refused[0].error
    result = cases[0] if len(cases) == 1 and not refused and not cases[0].conditions \
        else merged(cases, refused)
    if assume == "allow":
        return without_assumptions(result)
    if assume == "error":
        first = result.assumptions or next(
            (c.assumptions for c in result.cases if c.assumptions), ())
        if first:
            raise AssumptionError(fn, first[0])
    return result
