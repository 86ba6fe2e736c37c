"""Where in the user's code: the line an error, a node or an assumption comes from.

The user's line is the innermost frame of the user's code (:mod:`.code`): not
kantensor's, not NumPy's (its compiled modules included), not the standard library's,
not a wrapper library's. Every node the trace builds records the line that built it
(:class:`Site`), so an error can show where its operands were made, from the inputs'
sizes to the conflict (:func:`operand_chain`), and :func:`why` can name the node that left
a size unknown. A condition is said at the line of the Op that needs it, or at an earlier
line that put the axes it compares in their places (:mod:`.placing`).
"""

from __future__ import annotations

import linecache
import sys
import traceback
from dataclasses import replace
from types import CodeType, FrameType, TracebackType
from typing import Any, NamedTuple

import numpy as np

from ..graph.basic import Apply, Variable
from ..ops.op import SignatureOp
from ..ops.sizes import SizeOp
from ..types.conditions import AnyOf, Clause, Condition, Source
from ..types.dim import Dim
from ..types.divisors import size_divisors
from ..types.intervals import interval
from ..types.protocol import NUMPY_OPS
from ..types.symbols import free_symbols
from .code import frame_is_library
from .indexvalues import index_bounds
from .placing import compared, placed, same
from .powers import of_sizes, power_conditions, python_number, zero_at
from .scalartypes import fit_conditions


class Site(NamedTuple):
    """A line of the user's code: file, line number, function and its source text."""

    filename: str
    lineno: int
    function: str

    @property
    def source(self) -> str:
        return linecache.getline(self.filename, self.lineno).strip()

    def __str__(self) -> str:
        return f"{self.filename}, line {self.lineno}, in {self.function}: {self.source}"


#: own package -> id(code) -> (code, is a library's): keyed by identity (hashing a code
#: object reads all of it), the code held so that its id stays its own; at most
#: _KNOWN_MAX codes per package (then forgotten).
_KNOWN: dict[str, dict[int, tuple[CodeType, bool]]] = {}
_KNOWN_MAX = 50_000


class Locator:
    """The user's frames, for one trace: ``own`` is the traced function's package."""

    def __init__(self, own: str):
        self.own = own
        known = _KNOWN.get(own)
        if known is None or len(known) > _KNOWN_MAX:
            known = _KNOWN[own] = {}
        self._library = known

    def library(self, frame: FrameType) -> bool:
        code = frame.f_code
        known = self._library.get(id(code))
        if known is None:
            known = self._library[id(code)] = (code, frame_is_library(frame, self.own))
        return known[1]

    def here(self) -> Site | None:
        """The innermost user frame of the calling thread's stack."""
        frame = self.frame(sys._getframe(1))
        if frame is None:
            return None
        return Site(frame.f_code.co_filename, frame.f_lineno, frame.f_code.co_name)

    def frame(self, frame: FrameType | None) -> FrameType | None:
        """The innermost user frame from ``frame`` outwards."""
        known = self._library
        while frame is not None:
            code = frame.f_code
            hit = known.get(id(code))
            if hit is None:
                hit = known[id(code)] = (code, frame_is_library(frame, self.own))
            if not hit[1]:
                return frame
            frame = frame.f_back
        return None

    def failed_at(self, exc: BaseException) -> Site | None:
        """The innermost user frame of an exception's traceback."""
        found = None
        for frame, lineno in traceback.walk_tb(exc.__traceback__):
            if not self.library(frame):
                found = Site(frame.f_code.co_filename, lineno, frame.f_code.co_name)
        return found


_INFER = SignatureOp._infer.__code__


def failed_operands(exc: BaseException) -> list[Variable] | None:
    """The operands of the Op whose relation refused them, if ``exc`` was raised while
    building a node (the innermost ``SignatureOp._infer`` frame's inputs)."""
    found = None
    tb: TracebackType | None = exc.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code is _INFER:
            found = tb.tb_frame.f_locals.get("inputs")
        tb = tb.tb_next
    return list(found) if isinstance(found, list) else None


def local_names(exc: BaseException, locator: Locator) -> dict[Variable, str]:
    """The names the user's frames of ``exc``'s traceback give their tensors (innermost
    first: ``y`` in ``y = x * 2``)."""
    names: dict[Variable, str] = {}
    frames = [f for f, _ in traceback.walk_tb(exc.__traceback__) if not locator.library(f)]
    for frame in reversed(frames):
        for name, value in frame.f_locals.items():
            if isinstance(value, Variable) and value not in names:
                names[value] = name
    return names


def _label(v: Variable, names: dict[Variable, str]) -> str:
    name = names.get(v) or v.name
    return f"{name}: {v.type}" if name else str(v.type)


def _argument(v: Any, names: dict[Variable, str]) -> str:
    name = names.get(v) or getattr(v, "name", None)
    if name:
        return name
    data = getattr(v, "data", None)
    if data is not None and getattr(data, "ndim", 1) == 0:
        return repr(data.item())
    return str(getattr(v, "type", "?"))


def _sizes(v: Variable) -> set:
    return {d for d in getattr(v.type, "shape", ()) if d is not None and d != 1}


def operand_chain(operands: list[Variable], sites: dict[Apply, Site | None],
                  names: dict[Variable, str], depth: int = 4) -> list[str]:
    """Lines saying where each operand was made, back towards the inputs: for each,
    its producing node and line, then the producers of that node's inputs that share a
    size with it (at most ``depth`` steps)."""
    lines = []
    for i, v in enumerate(operands):
        if not isinstance(v, Variable) or getattr(v, "wrapped", False):
            continue
        lines.append(f"  operand {i}: {_origin(v, sites, names)}")
        seen = {v}
        current = v
        for _ in range(depth):
            node = current.owner
            if node is None:
                break
            nearer = [u for u in node.inputs if u not in seen and _sizes(u) & _sizes(current)]
            if not nearer:
                break
            current = nearer[0]
            seen.add(current)
            lines.append(f"    from {_origin(current, sites, names)}")
    return lines


def _origin(v: Variable, sites: dict[Apply, Site | None], names: dict[Variable, str]) -> str:
    node = v.owner
    if node is None:
        return f"{_label(v, names)} (an input)" if names.get(v) or v.name else \
            _label(v, names)
    site = sites.get(node)
    op = getattr(node.op, "name", type(node.op).__name__)
    args = ", ".join(_argument(u, names) for u in node.inputs)
    where = f" at {site}" if site is not None else ""
    return f"{_label(v, names)} = {op}({args}){where}"


def why(v: Variable, axis: int | None, sites: dict[Apply, Site | None],
        inputs: dict[Variable, str], notes: dict[Any, str]) -> list[str]:
    """Why axis ``axis`` of ``v`` (each unknown axis if None) is unknown: the nodes
    whose outputs have an unknown size that their inputs' types did not have, each with
    its Op, line and reason (a data-dependent Op, ``int()`` of a value, a Python branch,
    a relation that leaves the size open), or the input whose type has it."""
    shape = v.type.shape
    axes = [axis] if axis is not None else [i for i, d in enumerate(shape) if _open(d, notes)]
    if not axes or all(not _open(shape[a], notes) for a in axes):
        return [f"{_label(v, inputs)}: every size asked for is known"]
    out = []
    for a in axes:  # sizes that are values: int() of a tensor
        if isinstance(shape[a], Dim):
            out.extend(f"axis {a} ({shape[a]}): {notes[s]}" for s in free_symbols(shape[a])
                       if s in notes)
    if len(out) == len(axes):
        return out
    stack, seen = [v], set()
    while stack:
        u = stack.pop()
        if u in seen:
            continue
        seen.add(u)
        node = u.owner
        if node is None:
            if any(d is None for d in u.type.shape):
                out.append(f"{_label(u, inputs)}: the input's type leaves a size unknown")
            continue
        introduced = [o for o in node.outputs if any(d is None for d in o.type.shape)] and \
            not any(any(d is None for d in i.type.shape) for i in node.inputs)
        if introduced:
            out.append(_introduced(node, sites, inputs, notes))
        stack.extend(node.inputs)
    return out or [f"{_label(v, inputs)}: no node on its path leaves a size unknown"]


def _open(d: Any, notes: dict[Any, str]) -> bool:
    """Whether a size is unknown: None, or made of values (``int()`` of a tensor)."""
    return d is None or isinstance(d, Dim) and any(s in notes for s in free_symbols(d))


def _introduced(node: Apply, sites: dict[Apply, Site | None], inputs: dict[Variable, str],
                notes: dict[Any, str]) -> str:
    op = getattr(node.op, "name", type(node.op).__name__)
    site = sites.get(node)
    where = f" at {site}" if site is not None else ""
    if node in notes:
        reason = notes[node]
    elif getattr(node.op, "data_sizes", ""):  # (declared by its catalogue entry)
        reason = node.op.data_sizes
    else:
        reason = "the Op's relation does not decide this size from its inputs' sizes"
    return f"{op}{where}: {reason}"



def at_site(clause: Clause, node: Apply, site: Site | None,
            sites: dict[Apply, Site | None], names: dict[Variable, str]) -> Clause:
    """``clause`` whose source names the user's line ``site`` (file:line and its code)
    and, as its ``detail``, the operand axes of ``node`` its sizes are and where those
    operands were made (unless it already names a line). Where an earlier line placed
    an operand's axes and the Op would need nothing of that line's input in its place
    (:mod:`.placing`), the source names that line first and the detail the Op's."""
    source = clause.source or Source()
    if source.location:
        return clause
    said = source.detail
    if source.otherwise:  # a choice: its relation's text (over s0, s1, ...) says less
        said = f"the build's choice: where it fails, NumPy computes {source.otherwise}"
    detail = "; ".join(filter(None, (said, _operand_axes(clause, node, sites, names))))
    moved = placed(clause, node, sites) if site is not None else None
    if moved is not None:
        at = sites[moved.node]
        op = source.op or getattr(node.op, "name", type(node.op).__name__)
        operand = names.get(node.inputs[moved.operand]) or f"operand {moved.operand}"
        code = f": {site.source}" if site.source else ""
        detail = (f"this line placed the axes of {operand} that {op} aligns at "
                  f"{site.filename}:{site.lineno}{code}; with its input "
                  f"{_label(moved.before, names)} in their place, {op} needs nothing; "
                  + detail)
        source = replace(source, op=getattr(moved.node.op, "name", ""))
        site = at
    located = replace(source, detail=detail) if site is None else replace(
        source, location=f"{site.filename}:{site.lineno}", code=site.source, detail=detail)
    if isinstance(clause, AnyOf):
        return AnyOf(clause.cases, located)
    return clause.with_source(located)


def _operand_axes(clause: Clause, node: Apply, sites: dict[Apply, Site | None],
                  names: dict[Variable, str]) -> str:
    """``D is axis 1 of h; K is axis 0 of operand 1; operand 0: h: float32[N,D] =
    mul(x, 2) at file, line 4, ...; operand 1: ... = transpose(w) at ...``: which
    operand axes of ``node`` the sizes the clause compares are (a side, or a name in
    one; an operand by its name in the user's code where it has one), then where those
    operands were made, a step back towards the inputs (:func:`operand_chain`)."""
    wanted = compared(clause)
    axes, used = [], {}
    for size in wanted:
        hits = [(i, a) for i, v in enumerate(node.inputs) if _made(v) or v.owner is None
                for a, d in enumerate(getattr(v.type, "shape", None) or ())
                if isinstance(d, Dim) and same(d, size)]
        if not hits and getattr(size, "name", None) is not None and any(
                not _made(v) and v.owner is not None for v in node.inputs):
            axes.append(f"{size} is a size the call was given")  # (a SizeOp's length)
        if hits:
            axes.append(f"{size} is " + " and ".join(
                f"axis {a} of {names.get(node.inputs[i]) or f'operand {i}'}"
                for i, a in hits[:2]))
            used.update((i, None) for i, _ in hits[:2])
    operands = [v if i in used or _made(v) else None for i, v in enumerate(node.inputs)]
    chain = operand_chain(operands, sites, names, depth=2)
    return "; ".join([*axes, *(line.strip() for line in chain)])


def assumptions(sites: dict[Apply, Site | None], names: dict[Variable, str]
                ) -> list[Clause]:
    """The conditions of the nodes built (in the order they were built), each at the
    user's line that built its node (``names``: what the user's code calls tensors); a
    condition said again is said once."""
    out: dict[Clause, Clause] = {}
    for node, site in sites.items():
        try:
            needed = [*divisors(node), *index_bounds(node), *fit_conditions(node)]
        except TypeError as exc:  # a power whose needs are no conditions on sizes
            where = f" at {site.filename}:{site.lineno}: {site.source}" if site else ""
            raise TypeError(f"{getattr(node.op, 'name', 'pow')}{where}: {exc}") from None
        for clause in (*(getattr(node, "conditions", ()) or ()), *needed):
            if clause not in out:
                out[clause] = at_site(clause, node, site, sites, names)
    return list(out.values())


def divisors(node: Apply) -> list[Condition]:
    """A condition for each size ``D`` that may be 0 and that the code divides a Python
    number by, where it is 0 the code raised ZeroDivisionError, and the types say
    nothing: ``D >= 1`` in a size of ``node``'s output types (``x[:N // D]``, ``N % D``:
    the Dim algebra reads a divisor as positive; a traced program's negative one is
    divided as a positive one, see :func:`kantensor.types.dimorder.divided`), or
    ``D != 0`` as ``node``'s divisor (``2.0 / D``, ``D ** -0.5``: a size is a Python int
    there, of either sign: ``2.0 / (N - K)`` runs at ``N < K``), or the numerator ``p`` of
    a Python number ``p / q`` made of sizes that is the divisor (``2.0 / (N / 2)``, ``3 %
    (N * 0.5)``, ``2.0 // ((N - K) / 3)``: Python's float is 0 where ``p`` is); and what Python's
    powers of sizes need (``(N - K) ** 0.5``, ``(-2) ** (N * 0.5)``: complex where the
    base is negative; :func:`.powers.power_conditions`)."""
    op = "" if isinstance(node.op, SizeOp) else getattr(node.op, "name", "")

    def source(d: Dim) -> Source:
        return Source(op=op, detail=f"a size is divided by {d}")
    found = dict.fromkeys(d for v in node.outputs for s in getattr(v.type, "shape", ())
                          if isinstance(s, Dim) for d in size_divisors(s)
                          if (interval(d)[0] or 0) < 1)
    out = [Condition(d, ">=", 1, source(d)) for d in found]
    size = _python_divisor(node)
    if size is not None:
        low, high = interval(size)
        if low is not None and low >= 0:
            out += [Condition(size, ">=", 1, source(size))] if low < 1 else []
        elif high is None or high >= 0:
            out.append(Condition(size, "!=", 0, source(size)))
    return out + power_conditions(node, op)


def _python_divisor(node: Apply) -> Any:
    """What is 0 where the Python number divided at ``node`` is divided by 0: the size
    ``D`` of ``2.0 / D``, ``N // D``, ``7.5 % D``, or the numerator ``p`` of a Python
    number ``p / q`` made of sizes (:func:`.powers.zero_at`: ``N / 2``, ``N * 0.5``,
    ``(N - K) / 3``, ``N ** 0.5``); else None: a NumPy number or a tensor divided by 0 gives inf or
    nan, no error. The one reading of a divisor made of sizes where a node divides by it
    (a division that builds none, ``n / n``, asks it as ``//`` does:
    :func:`kantensor.types.dimorder.divides`)."""
    ins = node.inputs
    if len(ins) != 2:
        return None
    if not any(node.op is NUMPY_OPS.get(u) for u in _DIVIDING):
        return None  # (a power of 0: .powers)
    number, divisor = ins
    if python_number(number) is None or not of_sizes(divisor):
        return None
    return zero_at(divisor)


#: NumPy's divisions, whose Ops divide Python numbers in traced code.
_DIVIDING = (np.true_divide, np.floor_divide, np.remainder)


def described(clause: Clause) -> str:
    """``D == K (matmul at file:line: x @ w; D is axis 1 of x: ...)``: a condition and
    where it comes from."""
    source = clause.source
    if source is None:
        return str(clause)
    where = f"{source.op or 'needed'}"
    if source.location:
        where += f" at {source.location}"
    if source.code:
        where += f": {source.code}"
    if source.detail:
        where += f"; {source.detail}"
    return f"{clause} ({where})"


def _made(v: Any) -> bool:
    """Whether ``v`` is a tensor the user's code made (not an operand that only carries
    a size, nor a constant)."""
    node = getattr(v, "owner", None)
    return node is not None and not isinstance(node.op, SizeOp)
