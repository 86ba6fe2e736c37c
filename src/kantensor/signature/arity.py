"""How many inputs and outputs a call may have: the one arity check of ``infer``
(make_node), ``query`` and the commands."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import lru_cache
from typing import Any

from ..syntax.alternative import Overloads
from ..syntax.errors import TypeInferenceError

__all__ = ["arities", "check_arity"]


def arities(sig: Overloads) -> frozenset[tuple[int, int]]:
    """The ``(inputs, outputs)`` counts of the alternatives of ``sig`` (counted once, when
    the signature is made)."""
    return sig.arities


@lru_cache(maxsize=4096)
def _input_counts(counts: frozenset[tuple[int, int]]) -> frozenset[int]:
    return frozenset(i for i, _ in counts)


def _plural(n: int, word: str) -> str:
    return f"{word}{'s' * (n != 1)}"


def check_arity(label: str | Callable[[], str], counts: Iterable[tuple[int, int]], n_in: int,
                n_out: int | None = None, signature: Any = None) -> None:
    """The one check of how many inputs (and outputs, when given) a call has, for
    ``infer``, ``query`` and the commands: TypeInferenceError (a TypeError) naming what
    ``label`` takes, else nothing. ``counts`` holds the ``(inputs, outputs)`` pairs that
    are allowed; ``label`` may be a function giving the name, called only on an error
    (naming a signature costs more than the check)."""
    counts = frozenset(counts)
    if n_out is None and n_in in _input_counts(counts):
        return
    if callable(label):
        label = label()
    ins = sorted({i for i, _ in counts})
    if n_in not in ins:
        raise TypeInferenceError(f"{label}: takes {' or '.join(map(str, ins))} "
                                 f"{_plural(ins[-1], 'input')}, got {n_in}",
                                 signature=signature)
    outs = sorted({o for i, o in counts if i == n_in})
    if n_out is not None and n_out not in outs:
        raise TypeInferenceError(f"{label}: gives {' or '.join(map(str, outs))} "
                                 f"{_plural(outs[-1], 'output')} for {n_in} "
                                 f"{_plural(n_in, 'input')}, got {n_out}",
                                 signature=signature)
