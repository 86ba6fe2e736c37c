"""The node memo of ``infer_shapes``: the types of a node's outputs, and their values
when they are folded from known inputs, are decided by the node's entry, its attributes,
which inputs it gives and how many outputs it asks, and its inputs' types and known
values; so each distinct node of a model is typed once (the repeated layers of a
transformer are typed as the first one was), and again only when one of these differs.

A size the data decide (a :class:`~kantensor.types.symbols.DataSymbol`: a NonZero's
count) is one object per read of a model, so a key over it is one read's: a model read
again once the model memo no longer holds it types the nodes after its counts anew
(SSDlite's TorchScript export: 103 of its 1,139 typed nodes, about 27 of 80 ms CPU).
Keying them by position instead (each count in a key a placeholder in the order met,
the read's own counts put back on a hit) is sound only if every part of the key and of
the record is renamed alike: the input types, their facts and intervals (which hold the
count's bound over the node that decides it), known values, output types and the
conditions kept, and the notes and symbol bounds a count carries; one part missed
would give one model's count to another. Not done: the cost is a third of that one
re-read, and the renaming would run on every node of every read.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..types.dim import Dim
from ..types.dtypes import NUMPY_STRING
from ..types.facts import Facts
from ..types.symbols import free_symbols
from .intervals import bounded_key
from .onnxop import OnnxOp
from .shared import value_symbols

#: key -> (output types, output values or None, the values' keys or None, the node's
#: conditions over its inputs by position: :func:`kantensor.ops.located.portable`);
#: emptied when it holds MEMO_SIZE keys, or its large values and keys (of more than
#: SMALL elements) would hold more than MEMO_BYTES bytes.
MEMO: dict[tuple, tuple[tuple, tuple, tuple, tuple]] = {}
MEMO_SIZE = 1 << 16
MEMO_BYTES = 1 << 25
_held = [0]  # the bytes of MEMO's large values and keys

#: A known value's key is kept with it (``value_keys``) when it has at most this many
#: elements.
SMALL = 64

#: A larger known value of numbers whose value counts (see :func:`node_key`) is part of
#: the key by its bytes when it has at most this many elements (a bias or a weight a
#: model folds: an Identity of an initializer, a Transpose of a tied weight); a node with
#: a larger one, or with a large one of sizes or strings, is not remembered.
LARGE = 1 << 16


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


def outputs_asked(wanted: Sequence[str]) -> int | tuple[bool, ...]:
    """A node's outputs as its keys hold them: their number, or per output whether it is
    asked where one is an empty name (an entry may read which, ``unasked``)."""
    return len(wanted) if "" not in wanted else tuple(map(bool, wanted))


def node_key(reader: Any, entry: OnnxOp, names: Sequence[str],
             attributes: tuple[bytes, ...] | None, outputs: int | tuple,
             read: tuple[list, bool] | None = None) -> tuple | None:
    """The key of a node's typing, for ``reader`` (the importer's, reading types
    only): the entry, the attributes (``attributes``: each serialized, as the node's
    :class:`~.nodecache.NodeRecord` holds them), the number of outputs (``outputs``; per
    output whether it is asked when one is an empty name), the dtype rules
    (:func:`~kantensor.types.numpyrules.rules_key`: the default dtype, or NumPy's) and the
    largest value folded when the reading began (``setting``: a build may read them, so
    the Ops' own memos key on them too; a caller may set the limit), and for each of the
    inputs ``names`` None (absent) or its type, with its value when the value counts
    (the entry reads it as a parameter, or every input is known: :func:`read_inputs`);
    then the facts known of their sizes, and the intervals of those the entry reads
    bounds of (:func:`~.intervals.bounded_key`), when there are any. ``read``: what
    :func:`read_inputs` gave for ``names``, when the caller has it. None when the node
    is not to be remembered: its attributes are not (None), an input not defined yet
    (left to the reader's error), a large value that counts. (Written for speed: it runs
    once per node of every model read.)"""
    if attributes is None:
        return None
    if read is None:  # (read_inputs, inline: this runs for every node)
        types, values, unread = reader.types, reader.values, reader.unread
        inputs: list[Any] = []
        fold, given = True, False  # every input given is known; some input is given
        for name in names:
            if name:
                t = types.get(name)
                if t is None:
                    return None
                inputs.append(t)
                given = True
                if fold and name not in values and name not in unread:
                    fold = False
            else:
                inputs.append(None)
        fold = fold and given
    else:
        inputs, fold = read
        fold = fold and len(inputs) > inputs.count(None)
    plain = tuple(inputs)  # (the facts about their sizes are found by these)
    reads = range(len(names)) if fold else entry.reads
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
                vkey = _large_key(reader, name, inputs[k])
                if vkey is None:
                    return None
            inputs[k] = (inputs[k], vkey)
        given = tuple(inputs)
    else:
        given = plain
    if not reader.facts.atoms:
        key = entry, given, attributes, outputs, reader.setting
    else:  # what the nodes before it need of its inputs' sizes
        key = entry, given, attributes, outputs, reader.setting, input_facts(reader, plain)
        if reads:  # a value folded under the facts about the sizes it holds
            held = value_facts(reader, [names[k] for k in reads if k < len(names)])
            if held is not None:
                key = (*key, held)
    return bounded_key(reader, entry, names, key) if entry.bounded else key


def plain_key(reader: Any, entry: OnnxOp, names: Sequence[str], inputs: tuple,
              attributes: tuple[bytes, ...], outputs: int | tuple, types: tuple | None = None
              ) -> tuple:
    """The key of :func:`node_key` from its ``inputs`` (each None, a type, or a type
    and its value's key), for an entry that reads no interval (``types``: the inputs'
    types, when the caller has them)."""
    if not reader.facts.atoms:
        return entry, inputs, attributes, outputs, reader.setting
    # what the nodes before it need of its inputs' sizes
    return entry, inputs, attributes, outputs, reader.setting, \
        input_facts(reader, types) if types is not None else reader.facts_about(names)


def _large_key(reader: Any, name: str, t: Any) -> tuple | None:
    """The key of the known value of ``name`` (of type ``t``, more than SMALL elements) by
    its bytes, made once per reader; None when it has more elements than LARGE or than a
    value folded (``reader.setting``: the data is not read then), or holds sizes or
    strings."""
    found = reader.large_keys.get(name, False)
    if found is False:
        found = None
        if math.prod(t.shape) <= min(LARGE, reader.setting[1]):  # (its sizes are ints)
            value = reader.value(name)
            if value.dtype != object and value.dtype != NUMPY_STRING:
                found = _value_key(value)
        reader.large_keys[name] = found
    return found


def _large(key: tuple, values: tuple) -> int:
    """The bytes of the values of more than SMALL elements in ``values`` and in ``key``'s
    inputs (what the memo's byte budget counts)."""
    held = sum(v.nbytes for v in values if v is not None and v.size > SMALL)
    for x in key[1]:  # (each input: None, a type, or a type and its value's key)
        if type(x) is tuple and math.prod(x[1][1]) > SMALL:  # (a value's key: its shape,
            held += len(x[1][2])  # its bytes)
    return held


#: (facts, input types) -> the facts about their sizes (:func:`input_facts`), across
#: models: a model typed again finds the same (equal) facts, and its node memo keys then
#: hold the same Facts objects, compared by identity
_ABOUT: dict[tuple[Facts, tuple], Facts] = {}
_ABOUT_SIZE = 1 << 12


def value_facts(reader: Any, names: Sequence[str]) -> Facts | None:
    """The facts about the sizes that the known values of ``names`` hold (a value of
    sizes is folded under them: :func:`.values.fold`), None where they hold none."""
    values = reader.values
    held = value_symbols([values.get(n) for n in names if n])
    return reader.facts.about(held) if held else None


def input_facts(reader: Any, inputs: tuple) -> Facts:
    """The facts ``reader`` knows about the sizes of the types ``inputs`` of a node (None:
    an absent input): part of its memo key, found again for the same input types while
    the reader's facts stay the same (``reader.about``)."""
    facts, about = reader.about
    if facts is not reader.facts:
        facts, about = reader.about = reader.facts, {}
    found = about.get(inputs)
    if found is None:
        found = _ABOUT.get((facts, inputs))
        if found is None:
            symbols: set = set()
            for t in inputs:
                if t is not None:
                    for d in t.shape:
                        if isinstance(d, Dim):
                            symbols |= free_symbols(d)
            found = facts.about(symbols)
            if len(_ABOUT) >= _ABOUT_SIZE:
                _ABOUT.clear()
            _ABOUT[facts, inputs] = found
        about[inputs] = found
    return found


def remember(key: tuple | None, types: tuple, values: tuple, conditions: tuple = ()
             ) -> tuple[tuple, tuple, tuple, tuple]:
    """A node's typing as the memo holds it: its output types, their values (or None),
    the values' keys (made once here, not by each node that reads them, for those of at
    most SMALL elements) and its conditions, stored under ``key``; not stored when
    ``key`` is None or a value is larger than LARGE or holds sizes or strings and is
    larger than SMALL (what the memo holds stays bounded once the model is gone). The
    values kept are made read-only: a caller changing one (a reader's ``values``) would
    change every later answer."""
    if len(values) == 1 and values[0] is None:  # one output, no value (most nodes)
        typed = types, values, values, conditions
    elif key is None or any(v is not None and v.size > SMALL and (
            v.size > LARGE or v.dtype == object or v.dtype == NUMPY_STRING)
            for v in values):
        return types, values, (None,) * len(values), conditions
    else:
        typed = types, values, tuple([None if v is None or v.size > SMALL else
                                      _value_key(v) for v in values]), conditions
    if key is None:
        return typed
    held = _large(key, values)
    if held > MEMO_BYTES // 4:  # (kept, it would leave room for few others)
        return typed
    if len(MEMO) >= MEMO_SIZE or _held[0] + held > MEMO_BYTES:
        MEMO.clear()
        _held[0] = 0
    for v in values:  # shared by every model that meets the key (and by node slots)
        if v is not None:
            v.flags.writeable = False
    MEMO[key] = typed
    _held[0] += held
    return typed
