"""A builder's size as a dim expression (ops/sizes.dim_expr) is built from the size's
terms (ops/dimast.dim_ast), no longer parsed from its text: the tree must be the one
the parser makes of that text (the reference: ``parse_tensor_type(f"int8[{d}]")``),
for sizes of sums, products, powers, floors and remainders by ints and by sizes, exact
quotients, min and max, of either sign; names the parser reads otherwise are left to
it (declined), and the value of the tree at every point of a grid is the size's."""

from __future__ import annotations

import itertools
import operator

from hypothesis import given, settings
from hypothesis import strategies as st

from kantensor.ops.dimast import dim_ast
from kantensor.ops.sizes import dim_expr
from kantensor.syntax.ast import evaluate
from kantensor.syntax.parser import parse_tensor_type
from kantensor.types.dim import Dim
from kantensor.types.dimfacts import assume_divisible
from kantensor.types.dimminmax import dim_max, dim_min
from kantensor.types.symbols import substitute

NAMES = ("s0", "s1", "a0")
OPS = {"+": operator.add, "-": operator.sub, "*": operator.mul,
       "//": operator.floordiv, "%": operator.mod, "min": dim_min, "max": dim_max}

leaves = st.one_of(st.sampled_from(NAMES), st.integers(-6, 9))
trees = st.recursive(leaves, lambda ch: st.one_of(
    st.tuples(st.sampled_from(["+", "-", "*", "min", "max"]), ch, ch),
    st.tuples(st.sampled_from(["//", "%"]), ch, st.one_of(st.integers(1, 5), ch)),
    st.tuples(st.just("**"), ch, st.integers(0, 3))), max_leaves=7)


def build(tree):
    if isinstance(tree, str):
        return Dim(tree)
    if isinstance(tree, int):
        return tree
    op, left, right = tree
    a = build(left)
    if op == "**":
        return a ** right
    return OPS[op](a, build(right))


@settings(max_examples=400, deadline=None)
@given(trees, st.booleans())
def test_the_tree_of_a_size_is_the_parsers(tree, exact):
    try:
        d = build(tree)
    except ZeroDivisionError:
        return
    if exact and isinstance(d, Dim):  # exact quotients r/k, printed r//k
        d = assume_divisible(d + Dim("s0") // 2 + (Dim("s1") + 1) // 4,
                             [Dim("s0") % 2, (Dim("s1") + 1) % 4])
    if not isinstance(d, Dim):
        return
    want = parse_tensor_type(f"int8[{d}]")[1][0]
    assert dim_ast(d) == want, str(d)
    assert dim_expr(d) == want
    for values in itertools.product((0, 1, 3), repeat=len(NAMES)):
        point = dict(zip(NAMES, values, strict=True))
        try:
            value = substitute(d, point)
        except ZeroDivisionError:
            continue
        assert evaluate(want, point.__getitem__) == value


def test_names_the_parser_reads_otherwise_are_left_to_it():
    assert dim_ast(Dim("float32") + 1) is None and dim_ast(Dim("where") * 2) is None
    n = Dim("n")
    assert dim_ast(n - 3) == parse_tensor_type("int8[n - 3]")[1][0]
    assert dim_ast(-n) == parse_tensor_type("int8[-n]")[1][0]
