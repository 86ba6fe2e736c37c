"""TensorType and the Type contract (seeds: PyTensor/Aesara "Types")."""

import math

import numpy as np
import pytest

import kantensor as kt
from kantensor import Dim, TensorType, Type


def test_seed_in_same_class_is_super_filter_variable():
    v1 = TensorType("float64", (2, None))()
    v2 = TensorType("float64", (2, 1))()
    assert v1.type.in_same_class(v2.type) is False
    assert v1.type.is_super(v2.type) is True
    assert v1.type.filter_variable(v2) is v2
    out = v2.type.filter_variable(v1)
    assert isinstance(out.owner.op, kt.SpecifyShape)
    assert out.owner.inputs == [v1]
    assert out.type == TensorType("float64", (2, 1))


def test_filter_variable_most_specific_and_contradiction():
    a = TensorType("float64", (None, 3))
    b = TensorType("float64", (2, None))()
    out = a.filter_variable(b)
    assert out.type == TensorType("float64", (2, 3))  # better than PyTensor: both claims
    with pytest.raises(TypeError, match=r"axis 0.*2 != 4"):
        TensorType("float64", (2, 3)).filter_variable(TensorType("float64", (4, 3))())
    with pytest.raises(TypeError, match="dtype mismatch"):
        TensorType("float64", (2,)).filter_variable(TensorType("float32", (2,))())


def test_repr_str_parse():
    t = TensorType("float64", (2, None))
    assert repr(t) == "TensorType(float64, (2, ?))"
    assert str(t) == "float64[2,?]"
    assert repr(TensorType("int8", (3,))) == "TensorType(int8, (3,))"
    for text in ["float32[3,?]", "int64[]", "float32[n,3]", "bool[1,1,?]", "float64[2*n,n+1]"]:
        assert str(TensorType.parse(text)) == text
    n = Dim("n")
    assert TensorType.parse("float32[n,3]") == TensorType("float32", (n, 3))
    assert TensorType.parse("float64[n+n]").shape == (2 * n,)
    with pytest.raises(ValueError, match="unknown dtype"):
        TensorType.parse("float31[3]")
    with pytest.raises(kt.SignatureSyntaxError, match="expected .* at position 10") as info:
        TensorType.parse("float32[3,@]")
    assert info.value.position == 10  # the grammar of signatures reads types too


def test_dtype_normalisation_and_shape_validation():
    assert TensorType(np.float32, (1,)).dtype == "float32"
    assert TensorType("f8").dtype == "float64"
    assert TensorType(np.dtype("int16"), ()).dtype == "int16"
    with pytest.raises(TypeError):
        TensorType("object", ())
    with pytest.raises(ValueError, match="shape entry 1"):
        TensorType("float32", (2, -1))
    with pytest.raises(TypeError, match="bool"):
        TensorType("float32", (True,))
    assert TensorType("float32", broadcastable=(True, False)).shape == (1, None)
    assert TensorType("float32", (1, None, 3)).broadcastable == (True, False, False)


def test_every_spelling_of_a_shape_gives_one_type_and_bad_entries_are_refused():
    """The constructor's one-test-per-int path and its checked path agree: a list, a
    generator, a tuple subclass or NumPy ints give the very type of the plain tuple
    (whose shape is a plain tuple of ints), and an entry after good ones is checked."""
    n = Dim("n")
    plain = TensorType("float32", (3, n, None, 0))
    assert type(plain.shape) is tuple and plain._static == (0, 3)

    class Sizes(tuple):
        pass

    for spelling in ([3, n, None, 0], iter((3, n, None, 0)), Sizes((3, n, None, 0)),
                     (np.int64(3), n, None, np.uint8(0))):
        same = TensorType("float32", spelling)
        assert same is plain and type(same.shape[0]) is int
    ints = TensorType("int8", [np.int32(2), 5])
    assert ints is TensorType("int8", (2, 5)) and ints._static == (0, 1)
    # (the static axes of every shape of two ints are one tuple: no object per type)
    assert TensorType("int16", (7, 9))._static is ints._static
    for bad, error, words in [((2, 3.0), ValueError, "shape entry 1"),
                              ((2, n, -1), ValueError, "shape entry 2"),
                              ((2, 2**63), ValueError, "too large"),
                              ((2, np.bool_(True)), TypeError, "bool"),
                              ((2, "n"), ValueError, "shape entry 1")]:
        with pytest.raises(error, match=words):
            TensorType("float32", bad)
    with pytest.raises(TypeError, match="sequence"):
        TensorType("float32", n)


def test_filter_strict_and_downcast():
    t = TensorType("float32", (None,))
    with pytest.raises(TypeError, match="strict"):
        t.filter([1.0, 2.0], strict=True)
    with pytest.raises(TypeError, match="expected dtype float32.*got float64"):
        t.filter(np.zeros(2), strict=True)
    arr = np.zeros(2, dtype="float32")
    assert t.filter(arr, strict=True) is arr
    # a lossy array downcast needs allow_downcast
    with pytest.raises(TypeError, match="float64 to float32.*allow_downcast=True"):
        t.filter(np.array([0.1, 0.2]))
    assert t.filter(np.array([0.1, 0.2]), allow_downcast=True).dtype == np.float32
    # Python numbers: accepted when exact, rejected when lossy (unless allowed)
    assert t.filter([1.5, 2.0]).dtype == np.float32
    with pytest.raises(TypeError, match=r"cannot be represented exactly as float32"):
        t.filter([0.1])
    i8 = TensorType("int8", ())
    assert i8.filter(100) == 100
    with pytest.raises(TypeError, match="int8"):
        i8.filter(1000)
    assert i8.filter(1000, allow_downcast=True) == np.int8(-24)
    with pytest.raises(TypeError, match="allow_downcast=False"):
        TensorType("int32", ()).filter(1.0, allow_downcast=False)


def test_filter_wrong_ndim_and_static_shape():
    t = TensorType("float64", (2, None))
    with pytest.raises(TypeError, match=r"expected 2 dimensions for float64\[2,\?\], "
                                        r"got an array of shape \(3,\)"):
        t.filter(np.zeros(3))
    with pytest.raises(TypeError, match=r"axis 0 has length 3 but float64\[2,\?\] requires 2"):
        t.filter(np.zeros((3, 4)))
    out = t.filter(np.zeros((2, 7)))
    assert out.shape == (2, 7)
    with pytest.raises(TypeError, match="cannot convert"):
        t.filter("hello")


def test_values_eq_approx_nan_positions():
    t = TensorType("float64", (None,))
    a = np.array([1.0, np.nan, 3.0])
    assert t.values_eq_approx(a, np.array([1.0, np.nan, 3.0 + 1e-12]))
    assert not t.values_eq_approx(a, np.array([np.nan, 1.0, 3.0]))
    assert not t.values_eq_approx(a, np.array([1.0, 2.0, 3.0]))
    assert not t.values_eq(a, a.copy())  # NaN != NaN exactly
    assert t.values_eq(np.arange(3.0), np.arange(3.0))
    assert not t.values_eq_approx(np.zeros(2), np.zeros(3))


def test_size_shape_info_memory():
    t = TensorType("float32", (None, 3))
    v = np.zeros((4, 3), dtype="float32")
    assert t.get_size(t.get_shape_info(v)) == 48
    assert t.may_share_memory(v, v[1:])
    assert not t.may_share_memory(v, v.copy())
    assert t.is_valid_value(v) and not t.is_valid_value(v.astype("float64"))


def test_is_super_with_dims():
    n = Dim("n")
    assert TensorType("float32", (None,)).is_super(TensorType("float32", (n,)))
    assert TensorType("float32", (n,)).is_super(TensorType("float32", (n,)))
    assert not TensorType("float32", (n,)).is_super(TensorType("float32", (3,)))
    assert not TensorType("float32", (n,)).is_super(TensorType("float32", (Dim("m"),)))


def test_shortcuts_and_constructors(default_float64):
    assert kt.dmatrix().type == TensorType("float64", (None, None))
    assert kt.ivector().type == TensorType("int32", (None,))
    assert kt.lscalar().type == TensorType("int64", ())
    assert kt.irow().type == TensorType("int32", (1, None))
    assert kt.fcol().type == TensorType("float32", (None, 1))
    assert kt.ztensor3().type == TensorType("complex128", (None,) * 3)
    assert kt.scalar("s").type == TensorType("float64", ())  # default dtype
    assert kt.tensor("t", "int16", (2, None)).type == TensorType("int16", (2, None))
    n, m = kt.dims("n m")
    assert kt.matrix("a", shape=(n, m)).type.shape == (n, m)


def test_constant_kinds():
    c = kt.constant(2.0)
    assert c.wrapped and c.type == TensorType(kt.get_default_dtype(), ())
    assert kt.constant(True).type.dtype == "bool"
    assert kt.constant(3).type.dtype == "int64"
    assert not kt.constant(np.float32(2)).wrapped
    assert kt.constant([1, 2], dtype="float32").type == TensorType("float32", (2,))
    with pytest.raises(OverflowError):
        kt.constant(2**64)


class DoubleType(Type):
    """The seed's DoubleType, as written in the docs (docs/types.rst)."""

    def filter(self, x, strict=False, allow_downcast=None):
        if strict:
            if isinstance(x, float):
                return x
            raise TypeError("Expected a float!")
        elif allow_downcast:
            return float(x)
        else:  # Covers both the False and None cases.
            x_float = float(x)
            if x_float == x:
                return x_float
            raise TypeError(
                f"The double type cannot accurately represent value {x} "
                f"(of type {type(x)}): {x_float}"
            )

    def values_eq_approx(self, x, y, tolerance=1e-4):
        return abs(x - y) / (abs(x) + abs(y)) < tolerance

    def __str__(self):
        return "double"

    def __eq__(self, other):
        return type(self) is type(other)

    def __hash__(self):
        return hash(type(self))


def test_seed_double_type_contract():
    double = DoubleType()
    assert double.filter(3) == 3.0 and isinstance(double.filter(3), float)
    with pytest.raises(TypeError, match="Expected a float"):
        double.filter(3, strict=True)
    with pytest.raises(TypeError, match="cannot accurately represent"):
        double.filter(10**20 + 1)
    assert double.filter(10**20 + 1, allow_downcast=True) == 1e20
    assert double.is_valid_value(1.5) and not double.is_valid_value(1)
    assert double.values_eq_approx(1.0, 1.00001) and not double.values_eq_approx(1.0, 1.1)
    assert double.values_eq(2.0, 2.0)
    v = double("x")
    assert v.type is double and v.name == "x" and v.owner is None
    assert double.make_variable().type == DoubleType()
    assert double.is_super(DoubleType()) and double.in_same_class(DoubleType())
    assert double.filter_variable(v) is v
    c = double.filter_variable(2)
    assert isinstance(c, kt.Constant) and c.data == 2.0
    with pytest.raises(TypeError, match="cannot convert variable"):
        double.filter_variable(kt.dscalar("y"))
    assert double.clone() == double
    assert not double.may_share_memory(1.0, 2.0)


def test_transfer_registration():
    class Meters(Type):
        def filter(self, x, strict=False, allow_downcast=None):
            return float(x)

        def __eq__(self, other):
            return type(self) is type(other)

        def __hash__(self):
            return hash(type(self))

    meters = Meters()
    source = DoubleType()("d")
    calls = []

    @Meters.register_transfer
    def from_double(target, var):
        calls.append(var)
        return Meters()(var.name) if isinstance(var.type, DoubleType) else None

    out = meters.filter_variable(source)
    assert calls == [source] and out.type == meters
    assert DoubleType.transfers == [] or from_double not in DoubleType.transfers
    assert math.isclose(meters.filter("2.5"), 2.5)


def test_parse_roundtrips_every_dim_text():
    n = Dim("n")
    for shape in [(n * n,), (n // 2, n % 3), (kt.tensor("a").type.ndim + n,)]:
        t = TensorType("float32", shape)
        assert TensorType.parse(str(t)) == t
    with pytest.raises(ValueError, match=r"bad shape in 'float32\[n//0\]'"):
        TensorType.parse("float32[n//0]")


def test_a_type_cannot_be_changed_in_place():
    """Types are interned and remembered by the memos: an assignment would change every
    holder's type (and later answers), so it is refused; the type is unchanged."""
    t = kt.TensorType("float32", (2, kt.Dim("n")))
    for name, value in (("shape", (3,)), ("dtype", "int8"), ("_static", ()), ("other", 1)):
        with pytest.raises(AttributeError, match="immutable"):
            setattr(t, name, value)
    with pytest.raises(AttributeError, match="immutable"):
        del t.shape
    assert t is kt.TensorType("float32", (2, kt.Dim("n"))) and str(t) == "float32[2,n]"


def test_a_subclass_interns_its_own_types():
    """A subclass's type of a dtype and shape is one object, and not the class's own."""
    class Marked(TensorType):
        __slots__ = ()

    marked = Marked("float32", (2, Dim("n")))
    assert type(marked) is Marked and marked is Marked("float32", [2, Dim("n")])
    plain = TensorType("float32", (2, Dim("n")))
    assert type(plain) is TensorType and plain is not marked and plain != marked
    assert marked._static == plain._static == (0,)


def test_types_made_by_every_constructor_are_sealed_tensor_types():
    """The constructor, the readers' checked_type/sized and sized_all make their new types
    as an unsealed class and then assign ``__class__`` (four plain slot assignments instead
    of four descriptor calls): each is exactly a TensorType afterwards, immutable, interned
    and equal in every field to the one the other constructors make; a subclass's are
    made through the descriptors, as before."""
    from kantensor.types import type as tt
    made = [TensorType("int16", (9101, 2)), tt.sized("int16", (9101, 3)),
            tt.checked_type("int16", (Dim("n"), 9101), (1,)),
            *tt.sized_all("int16", [(9102, 1), (9102, 2)], 2)]
    again = [TensorType("int16", (9101, 2)), TensorType("int16", (9101, 3)),
             TensorType("int16", (Dim("n"), 9101)), TensorType("int16", (9102, 1)),
             TensorType("int16", (9102, 2))]
    assert tt._Unsealed.__slots__ == TensorType.__slots__
    for t, u in zip(made, again, strict=True):
        assert type(t) is TensorType and t is u
        assert t.numpy_dtype == np.dtype("int16") and t._static == tt.static_axes(t.shape)
        with pytest.raises(AttributeError, match="immutable"):
            t.shape = (1,)
        with pytest.raises(AttributeError, match="immutable"):
            t.__class__ = tt._Unsealed
    class Marked(TensorType):
        __slots__ = ()

    assert type(Marked("int16", (9101, 2))) is Marked
