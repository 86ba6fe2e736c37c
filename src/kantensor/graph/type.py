"""The Type contract: what every type of a graph Variable must provide.

A Type describes the values a Variable may hold. It checks and converts
values (``filter``), compares them (``values_eq``), and relates to other
types (``is_super``, ``filter_variable``, ``convert_variable``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from .basic import Constant, Variable


class Type:
    """Base class of all graph types.

    Subclasses implement :meth:`filter` and structural ``__eq__``/``__hash__``;
    everything else has a sensible default built on those.
    """

    __slots__ = ("__weakref__",)

    #: The classes of this type's variables and constants. Subclasses set them once the
    #: classes exist (as PyTensor does), so a type module never imports its variables.
    variable_type: ClassVar[type[Variable]] = Variable
    constant_type: ClassVar[type[Constant]] = Constant

    #: Functions ``f(type, variable) -> Variable | None`` tried, in order, by
    #: :meth:`convert_variable` before giving up (see :meth:`register_transfer`).
    transfers: ClassVar[list[Callable[[Type, Any], Any]]] = []

    def __str__(self) -> str:
        return type(self).__name__

    def __repr__(self) -> str:
        return str(self)

    # -- values -----------------------------------------------------------
    def filter(self, value: Any, strict: bool = False, allow_downcast: bool | None = None) -> Any:
        """Return ``value`` converted to this type, or raise TypeError/ValueError.

        ``strict=True`` accepts only values that already are of this type;
        ``allow_downcast`` permits lossy conversions (None: only for Python
        numbers).
        """
        raise NotImplementedError

    def filter_inplace(self, value: Any, storage: Any, strict: bool = False,
                       allow_downcast: bool | None = None) -> Any:
        """Like :meth:`filter`, but may write into ``storage`` and return it."""
        return self.filter(value, strict=strict, allow_downcast=allow_downcast)

    def is_valid_value(self, value: Any) -> bool:
        """True if ``value`` is exactly a value of this type (a strict filter passes)."""
        try:
            self.filter(value, strict=True)
        except (TypeError, ValueError):
            return False
        return True

    def values_eq(self, a: Any, b: Any) -> bool:
        """Exact equality of two values of this type."""
        return a == b

    def values_eq_approx(self, a: Any, b: Any) -> bool:
        """Approximate equality (defaults to exact)."""
        return self.values_eq(a, b)

    def may_share_memory(self, a: Any, b: Any) -> bool:
        """True if ``a`` and ``b`` may alias each other."""
        return a is b

    def get_shape_info(self, value: Any) -> Any:
        """Information needed by :meth:`get_size` (here: the value itself)."""
        return value

    def get_size(self, shape_info: Any) -> int:
        """Number of bytes a value with ``shape_info`` occupies."""
        raise NotImplementedError

    # -- variables --------------------------------------------------------
    def make_variable(self, name: str | None = None) -> Variable:
        """A new Variable of this type (of the class :attr:`variable_type`)."""
        if name is not None and not isinstance(name, str):
            raise TypeError(f"a variable's name must be a string or None, got "
                            f"{type(name).__name__} {name!r}" + (
                                f"; for a variable of type {name}, write {name!r}('x')"
                                if isinstance(name, Type) else ""))
        return self.variable_type(self, name=name)

    def __call__(self, name: str | None = None) -> Variable:
        return self.make_variable(name)

    def make_constant(self, value: Any, name: str | None = None) -> Constant:
        """A Constant of this type (of the class :attr:`constant_type`)."""
        return self.constant_type(self, value, name=name)

    # -- relations between types ------------------------------------------
    def clone(self, **kwargs: Any) -> Type:
        """A copy of this type with some attributes changed."""
        return type(self)(**kwargs) if kwargs else self

    def in_same_class(self, other: Type) -> bool:
        """True if values of ``other`` and of ``self`` are interchangeable.

        The default is equality; types with refinements (such as static
        shapes) are stricter than ``is_super``.
        """
        return self == other

    def is_super(self, other: Type) -> bool:
        """True if every value of ``other`` is a value of ``self``."""
        return self == other

    def convert_variable(self, var: Any) -> Any | None:
        """A Variable of this type standing for ``var``, or None if impossible.

        Returns ``var`` itself when its type is already more specific, else
        tries the registered transfer functions.
        """
        if self.is_super(var.type):
            return var
        for transfer in type(self).transfers:
            out = transfer(self, var)
            if out is not None:
                return out
        return None

    def filter_variable(self, other: Any, allow_convert: bool = True) -> Any:
        """Return ``other`` as a Variable of this type, converting if allowed.

        Raises TypeError naming both types when that cannot be done.
        """
        if not isinstance(other, Variable):
            other = self.make_constant(other)
        if other.type == self or self.is_super(other.type):
            return other
        if allow_convert:
            out = self.convert_variable(other)
            if out is not None:
                return out
        raise TypeError(
            f"cannot convert variable {other} of type {other.type} to type {self}"
        )

    @classmethod
    def register_transfer(cls, fn: Callable[[Type, Any], Any]) -> Callable[[Type, Any], Any]:
        """Register ``fn(type, variable)`` as a conversion tried by convert_variable.

        The list belongs to ``cls`` (subclasses get their own on first use).
        """
        if "transfers" not in cls.__dict__:
            cls.transfers = list(cls.transfers)
        cls.transfers.append(fn)
        return fn
