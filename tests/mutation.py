"""Seeded shape bugs in NumPy model code: the mutants of the harness of ``eval_shape``
(tests/test_eval_shape_mutants.py; tests/shape_judge.py judges them by NumPy;
benchmarks/eval_shape_published.py runs it on published code).

From each function of a corpus, :func:`mutants` makes the shape bugs people write: the
operands of a matrix product swapped, a transpose dropped or added, an axis changed, a
reshape's target changed, ``keepdims`` dropped (edits of the function's syntax tree, at
the line where they are made), and two sizes of a weight's shape swapped (an edit of
the input types). Which are made is fixed by the seed.
"""

from __future__ import annotations

import ast
import copy
import inspect
import itertools
import random
import sys
import textwrap
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

SEED = 34
KINDS = ("swap_matmul", "drop_transpose", "add_transpose", "change_axis", "change_reshape",
         "drop_keepdims", "swap_weight")
_NAMES = [f"S{i}" for i in range(1, 40)]  # names of the sizes made from literals


# -- the edits ---------------------------------------------------------------------------

_AXIS_METHODS = {"sum", "mean", "max", "min", "argmax", "argmin", "var", "std", "prod",
                 "cumsum", "any", "all"}
_TRANSPOSERS = {"transpose", "swapaxes"}


def _name(node: ast.AST) -> str:
    return node.attr if isinstance(node, ast.Attribute) else getattr(node, "id", "")


def _sites(tree: ast.AST) -> Iterator[tuple[str, ast.AST, Any]]:
    """(kind, node, choice) for every edit the tree allows."""
    for node in ast.walk(tree):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult):
            yield "swap_matmul", node, None
            yield "add_transpose", node, "left"
            yield "add_transpose", node, "right"
        elif isinstance(node, ast.Call):
            fn = _name(node.func)
            if fn in ("dot", "matmul") and len(node.args) == 2:
                yield "swap_matmul", node, None
            if fn in _TRANSPOSERS and isinstance(node.func, ast.Attribute) and \
                    (node.args or not _is_np(node.func)):
                yield "drop_transpose", node, None
            for i, kw in enumerate(node.keywords):
                if kw.arg == "axis" and _axis_value(kw.value) is not None:
                    for new in _other_axes(_axis_value(kw.value)):
                        yield "change_axis", node, (i, new)
                if kw.arg == "keepdims":
                    yield "drop_keepdims", node, i
            if fn in _AXIS_METHODS and isinstance(node.func, ast.Attribute) and node.args \
                    and _axis_value(node.args[0]) is not None:
                for new in _other_axes(_axis_value(node.args[0])):
                    yield "change_axis", node, ("arg", new)
            if fn == "reshape":
                args = _reshape_args(node)
                if args is not None and len(args) >= 2:
                    for i, j in itertools.combinations(range(len(args)), 2):
                        if ast.dump(args[i]) != ast.dump(args[j]):
                            yield "change_reshape", node, (i, j)
        elif isinstance(node, ast.Attribute) and node.attr == "T":
            yield "drop_transpose", node, None


def _axis_value(node: ast.AST) -> int | tuple | None:
    try:
        value = ast.literal_eval(node)
    except ValueError:
        return None
    ok = isinstance(value, int) or (isinstance(value, tuple) and all(
        isinstance(v, int) for v in value))
    return value if ok and not isinstance(value, bool) else None


def _other_axes(axis: int | tuple) -> list[Any]:
    if isinstance(axis, tuple):
        return [tuple(a - 1 if a > 0 else a + 1 for a in axis)]
    return [a for a in (0, 1, -1, -2) if a != axis]


def _reshape_args(call: ast.Call) -> list[ast.AST] | None:
    """The target sizes of ``x.reshape(a, b)``, ``x.reshape((a, b))``, ``np.reshape(x,
    (a, b))``, when written out."""
    first = 1 if _is_np(call.func) else 0
    args = call.args[first:]
    if len(args) == 1 and isinstance(args[0], ast.Tuple | ast.List):
        return args[0].elts
    return call.args if len(args) >= 2 and not first and not any(
        isinstance(a, ast.Starred) for a in args) else None


def _is_np(func: ast.AST) -> bool:
    """Whether ``func`` is ``np.name`` (a function of NumPy, not a method)."""
    return isinstance(func, ast.Attribute) and _name(func.value) == "np"


class _Edit(ast.NodeTransformer):
    def __init__(self, target: ast.AST, kind: str, choice: Any):
        self.target, self.kind, self.choice = target, kind, choice

    def visit(self, node: ast.AST) -> Any:
        if node is not self.target:
            return self.generic_visit(node)
        edited = _apply(node, self.kind, self.choice)
        return ast.copy_location(edited, node)


def _transposed(node: ast.AST) -> ast.AST:
    return ast.Attribute(value=node, attr="T", ctx=ast.Load())


def _apply(node: Any, kind: str, choice: Any) -> ast.AST:
    node = copy.deepcopy(node)
    if kind == "swap_matmul":
        if isinstance(node, ast.BinOp):
            node.left, node.right = node.right, node.left
        else:
            node.args = node.args[::-1]
    elif kind == "add_transpose":
        setattr(node, choice, _transposed(getattr(node, choice)))
    elif kind == "drop_transpose":
        if isinstance(node, ast.Attribute):
            return node.value
        return node.args[0] if _is_np(node.func) else node.func.value
    elif kind == "change_axis":
        where, new = choice
        value = ast.parse(repr(new), mode="eval").body
        if where == "arg":
            node.args[0] = value
        else:
            node.keywords[where].value = value
    elif kind == "drop_keepdims":
        del node.keywords[choice]
    elif kind == "change_reshape":
        i, j = choice
        args = _reshape_args(node)
        args[i], args[j] = args[j], args[i]
    return node


# -- mutants ----------------------------------------------------------------------------

@dataclass
class Case:
    """A function of the corpus, its input types (text), keyword arguments and the
    ranges of its int inputs' values (``{index: sizes -> (low, high)}``)."""

    fn: Callable[..., Any]
    types: list[str]
    kwargs: dict[str, Any] = field(default_factory=dict)
    ranges: dict[int, Callable[[dict], tuple[int, int]]] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.fn.__name__


@dataclass
class Mutant:
    case: Case
    kind: str
    line: int | None  # the mutated line (None: the types were changed)
    fn: Callable[..., Any]
    types: list[str]
    detail: str
    weight: int | None = None  # the input whose shape was changed

    def __str__(self) -> str:
        return f"{self.case.name}:{self.kind}:{self.detail}"


def _source_tree(fn: Callable[..., Any]) -> tuple[ast.Module, str]:
    lines, start = inspect.getsourcelines(fn)
    tree = ast.parse(textwrap.dedent("".join(lines)))
    ast.increment_lineno(tree, start - 1)
    return tree, inspect.getsourcefile(fn)


def _compile(tree: ast.Module, filename: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    namespace = dict(fn.__globals__)  # the module's other functions, as the original sees
    exec(compile(ast.fix_missing_locations(tree), filename, "exec"), namespace)  # noqa: S102
    return namespace[fn.__name__]


def code_mutants(case: Case) -> list[Mutant]:
    """Every edit of the function's code the sites allow (deterministic order)."""
    tree, filename = _source_tree(case.fn)
    fn_def = tree.body[0]
    out = []
    sites = [s for s in _sites(fn_def) if s[1] is not fn_def]
    for kind, node, choice in sites:
        new_tree = copy.deepcopy(tree)
        target = _find(new_tree, node)
        new_tree = _Edit(target, kind, choice).visit(new_tree)
        try:
            mutated = _compile(new_tree, filename, case.fn)
        except SyntaxError:  # pragma: no cover - the edits keep the syntax
            continue
        detail = f"line {node.lineno}: {ast.unparse(_apply(node, kind, choice))}"
        out.append(Mutant(case, kind, node.lineno, mutated, case.types, detail))
    return out


def _find(tree: ast.AST, node: ast.AST) -> ast.AST:
    """The node of the copy ``tree`` at the position of ``node``."""
    for candidate in ast.walk(tree):
        if type(candidate) is type(node) and getattr(candidate, "lineno", None) == \
                node.lineno and candidate.col_offset == node.col_offset and \
                getattr(candidate, "end_col_offset", None) == node.end_col_offset:
            return candidate
    raise LookupError(ast.dump(node))


def _shape_items(text: str) -> tuple[str, list[str]]:
    dtype, _, rest = text.partition("[")
    return dtype, [s for s in rest.rstrip("]").split(",") if s]


def weight_mutants(case: Case) -> list[Mutant]:
    """Two different sizes of a weight's shape swapped (inputs after the first, with at
    least two axes)."""
    out = []
    for k, text in enumerate(case.types):
        dtype, items = _shape_items(text)
        if k == 0 or len(items) < 2 or dtype.startswith("int"):
            continue
        for i, j in itertools.combinations(range(len(items)), 2):
            if items[i] != items[j]:
                swapped = list(items)
                swapped[i], swapped[j] = swapped[j], swapped[i]
                types = list(case.types)
                types[k] = f"{dtype}[{','.join(swapped)}]"
                out.append(Mutant(case, "swap_weight", None, case.fn, types,
                                  f"input {k}: {text} -> {types[k]}", weight=k))
    return out


def mutants(case: Case, rng: random.Random, per_kind: int = 3) -> list[Mutant]:
    """At most ``per_kind`` mutants of each kind for one case, drawn with ``rng``."""
    by_kind: dict[str, list[Mutant]] = {}
    for m in code_mutants(case) + weight_mutants(case):
        by_kind.setdefault(m.kind, []).append(m)
    out = []
    for kind in KINDS:
        found = by_kind.get(kind, [])
        out.extend(found if len(found) <= per_kind else rng.sample(found, per_kind))
    return out


# -- where a swapped weight goes ---------------------------------------------------------

def weight_lines(case: Case, k: int) -> set[int]:
    """The lines that read input ``k`` of the function or a value it flows into: by
    assignment (``mask = x <= 0``, ``N, C, H, W = shape``, ``self.k[i] = xk``), a loop's
    target, or a call's result; in the function and in the functions and methods of its
    module it passes such a value to (``cache.update(xk, ...)``). A swapped weight can
    first meet its partner only on one of these lines."""
    try:
        tree, _ = _source_tree(case.fn)
    except (OSError, TypeError):  # a function made from text: no line of it can be named
        return set()
    params = [a.arg for a in _defined(tree).args.args]
    if k >= len(params):
        return set()
    return _flow(case.fn, {params[k]}, frozenset({case.fn}))


def _defined(tree: ast.Module) -> ast.FunctionDef | ast.Lambda:
    """The function a source tree defines: its ``def``, or the lambda of its line."""
    first = tree.body[0]
    if isinstance(first, ast.FunctionDef | ast.AsyncFunctionDef):
        return first
    return next(n for n in ast.walk(first) if isinstance(n, ast.Lambda))


def _dotted(node: ast.AST) -> str | None:
    """``x`` or ``self.k`` (a name or an attribute of one), else None."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value)
        return None if base is None else f"{base}.{node.attr}"
    return None


def _reads(node: ast.AST, names: set[str]) -> bool:
    return any(_dotted(n) in names for n in ast.walk(node)
               if isinstance(n, ast.Name | ast.Attribute))


def _targets(node: ast.AST) -> Iterator[str]:
    """The names (and attributes) an assignment target binds: ``a, b`` -> a, b;
    ``self.k[:n]`` -> self.k."""
    while isinstance(node, ast.Subscript | ast.Starred):
        node = node.value
    if isinstance(node, ast.Tuple | ast.List):
        for item in node.elts:
            yield from _targets(item)
    elif (name := _dotted(node)) is not None:
        yield name


def _bindings(fn_def: ast.AST) -> Iterator[tuple[list[ast.AST], ast.AST]]:
    for node in ast.walk(fn_def):
        if isinstance(node, ast.Assign):
            yield node.targets, node.value
        elif isinstance(node, ast.AugAssign | ast.AnnAssign) and node.value is not None:
            yield [node.target], node.value
        elif isinstance(node, ast.For | ast.comprehension):
            yield [node.target], node.iter
        elif isinstance(node, ast.NamedExpr):
            yield [node.target], node.value


def _flow(fn: Callable[..., Any], start: set[str], seen: frozenset) -> set[int]:
    return _flow_names(fn, start, seen)[0]


def _flow_names(fn: Callable[..., Any], start: set[str], seen: frozenset
                ) -> tuple[set[int], set[str]]:
    """The lines of ``fn`` (and of what it calls) reading ``start`` or what they flow
    into, and the names and attributes they flow into in ``fn``."""
    tree, _ = _source_tree(fn)
    fn_def = _defined(tree)
    tainted = set(start)
    changed = True
    while changed:
        changed = False
        for targets, value in _bindings(fn_def):
            if _reads(value, tainted):
                new = {t for target in targets for t in _targets(target)} - tainted
                tainted |= new
                changed = changed or bool(new)
    lines = {n.lineno for n in ast.walk(fn_def)
             if isinstance(n, ast.Name | ast.Attribute) and _dotted(n) in tainted}
    for call in ast.walk(fn_def):
        if not isinstance(call, ast.Call):
            continue
        callee, skip = _callee(fn, call, fn_def)
        if callee is None or callee in seen:
            continue
        target = callee.__dict__.get("__init__") if inspect.isclass(callee) else callee
        if not inspect.isfunction(target):
            continue
        params = list(inspect.signature(target).parameters)[skip:]
        passed = set()
        for i, a in enumerate(call.args):
            if _reads(a, tainted):  # f(*xs): every parameter from here on may be given
                passed |= set(params[i:]) if isinstance(a, ast.Starred) else \
                    set(params[i:i + 1])
        for kw in call.keywords:
            if _reads(kw.value, tainted):  # f(**layer): any parameter by name
                passed |= set(params[len(call.args):]) if kw.arg is None else \
                    {kw.arg} & set(params)
        if not passed:
            continue
        found, names = _flow_names(target, passed, seen | {callee})
        lines |= found
        if inspect.isclass(callee):  # the attributes __init__ set, in every method
            held = {n for n in names if n.startswith("self.")}
            for method in vars(callee).values():
                if held and inspect.isfunction(method) and method is not target:
                    lines |= _flow(method, held, seen | {callee, method})
    return lines, tainted


def _own(obj: Any) -> bool:
    """Whether ``obj`` is the user's code: a function or class whose source is not in
    an installed package or the standard library."""
    try:
        file = inspect.getsourcefile(obj) or ""
    except TypeError:
        return False
    return bool(file) and not file.startswith((sys.prefix, sys.base_prefix))


def _callee(fn: Callable[..., Any], call: ast.Call, fn_def: ast.AST) -> tuple[Any, int]:
    """The user's function or class (:func:`_own`) that ``call`` calls by name in
    ``fn``'s namespace, or the method of such a class there (by attribute name: of the
    class made right there, or bound to the name in ``fn_def``, else of the first class
    that has one); and how many leading parameters the call does not pass (``self``)."""
    if isinstance(call.func, ast.Name):
        found = fn.__globals__.get(call.func.id)
        if inspect.isfunction(found) and _own(found):
            return found, 0
        return (found, 1) if inspect.isclass(found) and _own(found) else (None, 0)
    if isinstance(call.func, ast.Attribute):
        made = call.func.value  # Affine(W, b).forward(x): a method of that class
        if isinstance(made, ast.Name):  # a := Affine(W, b); a.forward(x): the same
            made = next((value for targets, value in _bindings(fn_def)
                         if isinstance(value, ast.Call) and any(
                             made.id in _targets(t) for t in targets)), made)
        if isinstance(made, ast.Call) and isinstance(made.func, ast.Name):
            cls = fn.__globals__.get(made.func.id)
            if inspect.isclass(cls) and _own(cls):
                method = getattr(cls, call.func.attr, None)
                return (method, 1) if inspect.isfunction(method) else (None, 0)
        for value in list(fn.__globals__.values()):
            if inspect.isclass(value) and _own(value):
                method = value.__dict__.get(call.func.attr)
                if inspect.isfunction(method):
                    return method, 1
    return None, 0
