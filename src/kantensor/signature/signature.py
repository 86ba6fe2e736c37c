"""The public Signature: one or more alternatives (overloads) of the DSL."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

from ..syntax.alternative import Alternative, Loop, Overloads
from ..syntax.ast import Clause, TensorPattern
from ..syntax.parser import parse_alternatives
from ..types.dtypes import Priority
from ..types.type import TensorType
from .display import signature_html
from .forward import infer
from .solve import wrapped_flags

__all__ = ["Signature"]


class Signature(Overloads):
    """A signature: one or more alternatives (overloads), tried in order.

    ``Signature(inputs, outputs, where=(), loop=None)`` builds one alternative; ``loop`` is
    None, a :class:`~kantensor.syntax.alternative.Loop`, ``"+"``, ``"="`` or capped like
    ``"+2"`` (read back as a Loop and ``max_loop_dims``). ``Signature(alternatives=(...))`` takes
    Alternative objects; ``Signature(text)`` parses (so ``eval(repr(sig)) == sig``).
    ``Signature.parse(text)`` reads the text form; ``str(sig)`` is the canonical text, and
    ``Signature.parse(str(sig)) == sig``. A thin facade: the solver
    (:mod:`kantensor.signature.solve`) takes its :class:`Overloads`.
    """

    __slots__ = ()

    def __init__(
        self,
        inputs: Iterable[TensorPattern] | None = None,
        outputs: Iterable[TensorPattern] | None = None,
        where: Iterable[Clause] = (),
        loop: str | None = None,
        *,
        alternatives: Iterable[Alternative] | None = None,
    ) -> None:
        if isinstance(inputs, str):  # Signature("(m,n)->(m)"), so that eval(repr(sig)) works
            if outputs is not None or tuple(where) or loop is not None or alternatives:
                raise TypeError("Signature(text) takes no other arguments")
            alts = parse_alternatives(inputs)
        elif alternatives is not None:
            if inputs is not None or outputs is not None or tuple(where) or loop is not None:
                raise TypeError("pass either alternatives or inputs/outputs/where/loop")
            alts = tuple(alternatives)
        else:
            if outputs is None:
                raise TypeError("Signature() needs outputs (or alternatives)")
            kind, cap = _split_loop(loop)
            alts = (Alternative(tuple(inputs or ()), tuple(outputs), tuple(where), kind, cap),)
        super().__init__(alts)

    @classmethod
    def parse(cls, text: str) -> Signature:
        """Parse the text form; raises SignatureSyntaxError."""
        return cls(alternatives=parse_alternatives(text))

    def infer(self, input_types: Sequence[TensorType],
              priorities: Sequence[Priority] | None = None) -> tuple[TensorType, ...]:
        """Output TensorTypes for ``input_types`` (memoized); TypeInferenceError if none.

        A priority is derived from each input's rank; ``priorities`` may only say which
        inputs are wrapped Python numbers (``Priority.WRAPPED``), as a Constant's
        ``wrapped`` flag does (the priority is part of the input's term, §7).
        """
        return infer(self, input_types, wrapped_flags(input_types, priorities))

    def __reduce__(self) -> tuple[Any, ...]:
        return (_signature_from_alternatives, (self.alternatives,))

    inputs = property(lambda self: self.alternatives[0].inputs, doc="First alternative's.")
    outputs = property(lambda self: self.alternatives[0].outputs, doc="First alternative's.")
    where = property(lambda self: self.alternatives[0].where, doc="First alternative's.")
    loop = property(lambda self: self.alternatives[0].loop, doc="First alternative's.")
    max_loop_dims = property(
        lambda self: self.alternatives[0].max_loop_dims, doc="First alternative's."
    )

    def __repr__(self) -> str:
        return f"Signature({str(self)!r})"

    def _repr_html_(self) -> str:
        return signature_html(self)



def _signature_from_alternatives(alternatives: tuple[Alternative, ...]) -> Signature:
    return Signature(alternatives=alternatives)


def _split_loop(loop: str | Loop | None) -> tuple[Loop | None, int | None]:
    if loop is None or isinstance(loop, Loop):
        return loop, None
    if isinstance(loop, str) and re.fullmatch(r"[+=][0-9]*", loop):
        return Loop(loop[0]), int(loop[1:]) if loop[1:] else None
    raise ValueError(f"loop must be None, a Loop, '+', '=', '+N' or '=N', got {loop!r}")


# --------------------------------------------------------------------------- helpers
