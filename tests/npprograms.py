"""Random NumPy programs over symbolic sizes, judged by NumPy at every size of a box
(test helpers of tests/test_eval_shape_random.py; ``python tests/npprograms.py N SEED
[LINES [KINDS]]`` runs N programs and prints what it finds; LINES lines each, 1..5 if 0;
KINDS 23 adds hunt18's lines: splits, einsum strings, axis permutations, fancy indexing
and masks, pads of every mode, broadcasts, cumulative ops and sorts; KINDS 24 hunt19's:
sizes made NumPy numbers, branches on dtypes, fmod and shifts, partitions, searchsorted,
cumulative_sum, math.fmod, float repeats, size steps, data-decided index arrays; KINDS
26 hunt20's too (kinds 23, 24 draw hunt19's, 25 and on hunt20's): nonzero, argwhere,
flatnonzero, where of one argument, compress, unique_values, broadcast_arrays, lexsort,
cumsum/cumprod with a dtype, pad's modes, each used further (indexed, reduced,
broadcast); KINDS past 26 draw those more often; KINDS 31 adds hunt21's: argmax and
argmin positions and argsorts with permuted axes used as indices, nonzero twice; KINDS
past 31 draw those more often).

A program is Python source: a function of one to three inputs whose types name the
sizes ``A``, ``B``, ``C`` (a name may repeat, so sizes are tied as often as not), and a
few lines each building a value from earlier ones with the NumPy calls eval_shape
traces: sizes used as numbers (arithmetic, comparisons, ``len``, ``math.sqrt``),
slices whose bounds are sizes, reshapes with -1, creation functions given sizes
(``arange``, ``linspace``, ``zeros``, ``eye``, ``tri``), ``repeat``, ``tile``,
``concatenate``, ``stack``, ``where``, reductions with ``keepdims``, ``astype``,
products, broadcasting, item assignment. Each line is drawn until the prefix runs at
sizes that all differ (2, 3, 5), now and then kept when it does not (so both sides of
a size condition are drawn).

:func:`judge` runs ``kt.eval_shape`` on the program once and NumPy at every assignment
of the box (0, 1, 2, 3, 5 to each name): where the result holds, NumPy must run and give
the type's shape and dtype (else ``unsound``); where it does not hold, NumPy must fail
(else ``refused``: eval_shape refuses sizes where the program runs, which is a wrong
answer unless an overload's choice or a slice bound's sign reading says so, see
docs/numpy.rst, or NumPy fails there for other data: :func:`fails_for_some_data`). A
program eval_shape refuses outright (a TypeInferenceError) must fail in NumPy at every
assignment.
"""

from __future__ import annotations

import itertools
import math
import random
import sys
import textwrap
import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np

import kantensor as kt
from kantensor.types.symbols import substitute

NAMES = ("A", "B", "C")
BOX = (0, 1, 2, 3, 5)
#: Sizes that all differ, at which each drawn line should run.
REFERENCE = {"A": 2, "B": 3, "C": 5}
DTYPES = ("float32", "float64", "int32", "int64", "uint8", "int8", "bool", "float16")
CASTS = ("float32", "float64", "int32", "int64", "uint8", "int16", "bool", "float16",
         "complex64")
#: What NumPy raises where a size (or a Python int) does not fit.
FAILS = (ValueError, IndexError, ZeroDivisionError, OverflowError, TypeError, AttributeError)


@dataclass
class Program:
    """A program in the making: its input types, its lines, and per value its rank and
    dtype at :data:`REFERENCE`."""

    rng: random.Random
    types: list[str] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)
    values: dict[str, tuple[int, str]] = field(default_factory=dict)
    kinds: int = 17  # how many kinds of line are drawn (23: with :func:`_new_line`'s,
    # 24: with :func:`_newer_line`'s too, 26: with :func:`_counted_line`'s too)

    def source(self, out: str | None = None) -> str:
        params = ", ".join(f"x{i}" for i in range(len(self.types)))
        body = "\n".join(self.lines + [f"return {out or self.last}"])
        return f"def program({params}):\n" + textwrap.indent(body, "    ") + "\n"

    @property
    def last(self) -> str:
        return list(self.values)[-1]


def returning(body: str, count: int) -> str:
    """The source of ``program(x0, ..., x<count - 1>)`` returning the expression
    ``body``: the one-line programs the eval_shape tests judge."""
    params = ", ".join(f"x{i}" for i in range(count))
    return f"def program({params}):\n    return {body}\n"


def shape_at(t: str, sizes: dict[str, int]) -> tuple[tuple[int, ...], str]:
    """The shape and dtype of the type text ``t`` with its named sizes at ``sizes``."""
    tt = kt.TensorType.parse(t)
    return tuple(sizes[d.name] if isinstance(d, kt.Dim) else d for d in tt.shape), tt.dtype


def _array(t: str, sizes: dict[str, int]) -> np.ndarray:
    return np.zeros(*shape_at(t, sizes))


def compile_program(source: str):
    """The function ``program`` the source defines (NumPy and math in its globals)."""
    space: dict[str, Any] = {"np": np, "math": math}
    exec(compile(source, "<program>", "exec"), space)
    return space["program"]


def run_numpy(fn, types: list[str], sizes: dict[str, int]):
    """``fn`` on zero arrays of ``types`` at ``sizes``: the result, or the exception."""
    return run_on(fn, [_array(t, sizes) for t in types])


def run_on(fn, arrays: list[np.ndarray]):
    """``fn`` on ``arrays``: the result, or the exception NumPy raises."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            return fn(*arrays)
        except FAILS as exc:
            return exc


def _ramp(t: str, sizes: dict[str, int], axis: int | None, shape: str, scale: int = 1
          ) -> np.ndarray:
    """An array of ``t`` at ``sizes`` whose values along ``axis`` (the flattened array
    for None, and for an axis it has not) are of a ``shape``: growing ("up"), shrinking
    ("down"), ``scale`` at the last position only ("last") or everywhere else
    ("notlast") or everywhere ("ones": a running product that never reaches 0), times
    ``scale``, in its dtype (a bool one is "last", "notlast" or "ones"): so
    that argmax, argmin (and what picks positions) reach every extreme for some
    variant, also past a comparison with a size (``x <= n``: by a large scale)."""
    zero = _array(t, sizes)
    if axis is None or axis >= zero.ndim:
        pos, n = np.arange(zero.size).reshape(zero.shape), max(zero.size, 1)
    else:
        pos, n = np.indices(zero.shape)[axis], max(zero.shape[axis], 1)
    if zero.dtype == bool:
        return (pos >= 0) if shape == "ones" else (pos == n - 1) if shape in (
            "up", "last") else (pos != n - 1)
    values = {"up": pos, "down": n - 1 - pos, "last": pos == n - 1, "notlast": pos != n - 1,
              "ones": pos >= 0}
    return (values[shape] * scale).astype(zero.dtype)


def fails_for_some_data(fn, types: list[str], sizes: dict[str, int]) -> bool:
    """Whether NumPy fails at ``sizes`` for some data of the inputs, not only zeros:
    ramps and steps along each axis and the flattened arrays, by 1 and by 1000 (see
    :func:`_ramp`)."""
    rank = max((kt.TensorType.parse(t).ndim for t in types), default=0)
    for axis, shape, scale in itertools.product([None, *range(rank)], (
            "up", "down", "last", "notlast", "ones"), (1, 1000)):
        arrays = [_ramp(t, sizes, axis, shape, scale) for t in types]
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            try:
                fn(*arrays)
            except FAILS:
                return True
    return False


# ---------------------------------------------------------------- drawing lines


def _size(p: Program, ranked: list[str]) -> str:
    """A size expression read from a value's shape (or len)."""
    rng = p.rng
    ranked = [v for v in ranked if p.values[v][0] >= 1]
    if not ranked:
        return "3"
    v = rng.choice(ranked)
    rank = p.values[v][0]
    axis = rng.randrange(rank)
    base = rng.choice([f"{v}.shape[{axis}]", f"{v}.shape[{axis - rank}]"] +
                      ([f"len({v})"] if axis == 0 else []))
    kind = rng.random()
    if kind < 0.45:
        return base
    if kind < 0.6:
        return f"({base} {rng.choice(['+', '-'])} {rng.randint(1, 3)})"
    if kind < 0.7:
        return f"{rng.choice([2, 3])} * {base}"
    if kind < 0.8:
        return f"{base} // {rng.choice([2, 3])}"
    if kind < 0.9:
        other = rng.choice(ranked)
        o = f"{other}.shape[{rng.randrange(p.values[other][0])}]"
        return f"{rng.choice(['min', 'max'])}({base}, {o})"
    other = rng.choice(ranked)
    o = f"{other}.shape[{rng.randrange(p.values[other][0])}]"
    return f"({base} {rng.choice(['+', '-', '*'])} {o})"


def _line(p: Program) -> str:
    """One line computing a new value from earlier ones (its text, without the name)."""
    rng = p.rng
    names = list(p.values)
    ranked = [v for v in names if p.values[v][0] >= 1] or names
    a = rng.choice(names)
    ra, da = p.values[a]
    b = rng.choice(names)
    rb = p.values[b][0]
    ax = rng.randrange(-ra, ra) if ra else 0
    kind = rng.randrange(p.kinds)
    if not any(p.values[v][0] for v in names) and kind in (2, 3, 4, 8, 9):
        kind = 0
    if kind == 0:  # elementwise, one operand
        f = rng.choice(["np.exp({a})", "np.abs({a})", "-{a}", "np.sqrt({a})", "np.floor({a})",
                        "~{a}", "np.sign({a})", "np.square({a})", "{a}.astype(np.{t})",
                        "{a}.astype(np.{t})", "{a}.T", "np.negative({a})", "np.logical_not({a})",
                        "np.isnan({a})", "{a}.real", "np.conj({a})"])
        return f.format(a=a, t=rng.choice(CASTS))
    if kind == 1:  # with a number or a size
        s = _size(p, ranked) if ranked and p.values[ranked[0]][0] else "2"
        num = rng.choice(["2", "1.5", "-1", "3", "0.5", "300",
                          s, s, f"np.sqrt({s})", f"math.sqrt({s})", f"{s} ** 0.5",
                          f"({s} / 2)", f"float({s})", f"{s} ** 2", f"2 ** {s}",
                          f"({s} - 3)"])
        op = rng.choice(["+", "-", "*", "/", "//", "%", "**", ">", "==", "<=", "&", "|"])
        return f"{a} {op} {num}" if rng.random() < 0.7 else f"{num} {op} {a}"
    if kind == 2:  # binary, broadcasting
        op = rng.choice(["+", "-", "*", "/", "//", "%", "**", "<", "==", "&", "|", "@"])
        if rng.random() < 0.3:
            return rng.choice([f"np.maximum({a}, {b})", f"np.where({a} > 0, {a}, {b})",
                               f"np.where({a}, {b}, 0)", f"np.minimum({a}, {b})",
                               f"np.hypot({a}, {b})", f"np.arctan2({a}, {b})",
                               f"np.logical_and({a}, {b})", f"np.left_shift({a}, {b})"])
        return f"{a} {op} {b}"
    if kind == 3:  # basic slicing
        s = _size(p, ranked)
        k = rng.randint(1, 3)
        sl = rng.choice(["1:", ":-1", f":{s}", f"{s}:", f"-{s}:", "::2", "::-1",
                         f"1:{s} - 1", f"{k}:{s}", f":{s}:-1", f"{s}::-1", f"::{k}",
                         f"-{k}:", f":-{k}", f"{s} - {k}:", "0", "-1", f"{s} - 1", f"{s}",
                         "None", "...", f"{s}:{k}", f"-{k}::-2"])
        lead = rng.randrange(ra) if ra else 0
        return f"{a}[{', '.join([':'] * lead + [sl])}]"
    if kind == 4:  # reshapes
        s = _size(p, ranked)
        return rng.choice([f"{a}.reshape(-1)", f"{a}.reshape({a}.shape[0], -1)",
                           f"{a}.reshape(-1, 2)", f"{a}.reshape({s}, -1)",
                           f"{a}.reshape(-1, {s})", f"{a}.ravel()", f"{a}.flatten()",
                           f"{a}.reshape({a}.shape[::-1])", f"{a}.reshape(1, -1, 1)",
                           f"{a}.reshape({a}.shape + (1,))", f"np.reshape({a}, (-1,))",
                           f"{a}.reshape(2, -1)"])
    if kind == 5:  # creation from sizes
        s = _size(p, ranked) if any(p.values[v][0] for v in names) else "3"
        t = _size(p, ranked) if any(p.values[v][0] for v in names) else "2"
        return rng.choice([f"np.arange({s})", f"np.arange(1, {s})", f"np.arange(0, {s}, 2)",
                           f"np.arange({s}, dtype=np.float32)", f"np.linspace(0, 1, {s})",
                           f"np.zeros(({s}, {t}))", f"np.ones({s}, dtype=np.int32)",
                           f"np.full(({s},), 2.5)", f"np.eye({s})", f"np.tri({s})",
                           f"np.zeros_like({a})", f"np.empty({s})", f"np.eye({s}, {t})",
                           f"np.ones(({s}, {t}), dtype=bool)", f"np.arange({s}, {t})",
                           f"np.linspace(0, {s}, {t})", f"np.full(({s}, {t}), 7)",
                           f"np.tri({s}, {t}, -1)", f"np.arange({s} * 1.0)",
                           f"np.ones_like({a}, dtype=np.int8)", f"np.identity({s})",
                           f"np.full_like({a}, 3)"])
    if kind == 6:  # joining
        return rng.choice([f"np.concatenate([{a}, {b}], axis={ax})",
                           f"np.concatenate([{a}, {a}], axis={ax})", f"np.stack([{a}, {b}])",
                           f"np.stack([{a}, {a}], axis={rng.randint(-ra - 1, ra)})",
                           f"np.concatenate([{a}, {b}])" if ra else f"np.stack([{a}, {b}])",
                           f"np.hstack([{a}, {b}])", f"np.vstack([{a}, {b}])"])
    if kind == 7:  # repeat, tile, pad, broadcast
        s = _size(p, ranked) if any(p.values[v][0] for v in names) else "2"
        return rng.choice([f"np.repeat({a}, 2, axis={ax})" if ra else f"np.repeat({a}, 2)",
                           f"np.repeat({a}, {s})", f"np.tile({a}, 2)", f"np.tile({a}, ({s}, 1))",
                           f"np.pad({a}, 1)", f"np.pad({a}, (1, 2))",
                           f"np.broadcast_to({a}, ({s},) + {a}.shape)",
                           f"np.broadcast_to({a}, {b}.shape)", f"np.expand_dims({a}, {ax})",
                           f"np.repeat({a}, {s}, axis={ax})" if ra else f"np.repeat({a}, {s})",
                           f"np.tile({a}, {s})"])
    if kind == 8:  # axes
        return rng.choice([f"np.squeeze({a}, axis={ax})", f"np.squeeze({a})",
                           f"np.swapaxes({a}, 0, {ax})", f"np.transpose({a})",
                           f"np.flip({a}, {ax})", f"np.roll({a}, 1, axis={ax})",
                           f"np.moveaxis({a}, {ax}, 0)", f"np.diff({a}, axis={ax})",
                           f"np.cumsum({a}, axis={ax})", f"np.sort({a}, axis={ax})",
                           f"np.argsort({a}, axis={ax})", f"np.diff({a}, n=2, axis={ax})",
                           f"np.cumprod({a})"])
    if kind == 9:  # reductions
        kd = rng.choice(["True", "False"])
        f = rng.choice(["sum", "mean", "max", "min", "prod", "any", "all", "std", "var",
                        "argmax", "argmin"])
        if f.startswith("arg"):
            return f"np.{f}({a}, axis={ax})" if rng.random() < 0.7 else f"np.{f}({a})"
        if rng.random() < 0.2:
            return f"{a}.{f}()"
        if rng.random() < 0.15:
            return f"np.sum({a}, axis={ax}, dtype=np.{rng.choice(['int8', 'float32', 'uint8'])})"
        return f"np.{f}({a}, axis={ax}, keepdims={kd})"
    if kind == 10:  # products
        return rng.choice([f"{a} @ {b}", f"np.dot({a}, {b})", f"np.matmul({a}, {a}.T)",
                           f"np.outer({a}, {b})", f"np.inner({a}, {b})", f"{a} @ {a}",
                           f"np.einsum('...i,...i->...', {a}, {b})", f"np.kron({a}, {b})",
                           f"np.vdot({a}, {b})", f"np.tensordot({a}, {b}, axes=1)",
                           f"np.trace({a})" if ra >= 2 else f"{a} @ {b}"])
    if kind == 11:  # item assignment into a new array
        s = _size(p, ranked) if any(p.values[v][0] for v in names) else "3"
        tgt = rng.choice([f"np.zeros(({s},) + {a}.shape[1:])", f"{a}.copy()", f"{a}"])
        idx = rng.choice(["1:", ":", f":{s}", "0", "-1", "::2", f"{s} - 1"])
        val = rng.choice([b, "1", f"{b}[0]" if rb else b, "2.5"])
        aug = rng.choice(["=", "+=", "*="])
        return f"__assign__ {tgt}|{idx}|{aug}|{val}"
    if kind == 12:  # clip, round, where of a size
        s = _size(p, ranked) if any(p.values[v][0] for v in names) else "2"
        return rng.choice([f"np.clip({a}, 0, {s})", f"np.round({a}, 1)",
                           f"np.where({a} > {s}, {a}, {s})", f"np.maximum({a}, {s})",
                           f"np.minimum({a}, {s} - 3)", f"{a}.clip(-1, 1)",
                           f"np.nan_to_num({a})", f"np.fmod({a}, {s})",
                           f"np.power({a}, {s})", f"np.true_divide({a}, {s})",
                           f"np.floor_divide({s}, {a})", f"np.mod({s}, {a})"])
    if kind == 13:  # an augmented assignment
        return f"__aug__ {a}|{rng.choice(['+=', '-=', '*=', '/=', '//='])}|{b}"
    if kind == 14:  # advanced indexing
        s = _size(p, ranked)
        return rng.choice([f"{a}[np.arange({s})]", f"{a}[{a} > 0]", f"{a}[[0, -1]]",
                           f"{a}[range(len({b}))]", f"{a}[np.arange({s}) % 2]",
                           f"{a}[::-1][:{s}]", f"{a}[{b}.astype(np.int64)]",
                           f"{a}[..., [0]]", f"{a}[np.array([0, 1])]"])
    if kind == 15:  # tri-like and linalg
        return rng.choice([f"np.tril({a})", f"np.triu({a}, 1)", f"np.diag({a})",
                           f"np.linalg.norm({a}, axis={ax})", f"np.linalg.inv({a})",
                           f"np.linalg.det({a})", f"np.diagonal({a})",
                           f"np.linalg.norm({a})", f"np.count_nonzero({a}, axis={ax})",
                           f"np.median({a}, axis={ax})", f"np.cumsum({a})"])
    if kind >= 30:
        return _position_line(p, a, b, ax)
    if kind >= 25:
        return _counted_line(p, a, b, ax)
    if kind >= 23:
        return _newer_line(p, a, b, ax)
    if kind >= 17:
        return _new_line(p, kind, a, b, ax)
    # kind 16: a Python number from sizes times a value
    s = _size(p, ranked)
    t = _size(p, ranked)
    return rng.choice([f"{a} * ({s} / {t})", f"{a} * ({s} // {t})", f"{a} * ({s} % {t})",
                       f"{a} * {s} ** -0.5", f"{a} * round({s} / 2)", f"{a} * int({s} / 3)",
                       f"{a} * ({s} > {t})", f"{a} + ({s} - {t})", f"{a} * math.log({s} + 1)",
                       f"{a} / math.sqrt({s})", f"{a} * ({s} ** {t})"])


def _einsum(rng: random.Random, ra: int, rb: int | None) -> str:
    """Random einsum subscripts for operands of ranks ``ra`` (and ``rb``): letters drawn
    from a few (so some repeat, trace or contract), an explicit output of some of them,
    or the implicit form."""
    pool = "ijk"
    left = "".join(rng.choice(pool) for _ in range(ra))
    right = None if rb is None else "".join(rng.choice(pool) for _ in range(rb))
    letters = list(dict.fromkeys(left + (right or "")))
    rng.shuffle(letters)
    operands = left if right is None else f"{left},{right}"
    if rng.random() < 0.2:
        operands = "..." + left if right is None else f"...{left},...{right}"
        return f"{operands}->...{''.join(letters[:rng.randint(0, len(letters))])}"
    if rng.random() < 0.25:
        return operands
    return f"{operands}->{''.join(letters[:rng.randint(0, len(letters))])}"


def _new_line(p: Program, kind: int, a: str, b: str, ax: int) -> str:
    """The lines of hunt18: splits, einsum strings, axis permutations, fancy indexing and
    masks, pads, broadcasts and sorts (kinds 17..22)."""
    rng = p.rng
    ra, rb = p.values[a][0], p.values[b][0]
    ranked = [v for v in p.values if p.values[v][0] >= 1]
    s = _size(p, ranked) if ranked else "2"
    k = rng.randint(0, 2)
    if kind == 17:  # splits
        return rng.choice([f"np.split({a}, 2, axis={ax})[{k % 2}]",
                           f"np.array_split({a}, 3, axis={ax})[{k}]",
                           f"np.split({a}, [1, {s}], axis={ax})[{k}]",
                           f"np.array_split({a}, {s}, axis={ax})[0]",
                           f"np.split({a}, [{s}])[{k % 2}]", f"np.hsplit({a}, 1)[0]",
                           f"np.vsplit({a}, [1])[{k % 2}]", f"np.array_split({a}, 2)[-1]",
                           f"np.split({a}, {s})[0]", f"np.split({a}, [2, 1], axis={ax})[1]"])
    if kind == 18:  # einsum strings
        if rng.random() < 0.5:
            return f"np.einsum('{_einsum(rng, ra, None)}', {a})"
        return f"np.einsum('{_einsum(rng, ra, rb)}', {a}, {b})"
    if kind == 19:  # axis permutations
        perm = list(range(ra))
        rng.shuffle(perm)
        axes = ", ".join(str(x - ra if rng.random() < 0.3 else x) for x in perm)
        return rng.choice([f"np.transpose({a}, ({axes}{',' if ra == 1 else ''}))",
                           f"{a}.transpose({axes})", f"np.moveaxis({a}, {ax}, -1)",
                           f"np.moveaxis({a}, [{ax}], [0])", f"np.swapaxes({a}, {ax}, -1)",
                           f"np.rollaxis({a}, {ax})", f"{a}.swapaxes(0, {ax})",
                           f"np.permute_dims({a})", f"{a}.mT", f"np.matrix_transpose({a})"])
    if kind == 20:  # fancy indexing and masks
        i = rng.choice([f"np.arange({s})", "[0, 1]", "[-1]", f"np.arange({s}) % 2",
                        f"{b}.astype(np.intp)", "np.array([[0], [1]])", "[True, False]"])
        return rng.choice([f"{a}[{i}]", f"{a}[:, {i}]", f"{a}[{i}, {i}]",
                           f"{a}[{i}, :, {i}]", f"{a}[..., {i}]", f"{a}[{a} > 0]",
                           f"{a}[{b} > 0]", f"{a}[{a}[..., 0] > 0]",
                           f"np.take({a}, {i}, axis={ax})", f"np.take({a}, {i})",
                           f"np.nonzero({a})[0]", f"np.argwhere({a})",
                           f"np.take_along_axis({a}, np.argsort({a}, axis={ax}), axis={ax})",
                           f"np.compress({a}.ravel() > 0, {a}.ravel())",
                           f"np.where({a})[{k % max(ra, 1)}]", f"np.flatnonzero({a})",
                           f"{a}[None, {i}]", f"{a}[{i}, None]", f"{a}[1:, {i}]",
                           f"{a}[{i}][:, None]"])
    if kind == 21:  # pads
        widths = ", ".join(f"({rng.randint(0, 2)}, {rng.randint(0, 2)})" for _ in range(ra))
        mode = rng.choice(["'constant'", "'edge'", "'reflect'", "'wrap'", "'symmetric'",
                           "'maximum'", "'mean'", "'linear_ramp'", "'empty'"])
        return rng.choice([f"np.pad({a}, ({widths}{',' if ra == 1 else ''}), {mode})",
                           f"np.pad({a}, {rng.randint(0, 2)}, {mode})",
                           f"np.pad({a}, ({s}, 1), {mode})" if ra == 1 else
                           f"np.pad({a}, (({s}, 0),) + ((0, 0),) * {ra - 1})",
                           f"np.pad({a}, {s})", f"np.pad({a}, (1, {s}))"])
    # kind 22: broadcasts, cumulative ops and sorts
    return rng.choice([f"np.broadcast_to({a}, ({s},) * {max(ra, 1)})",
                       f"np.broadcast_to({a}, (2,) + {a}.shape)",
                       f"np.broadcast_arrays({a}, {b})[{k % 2}]",
                       f"np.cumsum({a}, axis={ax}, dtype=np.{rng.choice(CASTS)})",
                       f"np.cumprod({a}, axis={ax})", f"np.sort({a})", f"np.argsort({a})",
                       f"np.sort({a}, axis=None)", f"np.partition({a}, 0, axis={ax})",
                       f"np.argpartition({a}, -1)", f"np.cumulative_sum({a}, axis={ax})",
                       f"np.cumulative_sum({a}, axis={ax}, include_initial=True)",
                       f"np.unique_values({a}.ravel())",
                       f"np.searchsorted(np.sort({a}.ravel()), {b})",
                       f"np.lexsort(({a},))" if ra else f"np.sort({a}, axis=None)"])


def _newer_line(p: Program, a: str, b: str, ax: int) -> str:
    """The lines of hunt19 (kind 23): sizes made NumPy numbers, branches on dtypes,
    fmod and shifts, partitions, searchsorted, the array API's cumulative ops, math.fmod
    of sizes, repeats by a float, slices of a size step, and index arrays the data
    decides."""
    rng = p.rng
    ra = p.values[a][0]
    ranked = [v for v in p.values if p.values[v][0] >= 1]
    s = _size(p, ranked) if ranked else "2"
    t = _size(p, ranked) if ranked else "3"
    k = rng.choice([0, 1, -1, 2])
    n = rng.choice(["int8", "uint8", "int16", "int64", "float32", "float16", "intp",
                    "double"])
    return rng.choice([
        f"{a} * np.{n}({s})", f"np.array({s}, dtype=np.{n}) + {a}",
        f"{a} if {a}.dtype == np.{n} else {a}.astype(np.{n})",
        f"{a}.astype(np.float32) if {a}.dtype.kind in 'iu' else {a} * 2",
        f"np.zeros({a}.dtype.itemsize * {s})",
        f"np.fmod({a}, {b})", f"np.fmod({a}, {s})", f"np.left_shift({a}, {b})",
        f"{a} >> {rng.randint(0, 3)}", f"{a} << {s}", f"{a} * math.fmod({s}, {t})",
        f"np.partition({a}, {k}, axis={ax})" if ra else f"np.sort({a}, axis=None)",
        f"np.argpartition({a}, {k}, axis=None)",
        f"np.searchsorted(np.sort({a}.ravel()), {b})",
        f"np.cumulative_sum({a}, axis={ax}, include_initial=True)" if ra else
        f"np.cumulative_sum({a})", f"np.cumulative_prod({a}.ravel())",
        f"np.repeat({a}, {s} / 2)", f"np.repeat({a}, 2.0)",
        f"{a}[::{s}]" if ra else f"{a}", f"{a}[1::{s} + 1]" if ra else f"{a}",
        f"{a}[-{s}:]" if ra else f"{a}", f"{a}[{a} > 1]", f"{a}[({b} > 0).astype(int)]",
        f"{a}[np.zeros({s}, dtype=bool)]" if ra == 1 else f"{a}.ravel()",
    ])


def _counted_line(p: Program, a: str, b: str, ax: int) -> str:
    """The lines of hunt20 (kind 25): sizes the data decide (nonzero, argwhere,
    flatnonzero, where of one argument, compress, unique_values) and what uses them,
    broadcast_arrays, lexsort, cumsum/cumprod with a dtype, pad's non-constant modes."""
    rng = p.rng
    ra = p.values[a][0]
    rb = p.values[b][0]
    ranked = [v for v in p.values if p.values[v][0] >= 1]
    s = _size(p, ranked) if ranked else "2"
    k = rng.randrange(max(ra, 1))
    widths = ", ".join(f"({rng.randint(0, 3)}, {rng.randint(0, 2)})" for _ in range(ra))
    mode = rng.choice(["'edge'", "'reflect'", "'symmetric'", "'wrap'", "'maximum'",
                       "'mean'", "'median'", "'minimum'", "'linear_ramp'", "'empty'"])
    cast = rng.choice(CASTS)
    return rng.choice([
        f"np.nonzero({a})[{k}]", f"np.stack(np.nonzero({a}))", f"np.argwhere({a})",
        f"np.argwhere({a}).T", f"np.flatnonzero({a})", f"np.where({a})[{k}]",
        f"{a}[np.nonzero({a})]", f"np.nonzero({a})[0] + np.nonzero({a})[{k}]",
        f"{a}.ravel()[np.flatnonzero({a})]", f"np.argwhere({a}).sum(axis=0)",
        f"np.compress({b}.ravel() > 0, {a}, axis={ax})" if ra else f"np.compress([True], {a})",
        f"np.compress([True, False], {a}, axis={ax})" if ra else f"np.compress([0, 1], {a})",
        f"np.compress({a}.ravel() != 0, {a})", f"np.compress(np.ones({s}, bool), {a})",
        f"np.unique_values({a})", f"np.unique_values({a}).astype(np.{cast})",
        f"np.unique_values({a}) * 2", f"len(np.unique_values({a})) + {a}",
        f"np.broadcast_arrays({a}, {b})[{rng.randint(0, 1)}]",
        f"np.broadcast_arrays({a}, {b}, {a})[2]", f"np.broadcast_arrays({a})[0]",
        f"np.lexsort(({a}, {a}))" if ra else f"np.lexsort(({a},))",
        f"np.lexsort(({a}, {b}))" if ra == rb else f"np.lexsort(({a},), axis=0)",
        f"np.lexsort(({a},), axis={ax})", f"np.lexsort({a})" if ra else f"{a}",
        f"np.cumsum({a}, axis={ax}, dtype=np.{cast})" if ra else
        f"np.cumsum({a}, dtype=np.{cast})", f"{a}.cumprod(dtype=np.{cast})",
        f"np.cumprod({a}, {ax}, np.{cast})" if ra else f"np.cumsum({a}, 0, np.{cast})",
        f"np.pad({a}, ({widths}{',' if ra == 1 else ''}), {mode})",
        f"np.pad({a}, {rng.randint(0, 3)}, {mode})", f"np.pad({a}, (1, 0), mode={mode})",
    ])


def _position_line(p: Program, a: str, b: str, ax: int) -> str:
    """The lines of hunt21 (kind 30): positions the data decide (argmax, argmin) and
    argsorts with their axes permuted, used as indices (of another value too), in
    take_along_axis and take, and nonzero of one mask twice."""
    rng = p.rng
    ra, rb = p.values[a][0], p.values[b][0]
    bx = rng.randrange(-rb, rb) if rb else 0
    arg = rng.choice(["argmax", "argmin"])
    pos = f"np.{arg}({b}, axis={bx})" if rb else f"np.{arg}({b})"
    keep = f"np.{arg}({a}, axis={ax}, keepdims=True)" if ra else f"np.{arg}({a})"
    perm = f"np.argsort({a}, axis={ax})" if ra else f"np.argsort({a})"
    k = rng.randint(0, 2)
    return rng.choice([
        f"{a}[{pos}]", f"{a}[..., {pos}]", f"{a}[{pos} + {k}]", f"{a}[{pos}[::-1]]",
        f"{a}[np.{arg}({a}, axis={ax})]" if ra else f"{a}[{pos}]",
        f"np.take({a}, {pos}, axis={ax})" if ra else f"np.take({a}, {pos})",
        f"np.take({a}, np.{arg}({b}))", f"{a}.take({pos})",
        f"np.take_along_axis({a}, {keep}, axis={ax})" if ra else f"{a}[{pos}]",
        f"np.take_along_axis({a}, np.{arg}({b}, axis={bx}, keepdims=True), axis={ax})"
        if ra and rb else f"{a}[{pos}]",
        f"np.take_along_axis({a}, {perm}.T, axis={ax})" if ra else f"{a}[{perm}]",
        f"np.take_along_axis({a}, np.swapaxes({perm}, 0, -1), axis={ax})" if ra else
        f"{a}[{perm}.T]",
        f"{a}[{perm}.T]", f"{a}[np.moveaxis({perm}, 0, -1)]" if ra else f"{a}[{perm}]",
        f"np.nonzero({a})[0] + np.nonzero({a})[{rng.randrange(max(ra, 1))}]" if ra else
        f"{a}[{pos}]",
        f"{a}[np.nonzero({b})[0]]" if rb else f"{a}[{pos}]",
    ])


def _emit(p: Program, name: str, text: str) -> list[str]:
    if text.startswith("__assign__ "):
        tgt, idx, aug, val = text[len("__assign__ "):].split("|")
        return [f"{name} = {tgt}", f"{name}[{idx}] {aug} {val}"]
    if text.startswith("__aug__ "):
        a, aug, b = text[len("__aug__ "):].split("|")
        return [f"{name} = {a}", f"{name} {aug} {b}"]
    return [f"{name} = {text}"]


def _inputs(rng: random.Random) -> list[str]:
    types = []
    for _ in range(rng.choice((1, 2, 2, 3))):
        rank = rng.choice((0, 1, 1, 2, 2, 2, 3))
        dims = [rng.choice(NAMES + NAMES + ("1", "2", "3")) for _ in range(rank)]
        types.append(f"{rng.choice(DTYPES[:4] * 3 + DTYPES[4:])}[{','.join(dims)}]")
    return types


def program(rng: random.Random, lines: int | None = None, kinds: int = 17) -> Program:
    """A random program (see the module): its lines run at :data:`REFERENCE` sizes,
    except now and then one that does not. ``kinds`` 23 adds :func:`_new_line`'s."""
    p = Program(rng, _inputs(rng), kinds=kinds)
    for i, t in enumerate(p.types):
        tt = kt.TensorType.parse(t)
        p.values[f"x{i}"] = (tt.ndim, tt.dtype)
    for k in range(lines or rng.randint(1, 5)):
        name = f"v{k}"
        for attempt in range(12):
            text = _line(p)
            emitted = _emit(p, name, text)
            trial = Program(rng, p.types, p.lines + emitted, dict(p.values), p.kinds)
            fn = compile_program(trial.source(name))
            out = run_numpy(fn, p.types, REFERENCE)
            if isinstance(out, BaseException) and rng.random() < 0.93 and attempt < 11:
                continue
            if not isinstance(out, np.ndarray | np.generic):
                continue
            p.lines += emitted
            out = np.asarray(out)
            p.values[name] = (out.ndim, str(out.dtype))
            break
    return p


# ---------------------------------------------------------------- judging


@dataclass
class Verdict:
    """What judging one program found: counts, and each wrong answer with its sizes."""

    source: str
    types: list[str]
    status: str = "typed"  # typed | refused | unsupported | crashed
    checked: int = 0
    wrong: list[tuple[str, dict, str]] = field(default_factory=list)
    note: str = ""


def _has_zero_d(fn, types) -> bool:
    """Whether the program has a 0-d value (an input, or one a line makes) at the
    reference sizes."""
    if any(kt.TensorType.parse(t).ndim == 0 for t in types):
        return True
    zero_d = []

    def tracer(frame, event, arg):
        if event == "return" and frame.f_code.co_name == "program":
            zero_d.extend(v for v in frame.f_locals.values()
                          if isinstance(v, np.ndarray | np.generic) and np.ndim(v) == 0)
        return None

    sys.setprofile(tracer)
    try:
        run_numpy(fn, types, REFERENCE)
    finally:
        sys.setprofile(None)
    return bool(zero_d)


def _case(result, sizes):
    if not result.cases:
        return result
    return next((c for c in result.cases if all(x.holds(sizes) for x in c.conditions)), None)


def _choice_explains(result, sizes) -> bool:
    """Whether an overload's choice, or a slice bound's sign reading, is what fails at
    ``sizes`` (those sizes are not covered: documented, not a wrong answer)."""
    from kantensor.types.conditions import AnyOf
    cases = [result, *result.cases]
    for c in cases:
        for a in c.assumptions:
            parts = [a] if not isinstance(a, AnyOf) else [x for case in a.cases for x in case]
            for x in parts:
                if x.source is not None and x.source.otherwise:
                    try:
                        if not x.holds(sizes):
                            return True
                    except ZeroDivisionError:
                        return True
                    except ValueError:  # over a size the data decide: it cannot say
                        continue
    return False


def _sized(d, sizes):
    """A type's size at ``sizes``: an int, or None where the data decide it (``?``, or a
    Dim naming such a size: the axis of a value whose length is ``?``)."""
    if d is None:
        return None
    value = substitute(d, sizes)
    return value if isinstance(value, int) else None


def judge(source: str, types: list[str], box=BOX) -> Verdict:
    """Judge ``source`` (a program) against NumPy at every assignment of ``box``."""

    verdict = Verdict(source, types)
    fn = compile_program(source)
    names = list(dict.fromkeys(d.name for t in types for d in kt.TensorType.parse(t).shape
                               if isinstance(d, kt.Dim)))
    assignments = [dict(zip(names, v, strict=True))
                   for v in itertools.product(box, repeat=len(names))]
    outs = [(s, run_numpy(fn, types, s)) for s in assignments]
    zero_d = _has_zero_d(fn, types)
    previous = kt.get_default_dtype()
    try:
        kt.set_default_dtype("float64")  # NumPy's (a documented difference otherwise)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = kt.eval_shape(fn, *types)
    except kt.TypeInferenceError as exc:
        verdict.status = "refused"
        verdict.note = str(exc).splitlines()[0][:300]
        for s, out in outs:
            verdict.checked += 1
            if not isinstance(out, BaseException) and not fails_for_some_data(fn, types, s):
                verdict.wrong.append(("refused-all", s, f"NumPy runs: {np.shape(out)}"))
        return verdict
    except (TypeError, ValueError, NotImplementedError) as exc:
        verdict.status = "unsupported"
        verdict.note = f"{type(exc).__name__}: {str(exc).splitlines()[-1][:300]}"
        return verdict
    except Exception as exc:  # noqa: BLE001 - a crash is a finding too
        verdict.status = "crashed"
        verdict.note = f"{type(exc).__name__}: {str(exc)[:300]}"
        return verdict
    finally:
        kt.set_default_dtype(previous)
    for s, out in outs:
        verdict.checked += 1
        try:
            holds = result.holds(s)
        except Exception as exc:  # noqa: BLE001
            # a condition over a size the data decide (``len(x[x > 0]) == n``) is kept
            # and holds() says it cannot decide it: undecided, not a crash
            kind = "undecided" if isinstance(exc, ValueError) and "cannot say" in str(exc) \
                else "holds-crash"
            verdict.wrong.append((kind, s, f"{type(exc).__name__}: {exc}"))
            continue
        fails = isinstance(out, BaseException)
        if holds and fails:
            verdict.wrong.append(("unsound", s, f"holds but NumPy: {type(out).__name__}: "
                                                f"{str(out)[:120]}"))
            continue
        if not holds and not fails:
            # refused where some data fail (an index of argmax's positions): the
            # for-every-data reading, not a wrong answer
            if not _choice_explains(result, s) and not fails_for_some_data(fn, types, s):
                verdict.wrong.append(("refused", s, f"not held but NumPy gives "
                                                    f"{np.asarray(out).dtype}{np.shape(out)}"))
            continue
        if fails:
            continue
        case = _case(result, s)
        if case is None:
            verdict.wrong.append(("no-case", s, "holds but no case's conditions hold"))
            continue
        t = case.type
        out = np.asarray(out)
        want = tuple(_sized(d, s) for d in t.shape)
        if len(want) != out.ndim or any(w is not None and w != o
                                         for w, o in zip(want, out.shape, strict=False)):
            verdict.wrong.append(("shape", s, f"typed {t} = {want}, NumPy {out.shape}"))
        if str(out.dtype) != t.dtype:
            # a 0-d tensor ranks below higher ranks in kantensor's promotion, where NumPy
            # 2 gives it full weight: a documented difference (docs/numpy.rst)
            kind = "dtype-0d" if zero_d else "dtype"
            verdict.wrong.append((kind, s, f"typed {t}, NumPy {out.dtype}"))
    return verdict


def main(count: int, seed: int, lines: int = 0, kinds: int = 17) -> None:
    """``lines`` (0: 1..5 at random) lines per program; ``kinds`` 23 draws the new
    constructs of :func:`_new_line` too."""
    from collections import Counter
    stats: Counter = Counter()
    rng = random.Random(seed)
    for i in range(count):
        p = program(rng, lines or None, kinds)
        source = p.source()
        v = judge(source, p.types)
        stats[v.status] += 1
        if v.status == "unsupported":
            stats["why:" + v.note[:60]] += 1
        stats["assignments"] += v.checked
        if v.status == "crashed" or v.wrong:
            found = sorted({w[0] for w in v.wrong}) or [v.status]
            stats["wrong:" + ",".join(found)] += 1
            if found == ["dtype-0d"]:
                continue
            print(f"=== #{i} {v.status} {found} {p.types}\n{source}{v.note}")
            for w in v.wrong[:3]:
                print("   ", w)
            sys.stdout.flush()
    print(dict(stats))


if __name__ == "__main__":
    main(*map(int, sys.argv[1:]))
