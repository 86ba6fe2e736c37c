"""Op: the operation of an Apply node."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .basic import Apply, Variable


@dataclass(frozen=True)
class Kernel:
    """``perform`` of one node, decided when a graph is compiled.

    Call ``fn(*inputs, **kwargs)`` after casting input ``i`` to ``casts[i]`` (None:
    as it is, with integers wrapping around); the result (a tuple when the node has
    several outputs) is then cast to each output type's dtype.
    """

    fn: Callable[..., Any]
    kwargs: dict[str, Any] = field(default_factory=dict)
    casts: tuple[str | None, ...] = ()


class Op:
    """Base class of operations.

    ``__props__`` names the attributes that define an Op: two Ops of the same
    class with equal props are equal and hash alike. Subclasses implement
    :meth:`make_node` (check and convert inputs, infer output types) and
    :meth:`perform` (compute with NumPy).
    """

    __props__: tuple[str, ...] = ()

    def _props(self) -> tuple:
        return tuple(getattr(self, p) for p in self.__props__)

    def __eq__(self, other: object) -> bool:
        return type(self) is type(other) and self._props() == other._props()

    def __hash__(self) -> int:
        return hash((type(self), self._props()))

    def make_node(self, *inputs: Any) -> Apply:
        raise NotImplementedError

    def perform(self, node: Apply, inputs: list, output_storage: list[list]) -> None:
        """Compute outputs: store output i in ``output_storage[i][0]``."""
        raise NotImplementedError

    def kernel(self, node: Apply) -> Kernel | None:
        """What :meth:`perform` does for ``node``, as a plain function call a backend
        may compile into straight-line code; None (the default) when it must call
        :meth:`perform` itself."""
        return None

    def check_inputs(self, node: Apply, inputs: list) -> None:
        """Under ``function(..., check=True)``, before :meth:`perform`: raise if the
        input values break a condition the static types could not decide (a size
        that was unknown when the graph was built). The default checks nothing."""

    def __call__(self, *inputs: Any, **kwargs: Any) -> Variable | list[Variable]:
        node = self.make_node(*inputs, **kwargs)
        if len(node.outputs) == 1:
            return node.outputs[0]
        return node.outputs

    def __str__(self) -> str:
        name = getattr(self, "name", None) or type(self).__name__
        props = [f"{p}={getattr(self, p)!r}" for p in self.__props__ if p != "name"]
        return f"{name}{{{', '.join(props)}}}" if props else name

    def __repr__(self) -> str:
        return str(self)

    def written(self) -> tuple[str, tuple[tuple[str, Any], ...]]:
        """The Op's name and its parameters as its user wrote them (for pictures): by
        default every prop but the name."""
        name = getattr(self, "name", None) or type(self).__name__
        return name, tuple((p, getattr(self, p)) for p in self.__props__ if p != "name")
