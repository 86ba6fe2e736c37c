"""Regression tests for hostile input and lying types (issue 14): every reproducer."""

from __future__ import annotations

import dataclasses
import io
import random
import re
import subprocess
import sys
import threading

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

import kantensor as kt
import sizing
from kantensor import cli
from kantensor.backend.checks import OutputTypeError, ShapeBindingError
from kantensor.ops.shipped import catalogue_files
from kantensor.ops.templates import builder
from kantensor.signature.signature import Signature
from kantensor.syntax.alternative import Alternative
from kantensor.syntax.ast import (
    BinOp,
    Call,
    Compare,
    DimVar,
    DTypeName,
    DTypeVar,
    FixedDim,
    Hole,
    TensorPattern,
    dim_min,
    expr_names,
)
from kantensor.syntax.limits import MAX_NESTING, NESTING_LEVELS, _levels, balanced_join
from kantensor.syntax.parser import parse_fresh
from kantensor.syntax.template import AlternativeTemplate
from kantensor.syntax.vocabulary import Word
from kantensor.types.limits import MAX_SIZE, MAX_TERMS
from kantensor.types.type import TensorType
from signature_strategies import AST_EXAMPLES, alternatives

# --------------------------------------------------------------------------- TensorType.parse


@pytest.mark.parametrize("text, message", [
    ("float32[9**9**9]", "expected"),  # one exponent, an int: the DSL's own grammar
    ("float32[2**100000]", "exponent 100000 too large"),
    ("float32[" + "*".join(f"(a{i}+b{i})" for i in range(20)) + "]", "terms"),
    ("float32[" + "-" * 100_000 + "n]", "too long"),
    ("float32[" + "(n+" * 70 + "n" + ")" * 70 + "]", "nested more than 64 levels"),
    ("float32[(n+1)**1000]", "exponent 1000"),
    ("float32[" + "9" * 5000 + "]", "too large"),
    ("float32[n**-1]", "expected an integer"),
    ("float32[n//0]", "division by zero"),
    ("float32[__import__('os')]", "expected"),
    ("float32[" + ",".join(["1"] * 65) + "]", "more than 64 axes"),
    ("float32[-3]", r"must be an int >= 0"),  # sizes are never negative
])
def test_tensor_type_parse_refuses_hostile_text(text, message):
    with pytest.raises(ValueError, match=message):
        TensorType.parse(text)


def test_tensor_type_parse_reads_long_sums_and_bounds_nesting():
    names = [f"n{i}" for i in range(60)]
    t = TensorType.parse("float32[" + "+".join(names) + "]")
    assert t.shape == (sum((kt.Dim(n) for n in names), start=0),)
    with pytest.raises(ValueError, match="nested more than 64 levels"):  # a flat sum nests
        TensorType.parse("float32[" + "+".join(f"n{i}" for i in range(1000)) + "]")
    assert TensorType.parse("float32[" + "(" * 40 + "n" + ")" * 40 + "]").shape == \
        (kt.Dim("n"),)  # parentheses alone do not nest an expression
    assert TensorType.parse("int8[n**2 - 2**9 + 512]").shape == (kt.Dim("n") ** 2,)
    assert TensorType.parse("int8[min(m,n), max(n, 2)]").shape == (
        kt.types.dimminmax.dim_min(kt.Dim("m"), kt.Dim("n")),
        kt.types.dimminmax.dim_max(kt.Dim("n"), 2))


def test_sizes_are_bounded_and_always_print():
    biggest = TensorType.parse(f"float32[{MAX_SIZE}]")
    assert str(biggest) == f"float32[{MAX_SIZE}]"
    with pytest.raises(ValueError, match="too large"):
        TensorType("float32", [MAX_SIZE + 1])
    with pytest.raises(ValueError, match="too large"):
        TensorType.parse(f"float32[{MAX_SIZE}+1]")
    n = kt.Dim("n")
    at_limit = TensorType.parse("float32["
                                + balanced_join([f"n{i}" for i in range(MAX_TERMS)]) + "]")
    assert len(str(at_limit)) > MAX_TERMS
    assert TensorType.parse(str(TensorType("float32", [(n + 1) ** 5]))).shape == (
        (n + 1) ** 5,)


# --------------------------------------------------------------------------- signatures


@pytest.mark.parametrize("depth", [250, 326, 500])
def test_deeply_nested_signatures_are_refused_with_a_position(depth):
    text = "(" + "min(" * depth + "n" + ")" * depth + ")->()"
    with pytest.raises(kt.SignatureSyntaxError, match="nested more than 64 levels") as info:
        Signature.parse(text)
    assert info.value.position == 1 + 4 * MAX_NESTING  # the first min( too many
    with pytest.raises(kt.SignatureSyntaxError, match="nested more than 64 levels"):
        Signature.parse("(" + "+".join(["n"] * depth) + ")->()")


def test_nesting_at_the_limit_prints_and_round_trips():
    text = "(" + "min(" * MAX_NESTING + "n" + ")" * MAX_NESTING + "):" + \
           "promote(" * MAX_NESTING + "t" + ")" * MAX_NESTING + "->()"
    sig = Signature.parse(text)
    assert Signature.parse(str(sig)) == sig
    assert eval(repr(sig), {"Signature": Signature}) == sig
    assert sig.infer([TensorType.parse("float32[3]")])[0] == TensorType("float32", ())


def test_deep_ast_built_in_python_is_refused():
    n = DimVar("n")
    deep = n
    for _ in range(MAX_NESTING + 1):
        deep = deep + n
    with pytest.raises(ValueError, match="nested more than 64 levels"):
        Alternative((TensorPattern((deep,)),), (TensorPattern(()),))
    long_sum = balanced_join(["n"] * 5000)
    sig = Signature.parse(f"({long_sum})->()")
    assert isinstance(sig.inputs[0].dims[0], BinOp)
    assert sig.infer([TensorType.parse("int8[10000]")])[0] == TensorType("int8", ())


def _walked_levels(node: object) -> int:
    """The levels of an AST, by a plain walk from the top that remembers nothing: the
    reference for _levels (a node holding nodes, or tuples of them, is one level more
    than the deepest it holds; a tuple adds none; a class and a word of the vocabulary
    are leaves)."""
    if isinstance(node, tuple):
        return max(map(_walked_levels, node), default=0)
    if isinstance(node, type | Word) or not dataclasses.is_dataclass(node):
        return 0
    inner = [getattr(node, f.name) for f in dataclasses.fields(node)]
    inner = [c for c in inner if isinstance(c, tuple) or hasattr(c, "__dataclass_fields__")]
    return 1 + max(map(_walked_levels, inner)) if inner else 0


def _names_walked(x: object) -> list[str]:
    """The names of a dim expression in order, by a plain recursive walk."""
    if isinstance(x, DimVar):
        return [x.name]
    if isinstance(x, BinOp):
        return _names_walked(x.left) + _names_walked(x.right)
    return [n for a in getattr(x, "args", ()) for n in _names_walked(a)]


def test_levels_and_names_found_once_are_those_a_walk_finds():
    """check_ast_nesting's levels and expr_names, remembered on each node when first
    found, are what a plain walk finds, for every alternative of the shipped catalogue
    (and asked again, from the memo); a node shared by two alternatives (an output's size
    that is also a clause's side) is walked once."""
    walked = 0
    for folder in (None, "onnx"):
        for _, text in catalogue_files(folder):
            for sig in re.findall(r'^signature = "([^"\\]+)"', text, re.M):
                for alt in parse_fresh(sig, template=True):
                    alt = getattr(alt, "built", alt)  # (a template's part without holes)
                    if not isinstance(alt, Alternative):
                        continue
                    walked += 1
                    for _ in range(2):
                        assert _levels(alt, 10**6) == _walked_levels(alt), sig
                    for op in alt.operands:
                        for d in op.dims:
                            if isinstance(d, BinOp | Call):
                                assert expr_names(d) == _names_walked(d), sig
                                assert expr_names(d) == _names_walked(d), sig
    assert walked > 150
    n = DimVar("n")
    size = (n + 2 - 3) // 2 + 1
    assert expr_names(size) == ["n"] and size.__dict__["_names"] == ("n",)
    shared = size  # 4 levels: + - // +
    for _ in range(MAX_NESTING - 4):
        shared = shared + n
    Alternative((TensorPattern((n,)),), (TensorPattern((shared,)),), (shared >= 1,))
    assert shared.__dict__[NESTING_LEVELS] == _walked_levels(shared) == MAX_NESTING
    with pytest.raises(ValueError, match="nested more than 64 levels"):  # one more
        Alternative((TensorPattern((n,)),), (TensorPattern((shared + 1,)),))
    assert expr_names(shared + size) == ["n"] * (MAX_NESTING - 2)


@settings(max_examples=AST_EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(alternatives())
def test_levels_and_names_of_any_alternative_are_those_a_walk_finds(alt):
    """The same on alternatives drawn at random (the parser's own property strategy)."""
    assert _levels(alt, 10**6) == _walked_levels(alt) == _levels(alt, 10**6)
    for c in alt.where:
        for side in (getattr(c, "left", None), getattr(c, "right", None)):
            if isinstance(side, BinOp | Call):
                assert expr_names(side) == _names_walked(side) == expr_names(side)


#: Levels of the hostile expression: 100 times Python's recursion limit, 1,000 times
#: with KANTENSOR_LONG=1 (tests/sizing.py).
HOSTILE_DEPTH = sizing.size("HOSTILE_DEPTH", 10**5, 10**6)


def test_a_hostile_depth_is_refused_at_its_first_levels():
    """An expression HOSTILE_DEPTH levels deep built in Python knows its levels as it is
    built (each operator one more than its deepest side) and is refused without a walk;
    one whose levels are not known (a copy that lost them) is refused by walking its
    first levels only (no recursion past the limit, nothing remembered below it)."""
    n = DimVar("n")
    deep = n
    for _ in range(HOSTILE_DEPTH):
        deep = 1 + deep
    assert deep.__dict__[NESTING_LEVELS] == HOSTILE_DEPTH
    with pytest.raises(ValueError, match="nested more than 64 levels"):
        Alternative((TensorPattern((deep,)),), (TensorPattern(()),))
    unknown = _unmarked(deep)
    assert NESTING_LEVELS not in TensorPattern((unknown,)).__dict__
    with pytest.raises(ValueError, match="nested more than 64 levels"):
        Alternative((TensorPattern((unknown,)),), (TensorPattern(()),))
    assert NESTING_LEVELS not in unknown.__dict__


def _unmarked(node: object) -> object:
    """A copy of an AST node without the levels it recorded (so _levels walks it)."""
    copy = object.__new__(type(node))
    copy.__dict__.update({k: v for k, v in node.__dict__.items() if k != NESTING_LEVELS})
    return copy


def test_an_operand_of_known_sizes_knows_its_levels():
    """An operand whose sizes' levels are known (names, fixed sizes, placeholders,
    operators and calls: each records its levels when it is made) and whose dtype is
    none, a name or a dtype variable records its levels when it is made
    (check_ast_nesting then walks it no more): what the walk finds, for every operand of
    the shipped catalogue's signatures and templates made again (as a builder makes
    it), and for each of their sizes and clauses; any other operand records nothing
    when made."""
    known = walked = 0
    for folder in (None, "onnx"):
        for _, text in catalogue_files(folder):
            for sig in re.findall(r'^signature = "([^"\\]+)"', text, re.M):
                for alt in parse_fresh(sig, template=True):
                    operands = alt.inputs + alt.outputs if isinstance(
                        alt, Alternative | AlternativeTemplate) else ()
                    for op in operands:
                        if not isinstance(op, TensorPattern):
                            continue  # (a placeholder)
                        walked += 1
                        made = TensorPattern(op.dims, op.dtype)
                        levels = made.__dict__.get(NESTING_LEVELS)
                        plain = all(isinstance(d, DimVar | FixedDim | BinOp | Call | Hole)
                                    for d in op.dims) and \
                            type(op.dtype) in (type(None), DTypeVar, DTypeName)
                        assert (levels is not None) == plain, (sig, op)
                        if plain:
                            known += 1
                            assert levels == _walked_levels(made) == \
                                _levels(_unmarked(made), 10**6), (sig, op)
                        for d in op.dims:
                            if isinstance(d, BinOp | Call):
                                assert d.__dict__[NESTING_LEVELS] == _walked_levels(d)
                    for c in getattr(alt, "where", ()):
                        if isinstance(c, Compare) and NESTING_LEVELS in c.__dict__:
                            assert c.__dict__[NESTING_LEVELS] == _walked_levels(c), sig
    assert known > 300 and walked > known
    n = DimVar("n")
    assert TensorPattern((n + 1,)).__dict__[NESTING_LEVELS] == 2
    assert TensorPattern((n, dim_min(n + 1, 3) * 2)).__dict__[
        NESTING_LEVELS] == 4
    assert (n // 2 >= 1).__dict__[NESTING_LEVELS] == 2  # (a clause is a level)
    messaged = Compare(">=", n + 1, 2, message=lambda values, types: "too small")
    assert messaged.__dict__[NESTING_LEVELS] == 2 == _walked_levels(messaged)
    promoted = Signature.parse("(n):t,(n):u->(n):promote(t,u)").alternatives[0].outputs[0]
    assert NESTING_LEVELS not in TensorPattern(promoted.dims, promoted.dtype).__dict__


def test_signature_text_length_is_bounded():
    with pytest.raises(kt.SignatureSyntaxError, match="signature too long"):
        Signature.parse("(" + "n," * 200_000 + ")->()")


@pytest.mark.parametrize("count", [326, 600, 2000])
def test_concatenate_of_many_inputs(count):
    rng = np.random.default_rng(count)
    values = [rng.standard_normal((int(rng.integers(0, 3)), 2)).astype("float32")
              for _ in range(count)]
    xs = [kt.tensor(f"x{i}", dtype="float32", shape=v.shape) for i, v in enumerate(values)]
    y = kt.concatenate(xs)
    total = sum(v.shape[0] for v in values)
    assert y.type == TensorType("float32", (total, 2))
    if count <= 600:
        got = kt.function(xs, y, check=True)(*values)
        np.testing.assert_array_equal(got, np.concatenate(values))
    flat = kt.concatenate(xs[:300], axis=None)
    assert flat.type == TensorType("float32", (2 * sum(v.shape[0] for v in values[:300]),))


# --------------------------------------------------------------------------- call-time checks


def test_a_dim_used_only_in_an_expression_is_checked():
    n = kt.Dim("n")
    x = kt.tensor("x", dtype="float64", shape=(2 * n,))
    half, _ = kt.split(x, 2)
    assert half.type == TensorType("float64", (n,))
    for check in (False, True):
        f = kt.function([x], half, check=check)
        np.testing.assert_array_equal(f(np.arange(6.0)), [0.0, 1.0, 2.0])
        with pytest.raises(ShapeBindingError, match=r"length 5, but no size n >= 0 makes "
                                                    r"2\*n == 5"):
            f(np.arange(5.0))
    with pytest.raises(ShapeBindingError, match=r"only n = -1 does"):
        kt.function([w := kt.tensor("w", dtype="float64", shape=(n + 3,))], w)(np.ones(2))
    z = kt.tensor("z", dtype="float64", shape=(n + 3, n))
    with pytest.raises(ShapeBindingError, match=r"n \+ 3 = 5"):
        kt.function([z], z)(np.ones((4, 2)))


def test_check_true_catches_an_output_that_lies_about_an_expression():
    n = kt.Dim("n")
    halve = kt.SignatureOp("halve", "(2*n)->(n)", lambda a: a[:2])  # lies for n != 2
    x = kt.tensor("x", dtype="float64", shape=(2 * n,))
    y = halve(x)
    assert y.type == TensorType("float64", (n,))
    f = kt.function([x], y, check=True)
    np.testing.assert_array_equal(f(np.arange(4.0)), [0.0, 1.0])
    with pytest.raises(OutputTypeError, match="axis 0 has length 2 but .* requires 3|"
                                              "dimension n is 3"):
        f(np.arange(6.0))


def test_trust_input_never_fails_inside_kantensor():
    n = kt.Dim("n")
    y = kt.tensor("y", dtype="float64", shape=(n,))
    g = kt.function([y], y * 2, trust_input=True)
    with pytest.raises(TypeError, match=r"expected 1 dimension for float64\[n\], got a "
                                        r"value of shape \(2, 3\)"):
        g(np.ones((2, 3)))
    np.testing.assert_array_equal(g([1.0, 2.0]), [2.0, 4.0])  # used as given, unconverted


def test_masked_arrays_are_refused():
    x = kt.vector("x", dtype="float64")
    value = np.ma.masked_array([1.0, 2.0], mask=[False, True])
    with pytest.raises(TypeError, match="masked arrays are not supported"):
        kt.function([x], x * 2)(value)
    with pytest.raises(TypeError, match="masked arrays are not supported"):
        kt.constant(value)
    with pytest.raises(TypeError, match="the mask would be lost"):
        x.type.filter(value, strict=True)


def test_dim_interning_is_atomic_across_threads():
    names = [f"thread_dim_{i}" for i in range(20_000)]
    results: list[list] = []
    start = threading.Barrier(8)

    def make(seed: int) -> None:
        order = names[:]
        random.Random(seed).shuffle(order)
        start.wait()
        made = {name: kt.Dim(name) for name in order}
        results.append([made[name] for name in names])

    threads = [threading.Thread(target=make, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(results) == 8
    for name, first, *others in zip(names, *results, strict=True):
        assert all(o is first for o in others), name
        assert first is kt.Dim(name)


def test_interned_objects_freed_at_interpreter_exit_print_nothing(tmp_path):
    """A fresh interpreter that interns sizes (held past the interning module's
    teardown, as a hypothesis test's module keeps them) exits silently: the interner's
    callback (sizes' and types' alike: kantensor.types.interning.WeakInterner) ran
    after the module's globals were None and printed "Exception ignored in:
    WeakInterner._forget ... 'NoneType' object is not callable", three times a run of
    tests/test_dim.py and here."""
    code = "\n".join([
        "from hypothesis import given, settings, strategies as st",
        "import kantensor as kt",
        "SIZES = {s: kt.Dim(s) for s in 'abc'}",
        "@settings(max_examples=20, deadline=None)",
        "@given(st.sampled_from('abc'), st.integers(0, 5))",
        "def check(s, k):",
        "    assert SIZES[s] + k != 0",
        "check()"])
    script = tmp_path / "exits.py"  # (a file: run by -c, the sizes were freed earlier)
    script.write_text(code)
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          check=True)
    assert done.stderr == ""


# --------------------------------------------------------------------------- default dtype


def test_default_dtype_context_manager():
    i = kt.vector("i", dtype="int32")
    assert kt.get_default_dtype() == "float32"
    with kt.default_dtype("float64") as name:
        assert name == "float64" == kt.get_default_dtype()
        assert kt.constant(1.5).type.dtype == "float64"
        assert (i / i).type.dtype == "float64"  # memoized inference keyed on the default
        with kt.default_dtype(np.float16):
            assert (i / i).type.dtype == "float16"
            assert kt.constant(1j).type.dtype == "complex64"
        assert (i * 1.5).type.dtype == "float64"
    assert (i / i).type.dtype == "float32"
    with pytest.raises(RuntimeError), kt.default_dtype("float64"):
        raise RuntimeError
    assert kt.get_default_dtype() == "float32"
    with pytest.raises(TypeError, match="the default dtype must be one of"):
        kt.default_dtype("int32").__enter__()


def test_default_dtype_is_per_thread_and_set_default_dtype_global(default_float64):
    seen: list[str] = []
    with kt.default_dtype("float16"):
        t = threading.Thread(target=lambda: seen.append(kt.get_default_dtype()))
        t.start()
        t.join()
        assert kt.get_default_dtype() == "float16"
    assert seen == ["float64"]  # a new thread sees the process-wide default only


# --------------------------------------------------------------------------- command line


@builder
def endless_builder(types, **params):
    """A builder that never returns: what a pathological signature looks like to check."""
    while True:
        pass


def test_check_reports_an_entry_over_its_time_limit(tmp_path, capsys):
    path = tmp_path / "slow.toml"
    path.write_text('[[op]]\nname = "slow"\ncall = "x"\nsignature = "{x}->()"\n'
                    'builder = "test_robustness.endless_builder"\nimpl = "numpy.sum"\n'
                    'examples = [{ in = ["float32[3]"], out = "float32[]" }]\n')
    assert cli.main(["check", "--allow", "test_robustness", "--timeout", "0.5", str(path)]) == 1
    out = capsys.readouterr().out
    assert "op #1 (slow): its examples took longer than 0.5 s (the time limit" in out


def test_check_of_thirty_flexible_dims_ends(tmp_path, capsys):
    dims = ",".join(f"d{i}?" for i in range(30))
    path = tmp_path / "flex.toml"
    path.write_text(f'[[op]]\nname = "flexy"\nsignature = "({dims})->()"\n'
                    'impl = "numpy.sum"\n'
                    'examples = [{ in = ["float32[]"], out = "float32[]" }]\n')
    code = cli.main(["check", "--timeout", "2", str(path)])
    out = capsys.readouterr().out
    # flexible dims are desugared lazily, per rank: rank 0 is one variant, not 2**30
    assert (code, out.strip()) == (0, f"{path}: ok, 1 ops, 1 examples")


def test_repl_survives_unbalanced_quotes_and_long_parameters():
    repl = cli.Repl(stdout=io.StringIO())
    for line in ('infer "add', "query add 'x -> y", 'check "a'):
        repl.onecmd(line)
    assert repl.stdout.getvalue().count("error: unbalanced") == 3
    repl.onecmd("infer sum float32[2,3] axis=" + "(" * 2000 + "1" + ")" * 2000)
    assert "parameter value too long" in repl.stdout.getvalue()
    repl.onecmd("infer sum float32[2,3] axis=" + "-" * 900 + "1")  # a literal, then refused
    assert "error:" in repl.stdout.getvalue().splitlines()[-1]


def test_where_selects_exactly_in_the_result_dtype():
    """Found by the soundness suite: np.where(c, uint64, int64) goes through float64, so
    large uint64 values came back wrong; where now selects among values already cast to
    its result dtype (compute mode "select")."""
    c = kt.scalar("c", "float32")
    x = kt.vector("x", "uint64")
    y = kt.where(c, x, 0)
    assert y.type.dtype == "uint64"
    big = np.array([2**64 - 2, 2**63 + 1], dtype=np.uint64)
    got = kt.function([c, x], y, check=True)(np.float32(0.5), big)
    np.testing.assert_array_equal(got, big)
