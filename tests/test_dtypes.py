"""Tests of kantensor.types.dtypes against tables computed by PyTorch.

The tables in tests/data are written by tests/data/make_promotion_table.py (see its
docstring): every pair and every triple of operands (the 15 dtypes PyTorch promotes, NumPy's
and bfloat16, as tensors and 0-d tensors, and Python bool, int, float and complex); rows
whose ``source`` is not ``torch`` follow the documented extension rules.
"""

from __future__ import annotations

import ast
import csv
import gzip
from functools import reduce
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kantensor.types import dtypes as d
from kantensor.types import numpy_dtypes as nd
from kantensor.types.dtypes import DTYPES, Priority

T, Z, W = Priority.TENSOR, Priority.ZERO_DIM, Priority.WRAPPED
#: NumPy's own numeric dtypes: the lattice PyTorch and NumPy answer for (the low-precision
#: dtypes have their own rules, tested in tests/test_dtypes_lowp.py; string has none,
#: tests/test_dtypes_string.py).
NUMPY_DTYPES = tuple(t for t in d.DEFAULT_RANGE if not d.is_low_precision(t))
#: The dtypes of PyTorch's promotion table: NumPy's and bfloat16.
TORCH_DTYPES = (*NUMPY_DTYPES, "bfloat16")
DATA = Path(__file__).parent / "data"
SOURCES = {"torch", "rule", "numpy-rule"}
WRAPPABLE = {"bool", "int64", "float16", "float32", "float64", "complex64", "complex128"}


def read_tsv(name: str) -> list[dict[str, str]]:
    with (gzip.open if name.endswith(".gz") else open)(DATA / name, "rt", newline="") as f:
        return list(csv.DictReader(f, delimiter="\t"))


PAIRS = read_tsv("promotion_table.tsv")
TRIPLES = read_tsv("promotion_triples.tsv")


def operands(row: dict[str, str], letters: str) -> list[tuple[str, Priority]]:
    return [(row[f"dtype_{x}"], Priority[row[f"priority_{x}"]]) for x in letters]


def fmt(ops: list[tuple[str, Priority]]) -> str:
    return " + ".join(f"{dt}:{p.name}" for dt, p in ops)


@pytest.fixture
def restore_default():
    saved = d.get_default_dtype()
    yield
    d.set_default_dtype(saved)


# -- the oracle tables ---------------------------------------------------------------------
def test_pair_table_is_well_formed():
    keys = {(r["dtype_a"], r["priority_a"], r["dtype_b"], r["priority_b"]) for r in PAIRS}
    assert len(keys) == len(PAIRS) == 1353
    for r in PAIRS:
        assert {r["dtype_a"], r["dtype_b"], r["result"]} <= set(DTYPES), r
        assert r["source"] in SOURCES, r
        for x in "ab":
            assert r[f"priority_{x}"] != "WRAPPED" or r[f"dtype_{x}"] in WRAPPABLE, r
    assert sum(r["source"] == "torch" for r in PAIRS) > 1200
    assert {r["dtype_a"] for r in PAIRS} == set(TORCH_DTYPES)


def test_result_type_of_matches_pair_table():
    mismatches = []
    for row in PAIRS:
        ops = operands(row, "ab")
        got = d.result_type_of(ops)
        if got != row["result"]:
            mismatches.append(f"{fmt(ops)}: got {got}, want {row['result']} ({row['source']})")
    assert not mismatches, f"{len(mismatches)} mismatches:\n" + "\n".join(mismatches)


def test_result_type_of_matches_triple_table():
    assert len(TRIPLES) == 300
    mismatches = []
    for row in TRIPLES:
        a, b, c = ops = operands(row, "abc")
        got = d.result_type_of(ops)
        if got != row["result"]:
            mismatches.append(f"{fmt(ops)}: got {got}, want {row['result']} ({row['source']})")
        fold = d.result_type_of([(d.result_type_of([a, b]), max(a[1], b[1])), c])
        if fold != row["left_fold"]:
            mismatches.append(f"left fold of {fmt(ops)}: got {fold}, want {row['left_fold']}")
    assert not mismatches, f"{len(mismatches)} mismatches:\n" + "\n".join(mismatches)


def test_result_type_of_matches_every_triple():
    """Every triple of operands, under the default dtypes float32 and float64 (a wrapped
    float or complex has the default's dtype): 45,840 rows, 0 disagreements."""
    rows = read_tsv("promotion_all_triples.tsv.gz")
    assert len(rows) == 45840
    assert {r["dtype_a"] for r in rows} == set(TORCH_DTYPES)
    mismatches = []
    for row in rows:
        ops = operands(row, "abc")
        got = d.result_type_of(ops)
        if got != row["result"]:
            mismatches.append(f"{fmt(ops)}: got {got}, want {row['result']} ({row['source']})")
    assert not mismatches, f"{len(mismatches)} mismatches:\n" + "\n".join(mismatches[:50])


def test_bfloat16_promotes_as_pytorch_says():
    for other in ("bool", "int8", "int64", "uint8", "uint64"):
        assert d.promote_types("bfloat16", other) == "bfloat16"
    assert d.promote_types("bfloat16", "float16") == "float32"
    assert d.promote_types("bfloat16", "float64") == "float64"
    assert d.promote_types("bfloat16", "complex64") == "complex64"
    assert d.promote_types("bfloat16", "complex128") == "complex128"
    assert d.result_type_of([("bfloat16", T), ("complex128", Z)]) == "complex64"
    assert d.result_type_of([("bfloat16", T), ("float64", W)]) == "bfloat16"


def test_triples_show_the_rule_is_not_associative():
    witnesses = [r for r in TRIPLES if r["result"] != r["left_fold"]]
    assert len(witnesses) >= 100
    assert any(r["source"] == r["left_fold_source"] == "torch" for r in witnesses)


def test_promote_types_matches_same_class_rows():
    rows = [r for r in PAIRS if r["priority_a"] == r["priority_b"] != "WRAPPED"]
    assert len(rows) == 2 * 15 * 15
    bad = [r for r in rows if d.promote_types(r["dtype_a"], r["dtype_b"]) != r["result"]]
    assert not bad, bad


# -- the seed examples ---------------------------------------------------------------------
SEED_EXAMPLES = {
    "float16_0dim+wrapped_100000": ([np.float16(0), 100000], "float16"),
    "uint8_tensor+wrapped_5.5": ([np.zeros(2, np.uint8), 5.5], "float32"),
    "uint8_tensor+0dim_float64": ([np.zeros(2, np.uint8), np.float64(1)], "float64"),
    "float32_tensor+0dim_float64": ([np.zeros(2, np.float32), np.zeros((), np.float64)],
                                    "float32"),
    "int32_tensor+wrapped_1j": ([np.zeros(2, np.int32), 1j], "complex64"),
    "float64_tensor+wrapped_1j": ([np.zeros(2, np.float64), 1j], "complex128"),
    "bool_tensor+wrapped_1": ([np.zeros(2, bool), 1], "int64"),
    "int8_tensor+wrapped_1000": ([np.zeros(2, np.int8), 1000], "int8"),
    "uint8_tensor+0dim_int64": ([np.zeros(2, np.uint8), np.int64(3)], "uint8"),
    "bool_0dim+wrapped_True": ([np.bool_(False), True], "bool"),
}


@pytest.mark.parametrize("name", SEED_EXAMPLES)
def test_seed_example(name):
    ops, want = SEED_EXAMPLES[name]
    assert d.result_type(*ops) == want
    assert d.result_type(*reversed(ops)) == want
    assert d.result_type_of(map(d.operand_dtype_and_priority, ops)) == want


def test_seed_example_wrapped_float_follows_default(restore_default):
    d.set_default_dtype("float64")
    assert d.result_type(np.zeros(2, np.uint8), 5.5) == "float64"
    assert d.result_type_of([("uint8", T), ("float64", W)]) == "float64"


# -- promote_types -------------------------------------------------------------------------
@pytest.mark.parametrize(("a", "b", "want"), [
    ("uint8", "int8", "int16"), ("int32", "float16", "float16"), ("int64", "float32", "float32"),
    ("float16", "complex64", "complex64"), ("float64", "complex64", "complex128"),
    ("bool", "uint8", "uint8"), ("uint16", "int16", "int32"), ("uint16", "int8", "int32"),
    ("uint32", "int32", "int64"), ("uint32", "int64", "int64"), ("uint64", "int8", "float64"),
    ("uint64", "int64", "float64"), ("uint64", "uint8", "uint64"), ("uint16", "uint32", "uint32"),
    ("uint32", "complex64", "complex64"), ("uint64", "float16", "float16"),
    ("bool", "uint64", "uint64"), ("int64", "complex64", "complex64"),
])
def test_promote_types_examples(a, b, want):
    assert d.promote_types(a, b) == want
    assert d.promote_types(b, a) == want


def test_promote_types_is_commutative_idempotent_with_bool_bottom():
    for a in NUMPY_DTYPES:
        assert d.promote_types(a, a) == a
        assert d.promote_types("bool", a) == a
        for b in NUMPY_DTYPES:
            assert d.promote_types(a, b) == d.promote_types(b, a), (a, b)


def test_integer_pairs_follow_numpy():
    ints = [t for t in NUMPY_DTYPES if d.is_integer(t)]
    for a in ints:
        for b in ints:
            assert d.promote_types(a, b) == np.promote_types(a, b).name


def test_promote_types_normalizes_its_arguments():
    assert d.promote_types(np.uint8, "i1") == "int16"
    assert d.promote_types(bool, np.dtype("float64")) == "float64"


# -- normalize_dtype -----------------------------------------------------------------------
@pytest.mark.parametrize(("x", "want"), [
    ("float64", "float64"), ("f8", "float64"), ("double", "float64"), ("float", "float64"),
    ("i4", "int32"), ("?", "bool"), ("c8", "complex64"), ("uint64", "uint64"),
    (np.dtype("float16"), "float16"), (np.dtype(">i2"), "int16"), (np.float32, "float32"),
    (np.bool_, "bool"), (np.complex128, "complex128"), (bool, "bool"), (int, "int64"),
    (float, "float32"), (complex, "complex64"),
])
def test_normalize_dtype(x, want):
    assert d.normalize_dtype(x) == want


@pytest.mark.parametrize("x", ["U5", "object", "datetime64", "bf16", "float6_e2m3fn",
                               "nonsense", np.dtype("U3"), np.longdouble, np.str_, None, 3,
                               str])
def test_normalize_dtype_rejects_unsupported(x):
    with pytest.raises(TypeError) as info:
        d.normalize_dtype(x)
    message = str(info.value)
    assert repr(x) in message
    assert ", ".join(DTYPES) in message


def test_dtypes_tuple():
    assert NUMPY_DTYPES == DTYPES[:14] == (
        "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
        "float16", "float32", "float64", "complex64", "complex128")
    assert all(d.normalize_dtype(t) == t for t in DTYPES)


# -- categories ----------------------------------------------------------------------------
def test_categories():
    assert (d.BOOL, d.INTEGER, d.FLOATING, d.COMPLEX) == (0, 1, 2, 3)
    assert [d.category(t) for t in NUMPY_DTYPES] == [0] + [1] * 8 + [2] * 3 + [3] * 2
    assert d.category(np.float32) is d.Category.FLOATING
    assert [t for t in NUMPY_DTYPES if d.is_integer(t)] == list(DTYPES[1:9])
    assert [t for t in NUMPY_DTYPES if d.is_unsigned(t)] == ["uint8", "uint16", "uint32",
                                                              "uint64"]
    assert [t for t in NUMPY_DTYPES if d.is_inexact(t)] == list(DTYPES[9:14])
    assert Priority.WRAPPED < Priority.ZERO_DIM < Priority.TENSOR
    assert (Priority.WRAPPED, Priority.ZERO_DIM, Priority.TENSOR) == (0, 1, 2)


def test_the_dtype_table_agrees_with_numpy():
    """Each dtype's category, signedness and bits as NumPy reads them (not its name)."""
    kinds = {"b": (d.BOOL, False), "i": (d.INTEGER, True), "u": (d.INTEGER, False),
             "f": (d.FLOATING, True), "c": (d.COMPLEX, True)}
    for info in d.DTYPE_TABLE:
        if info.package != "numpy" or info.category is d.STRING:
            continue  # NumPy lacks them (tests/test_dtypes_lowp.py asks ml_dtypes); string
            # has no fixed width (tests/test_dtypes_string.py)
        np_dtype = np.dtype(info.name)
        assert (info.category, info.signed) == kinds[np_dtype.kind], info.name
        assert info.bits == 8 * np_dtype.itemsize
    numpy_kinds = {"bool": np.bool_, "integer": np.integer, "signed": np.signedinteger,
                   "unsigned": np.unsignedinteger, "floating": np.floating,
                   "complex": np.complexfloating, "inexact": np.inexact, "number": np.number}
    assert set(d.CATEGORIES) == set(numpy_kinds) | {"string"}
    for name, members in d.CATEGORIES.items():
        if name == "string":
            continue
        assert members & set(NUMPY_DTYPES) == {
            t for t in NUMPY_DTYPES if np.issubdtype(t, numpy_kinds[name])}, name


# -- the default dtype ---------------------------------------------------------------------
def test_initial_default_dtype():
    assert d.get_default_dtype() == "float32"
    assert d.default_complex_dtype() == "complex64"


@pytest.mark.parametrize(("default", "complex_"), [
    ("float16", "complex64"), ("float32", "complex64"), ("float64", "complex128"),
])
def test_set_default_dtype(restore_default, default, complex_):
    d.set_default_dtype(default)
    assert d.get_default_dtype() == default
    assert d.default_complex_dtype() == complex_
    assert d.normalize_dtype(float) == default
    assert d.normalize_dtype(complex) == complex_
    assert d.operand_dtype_and_priority(1.5) == (default, W)
    assert d.operand_dtype_and_priority(1j) == (complex_, W)
    assert d.result_type(np.zeros(3, np.int16), 2.0) == default
    assert d.result_type(np.zeros(3, np.float16), 2j) == "complex64"


@pytest.mark.parametrize("bad", ["int32", "complex64", "bool", "bfloat16", int])
def test_set_default_dtype_rejects(restore_default, bad):
    with pytest.raises(TypeError):
        d.set_default_dtype(bad)
    assert d.get_default_dtype() == "float32"


def test_set_default_dtype_accepts_dtype_likes(restore_default):
    d.set_default_dtype(np.float64)
    assert d.get_default_dtype() == "float64"


# -- operands ------------------------------------------------------------------------------
def variable(dtype, ndim, wrapped=None):
    extra = {} if wrapped is None else {"wrapped": wrapped}
    return SimpleNamespace(type=SimpleNamespace(dtype=dtype, ndim=ndim), **extra)


@pytest.mark.parametrize(("x", "want"), [
    (True, ("bool", W)), (7, ("int64", W)), (2.5, ("float32", W)), (1j, ("complex64", W)),
    (np.float64(1), ("float64", Z)), (np.int8(1), ("int8", Z)), (np.bool_(True), ("bool", Z)),
    (np.zeros((), np.uint16), ("uint16", Z)), (np.zeros((2, 3), np.int16), ("int16", T)),
    ("float16", ("float16", T)), (np.dtype("c16"), ("complex128", T)), (np.int32, ("int32", T)),
    (variable("int8", 0, wrapped=False), ("int8", Z)), (variable("int64", 0, True), ("int64", W)),
    (variable("float64", 2), ("float64", T)), (variable("uint8", 0), ("uint8", Z)),
    (SimpleNamespace(dtype="float16", ndim=1), ("float16", T)),
    (SimpleNamespace(dtype="float16", ndim=0, wrapped=True), ("float16", Z)),
])
def test_operand_dtype_and_priority(x, want):
    assert d.operand_dtype_and_priority(x) == want


def test_result_type_with_variables_and_types():
    assert d.result_type(variable("int8", 1), variable("int64", 0, True)) == "int8"
    assert d.result_type(variable("int8", 1), variable("int64", 0)) == "int8"
    assert d.result_type(variable("int8", 0), variable("int64", 0)) == "int64"
    assert d.result_type(SimpleNamespace(dtype="uint8", ndim=2), variable("float64", 0)) \
        == "float64"
    assert d.result_type("int8", "uint8") == "int16"


@pytest.mark.parametrize("x", [object(), [1, 2], None, "U5"])
def test_result_type_rejects(x):
    with pytest.raises(TypeError):
        d.result_type(np.zeros(2), x)


def test_no_operands():
    with pytest.raises(TypeError):
        d.result_type_of([])
    with pytest.raises(TypeError):
        d.result_type()


# -- casting -------------------------------------------------------------------------------
def test_can_cast_wraps_numpy():
    for a in NUMPY_DTYPES:
        for b in NUMPY_DTYPES:
            for casting in ("no", "equiv", "safe", "same_kind", "unsafe"):
                assert nd.can_cast(a, b, casting) == np.can_cast(a, b, casting)
            assert d.is_lossless_cast(a, b) == np.can_cast(a, b, "safe")
    assert nd.can_cast("int64", "int8") and not d.is_lossless_cast("int64", "int8")
    assert not nd.can_cast("float32", "int32")
    assert d.is_lossless_cast(np.uint8, "int16")
    with pytest.raises(TypeError):
        nd.can_cast("U5", "int8")


# -- properties ----------------------------------------------------------------------------
dtype_st = st.sampled_from(NUMPY_DTYPES)
operand_st = st.tuples(dtype_st, st.sampled_from(list(Priority)))
operands_st = st.lists(operand_st, min_size=1, max_size=6)


def has_uint64_signed_mix(ops) -> bool:
    """True if one priority class holds uint64 and a signed int (NumPy: float64)."""
    return any({"uint64"} <= {t for t, q in ops if q == p}
               and any(t.startswith("int") for t, q in ops if q == p) for p in Priority)


@settings(max_examples=300)
@given(operands_st)
def test_result_is_a_supported_dtype_of_the_highest_category(ops):
    result = d.result_type_of(ops)
    assert result in DTYPES
    top = max(d.category(t) for t, _ in ops)
    want = max(top, d.FLOATING) if has_uint64_signed_mix(ops) else top
    assert d.category(result) == want


@given(st.lists(dtype_st, min_size=1, max_size=6), st.sampled_from(list(Priority)))
def test_single_class_is_a_fold_of_promote_types(dtypes, priority):
    result = d.result_type_of([(t, priority) for t in dtypes])
    canonical = sorted(dtypes, key=DTYPES.index, reverse=True)
    assert result == reduce(d.promote_types, canonical)
    if not has_uint64_signed_mix([(t, priority) for t in dtypes]):
        assert result == reduce(d.promote_types, dtypes)


@given(operands_st.flatmap(lambda ops: st.tuples(st.just(ops), st.permutations(ops))))
def test_operand_order_does_not_matter(pair):
    ops, shuffled = pair
    assert d.result_type_of(ops) == d.result_type_of(shuffled)


@given(operands_st)
def test_wrapped_bool_changes_nothing(ops):
    assert d.result_type_of([*ops, ("bool", W)]) == d.result_type_of(ops)


@given(operands_st)
def test_duplicate_operand_changes_nothing(ops):
    assert d.result_type_of([*ops, ops[0]]) == d.result_type_of(ops)


@given(dtype_st, dtype_st)
def test_promote_types_is_an_upper_bound_in_category(a, b):
    result = d.promote_types(a, b)
    assert d.category(result) >= max(d.category(a), d.category(b))
    assert d.promote_types(result, a) == result == d.promote_types(b, result)


#: Modules that still spell a collection of dtype names, each with why (not yet a column
#: of the dtype table): none (backend/plan.py's float32/float64, the dtypes NumPy reduces
#: into a given buffer as into a new one, is the table's ``reduces_into``).
SPELT_ELSEWHERE: set[str] = set()


def test_no_module_but_the_dtype_table_spells_a_list_of_dtypes():
    """Which dtypes have a property is a fact of the dtype table (one home per dtype
    fact, issue 36): no set, tuple or list literal of two or more dtype names elsewhere
    (onnx/intervals.py spelt NumPy's eight integer dtypes)."""
    src = Path(d.__file__).resolve().parents[1]
    spelt = set()
    for path in src.rglob("*.py"):
        where = path.relative_to(src).as_posix()
        if where in ("types/dtypes.py", "types/numpy_dtypes.py"):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Set | ast.Tuple | ast.List) and len(
                    {e.value for e in node.elts
                     if isinstance(e, ast.Constant) and e.value in DTYPES}) >= 2:
                spelt.add(where)
    assert spelt <= SPELT_ELSEWHERE, sorted(spelt - SPELT_ELSEWHERE)
