"""The last typing of each node record (a *slot*): a node found by its bytes whose
inputs are in the same state as when it was last typed is typed as it was then, without
making its node memo key (:func:`.nodememo.node_key`) again. This is the node-by-node
warm path of ``infer_shapes``: a model typed again whose model memo misses (it was
edited slightly) meets its nodes' records again, with their inputs typed as before.

The memo key of a node is a function of its record (its op type, domain, input names,
outputs and attributes: the record is found by the node's whole bytes), its entry, the
reader's ``setting`` (dtype rules and fold limit), and of each input's *token* — what
the key reads of it:

- its type, when its value is not known;
- its type and its value's exact key (:func:`.nodememo.value_key`), when the value is
  known and small;
- for an initializer of at most :data:`.nodememo.SMALL` elements (known), its type
  marked as an initializer's and its proto serialized (its name, header and data,
  inline: equal bytes, equal values);
- for a larger known value (an initializer's, or one a node folded), its type marked as
  a value the token does not hold (:data:`UNHELD`): a slot is kept only when no such
  value counts in the key;

and of the facts about its inputs' sizes and the intervals of those its entry reads
bounds of (read again for a value the token does not hold). A name with no token (a
value a handler made) makes no slot. So a slot whose entry, setting, tokens, facts and
intervals equal the node's now was made under the same key, and its typing is the
memo's answer for it.

:func:`replay` reads a graph's nodes found by their bytes: a node whose slot applies and
whose typing asks nothing more of the reader than writing its outputs, recording an
interval and noting conditions that name no input's size by position (no size its data
decides, outputs all new names) has them written from the slot's *plan*; every other
node is read by the reader as before.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import islice, repeat
from operator import itemgetter
from typing import Any

import onnx

from ..ops.located import relocated
from ..syntax.errors import TypeInferenceError
from ..types.conditions import InputAxis
from ..types.facts import Facts
from . import intervals
from .contradiction import consistent, lasting
from .intervals import exact_token, input_bounds, interval_output, record_interval
from .nodecache import (
    NO_INPUT,
    NODES,
    ONCE,
    SEEN,
    NodeRecord,
    again,
    new_record,
    seen_all,
    shared_constant,
)
from .nodememo import input_facts, value_facts
from .nodenames import NAMES_AT, names_of
from .onnxop import OnnxOp
from .protos import label as node_label
from .repeats import first_typed, flat_typed, repeated, typed_run

__all__ = ["INITIALIZER", "UNHELD", "Later", "Plan", "initializer_token", "keep", "replay",
           "slotted"]

#: The mark of a small initializer's token: ``(INITIALIZER, type, its proto serialized)``.
INITIALIZER: Any = object()
#: The mark of the token of a known value it does not hold (a larger initializer's, a
#: large value a node folded): ``(UNHELD, type)``. A slot is kept only when no such value
#: counts in its key (:func:`keep`).
UNHELD: Any = object()

_MISSING: Any = object()  # a name with no token

#: facts -> the one object of them the plans hold (:func:`canonical`); emptied when it
#: holds _FACTS_SIZE
_FACTS: dict = {}
_FACTS_SIZE = 1 << 10


def initializer_token(t: Any, proto: onnx.TensorProto, small: bool) -> tuple:
    """The token of an initializer of type ``t`` (its proto ``proto``), holding its proto
    serialized when ``small`` (at most :data:`.nodememo.SMALL` elements, its data
    inline), else :data:`UNHELD`'s."""
    return (INITIALIZER, t, proto.SerializeToString()) if small else (UNHELD, t)


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
    return input_bounds(reader, entry, names)


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
    return slot[5] if _holds(reader, slot, entry, names) else None


def _holds(reader: Any, slot: tuple, entry: OnnxOp, names: tuple[str, ...]) -> bool:
    """Whether the facts and intervals ``slot``'s key read are the reader's now (its
    entry, setting and tokens being the node's)."""
    return _facts_hold(reader, slot, names) and (
        slot[4] is None or _bounds(reader, entry, names) == slot[4])


def _facts_hold(reader: Any, slot: tuple, names: tuple[str, ...]) -> bool:
    """Whether the facts ``slot``'s key read are the reader's now (its tokens being the
    node's): at once when the reader's facts are those the slot was made under."""
    if slot[6] is canonical(reader.facts):
        return True
    facts = slot[3]
    if not reader.facts.atoms:  # (_facts, inline)
        return facts is None
    if facts is None:
        return False
    types = reader.types
    found = input_facts(reader, tuple([types.get(n) if n else None for n in names]))
    return (found is facts[0] or found == facts[0]) and \
        value_facts(reader, names) == facts[1]


def canonical(facts: Facts) -> Facts:
    """The one object of the facts equal to ``facts`` that the plans hold (a plan made
    under facts equal to the reader's now reads the same facts of its inputs: their
    tokens are the same)."""
    found = _FACTS.get(facts)  # (asked per node replayed: the hit without a call)
    return found if found is not None else _one(_FACTS, facts)


def context(reader: Any) -> tuple:
    """What a plan made now would take from ``reader`` besides its inputs' tokens: its
    setting, its facts (:func:`canonical`), the interval limit and the model's operator
    sets (which, the catalogue being fixed, decide the entry each op type finds), as one
    object (equal ones are one: a plan whose context is the reader's applies by an
    ``is``)."""
    return _one(_CONTEXTS, (reader.setting, canonical(reader.facts), intervals.MAX_ELEMENTS,
                            tuple(sorted(reader.opsets.items()))))


def _one(table: dict, key: Any) -> Any:
    """The one object equal to ``key`` that ``table`` holds (``key`` itself when none
    does; ``table`` emptied once it holds _FACTS_SIZE)."""
    found = table.get(key)
    if found is None:
        if len(table) >= _FACTS_SIZE:
            table.clear()
        found = table[key] = key
    return found


#: (setting, facts, limit, opsets) -> the one tuple of them (:func:`context`)
_CONTEXTS: dict = {}


def replay(reader: Any, serialized: Sequence[bytes],
           protos: Sequence[onnx.NodeProto] | None = None) -> None:
    """Read the nodes of ``reader``'s graph (the main graph, types only), serialized as
    ``serialized``: each found by its bytes, written from its record's :class:`Plan`
    when its slot applies (as :func:`slotted` says) and the plan's outputs are all new
    names; every other node read by ``reader.node`` (which raises for a name assigned
    twice). (Written for speed: the loop runs once per node of every model read node by
    node; a plan whose context is the reader's needs no other check than its inputs'
    tokens and its outputs' names. ``protos``: the graph's nodes as a list, when made
    already; else made here, as protobuf makes a node's Python object anew each time it
    is indexed where none is alive, unless the nodes' names are read at once: then a
    node's object is made only where the node is read through it.)"""
    found = NODES.get
    # a new model of many nodes: their op types and names read at once (.nodenames), each
    # node's protobuf object made only where it is read (else the graph's in a list)
    parts = names_of(serialized) if len(serialized) >= NAMES_AT and not any(
        map(found, (serialized[0], serialized[len(serialized) // 2], serialized[-1]))) \
        else None
    nodes = protos if protos is not None else reader.proto.node if parts is not None else \
        list(reader.proto.node)
    types, tokens, untyped, values, value_keys = reader.types, reader.tokens, \
        reader.untyped, reader.values, reader.value_keys
    facts, now = reader.facts, context(reader)
    found_entries: set[OnnxOp] = set()  # the entries its nodes' op types find, as checked
    typed: list[bytes] = []  # the nodes typed at first sight, without a record
    try:
        read_in_order = enumerate(zip(serialized, parts[0] if parts else repeat(None),
                                      strict=False))
        for k, (data, op_type) in read_in_order:
            rec = found(data)
            if rec is None:  # (a node first seen: its proto read once, for its record and
                # by the reader)
                if op_type is not None and reader.repeats and data[0] != NO_INPUT:  # (its
                    # names read already; a Constant's, perhaps shared, read below)
                    read = flat_typed(reader, op_type, parts[1][parts[2][k]:parts[2][k + 1]],
                                      parts[3][k], data, typed)
                    if read is True:  # (and the nodes after it typed so: passed over)
                        run = typed_run(reader, serialized, parts, k + 1, typed)
                        if run:
                            next(islice(read_in_order, run - 1, None))
                        continue
                    if read is not None:  # (as below: what it read, for its record)
                        node = nodes[k]
                        rec = new_record(node, data, read or None)
                        reader.node(node, rec, True)
                        if reader.facts is not facts:  # (its conditions noted)
                            facts, now = reader.facts, context(reader)
                        continue
                node = nodes[k]
                shared = shared_constant(data, node) if data and data[0] == NO_INPUT else None
                if shared is not None and shared[0] not in types and shared[0] not in untyped:
                    reader.constant_found(*shared)  # (a Constant of a value read before)
                    continue
                if reader.repeats and data.isascii():  # (typed by its op type's last template
                    # without a record, as reader.node types it; else what it read)
                    read = first_typed(reader, node, data, typed)
                    if read is True:
                        continue
                    rec = new_record(node, data, read or None)
                else:
                    rec = new_record(node, data)
                    if not rec.literal and reader.repeats and repeated(reader, rec, node):
                        continue  # (typed by its op type's last template: as reader.node does)
                reader.node(node, rec, True)
                if reader.facts is not facts:  # (its conditions noted)
                    facts, now = reader.facts, context(reader)
                continue
            if rec is SEEN:  # (typed once by a template: its record made now)
                rec = again(nodes[k], data)
            plan = rec.plan
            if plan is None and rec.later is not None and tuple([
                    tokens.get(n, _MISSING) if n else None for n in rec.names]) == rec.slot[2]:
                # (its slot's plan, made when the record is met again with its inputs'
                # tokens the slot's: else the plan would not apply, and the typing anew
                # keeps another slot; a model read with new size names makes none)
                plan = rec.plan = rec.later.made(rec, nodes[k])
                rec.later = None
            if plan is not None:
                try:  # (KeyError: an input has no token, so the slot does not apply)
                    state = plan.tokens_of(tokens)
                except KeyError:
                    state = _MISSING
                name = plan.name
                if state == plan.state and (plan.context is now or _applies(
                        reader, plan, rec, found_entries)) \
                        and (name not in types and name not in untyped if name is not None else
                             types.keys().isdisjoint(plan.outputs) and
                             untyped.keys().isdisjoint(plan.outputs)):
                    if plan.own:  # (as typed_node notes them)
                        reader.conditions.extend(plan.own)
                        if plan.lasting:
                            reader.facts = reader.facts.with_(*plan.lasting)
                        if reader.facts is not facts:
                            facts, now = reader.facts, context(reader)
                    if plan.interval is not None:  # (as typed_node records it)
                        record_interval(reader, plan.entry, nodes[k], plan.interval)
                    if name is not None:  # (most nodes: one output)
                        types[name] = plan.out
                        tokens[name] = plan.token
                        if plan.value is not None:
                            values[name], value_keys[name] = plan.value, plan.vkey
                    else:
                        types.update(plan.types)
                        tokens.update(plan.tokens)
                        if plan.values:
                            values.update(plan.values)
                            value_keys.update(plan.value_keys)
                    continue
            elif rec.constant is not None:  # a Constant read before (as the reader's node
                # and constant write it)
                wanted = rec.wanted
                name = wanted[0] if len(wanted) == 1 else ""
                if name and name not in types and name not in untyped:
                    reader.constant_found(name, rec.constant)
                    continue
            reader.node(nodes[k], rec)
            if reader.facts is not facts:  # (its conditions noted)
                facts, now = reader.facts, context(reader)
    finally:  # (noted as typed once: their records are made when met again)
        seen_all(typed)
    reader.fresh = len(typed)


def _applies(reader: Any, plan: Plan, rec: NodeRecord, found: set[OnnxOp]) -> bool:
    """Whether ``plan`` (of ``rec``, its tokens the node's inputs') applies although its
    context is not the reader's: its setting, the facts its key read, its intervals and
    its entry are the reader's (``found``: the entries found so, see :func:`_found`)."""
    return plan.setting == reader.setting and (
        plan.facts is canonical(reader.facts) or _facts_hold(reader, rec.slot, rec.names)) \
        and (plan.bounds is None or plan.limit == intervals.MAX_ELEMENTS or
             _bounds(reader, plan.entry, rec.names) == plan.bounds) \
        and (plan.entry in found or _found(reader, plan, found))


def _found(reader: Any, plan: Plan, found: set[OnnxOp]) -> bool:
    """Whether ``plan``'s entry is the one its op type finds in the model ``reader`` reads
    (as the importer's ``typed_node`` finds it); if so, added to ``found`` (an entry is
    found by its own op type only, the same at ``""`` and ``"ai.onnx"``)."""
    if (reader.entries.get(plan.key) or reader.found_entry(*plan.key)) is not plan.entry:
        return False
    found.add(plan.entry)
    return True


class Plan:
    """What the reader does with a slot's typing when that is only writing the node's
    outputs, recording an interval and noting conditions that name no input by position
    (:func:`replay`): ``key``, the key of its entry in the reader's ``entries``;
    ``entry``, ``setting``; ``tokens_of(tokens)`` the tokens of its inputs that are not
    absent (one, or a tuple), ``state`` those of the slot; ``facts``, the reader's whole
    facts then (:func:`canonical`), ``bounds`` the intervals its key read, ``limit`` the
    interval limit then (:data:`.intervals.MAX_ELEMENTS`) when its tokens decide those
    intervals (each input whose interval is read is absent or its token holds its value
    exactly: the interval of a known value is a function of it and the limit), else
    None; ``context``, the reader's :func:`context` then, unless its intervals are to be
    read again (None); ``outputs``, the names of its outputs (``name``: the one, if one,
    and its ``out`` type, ``token``, ``value`` and ``vkey``); by name their ``types``,
    ``tokens``, known ``values`` and their ``value_keys``; ``interval``, the type of its
    first output when the reader records that output's value interval (as the
    importer's ``typed_node`` does), else None; ``own``, its conditions as the reader
    notes them (``lasting``: those that hold for later nodes, see
    :func:`.contradiction.lasting`)."""

    __slots__ = ("bounds", "context", "entry", "facts", "interval", "key", "lasting", "limit",
                 "name", "out", "outputs", "own", "setting", "state", "token", "tokens",
                 "tokens_of", "types", "value", "value_keys", "values", "vkey")

    def __init__(self, rec: NodeRecord, slot: tuple, later: Later, own: tuple = ()):
        entry, self.setting, state, _, self.bounds, (outs, folded, keys, _) = slot[:6]
        self.facts = slot[6]  # (the reader's whole facts, canonical: see keep)
        names = rec.names
        self.limit = later.limit if self.bounds is not None and all(
            k >= len(names) or not names[k] or exact_token(state[k]) for k in entry.bounded) \
            else None
        self.context = _one(_CONTEXTS, (self.setting, self.facts, later.limit, tuple(sorted(
            later.opsets.items())))) if self.bounds is None or self.limit is not None \
            else None  # (as context() made it of the reader the slot was made by)
        self.entry, self.key = entry, (rec.op_type, rec.domain)
        given = [k for k, name in enumerate(rec.names) if name]
        getter = itemgetter(*[rec.names[k] for k in given]) if given else None
        self.tokens_of = getter if getter is not None else _none
        self.state = state[given[0]] if len(given) == 1 else \
            tuple([state[k] for k in given]) if given else None
        self.types, self.tokens, self.values, self.value_keys = {}, {}, {}, {}
        for name, t, value, vkey in zip(rec.wanted, outs, folded, keys, strict=False):
            if name:
                self.types[name] = t
                self.tokens[name] = t if value is None else (t, vkey)
                if value is not None:
                    self.values[name], self.value_keys[name] = value, vkey
        self.outputs = tuple(self.types)
        self.interval = interval_output(entry, rec.wanted, outs, folded)
        self.name = self.outputs[0] if len(self.outputs) == 1 else None
        self.out = self.token = self.value = self.vkey = None
        if self.name is not None:
            self.out, self.token = self.types[self.name], self.tokens[self.name]
            self.value, self.vkey = self.values.get(self.name), self.value_keys.get(self.name)
        self.own, self.lasting = own, tuple(lasting(own))


def _none(tokens: dict) -> None:
    return None


class Later:
    """A record's plan not made yet (:func:`keep`): what :class:`Plan` takes of the
    reader its slot was made by besides the slot (the interval limit then and the
    model's operator sets; its setting and facts are the slot's). A plan is made when its
    record is met again (:func:`replay`), not at every typing: a model read with new size
    names types every node anew, and its plans were made for nothing."""

    __slots__ = ("limit", "opsets")

    def __init__(self, reader: Any):
        self.limit, self.opsets = intervals.MAX_ELEMENTS, reader.opsets

    def made(self, rec: NodeRecord, node: onnx.NodeProto) -> Plan | None:
        """The plan of ``rec``'s slot (``node`` its node, or one of the same bytes)."""
        return _plan(self, rec, rec.slot, node)


def _plan(later: Later, rec: NodeRecord, slot: tuple, node: onnx.NodeProto) -> Plan | None:
    """The plan of ``slot``, the slot of ``rec`` (of ``node``) made now; None when the
    reader does more with its typing than writing the outputs, recording an interval
    and noting conditions over no input's size by position (names a size its data
    decides: as the importer's ``typed_node``; or a condition contradicts the others)
    or its outputs are not distinct names it types."""
    outs, _, _, conditions = slot[5]
    wanted = rec.wanted
    named = [name for name in wanted if name]
    if slot[0].declared.counts is not None or len(set(named)) != len(named) or \
            len(outs) < len(wanted) and any(wanted[len(outs):]):
        return None
    own = ()
    if conditions:  # noted as the importer's note() notes them: relocated (with no
        # input's size by position, over no Variable) and checked
        if any(isinstance(k, InputAxis) for c in conditions for k in c.symbols()):
            return None
        try:
            own = consistent(relocated(conditions, [], node_label(node)), node, None)
        except TypeInferenceError:  # (the reader's note raises it)
            return None
    return Plan(rec, slot, later, own)


def keep(reader: Any, entry: OnnxOp, rec: NodeRecord, typed: tuple, node: onnx.NodeProto
         ) -> None:
    """Keep ``typed``, the typing of ``node`` read as ``rec`` by its memo key, in its
    slot (and what makes its plan, :class:`Later`, when the record is met again: a
    model read with new size names keeps every node's slot, and makes no plan of them):
    unless the record is not shared across models,
    an input has no token, the value of an input whose token does not hold it
    (:data:`UNHELD`) counts in the key, or an output's value is large (a slot holds no
    large value); and not at the record's first typing (:data:`ONCE`)."""
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
        if type(x) is tuple and x[0] is UNHELD:
            return
    slot = (entry, reader.setting, state, _facts(reader, names),
            _bounds(reader, entry, names), typed)
    rec.slot = (*slot, canonical(reader.facts))
    # (entry, setting, tokens, facts about its inputs, intervals, typing, facts)
    rec.plan, rec.later = None, Later(reader)  # (its plan: made when the record is met
    # again)
