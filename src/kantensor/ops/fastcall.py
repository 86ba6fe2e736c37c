"""Cached builds of Ops with parameters: one generated function per call shape.

A cached build should cost about what the floor costs: one dict lookup and one Apply.
The general path of a call (bind the arguments, normalise the parameters, pick the
TemplateOp, make_node) does much more, and on CPython even a generic loop over a bind
plan costs more than the Apply itself: its branches and frames add up. So, as
``dataclasses`` and ``namedtuple`` do, each *shape* of call (the number of positional
arguments and the keyword names) gets straight-line Python: read each argument from
where it is, turn it into its exact key, look the key up in the memo of that shape and
build the outputs.

Each call shape of each Op family has a memo of its own, mapping a key to what an
earlier, equal call built: ``(Op, output types, input types)``. (One value can mean
different things in calls of different shapes: ``sum(x, 1)``, ``sum(x, keepdims=1)``.) A
key holds, for each tensor, its type (interned: hashed and compared by identity) and,
for a wrapped number, its :func:`~kantensor.ops.pyints.wrapped_key`; for each parameter
given, its :func:`exact_key`; and the default dtype. Defaults are not in the key: a call
shape fixes which parameters take them. A value without an exact key (a float, a Dim, an
array) or a key not seen yet makes the call take the general path, which also words
every error and records what it builds under the key. Nothing here decides a type: a hit
returns what the relation decided for an equal call. A build with conditions, and a call
on a tensor with facts (:mod:`kantensor.types.facts`), always take the general path: a
hit makes a node of no conditions and outputs of no facts.

The code depends only on where tensors and parameters are, not on the Op (``sum(x,
axis=1)`` and ``mean(x, axis=1)`` run one function, each with its memo), so it is
compiled once per such layout.
"""

from __future__ import annotations

import functools
import textwrap
from collections.abc import Callable
from typing import Any

from ..graph.basic import Apply, Variable
from ..graph.codegen import define, enabled
from ..types.dtypes import INITIAL_DEFAULT
from ..types.numpyrules import rules_key
from .pyints import wrapped_key

#: The key of a sequence of ints, None, ``...`` and slices of ints and None, as code:
#: ``{key}`` becomes a tuple of ``{kind}`` and one key per item of ``{items}``, or the
#: code returns None. Slices are unhashable before Python 3.12 and ``1 == 1.0 ==
#: True``, so a slice's bounds are checked to be exact ints or None and kept as a tuple.
#: Inlined, it keys every generated call's tuple parameters (``x[1:, ::2]``,
#: ``reshape((3, -1))``), where a frame more would cost as much as the loop;
#: :func:`exact_key` runs the same loop written out.
_SEQUENCE_KEY = """\
{key} = [{kind}]
for item in {items}:
    if type(item) is slice:
        start, stop, step = item.start, item.stop, item.step
        if not ((type(start) is int or start is None) and (type(stop) is int or stop is None)
                and (type(step) is int or step is None)):
            return None
        {key}.append((start, stop, step))
    elif type(item) is int or item is None or item is Ellipsis:
        {key}.append(item)
    else:
        return None
{key} = tuple({key})"""


def exact_key(value: Any) -> Any:
    """A key equal only for values every normaliser treats alike: exact ints, bools,
    strings, None and ``...`` (with their type, as ``1 == True``), and tuples, lists or
    slices as :data:`_SEQUENCE_KEY` says; None for anything else (floats among them:
    ``0.0 == -0.0``), and None for everything while generated code is off
    (:mod:`kantensor.graph.codegen`): then nothing is remembered by key.

    Plain Python: generated from :data:`_SEQUENCE_KEY` (as it was), its text is the
    same in every process, and compiling it cost a process's first call with
    parameters 0.3 ms. Its loop is the one generated calls inline;
    ``tests/test_build_memo.py`` compares the two on every kind of item."""
    return _exact(value) if enabled() else None


def _exact(value: Any) -> Any:
    """:func:`exact_key` while generated code is on (what generated calls call)."""
    kind = type(value)
    if kind is int or kind is bool or kind is str or value is None or value is Ellipsis:
        return (kind, value)
    if kind is tuple or kind is list:
        items = value
    elif kind is slice:
        items = (value,)
    else:
        return None
    key: list[Any] = [kind]
    for item in items:
        if type(item) is slice:
            start, stop, step = item.start, item.stop, item.step
            if not ((type(start) is int or start is None) and (type(stop) is int or stop is None)
                    and (type(step) is int or step is None)):
                return None
            key.append((start, stop, step))
        elif type(item) is int or item is None or item is Ellipsis:
            key.append(item)
        else:
            return None
    return tuple(key)


class Miss:
    """What a generated call returns when its key is exact but not yet in its memo: the
    memo, the key and the tensors, for the general path to record what it builds."""

    __slots__ = ("memo", "key", "tensors")

    def __init__(self, memo: dict, key: tuple, tensors: list[Variable]):
        self.memo = memo
        self.key = key
        self.tensors = tensors


#: The cached call of one call shape: ``(args, kwargs)`` -> the outputs of a hit, a
#: Miss, or None (no exact key: bind the call). Its memo is ``fast.args[0]``.
FastCall = functools.partial

#: The names generated code sees.
_NAMESPACE = {"Variable": Variable, "Miss": Miss, "wrapped_key": wrapped_key,
              "default_dtype": rules_key, "one_output": Apply.one_output,
              "of_new_outputs": Apply.of_new_outputs, "PLAIN": INITIAL_DEFAULT}

#: The classes of what a call gives, as the generated code treats them.
_TENSOR, _TENSORS, _PARAM = "tensor", "tensors", "param"


def fast_call(given: tuple[tuple[str, bool, int | str], ...], n_args: int) -> FastCall:
    """The cached call of one call shape, with a new memo. ``given`` lists, in parameter
    order, what the call gives: ``(kind, positional, source)`` with ``source`` the
    position in ``args`` or the keyword; ``n_args`` is the number of positional
    arguments. Kinds are ``"tensor"``, ``"tensors"`` (a list or tuple of tensors) or a
    parameter kind."""
    layout = tuple((kind if kind in (_TENSOR, _TENSORS) else _PARAM, positional, source)
                   for kind, positional, source in given)
    return functools.partial(_compiled(layout, n_args), {})


@functools.lru_cache(maxsize=256)
def _compiled(layout: tuple[tuple[str, bool, int | str], ...],
              n_args: int) -> Callable[[dict, tuple, dict], Any]:
    """``fn(memo, args, kwargs)`` for calls of this layout (see :func:`fast_call`)."""
    lines = []
    if n_args:
        lines.append(f"    {''.join(f'a{i}, ' for i in range(n_args))}= args")
    keys: list[str] = []
    tensors: list[str] = []
    for i, (kind, positional, source) in enumerate(layout):
        if positional:
            value = f"a{source}"
        else:
            if not (isinstance(source, str) and source.isidentifier()):
                raise ValueError(f"a keyword must be a name, got {source!r}")
            value = f"v{i}"
            lines.append(f"    {value} = kwargs[{source!r}]")
        if kind == _TENSOR:
            lines.append(f"    if not isinstance({value}, Variable) or {value}.facts is not None:"
                         " return None")
            keys.append(f"{value}.type, {value}.wrapped and wrapped_key({value})")
            tensors.append(value)
        elif kind == _TENSORS:
            lines += [f"    if type({value}) is not list and type({value}) is not tuple:"
                      f" return None",
                      f"    k{i} = []",
                      f"    for v in {value}:",
                      "        if not isinstance(v, Variable) or v.facts is not None: return None",
                      f"        k{i}.append((v.type, v.wrapped and wrapped_key(v)))"]
            keys.append(f"tuple(k{i})")
            tensors.append(f"*{value}")
        else:  # an int is its own key (no other key is an int); tuples inline
            lines += [f"    if type({value}) is int:",
                      f"        k{i} = {value}",
                      f"    elif type({value}) is tuple:",
                      textwrap.indent(_SEQUENCE_KEY.format(key=f"k{i}", kind="tuple",
                                                           items=value), " " * 8),
                      "    else:",
                      f"        k{i} = exact_key({value})",
                      f"        if k{i} is None: return None"]
            keys.append(f"k{i}")
    lines.append("    rules = default_dtype()")
    keys.append("rules")
    name = f"_fast_call_{_compiled.cache_info().currsize}"
    return define("\n".join([
        f"def {name}(memo, args, kwargs):",
        *lines,
        f"    key = ({', '.join(keys)},)",
        f"    tensors = [{', '.join(tensors)}]",
        "    hit = memo.get(key)",
        "    if hit is None: return Miss(memo, key, tensors)",
        "    outs = hit[1]",
        "    op = hit[0]",
        "    if len(outs) == 1:",
        "        out = one_output(op, tensors, op.output_class, outs[0])",
        "        if rules != PLAIN: out.owner.rules = rules",  # (as make_node sets them)
        "        return out",
        "    node = of_new_outputs(op, tensors, op.output_class, outs)",
        "    if rules != PLAIN: node.rules = rules",
        "    return node.outputs",
    ]), name, {**_NAMESPACE, "exact_key": _exact})
