"""A size as a dim expression of the DSL (:func:`dim_ast`): the tree the parser makes of
the size's text (``types.poly.render``), built from the size's terms, so that a
builder's size is not rendered and parsed again: the parser is built on its first use,
about 58 million instructions of wav2vec2's first ``infer_shapes``, which needed it for
nothing else (a Range's limit and a Reshape's entries written over their sizes)."""

from __future__ import annotations

from typing import Any

from ..syntax.ast import DTYPE_NAMES, RESERVED, BinOp, Call, DimExpr, DimVar, FixedDim
from ..syntax.limits import check_ast_nesting
from ..types.dim import Dim
from ..types.poly import Opaque, Terms

__all__ = ["dim_ast"]


class _Declined(Exception):
    """A name the parser reads otherwise (reserved, a dtype's, a private or unknown
    size): the caller parses the text."""


def dim_ast(d: Dim) -> DimExpr | None:
    """The dim expression ``parse_tensor_type(f"int8[{d}]")`` gives of ``d``, or None
    where the parser should read it (a name it reads otherwise, a tree nested too
    deeply: its error is the parser's)."""
    try:
        tree = _sum(d._terms)
        check_ast_nesting((tree,), levels_above=0)
    except (_Declined, ValueError):
        return None
    return tree


def _sum(terms: Terms) -> DimExpr:
    """The terms as ``render`` writes them (the same order, added or subtracted from the
    left), each a product of its factors from the left; a leading minus negates the
    first factor, as Python and the parser read ``-2*n`` (``(0 - 2)*n``)."""
    if terms[0][1] < 0 and terms[0][0]:  # (render's order: a minus sign printed last)
        if any(mono and c > 0 for mono, c in terms):
            terms = tuple(sorted(terms, key=lambda t: (not t[0], t[1] < 0)))
        else:
            terms = tuple(sorted(terms, key=lambda t: t[1] < 0))
    out: Any = None
    for mono, c in terms:
        negated = out is None and c < 0
        body: Any = FixedDim(abs(c)) if abs(c) != 1 or not mono else None
        if body is not None and negated:
            body = BinOp("-", FixedDim(0), body)
        for atom, p in mono:
            f = _atom(atom)
            f = f if p == 1 else BinOp("**", f, FixedDim(p))
            if body is None and negated:
                f = BinOp("-", FixedDim(0), f)
            body = f if body is None else BinOp("*", body, f)
        if out is None:
            out = body
        else:
            out = BinOp("+" if c > 0 else "-", out, body)
    return out


def _atom(atom: Any) -> DimExpr:
    if type(atom) is str:
        if atom in RESERVED or atom in DTYPE_NAMES:
            raise _Declined
        return DimVar(atom)
    if type(atom) is not Opaque:
        raise _Declined
    if atom.op in ("min", "max"):
        return Call(atom.op, tuple(map(_operand, atom.args)))
    op = "%" if atom.op == "%" else "//"  # (an exact quotient r/k is written r//k)
    return BinOp(op, _operand(atom.args[0]), _operand(atom.args[1]))


def _operand(x: Any) -> DimExpr:
    """An argument (an int, a size): ``-3`` is ``0 - 3``, as the parser negates."""
    if isinstance(x, int):
        return FixedDim(x) if x >= 0 else BinOp("-", FixedDim(0), FixedDim(-x))
    return _sum(x._terms)
