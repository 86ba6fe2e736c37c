"""A first-seen node typed by the template the last node of its op type used, its key
checked rather than made (issue 37): the node-by-node path of :mod:`.generic` makes a
node's exact memo key and looks it up, then makes its template key (a form per input,
its sizes numbered by slot), hashes it and looks it up; a model of repeated layers of
other widths (block i of width i+2) meets, node after node, the template its op type's
previous node used. So the first reading of a node record (the main graph, types
only: ``infer_shapes``, ``read_types``) first compares the node with that template's
key, and types it by the template where the node has the key's form.

The node has the template key's form (its template key, made now, would be that key)
when:

- its op type, domain and attributes (serialized) are the key's, and it asks as many
  outputs (so the reader finds the same entry for it);
- the reader's facts are the object they were when the key was made, and its default
  dtype is the reader's (one reader), so the facts about its inputs are the key's when
  their named sizes are;
- each input is given or absent as in the key, a tensor type of the key's dtype, its
  static axes (those holding ints) the key's, the same named or unknown size at each
  other axis (compared as the key's tuples compare them), the key's constant
  (0, 1, or a size its entry pins) where the key has one, and at the key's slots sizes
  greater than 1, not pinned now, equal where the key's slots are one slot and distinct
  where they differ: :func:`.generic.generic_key`'s form of these types;
- and not every input given is known (:func:`.nodememo.read_inputs`: where all are, the
  values count and no template types the node).

(A constant the key holds because its entry pinned it stays one here after the pins
were emptied, where a key made now would have a slot: a template types every node whose
inputs have its key's form.) Then the node-by-node path would type it by the same
template (or, where the exact memo, another template or a build answers first, by the
same typing: each is the relation's answer), and its typing here is
:func:`.generic.instance`'s at the node's sizes (called as the module's, as the
node-by-node path calls it), None where a condition of the template fails there (the
node is then read the ordinary way). The reader's steps after the typing are those of
the importer's ``typed_node`` for such a node: one new output name, of a typing without
conditions or values, of an op type that records no interval and names no data-decided
size (checked when the template is noted). tests/test_onnx_repeats.py compares models
read with and without this path.

The checks of the inputs are a loop over the key's forms (:meth:`_Last._inputs`) for a
template's first :data:`GENERATE_AT` nodes; from that node typed so, straight-line code
written for those forms (:func:`_generated`, through :mod:`kantensor.graph.codegen`: the
same checks in the same order), a third of the loop's steps; with generated code off,
the loop throughout. Compiling that code costs a first call as much as the loop's
extra steps over a few hundred nodes, so only a template that has typed many nodes (a
long chain of distinct blocks) is worth it: SqueezeNet's four templates typed by
repeats typed 10 nodes after their second, for 4 million instructions of compiling.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import onnx

from ..graph import codegen
from ..types.conditions import COMPARE
from ..types.type import TensorType, checked_type, static_axes
from . import generic
from .generic import PINNED, Template
from .intervals import INTEGER_DTYPES, MAKES_INTERVALS
from .nodecache import ATTRIBUTE, DOMAIN, NO_INPUT, NODES, ONCE, NodeRecord, attributes_of
from .nodenames import Names

__all__ = ["first_typed", "flat_typed", "repeated", "typed_run"]

_NO_PIN: frozenset[int] = frozenset()

#: How many nodes a template types by the loop before its checks and typing are
#: generated as one function (see the module's doc).
GENERATE_AT = 32
_OPERATORS = {compare: op for op, compare in COMPARE.items()}  # (as generated code writes them)


class _Last:
    """The template the last node of an op type used, with its key's parts as checks:
    ``domain``, ``attributes``, ``entry``, ``facts`` (the reader's then), ``made`` (the
    template), ``slots`` (how many), ``inputs``: per input None (absent) or (dtype, its
    static axes, rank, (axis, size) of each named or unknown size, (axis, constant) of
    each constant, (axis, slot) of each slot's size); ``check``, the inputs' checks
    (:meth:`_inputs`, or its generated code), and ``typed``, the nodes typed so (up to
    :data:`GENERATE_AT`)."""

    __slots__ = ("attributes", "check", "domain", "entry", "facts", "inputs", "made", "running",
                 "slots", "typed", "typing")

    def __init__(self, domain: str, made: Template, key: tuple, slots: int, facts: Any):
        self.domain, self.attributes, self.entry = domain, key[2], key[0]
        self.made, self.slots, self.facts = made, slots, facts
        self.check: Callable[..., tuple | None] = self._inputs
        #: the checks and the typing as one generated function (:func:`_typing`), made
        #: with the checks' when it can be; returns the output's type, or None
        self.typing: Callable[..., TensorType | None] | None = None
        #: the same typing of a node whose inputs' names are ``names[at:]`` (``running(
        #: types, values, unread, names, at)``: :func:`typed_run`), made with it
        self.running: Callable[..., TensorType | None] | None = None
        self.typed = 0  # the nodes it typed (its checks are generated at GENERATE_AT)
        inputs: list[Any] = []
        for form in key[1]:
            if form is None:
                inputs.append(None)
                continue
            dtype, sizes = form
            named, constants, slotted = [], [], []
            for axis, d in enumerate(sizes):
                if type(d) is not int:
                    named.append((axis, d))
                elif d < 0:
                    slotted.append((axis, ~d))
                else:
                    constants.append((axis, d))
            inputs.append((dtype, tuple(a for a, d in enumerate(sizes) if type(d) is int),
                           len(sizes), tuple(named), tuple(constants), tuple(slotted)))
        self.inputs = tuple(inputs)

    def _inputs(self, types: dict, values: dict, unread: dict, names: tuple
                ) -> tuple[list, list] | None:
        """The constants (slot k's size at k) and the types of the inputs given of a node
        of inputs ``names`` (as many as the key's) where they have the key's form (see
        the module's doc), else None; the reference :func:`_generated` compiles for a
        given key."""
        constants: list[Any] = [None] * self.slots
        given = []
        fold = True  # every input given is known
        for n, form in zip(names, self.inputs, strict=True):
            if form is None:
                if n:
                    return None
                continue
            t = types.get(n) if n else None
            if type(t) is not TensorType:
                return None
            dtype, static, rank, named, fixed, slotted = form
            shape, axes = t.shape, t._static
            if t.dtype != dtype or axes is not static and axes != static or \
                    len(shape) != rank:
                return None
            for axis, d in named:
                size = shape[axis]
                if size is not d and not size == d:  # (as the key's == compares them)
                    return None
            for axis, c in fixed:
                if shape[axis] != c:
                    return None
            for axis, k in slotted:
                size, was = shape[axis], constants[k]
                if was is None:
                    constants[k] = size
                elif was != size:
                    return None
            given.append(t)
            if fold and n not in values and n not in unread:
                fold = False
        slots = self.slots
        if fold or slots and (min(constants) < 2 or slots > 1 and
                              len(set(constants)) != slots):
            return None  # (sizes that are not slots: their key is another)
        return constants, given


def _checks(last: _Last) -> tuple[list[str], dict[str, Any], list[int], list[str]] | None:
    """``last._inputs``'s checks as straight-line code for its key's forms (the lines, the
    names they read, the inputs given and the slots' variables), or None where code is
    not generated now or a slot is at no input's axis."""
    if not codegen.enabled() or not last.inputs:
        return None
    space: dict[str, Any] = {"TensorType": TensorType, "checked_type": checked_type}
    lines = ["def check(types, values, unread, names):",
             f"    {''.join(f'n{i}, ' for i in range(len(last.inputs)))}= names"]
    seen: set[int] = set()
    given = []
    for i, form in enumerate(last.inputs):
        if form is None:
            lines.append(f"    if n{i}:\n        return None")
            continue
        dtype, static, rank, named, fixed, slotted = form
        space[f"D{i}"], space[f"S{i}"] = dtype, static
        lines += [f"    t{i} = types.get(n{i}) if n{i} else None",
                  f"    if type(t{i}) is not TensorType:\n        return None",
                  f"    s{i}, a{i} = t{i}.shape, t{i}._static",
                  f"    if t{i}.dtype != D{i} or a{i} is not S{i} and a{i} != S{i} or "
                  f"len(s{i}) != {rank:d}:\n        return None"]
        for axis, d in named:
            space[f"N{i}_{axis}"] = d
            lines += [f"    x = s{i}[{axis:d}]",
                      f"    if x is not N{i}_{axis} and not x == N{i}_{axis}:\n"
                      "        return None"]
        lines += [f"    if s{i}[{axis:d}] != {c:d}:\n        return None" for axis, c in fixed]
        for axis, k in slotted:
            if k in seen:
                lines.append(f"    if s{i}[{axis:d}] != c{k:d}:\n        return None")
            else:
                lines.append(f"    c{k:d} = s{i}[{axis:d}]")
                seen.add(k)
        given.append(i)
    if len(seen) != last.slots:
        return None
    slots = [f"c{k}" for k in range(last.slots)]
    known = " and ".join(f"(n{i} in values or n{i} in unread)" for i in given) or "True"
    lines.append(f"    if {known}:\n        return None")  # (every input given known)
    if slots:
        lines.append(f"    if {' or '.join(f'{c} < 2' for c in slots)}:\n        return None")
    if 1 < len(slots) <= 4:  # (distinct: each pair compared, no set made)
        pairs = " or ".join(f"{a} == {b}" for i, a in enumerate(slots) for b in slots[i + 1:])
        lines.append(f"    if {pairs}:\n        return None")
    elif len(slots) > 4:
        lines.append(f"    if len({{{', '.join(slots)}}}) != {len(slots)}:\n"
                     "        return None")
    return lines, space, given, slots


def _generated(last: _Last) -> Callable[..., tuple | None] | None:
    """``last._inputs`` as straight-line code for its key's forms (through
    :func:`kantensor.graph.codegen.define`; the same checks in the same order, each
    input's and axis's unrolled: a third of the steps), or None where code is not
    generated now or a slot is at no input's axis."""
    made = _checks(last)
    if made is None:
        return None
    lines, space, given, slots = made
    lines.append(f"    return [{', '.join(slots)}], [{', '.join(f't{i}' for i in given)}]")
    return codegen.define("\n".join(lines) + "\n", "check", space)


def _typing(last: _Last) -> Callable[..., TensorType | None] | None:
    """:func:`_generated`'s checks going on to :func:`.generic.instance`'s typing at the
    constants, as one generated function returning the output's type (None where a
    check or a condition of the template fails): the template's conditions and its
    output's sizes written out, so that a node typed so makes no list, tuple or dict of
    its own, only its new type. It reads the inputs' names from ``names`` at ``at`` (0:
    a node's own list; :func:`typed_run`: many nodes' names in one list), and is its own
    attribute ``running`` (:attr:`_Last.running`; a wrapper of it without one is not
    used by runs). None where
    they are not linear checks and a plan (:class:`.generic.Template`), or
    :func:`_generated` would be."""
    found = _checks(last)
    if found is None:
        return None
    lines, space, given, _ = found
    made = last.made
    if made.checks is None or made.plan is None:
        return None
    for pairs, value, compare in made.checks:  # (as instance's loop: value + sum(c * k))
        if type(value) is not int or any(type(c) is not int for _, c in pairs):
            return None
        terms = "".join(f" + {c:d} * c{k:d}" for k, c in pairs)
        lines.append(f"    if not ({value:d}{terms} {_OPERATORS[compare]} 0):\n"
                     "        return None")
    ((j, dtype, sizes, places),) = made.plan
    if j >= 0:  # (an input's type at the constants: that input's)
        lines.append(f"    return t{given[j]:d}")
    else:
        at = dict(places)
        parts = []
        for axis, d in enumerate(sizes):
            if axis in at:
                parts.append(f"c{at[axis]:d}")
            elif type(d) is int or d is None:
                parts.append(repr(d))
            else:
                space[f"O{axis}"] = d
                parts.append(f"O{axis}")
        space["OD"] = dtype
        space["OS"] = static_axes(tuple(2 if axis in at else d for axis, d in enumerate(sizes)))
        lines.append(f"    return checked_type(OD, ({''.join(f'{p}, ' for p in parts)}), OS)")
    lines[:2] = ["def check(types, values, unread, names, at=0):",  # (the names read at
                 *(f"    n{i} = names[at{f' + {i:d}' if i else ''}]"  # an offset: .running)
                   for i in range(len(last.inputs)))]
    check = codegen.define("\n".join(lines) + "\n", "check", space)
    check.running = check  # (one compile: a second function cost a first call as much)
    return check


def _last(reader: Any, op_type: str, noted: tuple) -> _Last | None:
    """The checks of ``noted``, what :func:`.generic.remembered` notes of the last node
    of ``op_type`` that a template typed (its domain, the template, its template key,
    constants and input types, the reader's facts then): None where reading such a node
    does more than write one output (see the module's doc). Kept in place of ``noted``."""
    domain, made, found, facts = noted
    key = found[0]
    declared = key[0].declared  # (key[0]: the node's entry)
    last = None if key[3] != 1 or len(made.outputs) != 1 or declared.counts is not None or \
        declared.values in MAKES_INTERVALS and made.outputs[0][0] in INTEGER_DTYPES else \
        _Last(domain, made, key, len(found[1]), facts)
    reader.repeats[op_type] = last
    return last


def repeated(reader: Any, rec: NodeRecord, node: onnx.NodeProto) -> bool:
    """Type the node read as ``rec`` (first seen: no slot) by the template the last node
    of its op type used, if its template key is that template's (see the module's doc):
    True when typed so, else False (nothing done). (Written for speed: it runs once per
    first-seen node.)"""
    last = _template(reader, rec.op_type, rec.domain)
    if last is None:
        return False
    wanted, names = rec.wanted, rec.names
    if not _fits(reader, last, names, wanted):
        return False
    attributes = rec.attributes
    if type(attributes) is not tuple:  # (not serialized yet)
        attributes = rec.attribute_key(node)
    if not _typed(reader, last, names, wanted[0], attributes):
        return False
    rec.slot = ONCE  # (its first typing by its memo key: as the importer marks it)
    return True


def first_typed(reader: Any, node: onnx.NodeProto, data: bytes, typed: list[bytes]
                ) -> tuple | bool:
    """:func:`repeated` for a node met for the first time (serialized as ``data``, all
    ASCII), without its record: True when typed so (``data`` added to ``typed``, which
    the caller files as :data:`.nodecache.SEEN` when its reading ends: its record is made
    when it is met again, with the slot it has now); else what was read of it for its
    record (:class:`.nodecache.NodeRecord`'s ``parts``), or False where nothing but its
    op type was. (Written for speed: a first call of a model of blocks that all differ
    types most nodes so, and a record made per node and never read again was a fifth of
    that call; :func:`_typed`'s generated typing is inline.)"""
    op_type = node.op_type
    last = reader.repeats.get(op_type)
    if last is None or op_type == "Constant":  # (a literal: its record reads it)
        return False
    # its domain, names and attributes' key, as its record reads them (a field whose
    # key's byte is nowhere in its bytes is absent; every name in ASCII bytes is text)
    domain = "" if DOMAIN not in data else node.domain
    names, wanted = node.input[:], node.output  # (a list, and protobuf's container, its one
    # output indexed once: no list made; a record's are tuples)
    attributes = () if ATTRIBUTE not in data or not node.attribute else attributes_of(node)
    if type(last) is tuple:  # (as _template)
        last = _last(reader, op_type, last)
    if last is not None and domain == last.domain and reader.facts is last.facts and \
            len(wanted) == 1 and len(names) == len(last.inputs) and (name := wanted[0]):
        types = reader.types  # (_fits, inline)
        if name not in types and name not in reader.untyped:
            typing = last.typing
            if typing is not None and attributes == last.attributes and \
                    not (PINNED and (last.entry, attributes) in PINNED):  # (_typed, inline)
                t = typing(types, reader.values, reader.unread, names)
                if t is not None:
                    types[name] = t
                    reader.tokens[name] = t
                    typed.append(data)
                    return True
            elif _typed(reader, last, names, name, attributes):
                typed.append(data)
                return True
    return op_type, domain, tuple(names), tuple(wanted), attributes


def flat_typed(reader: Any, op_type: str, names: list[str], name: str | None, data: bytes,
               typed: list[bytes]) -> tuple | bool | None:
    """:func:`first_typed` for a node whose op type, input names and one output's name
    (None: not one) were read already (by :func:`.nodenames.names_of`) and whose bytes
    hold no domain and no attribute field: without its protobuf object. None where it
    has a domain or attributes, or not one output (read by :func:`first_typed` then);
    else as :func:`first_typed` returns. (Written for speed: it runs once per node of a
    first call of a model of blocks that all differ.)"""
    if name is None or DOMAIN in data or ATTRIBUTE in data:
        return None
    last = reader.repeats.get(op_type)
    if last is None or op_type == "Constant":  # (a literal: its record reads it)
        return False
    if type(last) is tuple:  # (as _template)
        last = _last(reader, op_type, last)
    if last is not None and not last.domain and reader.facts is last.facts and \
            len(names) == len(last.inputs) and name:
        types = reader.types  # (_fits, inline)
        if name not in types and name not in reader.untyped:
            typing = last.typing
            if typing is not None and last.attributes == () and \
                    not (PINNED and (last.entry, ()) in PINNED):  # (_typed, inline)
                t = typing(types, reader.values, reader.unread, names)
                if t is not None:
                    types[name] = t
                    reader.tokens[name] = t
                    typed.append(data)
                    return True
            elif _typed(reader, last, names, name, ()):
                typed.append(data)
                return True
    return op_type, "", tuple(names), (name,), ()


def typed_run(reader: Any, serialized: Sequence[bytes], parts: Names, start: int,
              typed: list[bytes]) -> int:
    """:func:`flat_typed` of the nodes serialized as ``serialized`` from ``start`` on (their
    op types and names, ``parts``, read by :func:`.nodenames.names_of`) while each is
    typed so by its template's generated typing (the blocks of a chain that all differ,
    after the first ones): how many were (their bytes added to ``typed``). The first that
    is not (met before, a Constant, a domain or attributes, not one new output, no such
    typing, or a check or a condition fails) is left to the caller. What
    :func:`flat_typed` checks of the template is checked once per op type: a generated
    typing changes no template, fact or pin, so it holds through the run. (Written for
    speed: a third of :func:`flat_typed`'s steps a node, and no list of names made.)"""
    found = NODES.get
    types, untyped, tokens = reader.types, reader.untyped, reader.tokens
    values, unread = reader.values, reader.unread
    op_types, names, starts, outputs = parts
    usable: dict[str, tuple | None] = {}  # op type -> (typing, inputs), or None
    k = start
    for k in range(start, len(serialized)):  # (by index: a run starts anywhere)
        data, op_type = serialized[k], op_types[k]
        if op_type is None or found(data) is not None or DOMAIN in data or \
                ATTRIBUTE in data or data[0] == NO_INPUT:
            break
        use = usable.get(op_type, usable)
        if use is usable:
            use = usable[op_type] = _usable(reader, op_type)
        at, name = starts[k], outputs[k]
        if use is None or not name or starts[k + 1] - at != use[1] or name in types or \
                name in untyped:
            break
        t = use[0](types, values, unread, names, at)
        if t is None:
            break
        types[name] = t
        tokens[name] = t
        typed.append(data)
    else:
        return len(serialized) - start
    return k - start


def _usable(reader: Any, op_type: str) -> tuple | None:
    """The generated typing of ``op_type``'s last template and its count of inputs, where
    :func:`flat_typed` would type a node of no domain and no attributes by it now."""
    last = reader.repeats.get(op_type)
    if type(last) is tuple:  # (as _template)
        last = _last(reader, op_type, last)
    if last is None or op_type == "Constant" or last.domain or last.running is None or \
            last.attributes != () or reader.facts is not last.facts or \
            PINNED and (last.entry, ()) in PINNED:
        return None
    return last.running, len(last.inputs)


def _template(reader: Any, op_type: str, domain: str) -> _Last | None:
    """The checks of the template of ``op_type``'s last node, where a node of ``domain``
    may be typed by it now (the reader's facts those it was made under)."""
    last = reader.repeats.get(op_type)
    if type(last) is tuple:  # (noted by .generic: its checks made once)
        last = _last(reader, op_type, last)
    if last is None or domain != last.domain or reader.facts is not last.facts:
        return None
    return last


def _fits(reader: Any, last: _Last, names: tuple, wanted: tuple) -> bool:
    """Whether a node of inputs ``names`` and outputs ``wanted`` asks one new output
    and as many inputs as ``last``'s key."""
    if len(wanted) != 1 or len(names) != len(last.inputs):
        return False
    name = wanted[0]
    return bool(name) and name not in reader.types and name not in reader.untyped


def _typed(reader: Any, last: _Last, names: Sequence[str], name: str,
           attributes: tuple[bytes, ...] | None) -> bool:
    """Type the node of inputs ``names``, output ``name`` (new) and attributes' key
    ``attributes`` by ``last``'s template, if its template key is that template's: True
    when typed so (its output's type written), else False (nothing done)."""
    if attributes != last.attributes:
        return False
    types = reader.types
    typing = last.typing
    if typing is not None and not (PINNED and (last.entry, attributes) in PINNED):
        t = typing(types, reader.values, reader.unread, names)  # (checks and instance)
        if t is None:
            return False
    else:
        found = last.check(types, reader.values, reader.unread, names)
        if found is None:
            return False
        constants, given = found
        if PINNED and not PINNED.get((last.entry, attributes), _NO_PIN).isdisjoint(
                constants):
            return False
        typed = generic.instance(last.made, constants, given)  # (lists: indexed only)
        if typed is None:
            return False
        if last.typed < GENERATE_AT:  # (its checks generated once that many are)
            last.typed += 1
            if last.typed == GENERATE_AT:  # (one function compiled: the typing, else
                # the checks)
                last.typing = _typing(last)
                last.running = getattr(last.typing, "running", None)
                if last.typing is None:
                    last.check = _generated(last) or last.check
        t = typed[0][0]
    types[name] = t
    reader.tokens[name] = t
    return True
