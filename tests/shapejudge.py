"""Every value of a model judged against onnxruntime's runs: exact, unknown or wrong.

A shape inference tool writes each value's type into a model (value_info and outputs:
``dim_value``, a ``dim_param`` holding an expression over the inputs' named sizes, or
nothing). onnxruntime runs the model at a few assignments of the named sizes with every
intermediate value made a graph output, and each value's typed shape is judged:

- *exact*: the rank and every size, the expression evaluated at the assignment, equal
  what onnxruntime computed, at every assignment;
- *wrong*: the rank, or a size that evaluates to an int, differs at some assignment (an
  expression over sizes the inputs do not name, which a tool writes for a size it made
  up, such as onnx's ``unk__0``, is unknown, not wrong);
- *unknown*: neither (some size left open or made up).

Values whose size the data decides (tests/dataprobe.py finds them: their shape changes
when what a NonZero counts changes, at the same input sizes) are judged apart, since no
tool can type them exactly from sizes:

- *data-dependent*: every size the data does not decide exact, and the ones it decides
  left open (``?`` or a name of the tool's own);
- *guessed*: a size the data decides typed as a number (or an expression over the input
  sizes) that the runs happened to give;
- *wrong* and *unknown* as above.

A name of a tool's own (``unk__3``, ``NonZero_7_o0__d1``) says that the sizes it names
are equal: where two of them differ in a run, or where the size it names in a run makes
an expression over it (``min(5, NonZero_3)``) differ from the run's, every value typed
with it is *wrong*.

kantensor's ``dim_param`` text is read by its own DSL parser; other tools' (onnxruntime
writes sympy's text: ``floor(seq/2) + 1``, ``Min(64, seq)``) by sympy, when installed.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import numpy as np
import onnx

import ortrun
from kantensor.types.dim import Dim
from kantensor.types.symbols import substitute
from kantensor.types.type import TensorType

EXACT, UNKNOWN, WRONG = "exact", "unknown", "wrong"
DATA, GUESSED = "data-dependent", "guessed"

_NAME = re.compile(r"[A-Za-z_][A-Za-z_0-9]*")
_SYMPY_WORDS = {"floor", "ceiling", "Max", "Min", "Mod", "Abs", "ceil", "max", "min"}


def kantensor_size(text: str, sizes: dict[str, int]) -> int | None:
    """A ``dim_param`` kantensor wrote, at ``sizes`` (None: over other names)."""
    d = TensorType.parse(f"float32[{text}]").shape[0]
    value = substitute(d, sizes) if isinstance(d, Dim) else d
    return value if isinstance(value, int) else None


def sympy_size(text: str, sizes: dict[str, int]) -> int | None:
    """A ``dim_param`` in sympy's text (onnxruntime's), at ``sizes`` (None: over other
    names, or not an expression). A lone name needs no sympy (onnx's data_prop writes
    only names), an expression does."""
    names = set(_NAME.findall(text)) - _SYMPY_WORDS
    if not names <= set(sizes):
        return None
    if text.strip() in sizes:
        return sizes[text.strip()]
    import sympy

    local = {n: sympy.Symbol(n, integer=True, nonnegative=True) for n in names}
    local.update(floor=sympy.floor, ceiling=sympy.ceiling, ceil=sympy.ceiling,
                 Max=sympy.Max, Min=sympy.Min, max=sympy.Max, min=sympy.Min, Mod=sympy.Mod)
    try:
        value = sympy.sympify(text, locals=local).subs({local[n]: sizes[n] for n in names})
    except (sympy.SympifyError, TypeError, SyntaxError):
        return None
    return int(value) if value.is_Integer else None


Reader = Callable[[str, dict[str, int]], "int | None"]


def typed_shapes(model: onnx.ModelProto) -> dict[str, list]:
    """Each typed value's dims as written: ints, ``dim_param`` strings or None."""
    out = {}
    for info in [*model.graph.value_info, *model.graph.output]:
        t = info.type
        if t.WhichOneof("value") != "tensor_type" or not t.tensor_type.HasField("shape"):
            out[info.name] = None
            continue
        dims: list = []
        for d in t.tensor_type.shape.dim:
            dims.append(d.dim_value if d.HasField("dim_value") else
                        d.dim_param if d.HasField("dim_param") else None)
        out[info.name] = dims
    return out


def with_every_value(model: onnx.ModelProto, names: Iterable[str]) -> onnx.ModelProto:
    """The model with every value of ``names`` a graph output too (untyped)."""
    out = onnx.ModelProto()
    out.CopyFrom(model)
    del out.graph.output[:]
    del out.graph.value_info[:]
    for name in names:
        out.graph.output.add().name = name
    return out


def values_of(model: onnx.ModelProto) -> list[str]:
    """The names of the values the model's nodes compute, in node order."""
    return [o for node in model.graph.node for o in node.output if o]


def concrete_inputs(model: onnx.ModelProto, sizes: dict[str, int],
                    fill: dict[str, Callable] | None = None) -> dict[str, np.ndarray]:
    """Inputs of the model at ``sizes``: random floats, zeros for ints (an index 0 fits
    any axis), ones for bools, or what ``fill[name](shape)`` gives."""
    rng = np.random.default_rng(0)
    initialized = {t.name for t in model.graph.initializer}
    feeds = {}
    for info in model.graph.input:
        if info.name in initialized:
            continue
        tt = info.type.tensor_type
        shape = tuple(sizes[d.dim_param] if d.HasField("dim_param") else d.dim_value
                      for d in tt.shape.dim)
        dtype = onnx.helper.tensor_dtype_to_np_dtype(tt.elem_type)
        if fill and info.name in fill:
            feeds[info.name] = np.asarray(fill[info.name](shape), dtype=dtype)
        elif dtype.kind == "f":
            feeds[info.name] = rng.standard_normal(shape).astype(dtype)
        elif dtype.kind == "b":
            feeds[info.name] = np.ones(shape, dtype)
        else:
            feeds[info.name] = np.zeros(shape, dtype)
    return feeds


def runtime_shapes(model: onnx.ModelProto, assignments: list[dict[str, int]],
                   fill: dict[str, Callable] | None = None) -> list[dict[str, tuple]]:
    """onnxruntime's shape of every value of ``model`` at each assignment."""
    names = values_of(model)
    probe = with_every_value(model, names)
    out = []
    for sizes in assignments:
        got = ortrun.run(probe, concrete_inputs(model, sizes, fill))
        if isinstance(got, ortrun.Refusal):
            raise RuntimeError(f"onnxruntime refused the model at {sizes}: {got.why}")
        out.append(dict(zip(names, got, strict=True)))
    return out


def verdict(dims: list | None, shapes: list[tuple], assignments: list[dict[str, int]],
            read: Reader, decided: frozenset[int] | set[int] = frozenset()) -> str:
    """One value's verdict: its typed ``dims`` against its runtime ``shapes``; ``decided``
    holds the axes whose size the data decides (tests/dataprobe.py)."""
    if dims is None:
        return UNKNOWN
    exact, guessed = True, False
    for shape, sizes in zip(shapes, assignments, strict=True):
        if len(dims) != len(shape):
            return WRONG
        for axis, (d, s) in enumerate(zip(dims, shape, strict=True)):
            value = d if isinstance(d, int) or d is None else read(d, sizes)
            if value is None:
                exact = exact and axis in decided
            elif value != s:
                return WRONG
            elif axis in decided:
                guessed = True
    if guessed:
        return GUESSED
    return UNKNOWN if not exact else DATA if decided else EXACT


def _clashes(typed: dict[str, list | None], runs: list[dict[str, tuple]],
             assignments: list[dict[str, int]], read: Reader) -> set[str]:
    """The names of a tool's own (a bare name no input has) that stand for two different
    sizes in some run, or for a size that makes an expression over them (``min(5, u)``)
    differ from what the run computed there."""
    out: set[str] = set()
    for run, sizes in zip(runs, assignments, strict=True):
        seen: dict[str, int] = {}
        pairs = []
        for name, dims in typed.items():
            shape = run.get(name)
            if dims is None or shape is None or len(dims) != len(shape):
                continue
            for d, s in zip(dims, shape, strict=True):
                if isinstance(d, str):
                    pairs.append((d, s))
                    if d not in sizes and _NAME.fullmatch(d) and seen.setdefault(d, s) != s:
                        out.add(d)
        bound = {**seen, **sizes}
        for d, s in pairs:
            own = set(_NAME.findall(d)) & seen.keys()
            if own and not _NAME.fullmatch(d) and read(d, bound) not in (None, s):
                out |= own
    return out


@dataclass
class Judgement:
    """The verdict of every value, and the values of each verdict."""

    verdicts: dict[str, str] = field(default_factory=dict)
    typed: dict[str, list | None] = field(default_factory=dict)
    shapes: dict[str, list[tuple]] = field(default_factory=dict)

    @property
    def counts(self) -> Counter:
        return Counter(self.verdicts.values())

    @property
    def named(self) -> int:
        """How many data-dependent values have every size written: the data's by names
        of the tool's own (each checked to stand for one size per run), none left open."""
        return sum(1 for n, v in self.verdicts.items()
                   if v == DATA and self.typed[n] is not None and None not in self.typed[n])

    def of(self, kind: str) -> dict[str, tuple]:
        """The values judged ``kind``: their typed dims and runtime shapes."""
        return {n: (self.typed[n], self.shapes[n]) for n, v in self.verdicts.items()
                if v == kind}


def judge(typed_model: onnx.ModelProto, runs: list[dict[str, tuple]],
          assignments: list[dict[str, int]], read: Reader = kantensor_size,
          decided: dict[str, set[int]] | None = None,
          probes: tuple[list[dict[str, tuple]], dict[str, int]] | None = None) -> Judgement:
    """Every value onnxruntime computed in ``runs`` judged by its type in
    ``typed_model`` (a tool's output); ``decided``: the axes of each value whose size the
    data decides, and ``probes``: the runs that showed it, at one assignment (both from
    tests/dataprobe.py; the probes are also searched for names of the tool's own that
    stand for two sizes)."""
    typed = typed_shapes(typed_model)
    decided = decided or {}
    extra, at = probes or ([], {})
    clashes = _clashes(typed, [*runs, *extra], [*assignments, *[at] * len(extra)], read)
    out = Judgement()
    for name in runs[0]:
        dims = typed.get(name)
        shapes = [run[name] for run in runs]
        if dims is not None and any(clashes.intersection(_NAME.findall(d))
                                    for d in dims if isinstance(d, str)):
            out.verdicts[name] = WRONG
        else:
            out.verdicts[name] = verdict(dims, shapes, assignments, read,
                                         decided.get(name, frozenset()))
        out.typed[name], out.shapes[name] = dims, shapes
    return out
