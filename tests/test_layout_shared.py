"""Layouts of alternatives (signature/layout.py): one Layout for the alternatives of the
same operands and loop prefix, its group index made when first asked, and operands of
names and sizes made without their general normalisation: each equal to what is made
the general way, on random well-formed alternatives (tests/signature_strategies.py)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from kantensor.signature.compile import compile_alternative
from kantensor.signature.layout import Axes
from kantensor.signature.signature import Signature
from kantensor.syntax.alternative import Alternative
from kantensor.syntax.ast import Compare, DimVar, FixedDim, TensorPattern
from kantensor.syntax.limits import NESTING_LEVELS, check_ast_nesting
from kantensor.syntax.parser import parse_alternatives
from kantensor.types.type import TensorType
from signature_strategies import alternatives


def _index(items: tuple) -> tuple[dict, dict]:
    """Per group the operands holding it, per (operand, group) its start: written out
    here as the layout's own eager pass wrote them before it was made lazy."""
    holders: dict = {}
    starts: dict = {}
    for i, row in enumerate(items):
        singles, before = 0, []
        for it in row:
            if it.group is None:
                singles += 1
                continue
            holders.setdefault(it.group, {})[i] = None
            starts.setdefault((i, it.group), (singles, tuple(before)))
            before.append(it.group)
    return {g: tuple(v) for g, v in holders.items()}, starts


@settings(max_examples=60, deadline=None)
@given(alternatives())
def test_a_layout_equals_one_built_afresh_and_its_index_the_eager_one(alt):
    axes = Axes(alt)
    if axes.flex is not None:
        return
    fresh = axes._build(alt, ())  # (shared with nothing)
    layout = axes.fixed
    assert layout.items == fresh.items and layout.groups == fresh.groups
    assert layout.rank_rules == fresh.rank_rules and layout.counts == fresh.counts
    holders, starts = _index(layout.items)
    assert layout.holders == holders and layout.starts == starts


@settings(max_examples=60, deadline=None)
@given(alternatives(), st.integers(0, 5))
def test_alternatives_differing_in_their_clauses_share_a_layout_and_keep_their_own(alt, k):
    names = sorted({d.name for op in alt.inputs for d in op.dims if type(d) is DimVar})
    if not names:
        return
    other = Alternative(alt.inputs, alt.outputs, (*alt.where, Compare(">=", DimVar(names[0]),
                                                                      FixedDim(k))),
                        alt.loop, alt.max_loop_dims)
    a, b = Axes(alt), Axes(other)
    if a.flex is not None:
        return
    assert a.fixed is b.fixed  # one layout
    assert a.alt is alt and b.alt is other  # (messages name each its own)


def test_shared_layouts_type_as_their_own_alternatives():
    """A gather's two alternatives (operands alike, clauses not) type as each alone."""
    sig = "(a0,a1):T,(i0,i1):I->(i0,i1,a1):T where a0 >= 1"
    (first,) = parse_alternatives(sig)
    (second,) = parse_alternatives(sig.replace("a0 >= 1", "i0*i1 == 0"))
    assert compile_alternative(first).axes.fixed is compile_alternative(second).axes.fixed
    x, i = TensorType("float32", (0, 3)), TensorType("int64", (2, 0))
    (out,) = Signature(alternatives=(first, second)).infer([x, i])
    assert out == TensorType("float32", (2, 0, 3))  # the second applies: no index
    (out,) = Signature(alternatives=(second,)).infer([x, i])
    assert out == TensorType("float32", (2, 0, 3))
    (out,) = Signature(alternatives=(first, second)).infer(
        [TensorType("float32", (4, 3)), TensorType("int64", (2, 5))])
    assert out == TensorType("float32", (2, 5, 3))


@settings(max_examples=60, deadline=None)
@given(alternatives())
def test_an_operand_of_names_and_sizes_is_the_one_made_the_general_way(alt):
    """Dims given as a tuple of names and fixed sizes are taken as they are; as a list
    (the general way) they give an equal operand with the same nesting levels."""
    for op in alt.operands:
        fast = TensorPattern(tuple(op.dims), op.dtype)
        general = TensorPattern(list(op.dims), op.dtype)
        assert fast == general and type(fast.dims) is tuple
        assert fast.__dict__.get(NESTING_LEVELS) == general.__dict__.get(NESTING_LEVELS)
    check_ast_nesting(alt)
