"""AST of the signature DSL: frozen, hashable dataclasses with structural ``==``.

``str(node)`` is the node's canonical text; ``Signature.parse(str(sig)) == sig`` holds for
every Signature (the constructors reject objects whose text would not parse back).
Dim variables support ``+ - * // %`` (with ints too), so ``n - k + 1`` builds the same
tree as the text ``n-k+1``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any, ClassVar

from .limits import check_ast_nesting

__all__ = [
    "CATEGORIES", "CMP_OPS", "DTYPE_NAMES", "RESERVED",
    "DimVar", "FixedDim", "FlexDim", "AnonGroup", "AnyGroup", "NamedGroup", "BinOp", "Call",
    "DTypeName", "DTypeVar", "Promote", "FloatOf", "RealOf",
    "TensorPattern", "Compare", "InCategory", "DTypeEq", "Compatible", "Alternative",
    "Signature", "DimExpr", "DimItem", "DType", "Clause",
    "dim_vars", "dtype_vars", "dim_min", "dim_max",
]  # fmt: skip

DTYPE_NAMES = frozenset(
    "bool int8 int16 int32 int64 uint8 uint16 uint32 uint64 "
    "float16 float32 float64 complex64 complex128".split()
)
CATEGORIES = frozenset("bool integer signed unsigned floating complex inexact number".split())
RESERVED = frozenset("where in min max promote float real compatible".split())
CMP_OPS = frozenset({"==", "!=", "<", "<=", ">", ">="})
_PREC = {"+": 1, "-": 1, "*": 2, "//": 2, "%": 2}
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _check_name(name: object, what: str, *, dtype_ok: bool = False) -> None:
    if not isinstance(name, str) or not _IDENT.fullmatch(name):
        raise ValueError(f"{what} name must be an identifier, got {name!r}")
    if name in RESERVED:
        raise ValueError(f"{name!r} is a reserved word and cannot name a {what}")
    if name in DTYPE_NAMES and not dtype_ok:
        raise ValueError(f"{name!r} is a dtype name and cannot name a {what}")


def _set(obj: object, name: str, value: object) -> None:
    object.__setattr__(obj, name, value)


# --------------------------------------------------------------------------- dims


class _Arith:
    """``+ - * // %`` (and reflected, with ints) building :class:`BinOp`."""

    __slots__ = ()

    def _op(self, op: str, other: object, reflected: bool = False) -> BinOp:
        if isinstance(other, bool) or not isinstance(other, (int, *_EXPR_TYPES)):
            return NotImplemented
        return BinOp(op, other, self) if reflected else BinOp(op, self, other)

    def __add__(self, o: object) -> BinOp: return self._op("+", o)
    def __radd__(self, o: object) -> BinOp: return self._op("+", o, True)
    def __sub__(self, o: object) -> BinOp: return self._op("-", o)
    def __rsub__(self, o: object) -> BinOp: return self._op("-", o, True)
    def __mul__(self, o: object) -> BinOp: return self._op("*", o)
    def __rmul__(self, o: object) -> BinOp: return self._op("*", o, True)
    def __floordiv__(self, o: object) -> BinOp: return self._op("//", o)
    def __rfloordiv__(self, o: object) -> BinOp: return self._op("//", o, True)
    def __mod__(self, o: object) -> BinOp: return self._op("%", o)
    def __rmod__(self, o: object) -> BinOp: return self._op("%", o, True)  # fmt: skip


@dataclass(frozen=True)
class DimVar(_Arith):
    """A dim variable ``n``, shared by every operand of an alternative."""

    name: str

    def __post_init__(self) -> None:
        _check_name(self.name, "dim")

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class FixedDim(_Arith):
    """A fixed size ``3``."""

    size: int

    def __post_init__(self) -> None:
        if isinstance(self.size, bool) or not isinstance(self.size, int) or self.size < 0:
            raise ValueError(f"a fixed dim must be an int >= 0, got {self.size!r}")

    def __str__(self) -> str:
        return str(self.size)


@dataclass(frozen=True)
class BinOp(_Arith):
    """``left op right`` with op in ``+ - * // %``; ints are wrapped as FixedDim."""

    op: str
    left: DimExpr
    right: DimExpr

    def __post_init__(self) -> None:
        if self.op not in _PREC:
            raise ValueError(f"unknown dim operator {self.op!r}")
        _set(self, "left", _expr(self.left))
        _set(self, "right", _expr(self.right))

    def __str__(self) -> str:
        p = _PREC[self.op]
        # Left-associative: parenthesize a lower-precedence left operand and a right
        # operand of the same or lower precedence.
        left = _paren(self.left, _prec(self.left) < p)
        right = _paren(self.right, _prec(self.right) <= p)
        return f"{left}{self.op}{right}"


@dataclass(frozen=True)
class Call(_Arith):
    """``min(a, b, ...)`` or ``max(a, b, ...)``."""

    fn: str
    args: tuple[DimExpr, ...]

    def __post_init__(self) -> None:
        if self.fn not in ("min", "max"):
            raise ValueError(f"unknown dim function {self.fn!r}")
        _set(self, "args", tuple(_expr(a) for a in self.args))
        if not self.args:
            raise ValueError(f"{self.fn}() needs at least one argument")

    def __str__(self) -> str:
        return f"{self.fn}({','.join(map(str, self.args))})"


_EXPR_TYPES = (DimVar, FixedDim, BinOp, Call)


def _expr(x: object) -> DimExpr:
    if isinstance(x, int) and not isinstance(x, bool):
        return FixedDim(x)
    if not isinstance(x, _EXPR_TYPES):
        raise TypeError(f"not a dim expression: {x!r}")
    return x


def _prec(x: DimExpr) -> int:
    return _PREC[x.op] if isinstance(x, BinOp) else 3


def _paren(x: DimExpr, needed: bool) -> str:
    return f"({x})" if needed else str(x)


def dim_min(*args: DimExpr | int) -> Call:
    """``min(args...)`` as a dim expression."""
    return Call("min", args)  # type: ignore[arg-type]


def dim_max(*args: DimExpr | int) -> Call:
    """``max(args...)`` as a dim expression."""
    return Call("max", args)  # type: ignore[arg-type]


@dataclass(frozen=True)
class FlexDim:
    """NumPy's flexible dim ``n?``: present in all operands using it, or in none."""

    name: str

    def __post_init__(self) -> None:
        _check_name(self.name, "dim")

    def __str__(self) -> str:
        return f"{self.name}?"


@dataclass(frozen=True)
class AnonGroup:
    """``.k.``: a group of exactly k >= 1 anonymous dims."""

    k: int

    def __post_init__(self) -> None:
        if isinstance(self.k, bool) or not isinstance(self.k, int) or self.k < 1:
            raise ValueError(f"an anonymous group needs an int k >= 1, got {self.k!r}")

    def __str__(self) -> str:
        return f".{self.k}."


@dataclass(frozen=True)
class AnyGroup:
    """``...``: one group of dims of any length, the same group in every operand."""

    def __str__(self) -> str:
        return "..."


@dataclass(frozen=True)
class NamedGroup:
    """``*name``: a named group of dims of any length."""

    name: str

    def __post_init__(self) -> None:
        _check_name(self.name, "group")

    def __str__(self) -> str:
        return f"*{self.name}"


# --------------------------------------------------------------------------- dtypes


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
        _check_name(self.name, "dtype variable")

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class Promote:
    """``promote(T, U, ...)``: NumPy's result type of the arguments."""

    args: tuple[DType, ...]

    def __post_init__(self) -> None:
        _set(self, "args", tuple(_dtype(a) for a in self.args))
        if not self.args:
            raise ValueError("promote() needs at least one argument")

    def __str__(self) -> str:
        return f"promote({','.join(map(str, self.args))})"


@dataclass(frozen=True)
class DTypeFunction:
    """A one-argument dtype function; ``function`` names it in the text form and in
    :data:`kantensor.logic.dtypes.DTYPE_FUNCTIONS`."""

    arg: DType
    function: ClassVar[str] = ""

    def __post_init__(self) -> None:
        _set(self, "arg", _dtype(self.arg))

    def __str__(self) -> str:
        return f"{self.function}({self.arg})"


@dataclass(frozen=True)
class FloatOf(DTypeFunction):
    """``float(T)``: T if it is inexact, else the default float."""

    function: ClassVar[str] = "float"


@dataclass(frozen=True)
class RealOf(DTypeFunction):
    """``real(T)``: the real dtype of T's precision (complex64 -> float32), else T."""

    function: ClassVar[str] = "real"


_DTYPE_TYPES = (DTypeName, DTypeVar, Promote, DTypeFunction)


def _dtype(x: object) -> DType:
    """A dtype node; a str is a DTypeName if it names a dtype, else a DTypeVar."""
    if isinstance(x, str):
        return DTypeName(x) if x in DTYPE_NAMES else DTypeVar(x)
    if not isinstance(x, _DTYPE_TYPES):
        raise TypeError(f"not a dtype: {x!r}")
    return x


# --------------------------------------------------------------------------- operands, clauses

_ITEM_TYPES = (*_EXPR_TYPES, FlexDim, AnonGroup, AnyGroup, NamedGroup)


@dataclass(frozen=True)
class TensorPattern:
    """One operand: ``(dims...)`` with an optional ``:dtype``."""

    dims: tuple[DimItem, ...]
    dtype: DType | None = None

    def __post_init__(self) -> None:
        dims = tuple(_item(d) for d in self.dims)
        if sum(isinstance(d, AnyGroup) for d in dims) > 1:
            raise ValueError("an operand may contain at most one '...'")
        _set(self, "dims", dims)
        if self.dtype is not None:
            _set(self, "dtype", _dtype(self.dtype))

    def __str__(self) -> str:
        dtype = "" if self.dtype is None else f":{self.dtype}"
        return f"({','.join(map(str, self.dims))}){dtype}"


def _item(x: object) -> DimItem:
    if isinstance(x, int) and not isinstance(x, bool):
        return FixedDim(x)
    if not isinstance(x, _ITEM_TYPES):
        raise TypeError(f"not a dim: {x!r}")
    return x


@dataclass(frozen=True)
class Compare:
    """A dim comparison ``left op right``, op in ``== != < <= > >=``."""

    op: str
    left: DimExpr
    right: DimExpr

    def __post_init__(self) -> None:
        if self.op not in CMP_OPS:
            raise ValueError(f"unknown comparison {self.op!r}")
        _set(self, "left", _expr(self.left))
        _set(self, "right", _expr(self.right))

    def __str__(self) -> str:
        return f"{self.left} {self.op} {self.right}"


@dataclass(frozen=True)
class InCategory:
    """``T in CATEGORY`` (any dtype term is accepted on the left)."""

    dtype: DType
    category: str

    def __post_init__(self) -> None:
        _set(self, "dtype", _dtype(self.dtype))
        if self.category not in CATEGORIES:
            raise ValueError(f"unknown dtype category {self.category!r}")

    def __str__(self) -> str:
        return f"{self.dtype} in {self.category}"


@dataclass(frozen=True)
class DTypeEq:
    """``T == U`` between dtypes."""

    left: DType
    right: DType

    def __post_init__(self) -> None:
        _set(self, "left", _dtype(self.left))
        _set(self, "right", _dtype(self.right))

    def __str__(self) -> str:
        return f"{self.left} == {self.right}"


@dataclass(frozen=True)
class Compatible:
    """``compatible(T, U)``: the two dtypes can be cast safely."""

    left: DType
    right: DType

    def __post_init__(self) -> None:
        _set(self, "left", _dtype(self.left))
        _set(self, "right", _dtype(self.right))

    def __str__(self) -> str:
        return f"compatible({self.left},{self.right})"


_CLAUSE_TYPES = (Compare, InCategory, DTypeEq, Compatible)


@dataclass(frozen=True)
class Alternative:
    """One overload: ``[loop] inputs -> outputs [where clauses]``.

    ``loop`` is None (no loop dims), ``"+"`` (broadcast) or ``"="`` (equal);
    ``max_loop_dims`` caps the number of loop dims.
    """

    inputs: tuple[TensorPattern, ...]
    outputs: tuple[TensorPattern, ...]
    where: tuple[Clause, ...] = ()
    loop: str | None = None
    max_loop_dims: int | None = None

    def __post_init__(self) -> None:
        check_ast_nesting(self)  # before anything walks the expressions recursively
        for attr, types in (("inputs", TensorPattern), ("outputs", TensorPattern),
                            ("where", _CLAUSE_TYPES)):  # fmt: skip
            items = tuple(getattr(self, attr))
            for x in items:
                if not isinstance(x, types):
                    raise TypeError(f"{attr} must hold {types}, got {x!r}")
            _set(self, attr, items)
        if not self.outputs:
            raise ValueError("a signature needs at least one output")
        if self.loop not in (None, "+", "="):
            raise ValueError(f"loop must be None, '+' or '=', got {self.loop!r}")
        cap = self.max_loop_dims
        if cap is not None and (
            self.loop is None or isinstance(cap, bool) or not isinstance(cap, int) or cap < 0
        ):
            raise ValueError("max_loop_dims must be an int >= 0 and needs a loop prefix")
        _check_kinds(self)

    def __str__(self) -> str:
        loop = (self.loop or "") + ("" if self.max_loop_dims is None else str(self.max_loop_dims))
        text = f"{loop}{','.join(map(str, self.inputs))}->{','.join(map(str, self.outputs))}"
        return text + (" where " + ", ".join(map(str, self.where)) if self.where else "")


# --------------------------------------------------------------------------- name kinds


def _expr_names(x: DimExpr) -> Iterator[str]:
    if isinstance(x, DimVar):
        yield x.name
    elif isinstance(x, BinOp):
        yield from _expr_names(x.left)
        yield from _expr_names(x.right)
    elif isinstance(x, Call):
        for a in x.args:
            yield from _expr_names(a)


def _dtype_names(x: DType) -> Iterator[str]:
    if isinstance(x, DTypeVar):
        yield x.name
    elif isinstance(x, Promote):
        for a in x.args:
            yield from _dtype_names(a)
    elif isinstance(x, DTypeFunction):
        yield from _dtype_names(x.arg)


def _is_bare(x: DType) -> bool:
    return isinstance(x, (DTypeVar, DTypeName))


def _check_kinds(alt: Alternative) -> None:
    """Reject what the text form could not express: one name used as two kinds, and a
    ``T == U`` the parser would read as a dim comparison (see ``resolve_dtype_names``)."""
    uses: list[tuple[str, str]] = []
    pairs: list[tuple[str, str]] = []
    for op in (*alt.inputs, *alt.outputs):
        for d in op.dims:
            if isinstance(d, FlexDim):
                uses.append((d.name, "flex"))
            elif isinstance(d, NamedGroup):
                uses.append((d.name, "group"))
            elif isinstance(d, _EXPR_TYPES):
                uses.extend((n, "dim") for n in _expr_names(d))
        if op.dtype is not None:
            uses.extend((n, "dtype") for n in _dtype_names(op.dtype))
    for c in alt.where:
        if isinstance(c, Compare):
            uses.extend((n, "dim") for n in (*_expr_names(c.left), *_expr_names(c.right)))
        elif isinstance(c, InCategory):
            uses.extend((n, "dtype") for n in _dtype_names(c.dtype))
        elif isinstance(c, DTypeEq) and _is_bare(c.left) and _is_bare(c.right):
            pairs.append((c.left.name, c.right.name))
        else:
            uses.extend((n, "dtype") for n in (*_dtype_names(c.left), *_dtype_names(c.right)))
    kinds: dict[str, str] = {}
    for name, kind in uses + [(n, "dtype") for p in pairs for n in p]:
        if kinds.setdefault(name, kind) != kind:
            raise ValueError(f"{name!r} is used both as a {KIND_TEXT[kinds[name]]} "
                             f"and as a {KIND_TEXT[kind]}")  # fmt: skip
    known = resolve_dtype_names({n for n, k in uses if k == "dtype"}, pairs)
    for a, b in pairs:
        if a not in known:
            raise ValueError(
                f"'{a} == {b}' would read as a dim comparison: use {a} or {b} as a dtype "
                "elsewhere in the alternative (an operand dtype, 'in', compatible(), ...)"
            )


KIND_TEXT = {
    "dim": "dimension",
    "flex": "flexible dimension 'name?'",
    "group": "named group '*name'",
    "dtype": "dtype variable",
}


def resolve_dtype_names(known: Iterable[str], pairs: Iterable[tuple[str, str]]) -> set[str]:
    """The names that are dtypes: ``known`` and dtype names, plus, through the ambiguous
    ``a == b`` clauses in ``pairs``, every name equated with one of those."""
    known = set(known) | DTYPE_NAMES
    graph: dict[str, list[str]] = {}
    for a, b in pairs:
        graph.setdefault(a, []).append(b)
        graph.setdefault(b, []).append(a)
    todo = [n for n in graph if n in known]
    while todo:
        for m in graph[todo.pop()]:
            if m not in known:
                known.add(m)
                todo.append(m)
    return known


# --------------------------------------------------------------------------- signature


class Signature:
    """A signature: one or more alternatives (overloads), tried in order.

    ``Signature(inputs, outputs, where=(), loop=None)`` builds one alternative; ``loop`` is
    None, ``"+"``, ``"="`` or capped like ``"+2"``. ``Signature(alternatives=(...))`` takes
    Alternative objects; ``Signature(text)`` parses (so ``eval(repr(sig)) == sig``).
    ``Signature.parse(text)`` reads the text form; ``str(sig)`` is the canonical text, and
    ``Signature.parse(str(sig)) == sig``.
    """

    __slots__ = ("alternatives", "_hash")
    alternatives: tuple[Alternative, ...]

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
            alts = Signature.parse(inputs).alternatives
        elif alternatives is not None:
            if inputs is not None or outputs is not None or tuple(where) or loop is not None:
                raise TypeError("pass either alternatives or inputs/outputs/where/loop")
            alts = tuple(alternatives)
            if not alts or not all(isinstance(a, Alternative) for a in alts):
                raise TypeError("alternatives must be a non-empty sequence of Alternative")
        else:
            if outputs is None:
                raise TypeError("Signature() needs outputs (or alternatives)")
            kind, cap = _split_loop(loop)
            alts = (Alternative(tuple(inputs or ()), tuple(outputs), tuple(where), kind, cap),)
        object.__setattr__(self, "alternatives", alts)
        object.__setattr__(self, "_hash", hash(alts))  # immutable: hash once (a cache key)

    @classmethod
    def parse(cls, text: str) -> Signature:
        """Parse the text form; raises SignatureSyntaxError."""
        from .parser import parse_signature

        return parse_signature(text)

    def infer(self, input_types: Any, priorities: Any = None) -> tuple:
        """Output TensorTypes for ``input_types`` (memoized); TypeInferenceError if none.

        ``priorities`` gives each input's promotion priority (default: by ndim).
        """
        from .solve import infer

        return infer(self, input_types, priorities)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("Signature is immutable")

    def __delattr__(self, name: str) -> None:
        raise AttributeError("Signature is immutable")

    def __reduce__(self) -> tuple[Any, ...]:
        return (_signature_from_alternatives, (self.alternatives,))

    inputs = property(lambda self: self.alternatives[0].inputs, doc="First alternative's.")
    outputs = property(lambda self: self.alternatives[0].outputs, doc="First alternative's.")
    where = property(lambda self: self.alternatives[0].where, doc="First alternative's.")
    loop = property(lambda self: self.alternatives[0].loop, doc="First alternative's.")
    max_loop_dims = property(
        lambda self: self.alternatives[0].max_loop_dims, doc="First alternative's."
    )

    def __str__(self) -> str:
        return " | ".join(map(str, self.alternatives))

    def __repr__(self) -> str:
        return f"Signature({str(self)!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Signature):
            return NotImplemented
        return self.alternatives == other.alternatives

    def __hash__(self) -> int:
        return self._hash


def _signature_from_alternatives(alternatives: tuple[Alternative, ...]) -> Signature:
    return Signature(alternatives=alternatives)


def _split_loop(loop: str | None) -> tuple[str | None, int | None]:
    if loop is None:
        return None, None
    if isinstance(loop, str) and re.fullmatch(r"[+=][0-9]*", loop):
        return loop[0], int(loop[1:]) if loop[1:] else None
    raise ValueError(f"loop must be None, '+', '=', '+N' or '=N', got {loop!r}")


# --------------------------------------------------------------------------- helpers


def _names(names: str | Iterable[str]) -> list[str]:
    return names.replace(",", " ").split() if isinstance(names, str) else list(names)


def dim_vars(names: str | Iterable[str]) -> tuple[DimVar, ...]:
    """``dim_vars("m n p")`` -> ``(DimVar('m'), DimVar('n'), DimVar('p'))``."""
    return tuple(DimVar(n) for n in _names(names))


def dtype_vars(names: str | Iterable[str]) -> tuple[DTypeVar, ...]:
    """``dtype_vars("x y")`` -> ``(DTypeVar('x'), DTypeVar('y'))``."""
    return tuple(DTypeVar(n) for n in _names(names))


DimExpr = DimVar | FixedDim | BinOp | Call
DimItem = DimExpr | FlexDim | AnonGroup | AnyGroup | NamedGroup
DType = DTypeName | DTypeVar | Promote | FloatOf | RealOf
Clause = Compare | InCategory | DTypeEq | Compatible
