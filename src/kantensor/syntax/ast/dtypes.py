"""Dtype terms of the DSL: dtype names, dtype variables, promote/join/loopfloat and the one-argument
dtype functions (``float(T)``, ``real(T)``, any row of the vocabulary with role
DTYPE_FUNCTION and one argument: one node class for them all, :class:`DTypeFunction`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ..vocabulary import DTYPE_FUNCTIONS, JOIN, LOOPFLOAT, PROMOTE, Role, Word
from .names import DTYPE_NAMES, check_name, set_field

__all__ = ["DTYPE_CALLS", "DTYPE_TYPES", "DType", "DTypeFunction", "DTypeHole", "DTypeName",
           "DTypeVar",
           "Join", "LoopFloat", "Promote", "as_dtype", "dtype_call", "dtype_names"]


@dataclass(frozen=True)
class DTypeName:
    """A concrete dtype such as ``float32``."""

    name: str

    def __post_init__(self) -> None:
        if self.name not in DTYPE_NAMES:
            raise ValueError(f"unknown dtype name {self.name!r}")

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class DTypeVar:
    """A dtype variable ``T``."""

    name: str

    def __post_init__(self) -> None:
        check_name(self.name, "dtype variable")

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class DTypeHole:
    """A template's placeholder ``{name}`` standing for a dtype (see
    :mod:`kantensor.syntax.template`); an alternative never holds one."""

    name: str

    def __str__(self) -> str:
        return "{" + self.name + "}"


@dataclass(frozen=True)
class Promote:
    """``promote(T, U, ...)``: NumPy's result type of the arguments."""

    args: tuple[DType, ...]

    def __post_init__(self) -> None:
        set_field(self, "args", tuple(as_dtype(a) for a in self.args))
        if not self.args:
            raise ValueError("promote() needs at least one argument")

    #: True for ``join``: every argument ranks as a tensor (see :class:`Join`).
    joint: ClassVar[bool] = False
    #: True for ``loopfloat``: the float a float ufunc computes the promotion in.
    loop: ClassVar[bool] = False
    word: ClassVar[Word] = PROMOTE

    def __str__(self) -> str:
        return f"{self.word.text}({','.join(map(str, self.args))})"


@dataclass(frozen=True)
class Join(Promote):
    """``join(T, U, ...)``: the result type with every argument ranked as a tensor.

    Ops that put the values of all their inputs into one output (concatenate, stack)
    use it: a 0-d input is not demoted below the others as it is in arithmetic."""

    joint: ClassVar[bool] = True
    word: ClassVar[Word] = JOIN


@dataclass(frozen=True)
class LoopFloat(Promote):
    """``loopfloat(T, U, ...)``: the dtype a float ufunc (``sqrt``, ``arctan2``) computes
    its operands in, ranked as in ``promote``. Under kantensor's rules it is
    ``float(promote(T, U, ...))`` (PyTorch's: ``torch.sqrt`` of int8 is the default
    float); under NumPy's (``eval_shape``) the float NumPy's loops pick: ``np.sqrt`` of
    int8 is float16 (:func:`kantensor.types.numpyrules.loop_float_of`)."""

    loop: ClassVar[bool] = True
    word: ClassVar[Word] = LOOPFLOAT


@dataclass(frozen=True)
class DTypeFunction:
    """``f(T)`` for a one-argument dtype function of the vocabulary: ``word`` is its row
    (``FLOAT``, ``REAL``), which also keys its implementation in
    :data:`kantensor.types.dtypes.DTYPE_FUNCTIONS`. A new such function needs no node."""

    word: Word
    arg: DType

    def __post_init__(self) -> None:
        if not isinstance(self.word, Word) or self.word.role is not Role.DTYPE_FUNCTION \
                or self.word.arity != (1, 1):
            raise ValueError(f"not a one-argument dtype function: {self.word!r}")
        set_field(self, "arg", as_dtype(self.arg))

    def __str__(self) -> str:
        return f"{self.word.text}({self.arg})"


DTYPE_TYPES = (DTypeName, DTypeVar, Promote, DTypeFunction)
_VARIADIC: dict[Word, type[Promote]] = {node.word: node for node in (Promote, Join,
                                                                   LoopFloat)}
#: The node each dtype function of the vocabulary builds (one-argument ones: DTypeFunction).
DTYPE_CALLS: dict[Word, type[Promote] | type[DTypeFunction]] = {
    word: _VARIADIC.get(word, DTypeFunction) for word in DTYPE_FUNCTIONS}


def dtype_call(word: Word, args: list[DType]) -> DType:
    """The node of a call of dtype function ``word`` on ``args``."""
    node = DTYPE_CALLS[word]
    return node(tuple(args)) if issubclass(node, Promote) else DTypeFunction(word, *args)


def dtype_names(x: DType) -> list[str]:
    """The dtype variable names in a dtype term, in order of appearance."""
    kind = type(x)
    if kind is DTypeVar:  # (most terms: an operand's ``:T``, a category's ``T``)
        return [x.name]
    if kind is DTypeName:
        return []
    out, stack = [], [x]
    while stack:
        node = stack.pop()
        if isinstance(node, DTypeVar):
            out.append(node.name)
        elif isinstance(node, Promote):
            stack.extend(reversed(node.args))
        elif isinstance(node, DTypeFunction):
            stack.append(node.arg)
        elif isinstance(node, DTypeHole):
            raise ValueError(f"placeholder {node} outside a template")
    return out


def as_dtype(x: object) -> DType:
    """A dtype node; a str is a DTypeName if it names a dtype, else a DTypeVar."""
    if isinstance(x, str):
        return DTypeName(x) if x in DTYPE_NAMES else DTypeVar(x)
    if not isinstance(x, DTYPE_TYPES) and x.__class__ is not DTypeHole:
        raise TypeError(f"not a dtype: {x!r}")
    return x


DType = DTypeName | DTypeVar | Promote | Join | LoopFloat | DTypeFunction
