"""Parsed signatures and templates as JSON data: the catalogue's, shipped by their text.

In a fresh process the parser (Lark's LALR over the tokens, then the AST's constructors)
costs a tenth of a ms or more per signature text, most of what a first ONNX
``infer_shapes`` of a small model spends parsing. So ``make catalogue-index`` writes,
beside each catalogue file's precompiled tables (:mod:`kantensor.ops.shipped`), the
*parsed form* of each of its signature texts (:func:`encode`), and :func:`known` gives
the parse of a text from it. A form is looked up by the very text it was parsed from:
an edited text finds none and is parsed, never answered by an old form. Forms made by
another encoding, grammar or vocabulary (:func:`version`) are not registered. Decoding builds the
nodes with their own constructors, so every check a node makes of itself (and the
well-formedness check of each alternative) runs as after a parse; a form that does
not decode to alternatives is not used; a test decodes every shipped form and compares
it with a fresh parse of its text (:func:`kantensor.syntax.parser.parse_fresh`).

A form is nested JSON lists: a node is ``[class name, field, ...]`` (its constructor's
fields in order), a tuple ``["", item, ...]``, a loop prefix ``["Loop", "+"]``, a word of
the vocabulary ``["Word", rule]``; strings, ints and null stand for themselves. The
forms are kept as JSON text until their text is parsed, so registering a file's forms
costs one dict entry each.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Mapping
from typing import Any

from . import ast as A
from . import vocabulary as V
from .alternative import Alternative, Loop
from .tables import grammar_digest
from .template import AlternativeHole, AlternativeTemplate, OperandHole, Spliced

__all__ = ["FORMAT", "decode", "encode", "known", "register", "version"]

#: The version of the encoding: :func:`version` changes with it.
FORMAT = 1

#: The node classes a form may name, by name.
NODES: dict[str, Any] = {cls.__name__: cls for cls in (
    A.DimVar, A.FixedDim, A.BinOp, A.Call, A.Hole, A.Compare, A.FlexDim, A.AnonGroup,
    A.AnyGroup, A.NamedGroup, A.DTypeName, A.DTypeVar, A.DTypeHole, A.Promote, A.Join,
    A.LoopFloat, A.DTypeFunction, A.TensorPattern, A.InCategory, A.DTypeEq, A.Compatible,
    A.Broadcasts,
    Alternative, OperandHole, Spliced, AlternativeHole, AlternativeTemplate)}

#: A dataclass's fields as a form writes them (``message``, never in a parsed text, is
#: not one of them).
_FIELDS = {name: tuple(f.name for f in dataclasses.fields(cls) if f.name != "message")
           for name, cls in NODES.items()}


#: The classes whose written fields are their constructor's first parameters, in order
#: (decoded by position: a form is decoded when its text is first parsed).
_IN_ORDER = frozenset(name for name, cls in NODES.items() if tuple(
    f.name for f in dataclasses.fields(cls) if f.init)[:len(_FIELDS[name])] == _FIELDS[name])


def encode(parsed: tuple[Any, ...]) -> Any:
    """The form of a parse: the alternatives of a signature, or of a template."""
    return _encode(parsed)


def _encode(x: Any) -> Any:
    if x is None or isinstance(x, str | int):
        return x
    if isinstance(x, tuple):
        return ["", *map(_encode, x)]
    if isinstance(x, Loop):
        return ["Loop", x.value]
    if isinstance(x, V.Word):
        return ["Word", x.rule]
    name = type(x).__name__
    if NODES.get(name) is not type(x) or getattr(x, "message", None) is not None:
        raise TypeError(f"no form for {x!r}")
    return [name, *(_encode(getattr(x, f)) for f in _FIELDS[name])]


def decode(form: Any) -> Any:
    """The parse a form stands for (ValueError, TypeError or KeyError for data that is
    not a form)."""
    return _decode(form)


def _decode(x: Any) -> Any:
    if type(x) is not list:
        return x
    tag = x[0]
    if tag == "":
        return tuple([_decode(item) for item in x[1:]])
    if tag == "Loop":
        return Loop(x[1])
    if tag == "Word":
        return V.by_rule(x[1])
    names = _FIELDS[tag]
    if len(x) - 1 > len(names):
        raise ValueError(f"a form of {tag} with {len(x) - 1} fields, not {len(names)}")
    values = [_decode(item) for item in x[1:]]
    if tag in _IN_ORDER:
        return NODES[tag](*values)
    # (by name: ``message``, not written, sits between fields)
    return NODES[tag](**dict(zip(names, values, strict=False)))


def version() -> str:
    """What shipped forms record they were made by (forms of another version are not
    used): the encoding, the grammar, and the words the parser reads a name against
    (the dtype names and categories the dtype table defines, the reserved words), so
    that a dtype added to the table or a word to the vocabulary retires every form.
    (A change to the parser's code is found by the test that compares each form with a
    fresh parse.)"""
    if _VERSION:
        return _VERSION[0]
    words = "\n".join(["", *sorted(A.DTYPE_NAMES), "", *sorted(A.CATEGORIES), "",
                        *sorted(A.RESERVED)])
    made = f"{FORMAT}:{grammar_digest()}:{hashlib.sha256(words.encode()).hexdigest()[:16]}"
    if A.DTYPE_NAMES and A.CATEGORIES:  # (defined once: the version is then fixed)
        _VERSION.append(made)
    return made


_VERSION: list[str] = []


#: The shipped forms, as JSON text, by (template?, text).
_SHIPPED: dict[tuple[bool, str], str] = {}


def register(forms: Mapping[str, Any], template: bool) -> None:
    """Make ``forms`` (text -> its form as JSON text) the parses of their texts, as
    signatures or (``template``) as templates; anything else in ``forms`` is left out."""
    for text, form in forms.items():
        if isinstance(text, str) and isinstance(form, str):
            _SHIPPED[template, text] = form


def known(text: str, template: bool) -> Any:
    """The parse of ``text`` from its shipped form, or None when there is none (or it
    does not decode: the text is then parsed)."""
    form = _SHIPPED.get((template, text))
    if form is None:
        return None
    try:
        made = decode(json.loads(form))
        hash(made)  # (as a parse is: the AST is a cache key)
    except (ValueError, TypeError, KeyError, IndexError, RecursionError):
        return None
    kinds = _TEMPLATE_KINDS if template else Alternative
    if type(made) is not tuple or not made or not all(isinstance(a, kinds) for a in made):
        return None
    return made


#: What a template's alternatives are.
_TEMPLATE_KINDS = (AlternativeTemplate, AlternativeHole)
