"""NumPy functions on symbolic tensors (NEP 13 ``__array_ufunc__``, NEP 18
``__array_function__``): every catalogue Op is reachable under its NumPy name.

For every NumPy function a catalogue entry names (its ``numpy`` key), every example of
the entry is called through NumPy (``np.sum(x, axis=1)``) and must build the same graph
as the kantensor call (``kt.sum(x, axis=1)``), or fail the same way. The values of those
Ops against NumPy's are the conformance suite's job (tests/test_ops_*.py).
"""

from __future__ import annotations

import inspect
import itertools
import re
from typing import Any

import numpy as np
import pytest

import kantensor as kt
from kantensor.ops.catalogue import CatalogueError, Entry, load_all, load_file
from kantensor.ops.linalgnumpy import LAPACK
from kantensor.types.symbols import substitute

ENTRIES = load_all()
MAPPED = [(e, fn) for e in ENTRIES for fn in e.numpy]

#: Catalogue Ops with no NumPy function to dispatch from: the logistic function (SciPy's
#: expit), SciPy's logsumexp, softmax and log_softmax, basic and advanced indexing
#: (x[index]),
#: permute_dims (NumPy's permute_dims *is* numpy.transpose, the same function object, so
#: it reaches kt.transpose), and the functions that make a tensor from parameters only
#: (NumPy cannot dispatch np.zeros((2, 3)): no argument is a tensor), and x.item() (a
#: method of ndarray only).
NO_NUMPY_FUNCTION = {"sigmoid", "getitem", "permute_dims", "logsumexp", "softmax",
                     "log_softmax", "zeros", "ones", "full", "arange", "linspace", "eye",
                     "item", "index", "shape_of", "size_number",
                     "setitem", "additem", "index_set", "index_add", "random",
                     # math.erf's, no NumPy function; NumPy's names whose functions
                     # already build pow and flatten
                     "erf", "power", "ravel",
                     # np.pad builds it for its modes other than constant, np.unique
                     # with axis the other
                     "pad_edges", "argsort_rows",
                     # math.floor/ceil/trunc and round of a traced scalar: Python's
                     "python_int"}


def _type(text: Any) -> Any:
    if isinstance(text, list):
        return [_type(t) for t in text]
    return kt.TensorType.parse(text)()


def _positional_only(fn: Any) -> set[str]:
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):  # ufuncs
        return set()
    return {p.name for p in params if p.kind is inspect.Parameter.POSITIONAL_ONLY}


def numpy_call(entry: Entry, fn: Any, example: dict) -> tuple[list, dict, list, dict]:
    """The example as a NumPy call (args, kwargs) and as a kantensor call: tensors
    positional; parameters by keyword, except those before the first tensor
    (einsum's subscripts) and NumPy's positional-only ones (astype's dtype)."""
    positional = _positional_only(fn)
    example = dict(example)
    inputs = iter(_type(t) for t in example.pop("in"))
    example.pop("out", None)
    example.pop("error", None)
    args: list[Any] = []
    kwargs: dict[str, Any] = {}
    seen_tensor = False
    for p in entry.spec.params:
        if p.kind == "*tensors":
            args.extend(inputs)
        elif p.is_tensor:
            args.append(next(inputs))
            seen_tensor = True
        elif p.name in example:
            value = example.pop(p.name)
            value = tuple(value) if isinstance(value, list) and p.kind in ("axes", "axis_tuple") \
                else value
            if (seen_tensor or p.keyword_only) and p.name not in positional:
                kwargs[p.name] = value
            else:
                args.append(value)
    assert not example, f"unused example keys {example}"
    if fn is np.lexsort:  # NumPy dispatches on lexsort's keys in a tuple only
        args[0] = tuple(args[0])
    return args, kwargs, list(args), dict(kwargs)


def _outcome(fn: Any, args: list, kwargs: dict) -> tuple[str, Any]:
    try:
        result = fn(*args, **kwargs)
    except (TypeError, ValueError, IndexError) as exc:
        return "error", type(exc)
    outs = result if isinstance(result, list | tuple) else [result]
    return "ok", [(o.type, o.owner.op) for o in outs]


def test_every_op_has_a_numpy_name():
    unmapped = {e.name for e in ENTRIES if not e.numpy}
    assert unmapped == NO_NUMPY_FUNCTION


@pytest.mark.parametrize(("entry", "fn"), MAPPED,
                         ids=[f"{e.name}-{fn.__name__}" for e, fn in MAPPED])
def test_numpy_function_builds_the_op(entry, fn):
    assert entry.examples, f"{entry.name} has no examples to call"
    op = kt.ops.CATALOGUE[entry.name]
    for example in entry.examples:
        args, kwargs, kt_args, kt_kwargs = numpy_call(entry, fn, example)
        through_numpy = _outcome(fn, args, kwargs)
        if fn.__module__.endswith("linalg") and entry.name in LAPACK and \
                any("float16" in str(t) for t in example["in"]):
            # (NumPy's LAPACK refuses float16, which kt computes: ops/linalgnumpy.py)
            assert through_numpy[0] == "error" and issubclass(through_numpy[1], TypeError), \
                (entry.name, example)
            continue
        if fn.__module__.endswith("linalg") and entry.name in LAPACK:
            kt_kwargs["as_numpy"] = True  # (NumPy's dtypes: ops/linalgnumpy.py)
        direct = _outcome(op, kt_args, kt_kwargs)
        assert through_numpy == direct, (entry.name, example)
        if "out" in example:
            assert through_numpy[0] == "ok"


def test_values_through_numpy():
    """A small NumPy program on symbolic tensors computes what NumPy computes."""
    x = kt.matrix("x", "float64", shape=(None, 3))
    w = kt.matrix("w", "float64", shape=(3, 4))
    y = np.tanh(np.matmul(x, w)) + np.sum(x, axis=1, keepdims=True)
    z = np.concatenate([y, np.exp(y)], axis=-1)
    assert str(z.type) == "float64[?,8]"
    xv, wv = np.arange(6.0).reshape(2, 3) / 6, np.linspace(-1, 1, 12).reshape(3, 4)
    yv = np.tanh(xv @ wv) + xv.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(kt.function([x, w], z, check=True)(xv, wv),
                               np.concatenate([yv, np.exp(yv)], axis=-1))


def test_numpy_array_on_the_left():
    x = kt.vector("x", "float32", shape=(3,))
    for expr, op in [(np.ones(3) + x, kt.add), (np.ones(3) < x, kt.lt),
                     (np.ones((2, 3)) @ x, kt.matmul)]:
        assert expr.owner.op is op
        assert isinstance(expr.owner.inputs[0], kt.Constant)


def test_linalg_names():
    a = kt.tensor("a", "float64", (5, 3, 3))
    assert np.linalg.det(a).owner.op == kt.det.bind(as_numpy=True)  # (NumPy's dtypes)
    assert np.linalg.inv(a).type == a.type
    assert [str(o.type) for o in np.linalg.svd(a, compute_uv=True)] == [
        "float64[5,3,3]", "float64[5,3]", "float64[5,3,3]"]
    assert str(np.linalg.matmul(a, a).type) == "float64[5,3,3]"


@pytest.mark.parametrize("name", LAPACK)
def test_a_lapack_op_prints_as_the_other_ops(name):
    """``as_numpy`` is a mode np.linalg's entry sets: ``kt.inv``'s Op prints as any Op
    prints its parameters (``inv``, ``qr{mode='reduced'}``), never ``as_numpy=False``;
    ``np.linalg.inv``'s names it set. Its signature and error messages say the same."""
    family = getattr(kt, name)
    own = [(k, v) for k, v in family.bind().params if k != "as_numpy"]
    shown = f"{name}{{{', '.join(f'{k}={v!r}' for k, v in own)}}}" if own else name
    assert str(family.bind()) == shown
    assert str(family.bind(as_numpy=True)) == (
        f"{shown[:-1]}, as_numpy=True}}" if own else f"{name}{{as_numpy=True}}")
    a = kt.tensor("a", "float64", (3,))
    with pytest.raises(kt.TypeInferenceError) as caught:
        family(a, a) if name == "solve" else family(a)
    assert f"\n  in {shown} +" in str(caught.value)


@pytest.mark.parametrize(("call", "message"), [
    (lambda x: np.sum(x, out=np.zeros(3)), "numpy.sum: out= is not supported"),
    (lambda x: np.exp(x, out=(np.zeros((2, 3)),)), "numpy.exp: out= is not supported"),
    (lambda x: np.exp(x, where=np.ones((2, 3), bool)), "numpy.exp: where= is not supported"),
    (lambda x: np.mean(x, where=x > 0), "numpy.mean: where= is not supported"),
    (lambda x: np.linalg.matrix_rank(x),
     "numpy.linalg.matrix_rank is not supported on symbolic tensors"),
    (lambda x: np.fft.fft(x), "numpy.fft.fft is not supported"),
    (lambda x: np.add.reduce(x), "numpy.add.reduce is not supported on symbolic tensors: "
                                 "only calling a ufunc is (numpy.add itself is kt.add)"),
    (lambda x: np.exp(x, dtype="float64"), "numpy.exp: keyword argument dtype"),
    (lambda x: np.prod(x, initial=2.0), "numpy.prod: initial=2.0 is not supported on symbolic "
                                        "tensors: kt.prod has no parameter initial"),
])
def test_unsupported_calls_are_type_errors(call, message):
    x = kt.matrix("x", "float32", shape=(2, 3))
    with pytest.raises(TypeError, match=re.escape(message)):
        call(x)


def test_defaults_of_out_and_where_are_accepted():
    x = kt.matrix("x", "float32", shape=(2, 3))
    assert np.sum(x, out=None).owner.op == kt.sum(x).owner.op
    assert np.exp(x, out=None, where=True).owner.op is kt.exp


def test_unsupported_names_suggest_the_kantensor_function():
    """A NumPy function that kantensor has under the same name but does not map (here a
    masked-array function) points at kt.<name>."""
    x = kt.vector("x", "float32", shape=(3,))
    with pytest.raises(TypeError, match=re.escape("use kt.sum")):
        kt.types.protocol.array_function(x, np.ma.sum, (), (x,), {})


def test_numpy_key_is_validated():
    text = '[[op]]\nname = "e"\nsignature = "+():x->():float(x)"\nimpl = "numpy.exp"\n'
    (entry,) = load_file("t.toml", text + 'numpy = ["numpy.exp", "numpy.expm1"]\n')
    assert entry.numpy == (np.exp, np.expm1)
    for bad, message in [('"numpy.expo"', "cannot import 'numpy.expo'"),
                         ('"math.exp"', "is not a name in numpy"),
                         ('3', "numpy must be a dotted name"),
                         ('"numpy.pi"', "is not callable")]:
        with pytest.raises(CatalogueError, match=re.escape(message)):
            load_file("t.toml", text + f"numpy = {bad}\n")


def test_one_op_per_numpy_function():
    from kantensor.ops.catalogue import check_numpy_names

    text = '[[op]]\nname = "{}"\nsignature = "+()->()"\nimpl = "numpy.exp"\nnumpy = "numpy.exp"\n'
    entries = load_file("t.toml", text.format("a") + text.format("b"))
    with pytest.raises(CatalogueError, match=re.escape(
            "op #2 (b): numpy: exp is already the NumPy function of t.toml: op #1 (a)")):
        check_numpy_names(entries)


def test_len_is_the_first_size_when_it_is_known():
    """len() as NumPy gives it (issue 38): the first size, a slice's own length; a
    symbolic first size or a 0-d tensor is a TypeError (Python's len returns ints), and
    NumPy never reads a symbolic tensor as a sequence of rows."""
    k = kt.tensor("k", "float32", (6, 2))
    value = np.zeros((6, 2), np.float32)
    assert (len(k), len(k[1:]), len(k[::2]), len(k[10:])) == (
        len(value), len(value[1:]), len(value[::2]), len(value[10:])) == (6, 5, 3, 0)
    for shape, words in (((kt.Dim("n"), 2), "first size is n"), ((None,), "is unknown"),
                         ((), "0-d")):
        with pytest.raises(TypeError, match=words):
            len(kt.tensor("s", "float32", shape))
    with pytest.raises(TypeError, match="x.shape\\[0\\]"):
        len(kt.tensor("s", "float32", (kt.Dim("n"),)))
    with pytest.raises(TypeError, match="has no values until its graph runs"):
        np.asarray(k)
    assert np.asarray(kt.constant([1, 2, 3])).tolist() == [1, 2, 3]
    assert len(kt.constant([1, 2, 3])) == 3


def test_equality_compares_elements_in_every_mode_and_hashing_is_identity():
    """``==``/``!=`` build NumPy's elementwise comparison outside eval_shape too (no
    trace mode decides it); variables stay dict keys by identity; an operand that is
    no array-like falls back to Python's identity comparison."""
    x = kt.vector("x", dtype="float32", shape=(3,))
    y = kt.vector("y", dtype="float32", shape=(3,))
    eq, ne = x == y, x != 2
    assert eq.owner.op is kt.eq and ne.owner.op is kt.ne
    assert eq.type == ne.type == kt.TensorType("bool", (3,))
    a, b = np.array([1, 2, 3], "float32"), np.array([1, 0, 3], "float32")
    got = kt.function([x, y], [eq, ne])(a, b)
    np.testing.assert_array_equal(got[0], a == b)
    np.testing.assert_array_equal(got[1], a != 2)
    assert {x: 1, y: 2}[y] == 2 and x in {x} and y not in {x}
    assert (x == None) is False and (x != "x") is True  # noqa: E711
    with pytest.raises(TypeError, match="no truth value"):
        bool(x == y)


@pytest.mark.parametrize("call", ["np.split(x, 1)", "np.split(x, 1, axis=1)", "np.split(x, [])",
                                  "np.hsplit(x, 1)", "np.vsplit(x, [])", "np.array_split(x, 1)",
                                  "np.split(x, 2)", "np.hsplit(x, [1])"])
def test_a_split_into_one_section_is_a_list_as_numpys(call):
    """np.split(x, 1) is a list of one section, x's copy: the split Op, called, gives its
    one output alone, and ``np.split(x, 1)[0]`` was x's first row (``float64[C]`` for
    ``float64[C,C]``, found by tests/npprograms.py's split lines). Judged by NumPy, on
    known and on named sizes (eval_shape)."""
    fn = eval(f"lambda x: {call}")  # noqa: S307 - the test's own text
    want = fn(np.zeros((4, 4)))
    got = fn(kt.tensor("x", "float64", (4, 4)))
    assert isinstance(got, list) and [v.type.shape for v in got] == [a.shape for a in want]
    first = kt.eval_shape(lambda x: fn(x)[0], "float64[C,C]")
    assert first.type.ndim == want[0].ndim == 2


def test_where_of_one_argument_is_nonzero_not_ill_typed():
    """np.where(c) is np.nonzero(c): index arrays of one length the data decide (not the
    where Op's arity TypeInferenceError, which says the program is ill-typed where NumPy
    runs it; found by tests/npprograms.py)."""
    np.where(np.zeros((1, 3), bool))  # NumPy runs it
    c = kt.tensor("c", "bool", (1, 3))
    rows, cols = np.where(c)
    assert rows.type == cols.type and rows.type.dtype == "int64" and rows.type.ndim == 1
    assert np.where(c, 1.0, 2.0).type.shape == (1, 3)


TAKES = ["np.take(x, [0, 1])", "np.take(x, np.array([[0], [-1]]))", "np.take(x, [1], axis=1)",
         "np.take(x, [0, 2], axis=-1)", "x.take([1, 0])", "x.take([0], axis=0)",
         "np.take(x, [-3])", "np.take(x, 1)", "np.take(x, [True, False])", "np.take(x, [])",
         "np.take(x, 2, axis=0)"]


@pytest.mark.parametrize("call", TAKES)
def test_take_of_known_indices_checks_their_values(call):
    """np.take (x.take) of indices the trace knows checks their values against the axis
    as NumPy's mode="raise" does: np.take(x, [0, 1]) held at one element (the take Op
    reads no values), an IndexError in NumPy (found by tests/npprograms.py). Judged by
    NumPy at every size 0..3: where the contract holds NumPy runs and gives the type;
    where it does not, NumPy fails, except where the other axes are empty (NumPy's take
    checks nothing there; the index it is refuses: sound, documented)."""
    fn = eval(f"lambda x: {call}")  # noqa: S307 - the test's own text
    for text in ("float64[A,B]", "int8[A]"):
        try:
            result = kt.eval_shape(fn, text)
        except (TypeError, ValueError):
            result = None
        rank = kt.TensorType.parse(text).ndim
        for sizes in itertools.product(range(4), repeat=rank):
            env = dict(zip("AB", sizes, strict=False))
            try:
                want = np.shape(fn(np.zeros(sizes)))
            except (IndexError, ValueError, TypeError):
                want = None
            holds = result is not None and bool(result.holds(env))
            if holds:
                assert want == tuple(substitute(d, env) for d in result.type.shape), env
            else:
                assert want is None or 0 in sizes, (call, text, env, want)
