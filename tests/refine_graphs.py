"""Random graphs of catalogue Ops for the refine property tests.

A graph is a *program*: inputs with true (concrete) shapes and steps applying Ops.
Every step is chosen so that the true shapes fit it, possibly adding a new input of
a fitting shape. The program can be built with any input types: with the true ones
(the graph's true sizes), with some sizes erased (what refine starts from), or with
the erased sizes set to other values (brute-force enumeration).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

import kantensor as kt

#: Steps that never broadcast: every size they decide is decided by equalities.
PLAIN = ("tanh", "exp", "matmul", "transpose", "sum", "concatenate", "flatten", "dot")
#: Steps that broadcast (an unknown size may be 1 or the other size).
BROADCASTING = ("add", "mul")
#: Steps whose sizes are min/max or floor divisions of others (slices, splits, reshapes).
SHAPING = ("slice", "stack", "swapaxes", "split", "reshape")
#: Steps whose builders once decided sizes outside the relation (issue 21).
INDEXING = ("einsum", "take_along_axis", "squeeze")


@dataclass
class Program:
    shapes: list[tuple[int, ...]] = field(default_factory=list)  # true input shapes
    steps: list[tuple] = field(default_factory=list)  # (kind, operand indices, param)

    def build(self, shapes: list[tuple]) -> list[kt.Variable]:
        """Every Variable of the program (inputs first), built with input ``shapes``."""
        values = [kt.tensor(f"x{i}", "float64", shape=s) for i, s in enumerate(shapes)]
        for kind, args, param in self.steps:
            a = [values[i] for i in args]
            values.append(_apply(kind, a, param))
        return values


def _apply(kind: str, a: list, param: int) -> kt.Variable:
    if kind in ("tanh", "exp"):
        return getattr(kt, kind)(a[0])
    if kind in ("add", "mul", "matmul", "dot"):
        return getattr(kt, kind)(a[0], a[1])
    if kind == "transpose":
        return kt.transpose(a[0])
    if kind == "sum":
        return kt.sum(a[0], axis=param)
    if kind == "concatenate":
        return kt.concatenate([a[0], a[1]], axis=param)
    if kind == "flatten":
        return a[0].reshape(-1)
    if kind == "slice":
        return a[0][1:]
    if kind == "stack":
        return kt.stack([a[0], a[1]])
    if kind == "swapaxes":
        return kt.swapaxes(a[0], 0, -1)
    if kind == "split":
        return kt.split(a[0], 2)[param]
    if kind == "reshape":
        return a[0].reshape(param, -1)
    if kind == "einsum":
        return kt.einsum("ij,jk->ik" if a[0].ndim == 2 else "i,i->i", a[0], a[1])
    if kind == "take_along_axis":
        return kt.take_along_axis(a[0], kt.argsort(a[1], axis=-1), axis=param)
    if kind == "squeeze":
        return kt.squeeze(a[0], axis=None if param < 0 else param)
    raise ValueError(kind)


def random_program(rng: random.Random, kinds: tuple[str, ...], steps: int) -> Program:
    prog = Program()
    true: list[tuple[int, ...]] = []

    def new_input(shape: tuple[int, ...]) -> int:
        prog.shapes.append(shape)
        true.insert(len(prog.shapes) - 1, shape)
        # inputs come first: shift the indices of values made by steps
        prog.steps[:] = [(k, [i + 1 if i >= len(prog.shapes) - 1 else i for i in args], p)
                         for k, args, p in prog.steps]
        return len(prog.shapes) - 1

    def size() -> int:
        return rng.randint(1, 4)

    new_input(tuple(size() for _ in range(rng.randint(1, 2))))
    for _ in range(steps):
        kind = rng.choice(kinds)
        x = rng.randrange(len(true))
        shape = true[x]
        if kind in ("tanh", "exp"):
            prog.steps.append((kind, [x], 0))
            true.append(shape)
        elif kind in ("add", "mul"):
            other = tuple(rng.choice((1, s)) for s in shape)
            y = new_input(other)
            x += x >= y
            prog.steps.append((kind, [x, y], 0))
            true.append(shape)
        elif kind in ("matmul", "dot"):
            if not shape or len(shape) > 2:
                continue
            y = new_input((shape[-1],) if kind == "dot" else (shape[-1], size()))
            x += x >= y
            out = shape[:-1] + (() if kind == "dot" else (true[y][-1],))
            prog.steps.append((kind, [x, y], 0))
            true.append(out)
        elif kind == "transpose":
            prog.steps.append((kind, [x], 0))
            true.append(shape[::-1])
        elif kind == "sum":
            if not shape:
                continue
            axis = rng.randrange(len(shape))
            prog.steps.append((kind, [x], axis))
            true.append(shape[:axis] + shape[axis + 1:])
        elif kind == "concatenate":
            if not shape:
                continue
            axis = rng.randrange(len(shape))
            other = shape[:axis] + (size(),) + shape[axis + 1:]
            y = new_input(other)
            x += x >= y
            prog.steps.append((kind, [x, y], axis))
            true.append(shape[:axis] + (shape[axis] + other[axis],) + shape[axis + 1:])
        elif kind == "slice":
            if not shape:
                continue
            prog.steps.append((kind, [x], 0))
            true.append((max(shape[0] - 1, 0),) + shape[1:])
        elif kind == "stack":
            y = new_input(shape)
            x += x >= y
            prog.steps.append((kind, [x, y], 0))
            true.append((2,) + shape)
        elif kind == "swapaxes":
            if not shape:
                continue
            prog.steps.append((kind, [x], 0))
            true.append(shape[-1:] + shape[1:-1] + shape[:1] if len(shape) > 1 else shape)
        elif kind == "split":
            if not shape or shape[0] % 2:
                continue
            part = rng.randrange(2)
            prog.steps.append((kind, [x], part))
            true.append((shape[0] // 2,) + shape[1:])
        elif kind == "reshape":
            n = 1
            for s in shape:
                n *= s
            rows = rng.choice([d for d in range(1, n + 1) if n % d == 0] or [1])
            prog.steps.append((kind, [x], rows))
            true.append((rows, n // rows))
        elif kind == "einsum":
            if len(shape) not in (1, 2):
                continue
            j = rng.choice((1, shape[-1]))
            y = new_input((j, size()) if len(shape) == 2 else (j,))
            x += x >= y
            prog.steps.append((kind, [x, y], 0))
            true.append((shape[0], true[y][-1]) if len(shape) == 2
                        else (max(shape[0], j) * min(shape[0], j, 1),))
        elif kind == "take_along_axis":
            if not shape:
                continue
            axis = rng.randrange(len(shape))
            other = tuple(size() if i == axis else rng.choice((1, s))
                          for i, s in enumerate(shape))
            if shape[axis] == 0:
                continue
            y = new_input(other)
            x += x >= y
            prog.steps.append((kind, [x, y], axis))
            true.append(shape[:axis] + (other[axis],) + shape[axis + 1:])
        elif kind == "squeeze":
            ones = [i for i, s in enumerate(shape) if s == 1]
            axis = rng.choice(ones) if ones else -1  # axis=None where no size is 1
            prog.steps.append((kind, [x], axis))
            true.append(tuple(s for i, s in enumerate(shape) if i != axis))
        elif kind == "flatten":
            n = 1
            for s in shape:
                n *= s
            prog.steps.append((kind, [x], 0))
            true.append((n,))
    return prog


def erased_program(rng: random.Random, kinds: tuple[str, ...]
                   ) -> tuple[Program, list, list]:
    """A random program of 1 to 6 steps, its values built at the true input sizes, and
    its values built again with about half of the input sizes erased (None)."""
    prog = random_program(rng, kinds, rng.randint(1, 6))
    true = prog.build(prog.shapes)
    erased = [tuple(None if rng.random() < 0.5 else s for s in shape)
              for shape in prog.shapes]
    return prog, true, prog.build(erased)
