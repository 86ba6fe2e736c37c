"""The size-generic node memo of ``infer_shapes``: a node is typed once for a *template*
of its input types, in which every constant size other than 0 and 1 is a fresh named
size (equal constants one size, distinct ones distinct), and the typing is kept as a
function of those sizes; a later node of the same entry, attributes and template is
typed by substituting its own constants. A model whose nodes all differ only in their
sizes (block i of width i+2, a network's layers of other widths, their weights
initializers) then builds three nodes per template instead of every node: the exact
memo (:mod:`.nodememo`) is asked first, the second node of a template key it does not
type keeps what the template is made of, and the third makes it (and is its first
instance), so a model whose nodes repeat exactly (a transformer's layers) pays for
none, and neither does a key met twice only (a fire module's two 1x1 convs, whose
next module's sizes are other named sizes after a pool).

The template's answer is the relation's answer for every instance only where each step
of the build on the template decides exactly what it decides on the constants, so a
template is kept only when
- the entry's Op has one signature for all sizes (no builder, or one that reads ranks
  and dtypes only), no input's value is read as a parameter and not every input is
  known (nothing is folded: a known weight counts by its type alone, as in the node
  memo's key), and the signature's direct build (:mod:`kantensor.signature.direct`,
  which declines wherever the relation would have to solve or split cases) answers on
  the template: each of its steps on named sizes is a check that holds for every value
  (two sizes met are the same size; an output expression is >= 0 for all values) or a
  comparison kept as a condition, never a choice;
- it is built under its key's facts only (those about its inputs' named sizes; the
  templates outlive a model), which must be consistent (contradictory facts prove
  anything);
- its conditions name the template's sizes only (checked at each instance's constants,
  which decides them: a node where one fails is built the ordinary way, which says why),
  and each output size is an int, unknown, one of the template's sizes, an expression
  over them alone (an int at every instance) or the model's own named sizes untouched;
- and at the node that made it, its instance is the ordinary build's answer (types, no
  condition, no value): a check on every template made.

0 and 1 stay constants (broadcasting, empty axes and squeezes turn on them). The
template's sizes are private (:func:`kantensor.types.symbols.private`): no model, fact or
text can name them, so a model's own size spelt like one is another size. A size of the
template never meets another size, a fixed size or a named size of the model without
the direct build declining (it cannot tell them apart), so such nodes are built the
ordinary way. tests/test_onnx_generic.py compares instances with ordinary builds by
brute force over sizes 0..3 and a named size, and by hypothesis.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import Any, NamedTuple

import onnx

from ..ops.family import OpFamily
from ..ops.op import SignatureOp
from ..ops.templateop import TemplateOp
from ..signature.direct import direct_build
from ..signature.overloads import compiled
from ..syntax import ast as A
from ..types.conditions import COMPARE, Condition
from ..types.dim import Dim
from ..types.facts import EMPTY, Facts
from ..types.symbols import free_symbols, linear, private, substitute
from ..types.type import TensorType
from .calls import arguments
from .nodecache import NodeRecord
from .nodememo import MEMO, node_key, outputs_asked, plain_key, read_inputs
from .onnxop import OnnxOp
from .protos import label

__all__ = ["PINNED", "TEMPLATES", "UNTEMPLATED", "GenericKey", "Template", "generic_key",
           "instance", "keep_template", "remembered", "template"]

#: The most distinct constants a node's inputs may have to be typed by template.
MAX_SLOTS = 32

#: The template's sizes, by slot: private, so no model's own size is one of them.
SYMBOLS = tuple(private(f"size#{k}") for k in range(MAX_SLOTS))
_NAMES = frozenset(s.name for s in SYMBOLS)
_KEYS = tuple(s.name for s in SYMBOLS)
_SLOT = {s: k for k, s in enumerate(SYMBOLS)}
_NAME_SLOT = {s.name: k for k, s in enumerate(SYMBOLS)}


class GenericKey(NamedTuple):
    """A template key: what :func:`.nodememo.node_key` holds of a node whose inputs are
    not all known and none read as a value, with each input's sizes as the template's
    (those of a known input too: its type is all that counts)."""

    entry: OnnxOp
    #: per input, None (absent) or its dtype and its sizes, slot k's constant as the
    #: marker ``~k`` (-1 - k: no size is negative; hashed faster than a Dim)
    inputs: tuple[tuple[str, tuple] | None, ...]
    attributes: tuple[bytes, ...]  # each serialized
    #: how many the node asks, or per output whether it is asked (not an empty name),
    #: when one is not (an entry may read which: ``unasked``, :mod:`.calls`)
    outputs: int | tuple[bool, ...]
    rules: str  # the dtype rules when the reading began (rules_key)
    facts: Facts  # the facts about the inputs' named sizes (EMPTY: none)


_key = partial(tuple.__new__, GenericKey)  # (GenericKey(...) without its Python __new__)
# (a node's key is made as a plain tuple, equal to the GenericKey of its fields and of the
# same hash: 0.4 us less a node; a GenericKey is made only to file a key or a template)

#: template key -> its Template, or None where a template does not type the node (or
#: a mark: met once); emptied when it holds TEMPLATES_SIZE keys.
TEMPLATES: dict[GenericKey, Template | object | None] = {}
TEMPLATES_SIZE = 1 << 14
_NONE = object()  # a template key not met yet
_SEEN = object()  # a template key met once: its next node keeps what makes the template


class _Kept(NamedTuple):
    """What the second node of a template key makes its template of (see
    :func:`template`), made by the third: the node's call parameters, its template
    key, constants and input types, and its ordinary build's typing."""

    params: dict[str, Any]
    found: tuple
    typed: tuple
_NO_PIN: frozenset[int] = frozenset()

#: The entries whose Op no template types (it renders a signature from the sizes).
UNTEMPLATED: set[OnnxOp] = set()

#: (entry, attributes) -> the constants that stay constants in its nodes' templates: the
#: fixed sizes its signature's inputs take (a Conv's kernel ``(w0,w1,3,3)``: a template
#: size there is never decided to be 3, so the direct build declines); emptied with
#: TEMPLATES.
PINNED: dict[tuple, frozenset[int]] = {}


class Template:
    """A node's typing over the template's sizes: per output its dtype and sizes (ints,
    None, the template's sizes, expressions over them alone, the model's own named
    sizes), and the conditions to check at the constants."""

    __slots__ = ("outputs", "conditions", "checks", "slots", "same", "none", "plan")

    def __init__(self, outputs: tuple[TensorType, ...], conditions: tuple[Condition, ...],
                 inputs: tuple[TensorType, ...]):
        self.outputs = tuple((t.dtype, t.shape) for t in outputs)
        self.conditions = conditions
        #: the conditions as ``sum(c * constants[k]) + constant`` compared with 0, when
        #: each is linear in the template's sizes (a window that fits); else None
        self.checks: tuple | None = ()
        for c in conditions:
            d, op = c.key
            form = linear(d)
            if form is None:
                self.checks = None
                break
            self.checks += ((tuple((_NAME_SLOT[s], k) for s, k in form[0]), form[1],
                             COMPARE[op]),)
        #: per output, each size's slot (-1: the size as it is), when no size is an
        #: expression over the template's sizes; else None (substituted)
        self.slots = None if any(
            type(d) is Dim and d not in _SLOT and not _NAMES.isdisjoint(free_symbols(d))
            for _, sizes in self.outputs for d in sizes) else tuple(
            tuple(_SLOT.get(d, -1) if type(d) is Dim else -1 for d in sizes)
            for _, sizes in self.outputs)
        #: per output, the given input (by position among those given) of that very
        #: type over the template's sizes, whose type at the constants it is; else -1
        self.same = tuple(inputs.index(t) if t in inputs else -1 for t in outputs)
        self.none = (None,) * len(outputs)  # the outputs' values and their keys
        #: per output, how :func:`instance` makes its type when ``slots`` is not None:
        #: (-1, dtype, sizes, (axis, slot) of each size that is a slot's), or (j, ...)
        #: for the given input j of its type
        self.plan = None if self.slots is None else tuple(
            (j, dtype, sizes, tuple((a, k) for a, k in enumerate(where) if k >= 0))
            for (dtype, sizes), where, j in zip(self.outputs, self.slots, self.same,
                                                 strict=True))


def generic_key(reader: Any, entry: OnnxOp, names: Sequence[str], inputs: Sequence[Any],
                attributes: tuple[bytes, ...], outputs: int | tuple,
                pinned: frozenset[int] = frozenset(), about: Facts | None = None
                ) -> tuple[tuple, tuple[int, ...], tuple[TensorType, ...]] | None:
    """The template key of a node for ``reader`` (reading types only) whose inputs
    ``names`` have the types ``inputs`` (None: absent), not all of them known and none
    read as a value (a known weight counts by its type alone, as in
    :func:`.nodememo.node_key`); its constants in slot order and the types of the inputs
    it gives. The constants ``pinned`` stay constants (see :data:`PINNED`). None when no
    template types it (an input not a tensor, too many constants). The key is a plain
    tuple of :class:`GenericKey`'s fields (equal to it, found by it in :data:`TEMPLATES`).
    ``about``: the facts about the inputs' sizes when the caller has them (the node memo's
    key holds them: :func:`remembered`), else found again here."""
    slots: dict[int, int] = {}
    forms: list[Any] = []
    for t in inputs:
        if t is None:
            forms.append(None)
            continue
        if type(t) is not TensorType:
            return None
        static = t._static  # the axes whose size is an int
        if static:
            shape = t.shape
            sizes = list(shape)
            for axis in static:
                d = shape[axis]
                if d > 1 and d not in pinned:
                    k = slots.get(d)
                    if k is None:
                        k = slots[d] = len(slots)
                    sizes[axis] = ~k
            forms.append((t.dtype, tuple(sizes)))
        else:
            forms.append((t.dtype, t.shape))
    if len(slots) > MAX_SLOTS:
        return None
    if about is None:
        about = EMPTY if reader.facts is EMPTY else reader.facts_about(names)
    return (entry, tuple(forms), attributes, outputs, reader.rules, about), \
        tuple(slots), tuple(inputs) if None not in inputs else \
        tuple([t for t in inputs if t is not None])


def instance(template: Template, constants: tuple[int, ...],
             given: tuple[TensorType, ...]) -> tuple | None:
    """The typing of ``template`` at ``constants`` (slot k's value is ``constants[k]``)
    for a node given the inputs of types ``given`` as the node memo holds one
    (:func:`.nodememo.remember`: output types, no values, no conditions), or None where
    one of its conditions fails there."""
    checks = template.checks
    if checks is None:
        sizes = dict(zip(_KEYS, constants, strict=False))
        for c in template.conditions:
            if not c.holds(sizes):
                return None
    elif checks:
        for pairs, value, compare in checks:
            for k, c in pairs:
                value += c * constants[k]
            if not compare(value, 0):
                return None
    plan = template.plan
    if plan is not None:
        outs = []
        for j, dtype, shape, places in plan:
            if j >= 0:
                outs.append(given[j])
                continue
            sizes = list(shape)
            for axis, k in places:
                sizes[axis] = constants[k]
            outs.append(TensorType(dtype, sizes))
        return tuple(outs), template.none, template.none, ()
    # (a size past a type's limits: built the ordinary way, which says so)
    mapping = dict(zip(_KEYS, constants, strict=False))
    try:
        outs = [TensorType(dtype, [substitute(d, mapping) if type(d) is Dim else d
                                   for d in shape]) for dtype, shape in template.outputs]
    except ValueError:
        return None
    return tuple(outs), template.none, template.none, ()


def template(reader: Any, entry: OnnxOp, params: dict[str, Any], key: GenericKey,
             constants: tuple[int, ...], given: tuple[TensorType, ...], typed: tuple
             ) -> Template | None:
    """The template of a node of template key ``key`` whose ordinary build with the
    call's parameters ``params`` gave ``typed`` (its types, values, values' keys and
    conditions) at ``constants`` and inputs of types ``given``; None where a template
    does not type it exactly (see the module's doc)."""
    outs, folded, _, conditions = typed
    if conditions or any(v is not None for v in folded):
        return None
    op = entry.op.bind(**params) if isinstance(entry.op, OpFamily) else entry.op
    if not isinstance(op, SignatureOp) or isinstance(op, TemplateOp) and \
            op.builder is not None and not getattr(op.builder, "reads_ranks", False):
        if op is entry.op:  # (a family's Op may differ by the node's attributes)
            UNTEMPLATED.add(entry)
        return None  # a signature rendered from the sizes: one per instance
    types = tuple(TensorType(dtype, [SYMBOLS[~d] if type(d) is int and d < 0 else d
                                     for d in sizes])
                  for dtype, sizes in filter(None, key.inputs))  # those given
    # the facts of the key only (the template outlives the model), and only consistent
    # ones: contradictory facts prove anything of the template's sizes
    facts = key.facts
    if facts and not facts.consistent():
        return None
    try:
        sig, _ = op.signature_for(types)
        found = direct_build(sig, types, (False,) * len(types), facts)
    except (TypeError, ValueError, IndexError):  # (a builder's refusal of the template)
        return None
    if found is None:
        _pin(key, sig, constants)
        return None
    made_types, made_conditions = found
    for c in made_conditions:
        if type(c) is not Condition or not c.symbols() <= _NAMES:
            return None
    for t in made_types:
        for d in t.shape:
            if type(d) is Dim:
                free = free_symbols(d)
                if not (free <= _NAMES or free.isdisjoint(_NAMES)):
                    return None  # a size mixing the template's with the model's
    made = Template(tuple(made_types), tuple(made_conditions), types)
    found = instance(made, constants, given)
    return made if found is not None and found[0] == tuple(outs) else None


def _pin(key: GenericKey, sig: Any, constants: tuple[int, ...]) -> None:
    """Where the direct build declined a template: keep as constants, in the next
    templates of its entry and attributes, those of its constants that its signature's
    inputs fix (a template size meets a fixed size there)."""
    fixed = {d.size for c in compiled(sig) for op in c.alt.inputs for d in op.dims
             if type(d) is A.FixedDim}
    where = key.entry, key.attributes
    pinned = PINNED.get(where, frozenset())
    more = fixed.intersection(constants) - pinned
    if more:
        PINNED[where] = pinned | more


def remembered(reader: Any, entry: OnnxOp, rec: NodeRecord, node: onnx.NodeProto
               ) -> tuple[tuple | None, tuple | None, tuple | None]:
    """For ``node`` (read from ``rec``; its entry known, read for types only in a main
    graph): its exact memo key (:func:`.nodememo.node_key`); its typing by the exact
    memo, or else by the template of nodes seen before, or None; and its template key,
    constants and input types when it is to keep what makes its template once it is
    built, else None.

    A template is made by the third node of its template key that the exact memo does
    not type, of the second's build: a model whose nodes repeat (the layers of a
    transformer) is typed by the exact memo and pays for no template, and a key met
    twice only pays for none either. (Written for speed: it runs once per node of every
    model read; one pass over the inputs makes both keys.)"""
    attributes = rec.attribute_key(node)
    names, wanted = rec.names, rec.wanted
    outputs = outputs_asked(wanted)
    if attributes is None or entry.reads or entry.bounded or entry.reads_shapes or \
            entry in UNTEMPLATED:
        key = node_key(reader, entry, names, attributes, outputs)
        return key, None if key is None else MEMO.get(key), None
    read = read_inputs(reader, names)
    if read is None:
        return None, None, None  # (not remembered: the build says what is missing)
    inputs, fold = read
    if fold:  # (the values count: the exact memo's key alone)
        key = node_key(reader, entry, names, attributes, outputs, read)
        return key, None if key is None else MEMO.get(key), None
    given = tuple(inputs)  # (types only: no value counts)
    key = plain_key(reader, entry, names, given, attributes, outputs, given)
    typed = MEMO.get(key)
    if typed is not None:
        return key, typed, None
    found = generic_key(reader, entry, names, given, attributes, outputs,
                        PINNED.get((entry, attributes), _NO_PIN) if PINNED else _NO_PIN,
                        key[5] if len(key) > 5 else EMPTY)  # (its facts: plain_key)
    if found is None:
        return key, None, None
    made = TEMPLATES.get(found[0], _NONE)
    if made is _NONE or made is _SEEN:
        if len(TEMPLATES) >= TEMPLATES_SIZE:
            TEMPLATES.clear()
            PINNED.clear()
        TEMPLATES[_key(found[0])] = _SEEN  # (a key's first or second node: the
        # GenericKey is the dict's key object unless one equal to it is already)
        return key, None, found if made is _SEEN else None
    if type(made) is _Kept:  # its third node: the template, made of the second's build
        kept = made.found
        made = TEMPLATES[found[0]] = template(reader, entry, made.params, _key(kept[0]),
                                              *kept[1:], made.typed)
    if made is None:
        return key, None, None
    typed = instance(made, found[1], found[2])
    if typed is not None:
        # (the next first-seen node of its op type is compared with it: .repeats)
        reader.repeats[rec.op_type] = rec.domain, made, found, reader.facts
    return key, typed, None


def keep_template(reader: Any, entry: OnnxOp, node: onnx.NodeProto, found: tuple | None,
                  typed: tuple) -> None:
    """Keep what makes the template of ``node`` of template key, constants and input
    types ``found`` (None: nothing to keep), whose ordinary build gave ``typed``: the
    next node of its key makes it (:func:`remembered`)."""
    if found is None:
        return
    built = reader.built  # (its parameters as its build read them, if it was built)
    params = built[1] if built is not None and built[0] is node else \
        arguments(reader, entry, node, label(node))[1]
    TEMPLATES[found[0]] = _Kept(params, found, typed)  # (the key object filed stays)
