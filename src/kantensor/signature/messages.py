"""A failed solve in the user's words.

Built only from what the relation reports (:class:`~kantensor.logic.store.Reason`: the
failing where-clause and the values it saw, each operand's axis of a broadcast, the
dtype a category refused), never from a type computed beside it. A template Op's
builder may attach NumPy's sentence to a where-clause (``clause_messages``, see
:mod:`kantensor.ops.templates`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..logic.store import Reason
from ..syntax.alternative import Side
from ..types.type import TensorType
from .display import readable

__all__ = ["failure_message", "label", "summary"]


def summary(found: list) -> str:
    """The reasons of the failing alternatives in the solver's words, each after its
    alternative (one alone as it is)."""
    if len(found) == 1:
        return found[0][1]
    return "; ".join(dict.fromkeys(f"[{c.alt}] {reason}" for c, reason in found))


def failure_message(sig: Any, name: object, types: Sequence[TensorType],
                    found: list[tuple[Any, Reason]], label: str) -> str:
    """A failure in the user's words, built from the reasons the relation gave (the
    failing clause and its values, the axes of each operand). For an Op: NumPy's
    sentence first where there is one, then kantensor's extras (the Op, its signature,
    the operand types); overloads that fail alike are said once. For a bare signature
    (an Op author's): the signature, then the reason of each alternative."""
    if not name:
        said = [_in_words(r, "", types, {}) for _, r in found]
        if len(found) == 1:
            return f"{sig}: {said[0]}"
        return f"{sig}: " + "; ".join(dict.fromkeys(
            f"[{c.alt}] {words}" for (c, _), words in zip(found, said, strict=True)))
    messages = getattr(name, "clause_messages", None) or {}
    op = str(getattr(name, "name", name))
    shown = " and ".join(map(str, types)) if len(types) <= 2 else ", ".join(map(str, types))
    extras = f"\n  in {label}, on {shown}"
    said_by_clause = _category_messages(found, messages, types)
    if said_by_clause is not None:  # (the builder's sentence for a dtype no overload takes)
        return said_by_clause + extras
    if len(found) > 1 and {r.kind for _, r in found} == {"category"} and \
            len({(str(r.facts["got"]), r.facts["inputs"]) for _, r in found}) == 1:
        cats = " or ".join(dict.fromkeys(r.facts["category"] for _, r in found))
        return _needs(op, cats, found[0][1]) + extras
    if any(r.kind != "category" for _, r in found):  # an overload the dtypes fit says why
        found = [(c, r) for c, r in found if r.kind != "category"]
    said = list(dict.fromkeys(_in_words(r, op, types, messages) for _, r in found))
    if len(said) == 1:
        return said[0] + extras
    return (f"no overload of {op} accepts these operands ({len(found)} tried): "
            + "; ".join(said) + extras)


def _category_messages(found: list[tuple[Any, Reason]], messages: dict,
                       types: Sequence[TensorType]) -> str | None:
    """The one sentence the builder attached to the dtype clauses every overload failed
    (``np.linalg.inv`` of float16: "array type float16 is unsupported in linalg"), or
    None where a failure is no such clause or has none attached."""
    if not found or any(r.kind != "category" or r.facts.get("clause") not in messages
                        for _, r in found):
        return None
    said = {messages[r.facts["clause"]](r.facts, tuple(types)) for _, r in found}
    return said.pop() if len(said) == 1 else None


def _needs(op: str, categories: str, reason: Reason) -> str:
    """``bitwise_and needs integer or bool operands, got float32``, or for one input's
    own dtype ``take needs an integer or bool dtype for input 1, got float32``."""
    inputs = reason.facts["inputs"]
    if not inputs:
        return f"{op} needs {categories} operands, got {reason.facts['got']}"
    which = " and ".join(f"input {i}" for i in inputs)
    return f"{op} needs an {categories} dtype for {which}, got {reason.facts['got']}"


def _in_words(reason: Reason, op: str, types: Sequence[TensorType], messages: dict) -> str:
    """One reason in the user's words (``op`` empty: a bare signature's)."""
    if reason.kind == "clause" and reason.facts["clause"] in messages:
        return messages[reason.facts["clause"]](reason.facts["values"], tuple(types))
    if reason.kind == "broadcast":
        axes = reason.facts["axes"]
        involved = list(dict.fromkeys(i for i, _, _ in axes))
        named = " and ".join(str(types[i]) for i in involved if i < len(types))
        return f"operand{'s' * (len(involved) > 1)} {named} {reason.facts['said']}"
    if not op:
        return str(reason)
    if reason.kind == "core" and _gufunc_inputs(reason):
        (place, _, core), (was, size) = reason.facts["second"], reason.facts["sizes"]
        return (f"{op}: Input operand {place.index} has a mismatch in its core dimension "
                f"{core}, with gufunc signature {reason.facts['core']} (size {size} is "
                f"different from {was})\n  {reason}")
    if reason.kind == "category":
        return _needs(op, reason.facts["category"], reason)
    return f"{op}: {reason}"


def _gufunc_inputs(reason: Reason) -> bool:
    """Is a dimension's mismatch NumPy's gufunc one: between two inputs of an
    alternative with a loop prefix, both sizes known?"""
    first, second = reason.facts["first"], reason.facts["second"]
    return reason.facts["core"] is not None and first is not None and \
        all(seen[0].side is Side.INPUT for seen in (first, second)) and \
        all(isinstance(x, int) for x in reason.facts["sizes"])


def label(sig: Any, name: object) -> str:
    """How errors name the signature (built only when there is an error)."""
    return f"{name} {readable(sig)}" if name else str(sig)
