"""Graphs written as text, for the ``refine`` command: ``tanh(x @ W)``.

The text is Python syntax, read with :mod:`ast` and interpreted here, never evaluated:
only names, numbers, strings (parameters: ``einsum('ij,jk->ik', a, b)``,
``x.astype('int8')``), the operators of tensors (``+ - * / // % ** @ & | ^ ~``), calls
of catalogue Ops (``tanh(h)``, ``sum(h, axis=1)``, ``concatenate([a, b])``), the
methods of tensors (``h.reshape(3, -1)``), ``.T``/``.mT``, ``.shape`` (whose entries are
sizes, ``zeros((x.shape[0], 5))``), ``.size``, ``.ndim`` and indexing with ints and
slices. Statements are separated by ``;``: ``h = x @ W; y = tanh(h)``, and sizes may be
named too (``B, T, C = x.shape``); the value of the last one (an expression or the name
it assigns) is the graph's output, several if it is a tuple. Names are inputs (their
types given beside the text), names assigned before, or (in a notebook) Variables of
the user's namespace.
"""

from __future__ import annotations

import ast
import operator
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .graph.basic import Variable
from .ops import CATALOGUE, nearest_op
from .syntax.limits import MAX_EXPONENT
from .types.dim import Dim
from .types.dtypes import DTYPES
from .types.limits import check_terms
from .types.type import TensorType
from .types.variable import METHODS

__all__ = ["GraphText", "GraphTextError", "MAX_GRAPH_NESTING", "MAX_GRAPH_SEQUENCE",
           "MAX_GRAPH_TEXT", "read_graph"]

#: Longest graph text read (the parser's time and memory stay small).
MAX_GRAPH_TEXT = 10_000
#: Deepest nesting of expressions read (the reader recurses along it).
MAX_GRAPH_NESTING = 200
#: Most items of a tuple or list the text makes by repetition (``(0,)*n``).
MAX_GRAPH_SEQUENCE = 1_000
#: Most bits of a Python int the text computes (``2**64``; ``3**10**8`` would take minutes).
MAX_INT_BITS = 4096

_BINARY: dict[type, Callable[[Any, Any], Any]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
    ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod,
    ast.Pow: operator.pow, ast.MatMult: operator.matmul, ast.BitAnd: operator.and_,
    ast.BitOr: operator.or_, ast.BitXor: operator.xor,
}
_UNARY: dict[type, Callable[[Any], Any]] = {
    ast.USub: operator.neg, ast.UAdd: operator.pos, ast.Invert: operator.invert,
}
_COMPARE: dict[type, Callable[[Any, Any], Any]] = {
    ast.Lt: operator.lt, ast.LtE: operator.le, ast.Gt: operator.gt, ast.GtE: operator.ge,
    ast.Eq: operator.eq, ast.NotEq: operator.ne,
}
_ATTRIBUTES = ("T", "mT", "real", "imag", "shape", "size", "ndim")


class GraphTextError(ValueError):
    """Graph text that cannot be read: the message and the offset of the culprit."""

    def __init__(self, message: str, position: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.position = position


@dataclass
class GraphText:
    """A graph read from text: its outputs and every name it defines or uses."""

    outputs: list[Variable]
    names: dict[str, Variable] = field(default_factory=dict)


def read_graph(text: str, types: Mapping[str, TensorType],
               namespace: Mapping[str, Any] | None = None) -> GraphText:
    """Build the graph that ``text`` describes.

    ``types`` gives the input names their types; ``namespace`` (a notebook's) supplies
    Variables for the other names.
    """
    if len(text) > MAX_GRAPH_TEXT:
        raise GraphTextError(f"graph text too long: {len(text)} characters (at most "
                             f"{MAX_GRAPH_TEXT})")
    try:
        tree = ast.parse(text, mode="exec")
    except SyntaxError as exc:
        offset = (exc.offset or 1) - 1 if exc.lineno == 1 else None
        raise GraphTextError(f"cannot read the graph: {exc.msg}", offset) from None
    except (RecursionError, MemoryError, ValueError):
        raise GraphTextError("cannot read the graph: too deeply nested") from None
    if not tree.body:
        raise GraphTextError("no graph: write an expression such as tanh(x @ W)", 0)
    _check_nesting(tree)
    reader = _Reader(types, namespace or {})
    value: Any = None
    for statement in tree.body:
        value = reader.statement(statement)
    outputs = list(value) if isinstance(value, tuple) else [value]
    for out in outputs:
        if not isinstance(out, Variable):
            raise GraphTextError(f"the graph's output must be a tensor, got {out!r}")
    return GraphText(outputs, reader.names)


class _Reader:
    def __init__(self, types: Mapping[str, TensorType], namespace: Mapping[str, Any]):
        self.types = types
        self.namespace = namespace
        self.names: dict[str, Variable] = {}
        self.sizes: dict[str, int | Dim] = {}  # names assigned a size (B, T = x.shape)

    def statement(self, node: ast.stmt) -> Any:
        if isinstance(node, ast.Expr):
            return self.expr(node.value)
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            value = self.expr(node.value)
            if isinstance(target, ast.Name):
                self._assign(target.id, value, node)
                return value
            if isinstance(target, ast.Tuple) and all(isinstance(t, ast.Name)
                                                     for t in target.elts):
                if not isinstance(value, tuple | list) or len(value) != len(target.elts):
                    raise _error(f"cannot unpack {value!r} into {len(target.elts)} names",
                                 node)
                for t, v in zip(target.elts, value, strict=True):
                    self._assign(t.id, v, t)
                return value
        raise _error("expected an expression, NAME = expression or A, B = x.shape", node)

    def _assign(self, name: str, value: Any, node: ast.AST) -> None:
        """``name = value``: a tensor (named after it) or a size (``B, T = x.shape``)."""
        if isinstance(value, Variable):
            if value.name is None:
                value.name = name
            self.names[name] = value
        elif isinstance(value, int | Dim) and not isinstance(value, bool):
            self.sizes[name] = value
        else:
            raise _error(f"{name} must be assigned a tensor or a size, got {value!r}", node)

    def expr(self, node: ast.expr) -> Any:
        method = getattr(self, f"_{type(node).__name__}", None)
        if method is None:
            raise _error(f"{_kind(node)} is not part of the graph language (names, numbers, "
                         "operators, calls of Ops, methods, indexing)", node)
        return method(node)

    def _Name(self, node: ast.Name) -> Any:
        name = node.id
        if name in self.names:
            return self.names[name]
        if name in self.sizes:
            return self.sizes[name]
        if name in self.types:
            self.names[name] = self.types[name](name)
            return self.names[name]
        found = self.namespace.get(name)
        if isinstance(found, Variable):
            self.names[name] = found
            return found
        if name in DTYPES:  # x.astype(int8): NumPy's np.int8, not a name of the graph
            raise _error(f"{name} is a dtype: write it as a string, '{name}'", node)
        raise _error(f"{name} has no type: give it one, as {name}:float32[3,?]", node)

    def _Constant(self, node: ast.Constant) -> Any:
        if isinstance(node.value, bool | int | float | complex | str) or node.value is None:
            return node.value  # a string is a parameter's: einsum('ij->j', x), dtype='int8'
        raise _error(f"{node.value!r} is neither a number nor a string", node)

    def _BinOp(self, node: ast.BinOp) -> Any:
        op = _BINARY.get(type(node.op))
        if op is None:  # pragma: no cover - every Python binary operator is listed
            raise _error("unsupported operator", node)
        left, right = self.expr(node.left), self.expr(node.right)
        if op is operator.pow and type(right) is int:
            # (n + 1)**10**6 or 3**10**8 would take minutes (an int must fit int64 anyway)
            if isinstance(left, Dim) and right > MAX_EXPONENT:
                raise _error(f"exponent {right} is too large for a size (at most "
                             f"{MAX_EXPONENT})", node)
            if type(left) is int and abs(left) > 1 and \
                    right * abs(left).bit_length() > MAX_INT_BITS:
                raise _error(f"{ast.unparse(node)} is too large: a Python int in a graph "
                             f"holds at most {MAX_INT_BITS} bits (a tensor's, 64)", node)
        if op is operator.mul:  # (0,)*10**10: refused before it is allocated
            for seq, times in ((left, right), (right, left)):
                if isinstance(seq, tuple | list) and isinstance(times, int) and \
                        len(seq) * max(times, 0) > MAX_GRAPH_SEQUENCE:
                    raise _error(f"{ast.unparse(node)} is too long: a sequence in a graph "
                                 f"holds at most {MAX_GRAPH_SEQUENCE} items", node)
        result = self._apply(op, [left, right], {}, node)
        if isinstance(result, Dim):  # x.shape[0] * 2: a size expression, within limits
            try:
                check_terms(result, "a size expression")
            except ValueError as exc:
                raise _error(f"{ast.unparse(node)}: {exc}", node) from None
        return result

    def _UnaryOp(self, node: ast.UnaryOp) -> Any:
        op = _UNARY.get(type(node.op))
        if op is None:
            raise _error("`not` has no meaning on tensors; use logical_not(x)", node)
        value = self.expr(node.operand)
        if isinstance(value, int | float | complex) and op is operator.neg:
            return -value
        return self._apply(op, [value], {}, node)

    def _Compare(self, node: ast.Compare) -> Any:
        op = _COMPARE.get(type(node.ops[0]))
        if len(node.ops) != 1 or op is None:
            raise _error("one comparison at a time (<, <=, >, >=, ==, !=)", node)
        return self._apply(op, [self.expr(node.left), self.expr(node.comparators[0])], {},
                           node)

    def _Tuple(self, node: ast.Tuple) -> tuple:
        return tuple(self.expr(e) for e in node.elts)

    def _List(self, node: ast.List) -> list:
        return [self.expr(e) for e in node.elts]

    def _Slice(self, node: ast.Slice) -> slice:
        parts = [None if p is None else self.expr(p) for p in (node.lower, node.upper,
                                                                node.step)]
        return slice(*parts)

    def _Subscript(self, node: ast.Subscript) -> Any:
        value = self.expr(node.value)
        index = self.expr(node.slice)
        return self._apply(operator.getitem, [value, index], {}, node)

    def _Attribute(self, node: ast.Attribute) -> Any:
        value = self.expr(node.value)
        if node.attr not in _ATTRIBUTES or not isinstance(value, Variable):
            raise _error(f".{node.attr}: only {', '.join('.' + a for a in _ATTRIBUTES)} "
                         "and method calls are read", node)
        return self._apply(lambda v: getattr(v, node.attr), [value], {}, node)

    def _Call(self, node: ast.Call) -> Any:
        func = node.func
        target: Any = None
        if isinstance(func, ast.Name):
            target = CATALOGUE.get(func.id)
            if target is None:
                near = nearest_op(func.id)
                hint = f"did you mean {near}?" if near else "`ops` lists them"
                raise _error(f"unknown Op {func.id!r} ({hint})", func)
        elif isinstance(func, ast.Attribute) and func.attr in METHODS:
            owner = self.expr(func.value)
            if isinstance(owner, Variable):
                target = getattr(owner, func.attr)
        if target is None:
            raise _error("only catalogue Ops (tanh(x)) and tensor methods (x.sum()) can be "
                         "called", func)
        if any(k.arg is None for k in node.keywords):
            raise _error("**keywords are not read", node)
        args = [self.expr(a) for a in node.args]
        kwargs = {k.arg: self.expr(k.value) for k in node.keywords}
        return self._apply(target, args, kwargs, node)

    def _apply(self, fn: Callable[..., Any], args: list, kwargs: dict, node: ast.AST) -> Any:
        try:
            return fn(*args, **kwargs)
        except (TypeError, ValueError, IndexError, ArithmeticError) as exc:
            raise _error(f"{ast.unparse(node)}: {exc}", node) from None


def _check_nesting(tree: ast.AST) -> None:
    """Refuse expressions nested deeper than :data:`MAX_GRAPH_NESTING` (iteratively)."""
    stack = [(tree, 0)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_GRAPH_NESTING:
            raise _error(f"the graph is nested more than {MAX_GRAPH_NESTING} levels deep",
                         node)
        stack.extend((child, depth + 1) for child in ast.iter_child_nodes(node))


def _kind(node: ast.AST) -> str:
    return {"Lambda": "lambda", "BoolOp": "and/or",
            "IfExp": "if-else", "Dict": "a dict", "Set": "a set"}.get(
        type(node).__name__, type(node).__name__)


def _error(message: str, node: ast.AST) -> GraphTextError:
    line = getattr(node, "lineno", 1)
    return GraphTextError(message, getattr(node, "col_offset", None) if line == 1 else None)
