"""Forward type inference with signatures (``kantensor.signature.infer``).

Sections:

1. seed examples of the DSL, with exact output types, and failures with their messages;
2. NumPy as an oracle: random shapes through NumPy gufuncs / ufuncs and ``infer``;
3. output dtypes: promotion and operand priorities;
4. ``@kt.op`` Ops and the TensorVariable operators, end to end with ``kt.function``;
5. memoization of ``infer``;
6. symbolic Dims;
7. regressions: bugs this suite found, now fixed.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.linalg._umath_linalg as umath_linalg
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from unification import var

import kantensor as kt
from kantensor import Dim, Signature, SignatureSyntaxError, TensorType, TypeInferenceError
from kantensor.logic.store import fresh_state
from kantensor.logic.terms import TensorTerm, fresh
from kantensor.signature.forward import _infer_cached, infer
from kantensor.signature.solve import compiled
from kantensor.types.dtypes import Priority, PromotionError, result_type_of
from kantensor.types.symbols import substitute

T, Z, W = Priority.TENSOR, Priority.ZERO_DIM, Priority.WRAPPED

ORACLE_SETTINGS = settings(max_examples=200, deadline=None,
                           suppress_health_check=[HealthCheck.too_slow])


# ---------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------

def tt(text: str | TensorType) -> TensorType:
    """A TensorType from the compact notation ("float32[n,3,?]")."""
    return text if isinstance(text, TensorType) else TensorType.parse(text)


def infer_types(sig: str, *types: str | TensorType,
                priorities: Sequence[Priority] | None = None) -> tuple[TensorType, ...]:
    return Signature.parse(sig).infer([tt(t) for t in types], priorities)


def infer_str(sig: str, *types: str | TensorType,
              priorities: Sequence[Priority] | None = None) -> list[str]:
    """The inferred output types in compact notation."""
    return [str(t) for t in infer_types(sig, *types, priorities=priorities)]


def inference_error(sig: str, *types: str | TensorType) -> TypeInferenceError:
    """The TypeInferenceError raised when inferring ``sig`` on ``types``."""
    with pytest.raises(TypeInferenceError) as info:
        infer_types(sig, *types)
    return info.value


# ---------------------------------------------------------------------------
# 1. Seed examples
# ---------------------------------------------------------------------------

SEED_EXAMPLES = [
    # (signature, input types, expected output types)
    ("(d),(d)->()", ["float32[3]", "float64[3]"], ["float64[]"]),
    ("(d),(d)->()", ["int8[0]", "int8[0]"], ["int8[]"]),
    ("(m,n),(n,p)->(m,p)", ["float64[5,3]", "float32[3,2]"], ["float64[5,2]"]),
    ("(m,n),(n,p)->(m,p)", ["int32[0,4]", "int32[4,0]"], ["int32[0,0]"]),
    ("(M,.1.),(J,.1.)->(J,.1.)", ["float32[2,3]", "float64[4,3]"], ["float64[4,3]"]),
    ("(M,.2.),(J,.2.)->(J,.2.)", ["float32[2,3,5]", "float64[4,3,5]"], ["float64[4,3,5]"]),
    ("(d)->()", ["int8[4]"], ["int8[]"]),
    ("(d,...)->(...)", ["int8[4]"], ["int8[]"]),
    ("(d,...)->(...)", ["int8[4,2,3]"], ["int8[2,3]"]),
    ("(.1.,d,...)->(.1.,...)", ["int8[4,2]"], ["int8[4]"]),
    ("(.1.,d,...)->(.1.,...)", ["int8[4,2,3]"], ["int8[4,3]"]),
    ("(.2.,d,...)->(.2.,...)", ["int8[4,2,3,6]"], ["int8[4,2,6]"]),
    ("(.2.,d,...,k,.1.)->(.2.,...,.1.)", ["int8[4,2,3,7,8]"], ["int8[4,2,8]"]),
    ("(.2.,d,...,k,.1.)->(.2.,...,.1.)", ["int8[4,2,3,6,7,8]"], ["int8[4,2,6,8]"]),
    ("(2)->()", ["uint16[2]"], ["uint16[]"]),
    ("(2,.2.)->()", ["bool[2,3,4]"], ["bool[]"]),
    ("+(d)->()", ["float32[4]"], ["float32[]"]),
    ("+(d)->()", ["float32[2,3,4]"], ["float32[2,3]"]),
    ("=(d),(d)->()", ["int8[2,3,4]", "int8[2,3,4]"], ["int8[2,3]"]),
    ("=(d),(d)->()", ["int8[2,?,4]", "int8[?,3,4]"], ["int8[2,3]"]),
    ("+(),()->()", ["int8[2,1,4]", "int8[3,1]"], ["int8[2,3,4]"]),
    ("+(),()->()", ["int8[]", "float32[5]"], ["float32[5]"]),
    ("+(),()->()", ["int8[0]", "int8[1]"], ["int8[0]"]),
    ("=(),()->()", ["int8[2,3]", "int8[2,3]"], ["int8[2,3]"]),
    ("=(),()->()", ["int8[]", "int8[]"], ["int8[]"]),
    ("=(),(),()->(3)", ["int8[2]", "int8[2]", "float16[2]"], ["float16[2,3]"]),
    ("=(),(),()->(3)", ["int8[]", "int8[]", "int8[]"], ["int8[3]"]),
    ("+2(d),(d)->()", ["int8[2,3,4]", "int8[4]"], ["int8[2,3]"]),
    ("+2(d),(d)->()", ["int8[4]", "int8[2,1,4]"], ["int8[2,1]"]),
    ("=2(d),(d)->()", ["int8[2,3,4]", "int8[2,3,4]"], ["int8[2,3]"]),
    ("=2(d),(d)->()", ["int8[4]", "int8[4]"], ["int8[]"]),
    # dim expressions
    ("(n+1)->(n)", ["float32[5]"], ["float32[4]"]),
    ("(2*n)->(n)", ["float32[6]"], ["float32[3]"]),
    ("+(m,n)->(min(m,n))", ["float32[2,5,3]"], ["float32[2,3]"]),
    ("+(m,n)->(m//n,m%n)", ["float32[7,3]"], ["float32[2,1]"]),
    # overloads: the first alternative that fits
    ("(n)->() | (m,n)->(m)", ["int8[3]"], ["int8[]"]),
    ("(n)->() | (m,n)->(m)", ["int8[2,3]"], ["int8[2]"]),
    # where-clauses that hold
    ("(n)->() where n >= 2", ["float32[2]"], ["float32[]"]),
    ("(n)->() where n >= 2", ["float32[?]"], ["float32[]"]),
    ("():T->():T where T in floating", ["float16[]"], ["float16[]"]),
    ("(n),(m)->() where n + 1 == m", ["float32[2]", "float32[3]"], ["float32[]"]),
]


@pytest.mark.parametrize(("sig", "inputs", "expected"), SEED_EXAMPLES,
                         ids=[f"{s} on {','.join(i)}" for s, i, _ in SEED_EXAMPLES])
def test_seed_example(sig: str, inputs: list[str], expected: list[str]) -> None:
    assert infer_str(sig, *inputs) == expected


def test_matmul_example_from_the_docs() -> None:
    out = infer_types("+(m,n),(n,p)->(m,p)", "float64[5,3,4]", "float32[4,2]")
    assert out == (TensorType("float64", (5, 3, 2)),)


CONCAT = "(a):x,(b):y->(a+b):promote(x,y)"


@pytest.mark.parametrize(("inputs", "expected"), [
    (["float32[3]", "float32[4]"], "float32[7]"),
    (["float32[0]", "float32[0]"], "float32[0]"),
    (["float32[n]", "float32[n]"], "float32[2*n]"),
    (["float32[n]", "float32[m]"], "float32[m+n]"),
    (["float32[n]", "float32[3]"], "float32[n+3]"),
    (["float32[n]", "float32[n+1]"], "float32[2*n+1]"),
    (["float32[?]", "float32[m]"], "float32[?]"),
    (["float32[?]", "float32[3]"], "float32[?]"),
])
def test_concatenate_sizes(inputs: list[str], expected: str) -> None:
    assert infer_str(CONCAT, *inputs) == [expected]


@pytest.mark.parametrize(("x", "y"), [
    ("float32", "int64"), ("int64", "float32"), ("uint8", "int8"), ("bool", "int8"),
    ("float16", "complex64"), ("float64", "complex64"), ("uint64", "int64"),
    ("int32", "int32"), ("bool", "bool"),
])
def test_concatenate_dtype_is_promote_types(x: str, y: str) -> None:
    (out,) = infer_types(CONCAT, f"{x}[2]", f"{y}[n]")
    assert out.dtype == kt.promote_types(x, y)
    assert out.shape == (Dim("n") + 2,)


def test_concatenate_float32_int64_is_float32() -> None:
    assert infer_str(CONCAT, "float32[3]", "int64[4]") == ["float32[7]"]


FAILURES = [
    # (signature, input types, regex the message must match)
    ("(m,n),(n,p)->(m,p)", ["float64[5,4]", "float32[3,2]"],
     r"^\(m,n\),\(n,p\)->\(m,p\): dimension n is 4 in input 0 \(axis 1\) "
     r"but 3 in input 1 \(axis 0\)$"),
    ("(m,n),(n,p)->(m,p)", ["float64[5]", "float32[5,2]"],
     r"input 0 has 1 dimension but \(m,n\) needs exactly 2"),
    ("(m,n),(n,p)->(m,p)", ["float64[2,5,5]", "float32[5,2]"],
     r"input 0 has 3 dimensions but \(m,n\) needs exactly 2"),
    ("(d),(d)->()", ["float32[3]", "float32[4]"], r"dimension d is 3 .* but 4 in input 1"),
    ("(n,n)->(n)", ["float32[3,4]"],
     r"dimension n is 3 in input 0 \(axis 0\) but 4 in input 0 \(axis 1\)"),
    ("(2)->()", ["int8[3]"], r"input 0 axis 0 must have size 2, got 3"),
    ("(2,.2.)->()", ["int8[2,3]"], r"input 0 has 2 dimensions but .* needs exactly 3"),
    ("(M,.1.),(J,.1.)->(J,.1.)", ["float32[2,3]", "float64[4,5]"], r"\(5,\) .* \(3,\)"),
    ("(.2.,d,...,k,.1.)->(.2.,...,.1.)", ["int8[4,2,3,7]"],
     r"input 0 has 4 dimensions but .* needs at least 5"),
    ("(d,...),(...)->(...)", ["int8[4,2,3]", "int8[3]"], r"group \.\.\. are \(3,\)"),
    ("(*b,n),(*b,n)->(*b)", ["int8[2,3]", "int8[4,3]"],
     r"group \*b are \(4,\) in input 1 \(from axis 0\) but \(2,\) elsewhere"),
    ("+(.1.,n),(.1.,n)->(.1.)", ["int8[2,3]", "int8[4,3]"],
     r"operands int8\[2,3\] and int8\[4,3\] could not be broadcast: axis 0 is 2 and 4$"),
    ("(m,n),(n):T->(m):T", ["int8[2,3]", "int8[4]"],
     r"dimension n is 3 in input 0 \(axis 1\) but 4 in input 1 \(axis 0\)"),
    ("+2(d),(d)->()", ["int8[5,2,3,4]", "int8[4]"],
     r"input 0 has 3 loop dims but at most 2 are allowed"),
    ("+2(d),(d)->()", ["int8[4]", "int8[1,1,1,4]"],
     r"input 1 has 3 loop dims but at most 2 are allowed"),
    ("=2(d),(d)->()", ["int8[1,2,3,4]", "int8[1,2,3,4]"], r"at most 2 are allowed"),
    ("=(d),(d)->()", ["int8[2,3,4]", "int8[1,3,4]"],
     r"loop dims are \(1, 3\) in input 1 \(from axis 0\) but \(2, 3\) elsewhere"),
    ("=(),()->()", ["int8[2,3]", "int8[3]"], r"loop dims are \(3,\) in input 1"),
    ("+(),()->()", ["int8[2,3]", "int8[4]"],
     r"operands int8\[2,3\] and int8\[4\] could not be broadcast: axis 1 is 3 and axis 0 is 4$"),
    ("+(),()->()", ["int8[3,1]", "int8[2,5]"],
     r"operands int8\[3,1\] and int8\[2,5\] could not be broadcast: axis 0 is 3 and 2$"),
    ("+(d,...),(...)->(...)", ["int8[4,2,3]", "int8[4]"],
     r"could not be broadcast: axis 2 is 3 and axis 0 is 4$"),
    ("(n):T,(n):T->(n):T", ["float32[3]", "float64[3]"],
     r"dtype T is float32 in input 0 but float64 in input 1"),
    ("(n)->() where n >= 2", ["float32[1]"], r"where-clause n >= 2 fails: 1 >= 2 is false"),
    ("(n),(m)->() where n < m", ["float32[2]", "float32[2]"], r"where-clause n < m fails"),
    ("():T->():T where T in floating", ["int32[]"],
     r"where-clause T in floating fails: T is int32"),
    ("(n):x,(n):y->():x where x == y", ["int8[3]", "float32[3]"],
     r"where-clause x == y fails: int8 != float32"),
    ("(a),(b)->(a-b)", ["float32[2]", "int64[5]"], r"a-b = -3 is negative"),
    ("(n+1)->(n)", ["float32[0]"], r"size 0 does not equal n\+1"),
    ("(2*n)->(n)", ["float32[5]"], r"size 5 does not equal 2\*n"),
    ("(n)->() | (m,n)->(m)", ["int8[]"],
     r"\[\(n\)->\(\)\] input 0 has 0 dimensions .*; \[\(m,n\)->\(m\)\] input 0 has 0"),
]


@pytest.mark.parametrize(("sig", "inputs", "pattern"), FAILURES,
                         ids=[f"{s} on {','.join(i)}" for s, i, _ in FAILURES])
def test_failure_message(sig: str, inputs: list[str], pattern: str) -> None:
    err = inference_error(sig, *inputs)
    assert isinstance(err, TypeError)
    message = str(err)
    assert message.startswith(str(Signature.parse(sig)) + ": ")
    assert re.search(pattern, message), message
    assert err.signature == Signature.parse(sig)


def test_wrong_number_of_inputs() -> None:
    with pytest.raises(TypeInferenceError, match=r"takes 2 inputs, got 1"):
        infer_types("(d),(d)->()", "float32[3]")
    with pytest.raises(TypeInferenceError, match=r"takes 1 or 2 inputs, got 3"):
        infer_types("(n)->() | (n),(n)->()", "float32[3]", "float32[3]", "float32[3]")


def test_non_tensor_type_input_is_rejected() -> None:
    with pytest.raises(TypeError, match="must be a TensorType"):
        infer(Signature.parse("(d)->()"), ["float32[3]"])


def test_fixed_output_dtype() -> None:
    assert infer_str("(n)->():float32", "float64[3]") == ["float32[]"]


def test_output_dtype_variable_absent_from_inputs_is_an_error() -> None:
    # ``()->():T``: T occurs in no input, so the output dtype could never be known.
    with pytest.raises(SignatureSyntaxError, match="dtype variable T in output 0 is bound "
                       "by no input") as info:
        Signature.parse("()->():T where T in floating")
    assert info.value.position == 7


def test_output_only_dim_is_an_error_unless_a_where_clause_defines_it() -> None:
    with pytest.raises(SignatureSyntaxError, match="dimension p in output 1 is bound by no "
                       "input; define it with a where-clause") as info:
        Signature.parse("(m,n)->(m),(p)")
    assert info.value.position == 12
    assert infer_str("(m,n)->(m),(p) where p == m*n", "float32[2,3]") == \
        ["float32[2]", "float32[6]"]


# ---------------------------------------------------------------------------
# 2. NumPy as an oracle
# ---------------------------------------------------------------------------

@dataclass(frozen=True)
class OracleCase:
    """A NumPy function with its kantensor signature.

    ``numpy_signature`` (NumPy's own, possibly with ``?``) gives the core dims that the
    shape generator uses; ``signature`` is what kantensor infers with.
    """

    name: str
    fn: Callable[..., object]
    numpy_signature: str
    signature: str

    @property
    def cores(self) -> list[list[str]]:
        inputs = self.numpy_signature.replace(" ", "").split("->")[0]
        return [[d for d in group.split(",") if d] for group in re.findall(r"\(([^)]*)\)",
                                                                           inputs)]


def gufunc_case(name: str, fn: np.ufunc) -> OracleCase:
    return OracleCase(name, fn, fn.signature, "+" + fn.signature)


ORACLE_CASES = [
    gufunc_case("matmul", np.matmul),
    gufunc_case("vecdot", np.vecdot),
    gufunc_case("det", umath_linalg.det),
    gufunc_case("slogdet", umath_linalg.slogdet),
    gufunc_case("inv", umath_linalg.inv),
    gufunc_case("solve", umath_linalg.solve),
    gufunc_case("solve1", umath_linalg.solve1),
    gufunc_case("cholesky_lo", umath_linalg.cholesky_lo),
    gufunc_case("eigh_lo", umath_linalg.eigh_lo),
    gufunc_case("eigvalsh_lo", umath_linalg.eigvalsh_lo),
    # NumPy's "p" is min(m,n), which NumPy's notation cannot say but ours can.
    OracleCase("svd", umath_linalg.svd, umath_linalg.svd.signature, "+(m,n)->(min(m,n))"),
    OracleCase("svd_s", umath_linalg.svd_s, umath_linalg.svd_s.signature,
               "+(m,n)->(m,min(m,n)),(min(m,n)),(min(m,n),n)"),
    OracleCase("add", np.add, "(),()->()", "+(),()->()"),
    OracleCase("where", np.where, "(),(),()->()", "+(),(),()->()"),
]

#: Sizes 0..4, with 1 (the interesting one for broadcasting) drawn more often.
SIZES = st.one_of(st.just(1), st.integers(0, 4))


def loop_size(common: int) -> st.SearchStrategy[int]:
    """One operand's size on a loop axis of broadcast size ``common``: mostly ``common``
    or 1, sometimes any size (then usually not broadcastable)."""
    return st.one_of(st.just(common), st.just(1), st.integers(0, 4))


@st.composite
def oracle_shapes(draw: st.DrawFn, cores: list[list[str]]) -> list[tuple[int, ...]]:
    """Operand shapes for the given core dims: 0-3 loop dims, mostly broadcastable, and
    consistent core sizes, sometimes broken (an axis resized, inserted or removed)."""
    flexible = sorted({d for core in cores for d in core if d.endswith("?")})
    present = {d: draw(st.booleans()) for d in flexible}
    core_sizes: dict[str, int] = {}
    loop = draw(st.lists(st.integers(0, 4), max_size=3))
    shapes = []
    for core in cores:
        names = [d.rstrip("?") for d in core if present.get(d, True)]
        for d in names:
            if d not in core_sizes:
                core_sizes[d] = draw(SIZES)
        if any(not present.get(d, True) for d in core):
            own_loop = []  # NumPy drops a "?" dim only from an operand without loop dims
        else:
            k = draw(st.integers(0, len(loop)))
            own_loop = [draw(loop_size(s)) for s in loop[len(loop) - k:]]
        shapes.append(own_loop + [core_sizes[d] for d in names])
    if draw(st.integers(0, 3)) == 0:  # break the shapes now and then
        shape = shapes[draw(st.integers(0, len(shapes) - 1))]
        kind = draw(st.sampled_from(["resize", "insert", "remove"]))
        if kind == "insert" or not shape:
            shape.insert(draw(st.integers(0, len(shape))), draw(SIZES))
        elif kind == "resize":
            shape[draw(st.integers(0, len(shape) - 1))] = draw(SIZES)
        else:
            del shape[draw(st.integers(0, len(shape) - 1))]
    return [tuple(s) for s in shapes]


def identity_like(shape: tuple[int, ...]) -> np.ndarray:
    """float64 zeros; identity matrices in the last two axes when they are square, so
    the linear algebra gufuncs only ever fail for shape reasons."""
    a = np.zeros(shape)
    if len(shape) >= 2 and shape[-1] == shape[-2]:
        a[...] = np.eye(shape[-1])
    return a


def run_numpy(fn: Callable[..., object], shapes: list[tuple[int, ...]]
              ) -> list[np.ndarray] | None:
    """NumPy's outputs on arrays of these shapes, or None if NumPy rejects the shapes."""
    arrays = [identity_like(s) for s in shapes]
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            result = fn(*arrays)
        except ValueError:
            return None
    return list(result) if isinstance(result, tuple) else [result]


def try_infer(sig: str, types: list[TensorType]) -> tuple[TensorType, ...] | None:
    try:
        return infer(Signature.parse(sig), types)
    except TypeInferenceError:
        return None


def assert_consistent(inferred: Sequence[TensorType], outputs: Sequence[np.ndarray],
                      values: dict[str, int]) -> None:
    """Every static size the inference claims (ints, and Dims evaluated with ``values``)
    is the size NumPy produced; unknown sizes claim nothing."""
    assert len(inferred) == len(outputs)
    for t, out in zip(inferred, outputs, strict=True):
        assert t.ndim == out.ndim, (t, out.shape)
        for entry, size in zip(t.shape, out.shape, strict=True):
            if isinstance(entry, Dim):
                entry = substitute(entry, values)
            assert entry is None or entry == size, (t, out.shape)


def case_id(case: OracleCase) -> str:
    return case.name


@pytest.mark.parametrize("case", ORACLE_CASES, ids=case_id)
@ORACLE_SETTINGS
@given(data=st.data())
def test_numpy_oracle_static_shapes(case: OracleCase, data: st.DataObject) -> None:
    """Known shapes: inference succeeds iff NumPy does, with exactly NumPy's shapes."""
    shapes = data.draw(oracle_shapes(case.cores), label="shapes")
    outputs = run_numpy(case.fn, shapes)
    event("NumPy rejects" if outputs is None else "NumPy accepts")
    inferred = try_infer(case.signature, [TensorType("float64", s) for s in shapes])
    assert (inferred is None) == (outputs is None), (shapes, inferred)
    if outputs is not None:
        assert [t.shape for t in inferred] == [o.shape for o in outputs]
        assert [t.dtype for t in inferred] == [o.dtype.name for o in outputs]


@pytest.mark.parametrize("case", ORACLE_CASES, ids=case_id)
@ORACLE_SETTINGS
@given(data=st.data())
def test_numpy_oracle_unknown_sizes(case: OracleCase, data: st.DataObject) -> None:
    """Some sizes unknown: no false rejection, and every known output size is right."""
    shapes = data.draw(oracle_shapes(case.cores), label="shapes")
    outputs = run_numpy(case.fn, shapes)
    types = [TensorType("float64", [None if data.draw(st.booleans()) else size
                                    for size in shape]) for shape in shapes]
    inferred = try_infer(case.signature, types)
    if outputs is not None:
        assert inferred is not None, types
        assert_consistent(inferred, outputs, {})


#: Symbolic stand-ins for a size k: the symbol s<k> (equal sizes share a name) and
#: expressions in z, which stands for 0.
SYMBOLIC_VALUES = {**{f"s{k}": k for k in range(5)}, "z": 0}


def symbolic_entry(size: int, choice: int) -> int | Dim | None:
    return [size, None, Dim(f"s{size}"), Dim("z") + size, 2 * Dim("z") + size][choice]


@pytest.mark.parametrize("case", ORACLE_CASES, ids=case_id)
@ORACLE_SETTINGS
@given(data=st.data())
def test_numpy_oracle_symbolic_sizes(case: OracleCase, data: st.DataObject) -> None:
    """Sizes replaced by Dims standing for them: no false rejection, and the output sizes
    (ints, or Dims evaluated at the real sizes) are NumPy's."""
    shapes = data.draw(oracle_shapes(case.cores), label="shapes")
    outputs = run_numpy(case.fn, shapes)
    types = [TensorType("float64", [symbolic_entry(size, data.draw(st.integers(0, 4)))
                                    for size in shape]) for shape in shapes]
    inferred = try_infer(case.signature, types)
    if outputs is not None:
        assert inferred is not None, types
        assert_consistent(inferred, outputs, SYMBOLIC_VALUES)


@pytest.mark.parametrize(("shapes", "expected"), [
    ([(3,), (3,)], ()),
    ([(2, 3), (3,)], (2,)),
    ([(3,), (3, 4)], (4,)),
    ([(5, 1, 2, 3), (7, 3, 4)], (5, 7, 2, 4)),
])
def test_matmul_flexible_dims_match_numpy(shapes: list[tuple[int, ...]],
                                          expected: tuple[int, ...]) -> None:
    sig = "+" + np.matmul.signature
    (out,) = infer_types(sig, *(TensorType("float32", s) for s in shapes))
    assert out.shape == expected == np.matmul(*(np.zeros(s) for s in shapes)).shape


def test_matmul_rejects_zero_dim_like_numpy() -> None:
    with pytest.raises(ValueError):
        np.matmul(np.zeros(()), np.zeros((3, 4)))
    with pytest.raises(TypeInferenceError, match=r"input 0 has 0 dimensions"):
        infer_types("+" + np.matmul.signature, "float32[]", "float32[3,4]")


# ---------------------------------------------------------------------------
# 3. Dtypes
# ---------------------------------------------------------------------------

ELEMENTWISE = Signature.parse("+(),()->()")
DTYPES = st.sampled_from(kt.DTYPES)


@settings(max_examples=200, deadline=None)
@given(a=DTYPES, b=DTYPES, ndim_a=st.integers(0, 2), ndim_b=st.integers(0, 2))
def test_elementwise_dtype_is_result_type(a: str, b: str, ndim_a: int, ndim_b: int) -> None:
    """0-dim and n-dim operands have different priorities; infer picks them by ndim."""
    ta, tb = TensorType(a, (2,) * ndim_a), TensorType(b, (2,) * ndim_b)
    if refused(lambda: kt.result_type(ta, tb), lambda: infer(ELEMENTWISE, [ta, tb])):
        return
    (out,) = infer(ELEMENTWISE, [ta, tb])
    assert out.dtype == kt.result_type(ta, tb)
    assert out.shape == (2,) * max(ndim_a, ndim_b)


WRAPPED_DTYPES = st.sampled_from(["bool", "int64", "float32", "complex64"])


def refused(promote: Callable, typed: Callable) -> bool:
    """Whether promotion refuses the operands (a low-precision pair, or a string:
    PromotionError); then inference must refuse them too (a string already as an input
    its dtype variable does not admit)."""
    try:
        promote()
    except PromotionError:
        with pytest.raises(TypeInferenceError, match="does not promote|strings only where"):
            typed()
        return True
    return False


@st.composite
def operands(draw: st.DrawFn) -> tuple[TensorType, Priority]:
    """A type and its priority: a tensor (rank 1), a 0-dim tensor, or a wrapped Python
    number (rank 0, a dtype Python numbers take). The priority is the term's (§7)."""
    prio = draw(st.sampled_from(Priority))
    dtype = draw(WRAPPED_DTYPES if prio is W else DTYPES)
    return TensorType(dtype, (3,) if prio is T else ()), prio


@settings(max_examples=200, deadline=None)
@given(a=operands(), b=operands())
def test_elementwise_dtype_with_explicit_priorities(a: tuple, b: tuple) -> None:
    (ta, pa), (tb, pb) = a, b
    if refused(lambda: result_type_of([(ta.dtype, pa), (tb.dtype, pb)]),
               lambda: ELEMENTWISE.infer([ta, tb], [pa, pb])):
        return
    (out,) = ELEMENTWISE.infer([ta, tb], [pa, pb])
    assert out.dtype == result_type_of([(ta.dtype, pa), (tb.dtype, pb)])


@settings(max_examples=200, deadline=None)
@given(ops=st.lists(operands(), min_size=3, max_size=3))
def test_three_operand_dtype_is_bucketed_not_folded(ops: list) -> None:
    sig = Signature.parse("+(),(),()->()")
    if refused(lambda: result_type_of((t.dtype, p) for t, p in ops),
               lambda: sig.infer([t for t, _ in ops], [p for _, p in ops])):
        return
    (out,) = sig.infer([t for t, _ in ops], [p for _, p in ops])
    assert out.dtype == result_type_of((t.dtype, p) for t, p in ops)


def test_a_priority_that_contradicts_the_rank_is_an_error() -> None:
    with pytest.raises(ValueError, match="contradicts its rank"):
        ELEMENTWISE.infer([TensorType("int8", (3,)), TensorType("int8", ())], [Z, Z])
    with pytest.raises(TypeInferenceError, match="wrapped Python number has no axes"):
        ELEMENTWISE.infer([TensorType("int8", (3,)), TensorType("int64", (3,))], [T, W])


@settings(max_examples=200, deadline=None)
@given(a=DTYPES, b=DTYPES, ndim_a=st.integers(0, 1), ndim_b=st.integers(0, 1))
def test_promote_annotation_uses_priorities(a: str, b: str, ndim_a: int, ndim_b: int) -> None:
    ta, tb = TensorType(a, (2,) * ndim_a), TensorType(b, (2,) * ndim_b)
    sig = Signature.parse("+():x,():y->():promote(x,y)")
    if refused(lambda: kt.result_type(ta, tb), lambda: infer(sig, [ta, tb])):
        return
    (out,) = infer(sig, [ta, tb])
    assert out.dtype == kt.result_type(ta, tb)


@pytest.mark.parametrize(("a", "b", "priorities", "expected"), [
    ("uint8[3]", "int64[]", [T, W], "uint8[3]"),     # wrapped int: the tensor wins
    ("uint8[3]", "int64[]", None, "uint8[3]"),       # 0-dim int: the tensor wins too
    ("uint8[]", "int64[]", [Z, W], "uint8[]"),       # priority, not ndim, decides
    ("uint8[3]", "int64[3]", None, "int64[3]"),
    ("int32[3]", "float64[]", None, "float64[3]"),   # higher category: promoted
    ("int32[3]", "float32[]", [T, W], "float32[3]"),
    ("float16[3]", "float64[]", None, "float16[3]"),  # same category: the tensor wins
    ("bool[3]", "int64[]", [T, W], "int64[3]"),
    ("int8[]", "uint8[]", None, "int16[]"),
    ("int64[]", "uint8[]", [W, Z], "uint8[]"),
    ("float32[2]", "complex64[]", [T, W], "complex64[2]"),
    ("float64[2]", "complex64[]", [T, W], "complex128[2]"),
])
def test_elementwise_dtype_examples(a: str, b: str, priorities: list[Priority] | None,
                                    expected: str) -> None:
    assert infer_str("+(),()->()", a, b, priorities=priorities) == [expected]


def test_float_of_uses_the_default_dtype(default_float64: None) -> None:
    sig = "+():x,():y->():float(promote(x,y))"
    assert infer_str(sig, "int32[2]", "int8[2]") == ["float64[2]"]
    assert infer_str(sig, "float16[2]", "int8[2]") == ["float16[2]"]


# ---------------------------------------------------------------------------
# 4. Ops end to end
# ---------------------------------------------------------------------------

n, m, k = kt.dims("n m k")


@kt.op("+(m,n),(n,p)->(m,p)")
def mm(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.matmul(a, b)


@kt.op("(a):x,(b):y->(a+b):promote(x,y)", compute="output")
def concat(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.concatenate([a, b])


@kt.op("+(n)->()")
def total(a: np.ndarray) -> np.ndarray:
    return a.sum(axis=-1)


@kt.op("(n+1)->(n)")
def diff(a: np.ndarray) -> np.ndarray:
    return np.diff(a)


@kt.op("+(m,n)->(m),(n)", name="margins")
def row_and_column_sums(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return a.sum(axis=-1, dtype=a.dtype), a.sum(axis=-2, dtype=a.dtype)


def random_array(rng: np.random.Generator, shape: tuple[int, ...], dtype: str) -> np.ndarray:
    return rng.integers(-5, 6, size=shape).astype(dtype)


def test_op_decorator_builds_a_signature_op() -> None:
    assert isinstance(mm, kt.SignatureOp)
    assert mm.name == "mm"
    assert row_and_column_sums.name == "margins"
    assert mm.signature == Signature.parse("+(m,n),(n,p)->(m,p)")


@pytest.mark.parametrize("sizes", [(4, 3, 2), (1, 1, 1), (0, 3, 2), (5, 0, 1)])
def test_matmul_op_end_to_end(sizes: tuple[int, int, int]) -> None:
    rows, inner, cols = sizes
    x = kt.tensor("x", "float64", (7, n, inner))
    y = kt.tensor("y", "float32", (inner, m))
    z = mm(x, y)
    assert str(z.type) == "float64[7,n,m]"
    rng = np.random.default_rng(0)
    a = random_array(rng, (7, rows, inner), "float64")
    b = random_array(rng, (inner, cols), "float32")
    result = kt.function([x, y], z, check=True)(a, b)
    np.testing.assert_array_equal(result, np.matmul(a, b))
    assert result.dtype == np.float64


def test_op_graph_with_symbolic_dims() -> None:
    v = kt.tensor("v", "float32", (n,))
    w = kt.tensor("w", "int64", (n,))
    c = concat(v, w)
    d = diff(c)
    s = total(kt.tensor("b", "float64", (5, k, 3)))
    assert str(c.type) == "float32[2*n]"
    assert str(d.type) == "float32[2*n-1]"
    assert str(s.type) == "float64[5,k]"
    rng = np.random.default_rng(1)
    a, b = random_array(rng, (4,), "float32"), random_array(rng, (4,), "int64")
    f = kt.function([v, w], [c, d], check=True)
    got_c, got_d = f(a, b)
    np.testing.assert_array_equal(got_c, np.concatenate([a, b]).astype("float32"))
    np.testing.assert_array_equal(got_d, np.diff(np.concatenate([a, b])).astype("float32"))


def test_op_with_two_outputs() -> None:
    x = kt.tensor("x", "int32", (2, n, m))
    rows, cols = row_and_column_sums(x)
    assert (str(rows.type), str(cols.type)) == ("int32[2,n]", "int32[2,m]")
    a = random_array(np.random.default_rng(2), (2, 3, 4), "int32")
    got_rows, got_cols = kt.function([x], [rows, cols], check=True)(a)
    np.testing.assert_array_equal(got_rows, a.sum(-1))
    np.testing.assert_array_equal(got_cols, a.sum(-2))


def test_op_rejects_bad_types_at_graph_construction() -> None:
    a = kt.tensor("a", "float64", (2, 3))
    b = kt.tensor("b", "float64", (4, 2))
    with pytest.raises(TypeInferenceError, match=r"^mm: Input operand 1 has a mismatch in "
                       r"its core dimension 0, with gufunc signature \(m,n\),\(n,p\)->\(m,p\) "
                       r"\(size 4 is different from 3\)\n  dimension n is 3 .* but 4 .*\n"
                                                 r"  in mm \+\(m,n\),\(n,p\)->\(m,p\), on "
                                                 r"float64\[2,3\] and float64\[4,2\]$"):
        mm(a, b)


def test_function_rejects_inconsistent_dims_at_run_time() -> None:
    v = kt.tensor("v", "float32", (n,))
    w = kt.tensor("w", "int64", (n,))
    f = kt.function([v, w], concat(v, w), check=True)
    with pytest.raises(ValueError, match=r"dimension n is 3 .* but 4"):
        f(np.zeros(3, np.float32), np.zeros(4, np.int64))


UINT8_VALUES = np.array([0, 1, 255], dtype=np.uint8)


@pytest.mark.parametrize(("build", "dtype", "expected"), [
    (lambda u: u + 250, "uint8", [250, 251, 249]),
    (lambda u: 250 + u, "uint8", [250, 251, 249]),
    (lambda u: u - 1, "uint8", [255, 0, 254]),
    (lambda u: 2 - u, "uint8", [2, 1, 3]),
    (lambda u: u * 3, "uint8", [0, 3, 253]),
    (lambda u: u * True, "uint8", [0, 1, 255]),
    (lambda u: u / 2, "float32", [0.0, 0.5, 127.5]),
    (lambda u: u + 1.5, "float32", [1.5, 2.5, 256.5]),
    (lambda u: u * 2.0, "float32", [0.0, 2.0, 510.0]),
])
def test_operators_with_python_numbers(build: Callable, dtype: str, expected: list) -> None:
    u = kt.tensor("u", "uint8", (3,))
    out = build(u)
    assert str(out.type) == f"{dtype}[3]"
    result = kt.function([u], out, check=True)(UINT8_VALUES)
    assert result.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(result, np.array(expected, dtype=dtype))


def test_operators_between_tensors() -> None:
    x = kt.tensor("x", "int16", (n, 1))
    y = kt.tensor("y", "float32", (m,))
    s = kt.tensor("s", "int64", ())
    exprs = [x + y, x - s, x * y, y / x, x @ kt.tensor("w", "int16", (1, k))]
    assert [str(e.type) for e in exprs] == [
        "float32[n,m]", "int16[n,1]", "float32[n,m]", "float32[n,m]", "int16[n,k]"]
    rng = np.random.default_rng(3)
    a = rng.integers(1, 5, size=(4, 1)).astype(np.int16)
    b = rng.standard_normal(3).astype(np.float32)
    f = kt.function([x, y, s], exprs[:4], check=True)
    got = f(a, b, np.int64(7))
    np.testing.assert_allclose(got[0], a + b)
    np.testing.assert_array_equal(got[1], (a - 7).astype(np.int16))
    np.testing.assert_allclose(got[2], a * b)
    np.testing.assert_allclose(got[3], b / a, rtol=1e-6)


# ---------------------------------------------------------------------------
# 5. Caching
# ---------------------------------------------------------------------------

def test_inference_is_memoized() -> None:
    types = [tt("float64[7,13,11]"), tt("float32[11,17]")]  # not used elsewhere
    first = infer(Signature.parse("+(m,n),(n,p)->(m,p)"), types)
    hits = _infer_cached.cache_info().hits
    # An equal signature parsed again, and equal types built again, hit the cache.
    second = infer(Signature.parse("+(m,n),(n,p)->(m,p)"),
                   [tt("float64[7,13,11]"), tt("float32[11,17]")])
    assert second == first == (TensorType("float64", (7, 13, 17)),)
    assert _infer_cached.cache_info().hits == hits + 1


def test_failures_are_memoized_with_their_message() -> None:
    sig = Signature.parse("(d),(d)->()")
    types = [tt("float32[19]"), tt("float32[23]")]
    with pytest.raises(TypeInferenceError) as first:
        infer(sig, types)
    hits = _infer_cached.cache_info().hits
    with pytest.raises(TypeInferenceError) as second:
        infer(sig, types)
    assert str(second.value) == str(first.value)
    assert _infer_cached.cache_info().hits == hits + 1


def test_cache_key_includes_priorities_and_default_dtype(default_float64: None) -> None:
    sig = Signature.parse("+():x,():y->():float(promote(x,y))")
    types = [tt("int32[29]"), tt("int64[]")]
    assert str(infer(sig, types)[0]) == "float64[29]"
    kt.set_default_dtype("float16")
    assert str(infer(sig, types)[0]) == "float16[29]"
    plain = [tt("uint8[29]"), tt("int64[29]")]
    assert str(infer(ELEMENTWISE, plain)[0]) == "int64[29]"
    wrapped = [tt("uint8[29]"), tt("int64[]")]
    assert str(infer(ELEMENTWISE, wrapped)[0]) == "uint8[29]"
    assert str(infer(ELEMENTWISE, wrapped, wrapped=(False, True))[0]) == "uint8[29]"
    zero_dim = [tt("int8[]"), tt("int64[]")]
    assert str(infer(ELEMENTWISE, zero_dim)[0]) == "int64[]"
    assert str(infer(ELEMENTWISE, zero_dim, wrapped=(False, True))[0]) == "int8[]"


# ---------------------------------------------------------------------------
# 6. Symbolic Dims
# ---------------------------------------------------------------------------

@pytest.mark.parametrize(("sig", "inputs", "expected"), [
    ("(n,3),(n,3)->(n,3)", ["float32[n,3]", "float32[n,3]"], ["float32[n,3]"]),
    ("+(n,3),(n,3)->(n,3)", ["float32[n,3]", "float32[n,3]"], ["float32[n,3]"]),
    # different names are two sizes: the first is kept, under the condition n == m
    ("(d),(d)->(d)", ["float32[n]", "float32[m]"], ["float32[n]"]),
    ("(d),(d)->(d)", ["float32[n]", "float32[3]"], ["float32[3]"]),
    ("(d),(d)->(d)", ["float32[3]", "float32[n]"], ["float32[3]"]),
    ("(d),(d)->(d)", ["float32[?]", "float32[n]"], ["float32[n]"]),
    ("(d),(d)->(d)", ["float32[n+1]", "float32[4]"], ["float32[4]"]),
    ("(d),(d)->(d)", ["float32[2*n]", "float32[n+n]"], ["float32[2*n]"]),
    ("(n,n)->(n)", ["float32[k,3]"], ["float32[3]"]),
    ("(m,n),(n,p)->(m,p)", ["float32[a,?]", "float32[?,b]"], ["float32[a,b]"]),
    # broadcasting
    ("+(),()->()", ["float32[n]", "float32[1]"], ["float32[n]"]),
    ("+(),()->()", ["float32[n]", "float32[n]"], ["float32[n]"]),
    ("+(),()->()", ["float32[n]", "float32[m]"], ["float32[max(m,n)*min(1,m,n)]"]),
    ("+(),()->()", ["float32[n]", "float32[?]"], ["float32[?]"]),
    ("+(),()->()", ["float32[n]", "float32[3]"], ["float32[3]"]),
    ("+(),()->()", ["float32[n]", "float32[0]"], ["float32[0]"]),
    ("+(),()->()", ["float32[n,1]", "float32[m]"], ["float32[n,m]"]),
    ("+(),()->()", ["float32[n+1]", "float32[1]"], ["float32[n+1]"]),
    ("+(),(),()->()", ["float32[n]", "float32[1]", "float32[n]"], ["float32[n]"]),
    ("+(),(),()->()", ["float32[n]", "float32[1]", "float32[?]"], ["float32[?]"]),
    ("=(),()->()", ["float32[n]", "float32[m]"], ["float32[n]"]),
    # expressions
    ("(a),(b)->(a+b)", ["float32[n]", "float32[n]"], ["float32[2*n]"]),
    ("(a),(b)->(a-b)", ["float32[n]", "float32[n]"], ["float32[0]"]),
    ("(n+1)->(n)", ["float32[k]"], ["float32[k-1]"]),
    ("(2*n)->(n)", ["float32[2*k]"], ["float32[k]"]),
    ("+(m,n)->(m*n)", ["float32[n,3]"], ["float32[3*n]"]),
    ("+(m,n)->(min(m,n))", ["float32[n,m]"], ["float32[min(m,n)]"]),
])
def test_symbolic_dims(sig: str, inputs: list[str], expected: list[str]) -> None:
    assert infer_str(sig, *inputs) == expected


def test_symbolic_output_is_a_dim() -> None:
    (out,) = infer_types("(a),(b)->(a+b)", "float32[n]", "float32[n]")
    assert out.shape == (2 * Dim("n"),)
    (out,) = infer_types("(a),(b)->(a+b)", "float32[n]", "float32[m]")
    assert out.shape == (Dim("n") + Dim("m"),)


@pytest.mark.parametrize(("sig", "inputs", "pattern"), [
    ("(d),(d)->()", ["float32[n,3]", "float32[3]"], r"input 0 has 2 dimensions"),
    ("(n),(m)->() where n != m", ["float32[k]", "float32[k]"], r"where-clause n != m fails"),
    ("(n),(m)->() where n < m", ["float32[k]", "float32[k]"], r"where-clause n < m fails"),
])
def test_symbolic_failures(sig: str, inputs: list[str], pattern: str) -> None:
    assert re.search(pattern, str(inference_error(sig, *inputs)))


# ---------------------------------------------------------------------------
# 7. Regressions: bugs found by this suite, now fixed
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("size", ["2*n", "n+1"])
def test_broadcast_of_equal_dim_expressions_keeps_them(size: str) -> None:
    assert infer_str("+(),()->()", f"float32[{size}]", f"float32[{size}]") == \
        [f"float32[{size}]"]


def test_contradictory_dim_equation_is_rejected() -> None:
    # m = n from input 0, then m+1 = n from input 1: n + 1 == n has no solution.
    with pytest.raises(TypeInferenceError):
        infer_types("(m),(m+1)->(m)", "float32[n]", "float32[n]")


def test_failure_message_names_the_signature() -> None:
    err = inference_error("(n):T->():T", "float32[]")
    assert str(err).startswith("(n):T->():T: ")


def test_where_clause_message_uses_dim_names() -> None:
    message = str(inference_error("(n),(m)->() where n + 1 == m", "float32[k]", "float32[k]"))
    assert "_0" not in message
    assert "where-clause n+1 == m fails: k + 1 == k is false" in message


def test_priorities_of_wrong_length_are_reported_clearly() -> None:
    with pytest.raises((TypeError, ValueError), match="priorit"):
        ELEMENTWISE.infer([tt("float32[3]"), tt("float32[3]")], [T])


def test_where_clause_sees_dim_expressions_of_inputs() -> None:
    sig = Signature.parse("(a),(b)->() where a < b")
    with pytest.raises(TypeInferenceError, match="where-clause a < b fails"):
        sig.infer([tt("float32[k+1]"), tt("float32[k]")])
    assert sig.infer([tt("float32[k]"), tt("float32[k+1]")]) == (tt("float32[]"),)


def test_anonymous_groups_must_have_one_length() -> None:
    with pytest.raises(ValueError, match=r"anonymous group #2 has 2 dims"):
        Signature.parse("(.1.,n,.2.),(.1.,.1.)->(.2.,n,.1.)").infer(
            [tt("float32[1,2,3,4]"), tt("float32[1,3]")])


def test_no_flexible_variant_message() -> None:
    err = inference_error("(n,m?),(m?)->(n)", "float32[3,4]", "float32[]")
    assert str(err) == "(n,m?),(m?)->(n): no variant of the flexible dims fits inputs " \
                       "with (2, 0) axes"


def test_no_inputs_and_unannotated_output() -> None:
    err = inference_error("->(3)")
    assert "the output dtype is not determined by the inputs" in str(err)
    assert Signature.parse("->(3):int8").infer([]) == (tt("int8[3]"),)


def test_ops_with_different_implementations_differ() -> None:
    a = kt.op("(n)->(n)", name="f")(np.negative)
    b = kt.op("(n)->(n)", name="f")(np.positive)
    assert a != b and a == kt.SignatureOp("f", "(n)->(n)", np.negative)


def test_the_static_guard_only_refuses_what_the_relation_refuses():
    """``refuses`` (a shortcut before solving) never rejects inputs ``apply`` accepts:
    checked on every alternative of every plain catalogue signature, all dtypes."""
    checked = refused = 0
    for op in kt.CATALOGUE.values():
        sig = getattr(op, "signature", None)
        if not isinstance(sig, kt.Signature):
            continue
        for c in compiled(sig):
            for dtype in kt.DTYPES:
                terms = [TensorTerm(dtype, fresh()) for _ in range(c.n_in)]
                S = fresh_state({})
                if c.refuses(terms, S.data):
                    refused += 1
                    assert not c.apply(S, terms, [fresh() for _ in c.alt.outputs]), (op, dtype)
                checked += 1
    assert checked > 1000 and refused > 100


@pytest.mark.parametrize("signature, size", [
    ("(m)->(m) where min(0) != m", lambda m: m if min([0]) != m else None),
    ("(m)->(max(m, 2)) where max(m) >= 1", lambda m: max(m, 2) if max([m]) >= 1 else None),
    ("(m)->(min(m)+1)", lambda m: min([m]) + 1),
])
def test_min_and_max_of_one_size_are_that_size(signature: str, size: Callable) -> None:
    """``min(x)`` and ``max(x)`` of one argument are ``x`` (the grammar allows them), in
    a where-clause and an output, forwards and backwards: building raised Python's
    'int' object is not iterable."""
    op = kt.op(signature, name="one")(lambda x: x)
    for m in range(4):
        expected = size(m)
        x = kt.tensor("x", "float32", (m,))
        if expected is None:
            with pytest.raises(kt.TypeInferenceError, match="where-clause"):
                op(x)
            assert not kt.query(op, [x.type], [var("Z")])
        else:
            assert op(x).type == kt.TensorType("float32", (expected,))
            (answer,) = kt.query(op, [x.type], [var("Z")])
            assert answer == {"Z": kt.TensorType("float32", (expected,))}
