"""Graph nodes: Variable, Apply and Constant."""

from __future__ import annotations

import copyreg
import threading
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from .display import apply_html
from .hooks import Hook


class _Tagged:
    """``tag``: a free dict of annotations, made on first use (most nodes never have
    one, and an empty dict per node would be a third of a chain's memory)."""

    __slots__ = ()

    @property
    def tag(self) -> dict[str, Any]:
        tag = self._tag
        if tag is None:
            tag = self._tag = {}
        return tag

    @tag.setter
    def tag(self, value: dict[str, Any]) -> None:
        self._tag = value


class Variable(_Tagged):
    """A value in a graph: the output of an Apply (``owner``) or a graph input.

    ``index`` is the position of this variable in ``owner.outputs``. ``facts`` is what
    is known of the sizes its type names (the conditions of the nodes it comes from,
    :class:`~kantensor.types.facts.Facts`), or None for nothing.
    """

    __slots__ = ("type", "owner", "index", "name", "facts", "_tag", "__weakref__")
    #: Only a Constant made from a Python number is wrapped (lowest promotion priority);
    #: a class attribute, so asking any Variable is a plain attribute read.
    wrapped = False

    def __init__(self, type, owner: Apply | None = None, index: int | None = None,
                 name: str | None = None):
        self.type = type
        self.owner = owner
        self.index = index
        self.name = name
        self.facts = None
        self._tag = None

    def __reduce_ex__(self, protocol: int) -> tuple:
        """Pickled without recursion: a Variable with an owner first has every variable
        it depends on pickled, in an order where each comes after the variables its own
        owner reads, so that each one's state refers only to what is pickled already."""
        state = self.__getstate__()
        scheduled = _scheduled()
        if self.owner is None or id(self) in scheduled:
            scheduled.discard(id(self))
            return copyreg.__newobj__, (type(self),), state
        earlier = _earlier(self)
        return _after, (earlier, type(self)), state

    def clone(self) -> Variable:
        """A new, ownerless Variable with the same type, name and facts."""
        cp = type(self)(self.type, None, None, self.name)
        cp.facts = self.facts
        if self._tag:
            cp.tag = dict(self._tag)
        return cp

    def __str__(self) -> str:
        if self.name is not None:
            return self.name
        if self.owner is not None:
            op = self.owner.op
            if len(self.owner.outputs) == 1:
                return f"{op}.out"
            return f"{op}.{self.index}"
        return f"<{self.type}>"

    def __repr__(self) -> str:
        return str(self)


class Constant(Variable):
    """A Variable with a fixed, read-only value (``data``), never a function input.

    ``wrapped`` marks a constant that came from a Python number used in an
    op call; it takes the lowest promotion priority.
    """

    __slots__ = ("data", "wrapped")

    def __init__(self, type, data: Any, name: str | None = None, wrapped: bool = False):
        super().__init__(type, None, None, name)
        data = type.filter(data)
        if hasattr(data, "setflags"):
            data.setflags(write=False)
        self.data = data
        self.wrapped = wrapped

    def clone(self) -> Constant:
        cp = type(self)(self.type, self.data, self.name, self.wrapped)
        if self._tag:
            cp.tag = dict(self._tag)
        return cp

    def __str__(self) -> str:
        if self.name is not None:
            return self.name
        text = str(self.data).replace("\n", " ")
        return text if len(text) <= 20 else text[:17] + "..."


_new = object.__new__


NEW_NODE: Hook[Callable[[Any], None]] = Hook(
    "new_node", "kantensor.evalshape.trace",
    "new_node(apply): while a trace that may rebind values runs (eval_shape), called with "
    "every new Apply, so that it knows each value's consumers; None otherwise")


REBUILD: Hook[Callable[[Any, Sequence[Any]], Any]] = Hook(
    "rebuild", "kantensor.ops.op",
    "rebuild(node, inputs): node's Op applied to inputs (make_node) under the dtype rules "
    "node was built under (eval_shape's: NumPy's), not the caller's: a clone that "
    "re-infers types", default=lambda node, inputs: node.op.make_node(*inputs))


class Unplaced(Protocol):
    """Conditions of a node given before they are named on its inputs: ``place(node)``
    gives them as the node's (see :attr:`Apply.conditions`)."""

    def place(self, node: Apply) -> tuple: ...


class Apply(_Tagged):
    """The application of an Op to input Variables, producing output Variables.

    Creating an Apply sets each output's ``owner`` and ``index``. ``conditions`` holds
    what its Op's relation needs of the input sizes and could not decide when it was
    built (:class:`~kantensor.types.facts.Condition` and ``AnyOf``): its outputs' types
    hold where they do. It may be set to an :class:`Unplaced` instead, whose
    ``place(node)`` gives them when they are first read (a build's conditions named on this node's
    inputs only when asked). ``rules`` names the dtype rules its types were inferred
    under where they are not the process's initial ones (None): ``"numpy"``, or a
    default dtype (:func:`kantensor.ops.op.built_rules` reads it; a slot, not a tag: a
    dict per node would be a third of a graph's memory).
    """

    __slots__ = ("op", "inputs", "outputs", "_conditions", "_tag", "rules")

    def __init__(self, op, inputs: Sequence[Variable], outputs: Sequence[Variable]):
        self.op = op
        self.inputs = inputs = list(inputs)
        self.outputs = list(outputs)
        self._conditions = ()
        self._tag = None
        self.rules = None
        for inp in inputs:
            if not isinstance(inp, Variable):
                i = next(i for i, x in enumerate(inputs) if not isinstance(x, Variable))
                raise TypeError(f"input {i} of {op} is not a Variable: {inputs[i]!r}")
        for i, out in enumerate(self.outputs):
            if not isinstance(out, Variable):
                raise TypeError(f"output {i} of {op} is not a Variable: {out!r}")
            if out.owner is not None and out.owner is not self:
                raise ValueError(f"output {i} of {op} already belongs to another Apply")
            out.owner = self
            out.index = i
        if NEW_NODE.fn is not None:
            NEW_NODE.fn(self)

    @property
    def conditions(self) -> tuple:
        found = self._conditions
        if type(found) is not tuple:
            found = self._conditions = found.place(self)
        return found

    @conditions.setter
    def conditions(self, value: tuple | Unplaced) -> None:
        self._conditions = value

    def __getstate__(self) -> Any:
        _ = self.conditions  # placed first: a pickle holds the conditions themselves
        return super().__getstate__()

    def _repr_html_(self) -> str:
        return apply_html(self)

    @classmethod
    def of_new_outputs(cls, op: Any, inputs: list[Variable], kind: type[Variable],
                       types: Sequence[Any]) -> Apply:
        """``Apply(op, inputs, [kind(t) for t in types])`` for a caller that checked that
        every input is a Variable and hands ``inputs`` over: the path of a memo hit,
        without the checks and copies an Apply of any outputs needs."""
        node = _new(cls)
        node.op = op
        node.inputs = inputs
        node._conditions = ()
        node._tag = None
        node.rules = None
        node.outputs = [kind(t, node, i) for i, t in enumerate(types)]
        if NEW_NODE.fn is not None:
            NEW_NODE.fn(node)
        return node

    @classmethod
    def one_output(cls, op: Any, inputs: list[Variable], kind: type[Variable],
                   out_type: Any) -> Variable:
        """The output of ``Apply.of_new_outputs(op, inputs, kind, [out_type])``."""
        node = _new(cls)
        node.op = op
        node.inputs = inputs
        node._conditions = ()
        node._tag = None
        node.rules = None
        out = kind(out_type, node, 0)
        node.outputs = [out]
        if NEW_NODE.fn is not None:
            NEW_NODE.fn(node)
        return out

    @property
    def out(self) -> Variable:
        """The single output (error if there are several)."""
        if len(self.outputs) != 1:
            raise AttributeError(f"{self.op} has {len(self.outputs)} outputs, not one")
        return self.outputs[0]

    def clone_with_new_inputs(self, inputs: Sequence[Variable], strict: bool = True) -> Apply:
        """A new Apply of the same op on ``inputs``. A strict clone keeps the types, the
        conditions, which are of the sizes its types name, the rules the types were
        inferred under and the tag (``kt.function`` clones); else the types are
        re-inferred, under those rules (:data:`REBUILD`), not the caller's."""
        if strict:
            outputs = [o.clone() for o in self.outputs]
            node = Apply(self.op, inputs, outputs)
            node._conditions = self._conditions
            node.rules = self.rules
            if self._tag:
                node._tag = dict(self._tag)
            return node
        return REBUILD.fn(self, inputs)

    def __str__(self) -> str:
        return f"{self.op}({', '.join(map(str, self.inputs))})"

    def __repr__(self) -> str:
        return str(self)


# -- pickling ------------------------------------------------------------------------------
_PICKLING = threading.local()


def _scheduled() -> set[int]:
    """The ids of the variables this thread's pickling has listed already (their own
    state is then pickled plainly)."""
    ids = getattr(_PICKLING, "ids", None)
    if ids is None:
        ids = _PICKLING.ids = set()
    return ids


def _earlier(v: Variable) -> list[Variable]:
    """Every variable ``v`` depends on, each after those its owner reads (an iterative
    post-order walk); they, and their owners' other outputs, are marked as scheduled."""
    order: list[Variable] = []
    seen = {id(v)}
    stack: list[tuple[Variable, bool]] = [(v, False)]
    while stack:
        node, expanded = stack.pop()
        if expanded:
            order.append(node)
            continue
        stack.append((node, True))
        owner = node.owner
        if owner is not None:
            for inp in reversed(owner.inputs):
                if id(inp) not in seen:
                    seen.add(id(inp))
                    stack.append((inp, False))
    order.pop()  # v itself, last
    scheduled = _scheduled()
    for node in (*order, v):
        scheduled.add(id(node))
        if node.owner is not None:
            scheduled.update(id(out) for out in node.owner.outputs)
    scheduled.discard(id(v))
    return order


def _after(earlier: list[Variable], cls: type) -> Variable:
    """Unpickling: a new ``cls``, made once ``earlier`` (its ancestors) are restored."""
    return cls.__new__(cls)
