"""The node memo of ``infer_shapes``: the types of a node's outputs, and their values
when they are folded from known inputs, are decided by the node's entry, its attributes,
which inputs it gives and how many outputs it asks, and its inputs' types and known
values; so each distinct node of a model is typed once (the repeated layers of a
transformer are typed as the first one was), and again only when one of these differs.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..types.dtypes import NUMPY_STRING
from .intervals import bounded_key
from .registry import OnnxOp

#: key -> (output types, output values or None, the values' keys or None, the node's
#: conditions over its inputs by position: :func:`kantensor.ops.located.portable`);
#: emptied when it holds MEMO_SIZE keys.
MEMO: dict[tuple, tuple[tuple, tuple, tuple, tuple]] = {}
MEMO_SIZE = 1 << 16

#: A known value is part of a key when it has at most this many elements; a node with a
#: larger known input whose value counts (see :func:`node_key`) is not remembered.
SMALL = 64


def _value_key(value: np.ndarray) -> tuple:
    """A value as a key: its bytes (exact: -0.0 apart from 0.0), or for sizes (ints,
    Dims, None) and strings (whose bytes are NumPy's pointers) its entries with their
    classes (True apart from 1)."""
    if value.dtype != object and value.dtype != NUMPY_STRING:
        return value.dtype.str, value.shape, value.tobytes()
    return "O", value.shape, tuple((type(v), v) for v in value.ravel().tolist())


def value_key(value: np.ndarray) -> tuple | bool:
    """A known value's key as :func:`node_key` takes it: False when it is too large to be
    part of a key."""
    return False if value.size > SMALL else _value_key(value)


def read_inputs(reader: Any, names: Sequence[str]) -> tuple[list, bool] | None:
    """Each of the inputs ``names``, for ``reader``: None (absent) or its type, and
    whether their values count in the node's key: the one home of that rule (every input
    given is known, so the outputs may be folded from them; :func:`node_key` and the
    template memo's :func:`.generic.remembered` both read it here). None when an input is
    not defined yet (left to the reader's error)."""
    types, values, unread = reader.types, reader.values, reader.unread
    inputs: list[Any] = []
    fold = True  # every input given is known
    for name in names:
        if not name:
            inputs.append(None)
            continue
        t = types.get(name)
        if t is None:
            return None
        inputs.append(t)
        if fold and name not in values and name not in unread:
            fold = False
    return inputs, fold


def node_key(reader: Any, entry: OnnxOp, names: Sequence[str],
             attributes: tuple[bytes, ...] | None, outputs: int,
             read: tuple[list, bool] | None = None) -> tuple | None:
    """The key of a node's typing, for ``reader`` (the importer's, reading types
    only): the entry, the attributes (``attributes``: each serialized, as the node's
    :class:`~.nodecache.NodeRecord` holds them), the number of outputs (``outputs``),
    the default dtype when the reading began (a build may read it, so the Ops' own
    memos key on it too), and for each of the inputs ``names`` None (absent) or its
    type, with its value when the value counts (the entry reads it as a parameter, or
    every input is known: :func:`read_inputs`); then the facts known of their sizes, and
    the intervals of those the entry reads bounds of (:func:`~.intervals.bounded_key`),
    when there are any. ``read``: what :func:`read_inputs` gave for ``names``, when the
    caller has it. None when the node is not to be remembered: its attributes are not
    (None), an input not defined yet (left to the reader's error), a large value that
    counts. (Written for speed: it runs once per node of every model read.)"""
    if attributes is None:
        return None
    if read is None:
        read = read_inputs(reader, names)
        if read is None:
            return None
    inputs, fold = read
    reads = range(len(names)) if fold and len(inputs) > inputs.count(None) else entry.reads
    if reads:
        values, unread = reader.values, reader.unread
        value_keys = reader.value_keys
        for k in reads:
            if k >= len(names):
                break
            name = names[k]
            if not name or name not in values and name not in unread:
                continue
            vkey = value_keys.get(name)
            if vkey is None:  # False: too large to be part of a key
                size = 1
                for d in inputs[k].shape:  # a known value's sizes are ints
                    size *= d
                vkey = value_keys[name] = False if size > SMALL else \
                    _value_key(reader.value(name))
            if vkey is False:
                return None
            inputs[k] = (inputs[k], vkey)
    key = plain_key(reader, entry, names, tuple(inputs), attributes, outputs)
    return bounded_key(reader, entry, names, key) if entry.bounded else key


def plain_key(reader: Any, entry: OnnxOp, names: Sequence[str], inputs: tuple,
              attributes: tuple[bytes, ...], outputs: int) -> tuple:
    """The key of :func:`node_key` from its ``inputs`` (each None, a type, or a type
    and its value's key), for an entry that reads no interval."""
    key = entry, inputs, attributes, outputs, reader.default_dtype
    if reader.facts:  # what the nodes before it need of its inputs' sizes
        key = (*key, reader.facts_about(names))
    return key


def remember(key: tuple | None, types: tuple, values: tuple, conditions: tuple = ()
             ) -> tuple[tuple, tuple, tuple, tuple]:
    """A node's typing as the memo holds it: its output types, their values (or None),
    the values' keys (made once here, not by each node that reads them) and its
    conditions, stored under ``key``; not stored when ``key`` is None or a value is large
    (what the memo holds stays small once the model is gone)."""
    if len(values) == 1 and values[0] is None:  # one output, no value (most nodes)
        typed = types, values, values, conditions
    elif key is None or any(v is not None and v.size > SMALL for v in values):
        return types, values, (None,) * len(values), conditions
    else:
        typed = types, values, tuple([None if v is None else _value_key(v)
                                      for v in values]), conditions
    if key is None:
        return typed
    if len(MEMO) >= MEMO_SIZE:
        MEMO.clear()
    MEMO[key] = typed
    return typed
