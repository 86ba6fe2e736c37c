"""The last typing of each node record (a *slot*): a node found by its bytes whose
inputs are in the same state as when it was last typed is typed as it was then, without
making its node memo key (:func:`.nodememo.node_key`) again. This is the node-by-node
warm path of ``infer_shapes``: a model typed again whose model memo misses (it was
edited slightly) meets its nodes' records again, with their inputs typed as before.

The memo key of a node is a function of its record (its op type, domain, input names,
outputs and attributes: the record is found by the node's whole bytes), its entry, the
reader's ``setting`` (default dtype and fold limit), and of each input's *token* — what
the key reads of it:

- its type, when its value is not known;
- its type and its value's exact key (:func:`.nodememo.value_key`), when the value is
  known and small;
- for an initializer (known), its type marked as an initializer's, and when it has at
  most :data:`.nodememo.SMALL` elements, its proto serialized (its name, header and
  data, inline: equal bytes, equal values); a slot is kept only when no larger
  initializer's value counts in the key;

and of the facts about its inputs' sizes and the intervals of those its entry reads
bounds of. A name with no token (a large folded value, a value a handler made) makes no
slot. So a slot whose entry, setting, tokens, facts and intervals equal the node's now
was made under the same key, and its typing is the memo's answer for it.
"""

from __future__ import annotations

import math
from typing import Any

import onnx

from .intervals import interval_of
from .nodecache import NodeRecord
from .nodememo import SMALL, input_facts, value_facts
from .registry import OnnxOp

__all__ = ["INITIALIZER", "ONCE", "keep", "slotted", "source_tokens"]

#: The mark of an initializer's token: ``(INITIALIZER, type)``.
INITIALIZER: Any = object()

_MISSING: Any = object()  # a name with no token
#: The slot of a record typed once (by its memo key): its slot is made when it is typed
#: so again. Most records of a model typed once are never met again (a model of blocks
#: that all differ), and making their slots cost a fifth of such a first call. (The
#: importer marks a record's first typing itself, without calling :func:`keep`, and
#: calls :func:`slotted` only for a record that has a slot: a first call meets every
#: record once.)
ONCE: tuple = (None,)
_EXTERNAL = onnx.TensorProto.EXTERNAL


def source_tokens(reader: Any) -> None:
    """The tokens of the initializers and graph inputs ``reader`` has typed (reading
    types only: the values of graph inputs are not known, no initializer is read)."""
    tokens = dict(reader.types)  # a graph input's token is its type (a copy: in C)
    for name, proto in reader.unread.items():  # (each an initializer typed)
        t = tokens[name]
        if math.prod(t.shape) <= SMALL and proto.data_location != _EXTERNAL:
            tokens[name] = INITIALIZER, t, proto.SerializeToString()
        else:
            tokens[name] = INITIALIZER, t
    reader.tokens = tokens


def _state(reader: Any, names: tuple[str, ...]) -> tuple:
    tokens = reader.tokens
    return tuple([tokens.get(n, _MISSING) if n else None for n in names])


def _facts(reader: Any, names: tuple[str, ...]) -> Any:
    if not reader.facts.atoms:
        return None
    types = reader.types
    return input_facts(reader, tuple([types.get(n) if n else None for n in names])), \
        value_facts(reader, names)  # (a value folded under them: .values.fold)


def _bounds(reader: Any, entry: OnnxOp, names: tuple[str, ...]) -> tuple | None:
    if not entry.bounded:
        return None
    return tuple([interval_of(reader, names[k]) if k < len(names) else None
                  for k in entry.bounded])


def slotted(reader: Any, entry: OnnxOp, rec: NodeRecord) -> tuple | None:
    """The typing of the node read as ``rec`` (of entry ``entry``) kept in its slot, when
    its inputs are in the state they were then; else None."""
    slot = rec.slot
    if slot is None or slot[0] is not entry:
        return None
    names = rec.names
    tokens = reader.tokens  # (_state, inline: this runs for every node)
    if tuple([tokens.get(n, _MISSING) if n else None for n in names]) != slot[2] or \
            reader.setting != slot[1]:
        return None
    facts = slot[3]
    if reader.facts.atoms:  # (_facts, inline)
        types = reader.types
        found = input_facts(reader, tuple([types.get(n) if n else None for n in names]))
        if facts is None or found is not facts[0] and found != facts[0] or \
                value_facts(reader, names) != facts[1]:
            return None
    elif facts is not None:
        return None
    if slot[4] is not None and _bounds(reader, entry, names) != slot[4]:
        return None
    return slot[5]


def keep(reader: Any, entry: OnnxOp, rec: NodeRecord, typed: tuple) -> None:
    """Keep ``typed``, the typing of the node read as ``rec`` by its memo key, in its
    slot: unless the record is not shared across models, an input has no token, the
    value of an initializer whose token does not hold its data counts in the key, or an
    output's value is large (a slot holds no large value); and not at the record's first
    typing (:data:`ONCE`)."""
    if rec.slot is None:
        rec.slot = ONCE
        return
    if not rec.kept or not all(v is None or k is not None for v, k in zip(
            typed[1], typed[2], strict=False)):
        return
    names = rec.names
    state = _state(reader, names)
    if _MISSING in state:
        return
    given = [x for x in state if x is not None]
    fold = bool(given) and all(type(x) is tuple for x in given)  # every input known
    for k in range(len(names)) if fold else entry.reads:  # (as node_key counts)
        x = state[k] if k < len(state) else None
        if type(x) is tuple and x[0] is INITIALIZER and len(x) == 2:
            return
    rec.slot = (entry, reader.setting, state, _facts(reader, names),
                _bounds(reader, entry, names), typed)
