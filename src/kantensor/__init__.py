"""kantensor: typed tensor computation graphs with relational type inference.

Everything public is importable from here: ``import kantensor as kt``. The built-in
Ops of the catalogue (``kt.add``, ``kt.sum``, ...) and the Theano-style shortcuts
(``kt.fmatrix``, ...) are attributes of the module's type, not of its globals, so names
such as ``sum`` and ``all`` never shadow Python's builtins in this module, and
``kt.sum`` is one attribute lookup; an entry added to the catalogue later is found by
the module's ``__getattr__`` (PEP 562).

The front ends no other part of the package needs (``eval_shape``, ``refine``, the
notebook magics, the pictures, contracts) load on first use, by that same
``__getattr__`` (see :data:`FRONT_ENDS`): importing ``kantensor``, and so every
``kantensor.X`` (``kantensor.onnx``, the ``kantensor`` command), does not pay for them.
"""

import sys as _sys
from importlib import import_module as _import_module
from types import ModuleType as _ModuleType
from typing import Any

from .graph.heap import collector_paused as _collector_paused

with _collector_paused():  # a tenth of the import's time otherwise (see it)
    from .backend import Function, function
    from .graph import (
        Apply,
        Constant,
        FunctionGraph,
        Op,
        Type,
        Variable,
        ancestors,
        clone,
        graph_inputs,
        toposort,
    )
    from .logic.store import labelo, relations_first
    from .ops import CATALOGUE
    from .ops.family import op
    from .ops.op import SignatureOp
    from .query import Solutions, pattern, query, relation
    from .signature.signature import Signature
    from .signature.universal import holds_for_all
    from .syntax.ast import TensorPattern, dim_vars, dtype_vars
    from .syntax.errors import SignatureSyntaxError, TypeInferenceError
    from .types import (
        DTYPES,
        Dim,
        OptionalType,
        SequenceType,
        SpecifyShape,
        TensorConstant,
        TensorType,
        TensorVariable,
        as_tensor_variable,
        constant,
        default_dtype,
        dims,
        get_default_dtype,
        matrix,
        promote_types,
        result_type,
        scalar,
        set_default_dtype,
        specify_shape,
        tensor,
        vector,
    )
    from .types.conditions import AnyOf, Condition, Source
    from .types.facts import Facts
    from .types.variable import SHORTCUTS

__version__ = "0.1.0"

#: The public names loaded on first use (PEP 562), by the module (under kantensor) that
#: defines them: front ends that nothing else in the package imports. The first access
#: (``kt.eval_shape``, ``from kantensor import refine``) imports the module and keeps
#: the name as an ordinary attribute; tests/test_imports.py checks that ``import
#: kantensor.onnx`` loads none of these modules and that each defines its names.
FRONT_ENDS: dict[str, tuple[str, ...]] = {
    "evalshape": ("ShapeResult", "eval_shape"),
    "ipython": ("load_ipython_extension",),  # %load_ext kantensor
    "ops.contracts": ("contract",),
    "printing": ("dprint", "graphviz"),
    "refinement": ("Refinement", "RefinementError", "refine"),
    "types.contracts": ("Contract", "SizeSet"),
}
_FRONT_END_OF = {name: module for module, names in FRONT_ENDS.items() for name in names}
#: Their subpackages of this package (``kt.evalshape``, ``kt.refinement``, ...): attributes
#: of the package as when it imported them, loaded on first access too.
_FRONT_END_PACKAGES = {module.split(".")[0] for module in FRONT_ENDS} - set(globals())

__all__ = [
    "DTYPES", "AnyOf", "Apply", "Condition", "Constant", "Contract", "Dim", "Facts",
    "Function", "FunctionGraph", "Op", "OptionalType", "SequenceType", "ShapeResult",
    "Signature", "SignatureOp", "SignatureSyntaxError", "Solutions", "SpecifyShape",
    "SizeSet", "Source", "TensorConstant", "TensorPattern", "TensorType", "TensorVariable", "Type",
    "TypeInferenceError", "Variable", "ancestors", "as_tensor_variable", "clone", "constant",
    "contract", "default_dtype", "dim_vars", "dims", "dprint", "dtype_vars", "eval_shape",
    "function", "get_default_dtype",
    "graph_inputs", "graphviz", "holds_for_all", "labelo", "matrix", "op", "pattern",
    "promote_types",
    "query", "Refinement", "RefinementError", "refine", "relation", "relations_first",
    "result_type", "scalar", "set_default_dtype", "specify_shape",
    "tensor", "toposort", "vector",
]  # fmt: skip
__all__ += sorted(SHORTCUTS) + sorted(CATALOGUE)


class _Package(_ModuleType):
    """The type of the kantensor module: it holds the catalogue's Ops and the shortcuts.

    As class attributes, ``kt.sum`` is one lookup: 0.16 us against 2.45 us through a
    failed globals lookup and PEP 562's ``__getattr__`` (measured on the 2-core machine),
    a third of a cached build's cost."""


for _name, _value in {**SHORTCUTS, **CATALOGUE}.items():
    setattr(_Package, _name, staticmethod(_value))  # the object itself, never bound
_sys.modules[__name__].__class__ = _Package
del _name, _value


def __getattr__(name: str) -> Any:
    """A front end's name or subpackage, loaded on first use (:data:`FRONT_ENDS`);
    catalogue entries and shortcuts added after import."""
    module = _FRONT_END_OF.get(name)
    if module is not None:
        value = getattr(_import_module(f"{__name__}.{module}"), name)
        globals()[name] = value  # an ordinary attribute from now on
        return value
    if name in _FRONT_END_PACKAGES:
        return _import_module(f"{__name__}.{name}")  # (which sets the attribute)
    if name in CATALOGUE:
        return CATALOGUE[name]
    if name in SHORTCUTS:
        return SHORTCUTS[name]
    raise AttributeError(f"module 'kantensor' has no attribute {name!r}")


def __dir__() -> list[str]:
    """The public names (``__all__``, which holds the catalogue and the shortcuts)."""
    return sorted({*__all__, *SHORTCUTS, *CATALOGUE, "__version__"})
