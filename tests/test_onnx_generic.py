"""The size-generic node memo (kantensor.onnx.generic): a node typed by substituting its
constants into the typing of its template must be typed exactly as the ordinary build
types it (types, conditions, errors), by brute force over sizes 0..3 (0 and 1 included:
broadcasting and empty axes turn on them) and a named size, and by hypothesis; and the
templates must actually serve the nodes of a model whose blocks differ in their sizes."""

from __future__ import annotations

import itertools
import math

import numpy as np
import onnx
import onnx.numpy_helper
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from onnx import TensorProto, helper

from kantensor.onnx import generic, nodecache, nodememo, repeats
from kantensor.onnx.importer import read_types
from kantensor.onnx.typebytes import _dim_param
from kantensor.types.conditions import Condition
from kantensor.types.dim import Dim
from kantensor.types.dimminmax import dim_max
from kantensor.types.symbols import private
from kantensor.types.type import TensorType

DOMAIN = (0, 1, 2, 3, "n")


def _model(op_type: str, shapes: list[tuple], attrs: dict, opset: int = 18,
           outputs: int = 1, facts: bool = False, known: tuple[int, ...] = ()
           ) -> onnx.ModelProto:
    """Four nodes of ``op_type``: three on inputs of other sizes of the same template
    (the first node of an entry may be read before the reader knows its entry; the
    next one marks the template key met, the third keeps its build), then one on
    inputs of ``shapes``, which makes the template of it and is typed by it;
    with ``facts``, after nodes that make ``n >= 3`` and ``m == n`` facts; the inputs
    at the positions ``known`` are initializers (weights: their shapes all ints)."""
    inputs, nodes, outs, weights = [], [], [], []
    if facts:
        inputs += [helper.make_tensor_value_info(n, TensorProto.FLOAT, s) for n, s in
                   (("f0", [1, 1, "n"]), ("f1", [2, "m"]), ("f2", ["n", 2]))]
        nodes += [helper.make_node("MaxPool", ["f0"], ["g0"], kernel_shape=[3]),
                  helper.make_node("MatMul", ["f1", "f2"], ["g1"])]
    for prefix, sizes in (("s", _sibling(shapes, 10)), ("t", _sibling(shapes, 20)),
                          ("u", _sibling(shapes, 30)), ("x", shapes)):
        names = [f"{prefix}{i}" for i in range(len(shapes))]
        for k, (n, s) in enumerate(zip(names, sizes, strict=True)):
            if k in known:
                weights.append(onnx.numpy_helper.from_array(
                    np.arange(math.prod(s), dtype=np.float32).reshape(s), n))
            else:
                inputs.append(helper.make_tensor_value_info(n, TensorProto.FLOAT, list(s)))
        made = [f"{prefix}y{k}" for k in range(outputs)]
        nodes.append(helper.make_node(op_type, names, made, name=prefix, **attrs))
        outs += made
    graph = helper.make_graph(nodes, "g", inputs,
                              [helper.make_tensor_value_info(o, TensorProto.FLOAT, None)
                               for o in outs], initializer=weights)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def _typing(model: onnx.ModelProto, templates: bool = True, given: bool = False) -> tuple:
    """The reader's types and conditions and untyped names (with the templates, or built
    the ordinary way), or the error's class and message; and each instance the templates
    gave (None: a condition failed), with ``given`` as a pair with the text of the input
    types it was given (tests/test_onnx_generic_cases.py)."""
    generic.TEMPLATES.clear()
    generic.PINNED.clear()
    nodememo.MEMO.clear()
    nodecache.NODES.clear()  # (a record's slot would type a node met before)
    served: list = []
    real, real_typing = generic.instance, repeats._typing

    def counted(made: object, constants: tuple, types: tuple) -> tuple | None:
        instance = real(made, constants, types)
        served.append((instance, tuple(map(str, types))) if given else instance)
        return instance

    def typing(last: object) -> object:  # (repeats' generated typing: an instance too)
        made = real_typing(last)
        if made is None:
            return None

        def typed(types: dict, values: dict, unread: dict, names: tuple) -> object:
            t = made(types, values, unread, names)
            if t is not None:  # (None: its checks, or a condition: not told apart)
                instance = ((t,), (None,), (None,), ())
                served.append((instance, tuple(str(types[n]) for n in names if n))
                              if given else instance)
            return t
        return typed
    generic.instance = counted if templates else (lambda *a: None)
    repeats._typing = typing
    try:
        reader = read_types(model)
    except Exception as exc:  # noqa: BLE001 - the error is the answer compared
        return (type(exc).__name__, str(exc)), served
    finally:
        generic.instance, repeats._typing = real, real_typing
    return (tuple((k, str(v)) for k, v in reader.types.items()),
            tuple(map(str, reader.conditions)), tuple(sorted(reader.untyped))), served


def _sibling(shapes: list[tuple], by: int) -> list[tuple]:
    """The shapes with each constant above 1 greater by ``by`` (distinct stay distinct):
    the same template, other sizes."""
    return [tuple(d + by if type(d) is int and d > 1 else d for d in s) for s in shapes]


def _assignments(domain: tuple, ranks: tuple) -> list[list[tuple]]:
    """Every assignment of ``domain`` to the first four axes of inputs of ``ranks`` (the
    rest 2), as one shape per input."""
    axes = sum(ranks)
    out = []
    for sizes in itertools.product(domain, repeat=min(axes, 4)):
        flat, shapes = list(sizes) + [2] * (axes - len(sizes)), []
        for r in ranks:
            shapes.append(tuple(flat[:r]))
            flat = flat[r:]
        out.append(shapes)
    return out


def _compare(op_type: str, shapes: list[tuple], attrs: dict, opset: int = 18,
             outputs: int = 1, facts: bool = False, known: tuple[int, ...] = ()) -> bool:
    """Assert the instance's typing through the template equals its ordinary typing;
    whether a template typed it."""
    model = _model(op_type, shapes, attrs, opset, outputs, facts, known)
    found, served = _typing(model)
    assert found == _typing(model, templates=False)[0], (op_type, shapes, attrs)
    return any(t is not None for t in served)


#: (op type, attributes, ranks of the inputs, opset)
CASES = [
    ("MatMul", {}, (2, 2), 18),
    ("MatMul", {}, (1, 2), 18),
    ("MatMul", {}, (3, 1), 18),
    ("Add", {}, (2, 1), 18),
    ("Add", {}, (2, 2), 18),
    ("Mul", {}, (1, 2), 18),
    ("Relu", {}, (3,), 18),
    ("Where", {}, (1, 1, 2), 18),
    ("Gemm", {"transB": 1}, (2, 2, 1), 18),
    ("Concat", {"axis": 1}, (2, 2), 18),
    ("Transpose", {"perm": [1, 0, 2]}, (3,), 18),
    ("Softmax", {"axis": -1}, (2,), 18),
    ("Flatten", {"axis": 1}, (3,), 18),
    ("ReduceSum", {"axes": [1], "keepdims": 0}, (3,), 11),
    ("MaxPool", {"kernel_shape": [2], "strides": [2]}, (3,), 18),
    ("Conv", {}, (3, 3), 18),
]


@pytest.mark.parametrize("op_type, attrs, ranks, opset", CASES,
                         ids=[f"{c[0]}-{'x'.join(map(str, c[2]))}" for c in CASES])
def test_template_equals_ordinary_build(op_type, attrs, ranks, opset):
    """Every assignment of sizes 0..3 and a named size to the inputs' axes (at most 4
    axes, the rest 2), typed through a template of other sizes, as the ordinary build
    types it."""
    served = 0
    for shapes in _assignments(DOMAIN, ranks):
        served += _compare(op_type, shapes, attrs, opset)
    if op_type in ("MatMul", "Add", "Relu", "Gemm", "Concat", "Transpose", "Softmax"):
        assert served > 0, "no template typed a node"


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(["Add", "Mul", "MatMul", "Sub", "Concat", "Where"]),
       st.integers(1, 3), st.data())
def test_template_equals_ordinary_build_random(op_type, rank, data):
    """Random ranks and sizes (0..6 and two named sizes), as above."""
    n_in = 3 if op_type == "Where" else 2
    size = st.one_of(st.integers(0, 6), st.sampled_from(["n", "m"]))
    shapes = [tuple(data.draw(st.lists(size, min_size=rank if op_type == "Concat" else 0,
                                       max_size=rank if op_type == "Concat" else 3)))
              for _ in range(n_in)]
    attrs = {"axis": data.draw(st.integers(-rank, rank - 1))} if op_type == "Concat" else {}
    _compare(op_type, shapes, attrs)


#: (op type, attributes, ranks of the inputs, the positions of the weights)
WEIGHTED = [
    ("MatMul", {}, (2, 2), (1,)),
    ("Gemm", {"transB": 1}, (2, 2, 1), (1, 2)),
    ("Conv", {}, (3, 3), (1,)),
    ("Conv", {"pads": [1, 1]}, (3, 3, 1), (1, 2)),
    ("Add", {}, (2, 1), (1,)),
    ("Concat", {"axis": 1}, (2, 2), (0,)),
    ("Add", {}, (2, 1), (0, 1)),  # every input known: folded, never by template
]


@pytest.mark.parametrize("op_type, attrs, ranks, known", WEIGHTED,
                         ids=[f"{c[0]}-{'x'.join(map(str, c[2]))}-{c[3]}" for c in WEIGHTED])
def test_template_with_weights_equals_ordinary_build(op_type, attrs, ranks, known):
    """As above where some inputs are initializers (a layer's weights, the template's
    use in exported models): every assignment of sizes 0..3 to the first four axes (the
    rest 2; a named size where the input is not a weight), typed through a template as
    the ordinary build types it; a node whose inputs are all known is folded, never
    typed by a template."""
    served = 0
    for shapes in _assignments(DOMAIN, ranks):
        if any(type(d) is str for i in known for d in shapes[i]):
            continue  # (a weight's sizes are ints)
        served += _compare(op_type, shapes, attrs, known=known)
    assert (served == 0) == (len(known) == len(ranks)), served


def test_templates_type_the_blocks_of_a_distinct_model():
    """A chain of MatMul -> Add -> Relu blocks of widths i+2 -> i+3: the blocks are
    typed by three templates, as the ordinary build types them."""
    def model(blocks: int) -> onnx.ModelProto:
        nodes = []
        inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 2])]
        x = "x"
        for i in range(blocks):
            inputs.append(helper.make_tensor_value_info(f"w{i}", TensorProto.FLOAT,
                                                        [i + 2, i + 3]))
            inputs.append(helper.make_tensor_value_info(f"c{i}", TensorProto.FLOAT, [i + 3]))
            nodes += [helper.make_node("MatMul", [x, f"w{i}"], [f"m{i}"]),
                      helper.make_node("Add", [f"m{i}", f"c{i}"], [f"a{i}"]),
                      helper.make_node("Relu", [f"a{i}"], [f"r{i}"])]
            x = f"r{i}"
        graph = helper.make_graph(nodes, "g", inputs, [helper.make_tensor_value_info(
            x, TensorProto.FLOAT, None)])
        return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])

    m = model(40)
    typed, served = _typing(m)
    assert len(generic.TEMPLATES) == 3 and None not in generic.TEMPLATES.values()
    # every node but the first three of each template (one marks its key met, one
    # keeps its build, and the first read before the reader knows its entry: not when
    # the process has found the entry before), and the check of each template at the
    # node that makes it of that build
    assert 3 * (40 - 3) + 3 <= len(served) <= 3 * (40 - 2) + 3 and None not in served
    assert dict(typed[0])["r39"] == "float32[batch,42]" and not typed[1]
    assert typed == _typing(m, templates=False)[0]  # the ordinary build's


def test_templates_type_the_convolutions_of_a_distinct_network():
    """A chain of 3x3 Conv -> Relu layers of widths i+3 -> i+4, their weights
    initializers: the Conv template over a kernel of template sizes declines (its
    signature fixes the kernel at 3), the kernel's 3 is then kept as a constant and the
    next template types the later layers, as the ordinary build types them."""
    vi = helper.make_tensor_value_info
    nodes, weights, x = [], [], "x"
    for i in range(12):
        weights.append(onnx.numpy_helper.from_array(
            np.zeros((i + 4, i + 3, 3, 3), np.float32), f"w{i}"))
        nodes += [helper.make_node("Conv", [x, f"w{i}"], [f"c{i}"], pads=[1, 1, 1, 1],
                                   kernel_shape=[3, 3]),
                  helper.make_node("Relu", [f"c{i}"], [f"r{i}"])]
        x = f"r{i}"
    graph = helper.make_graph(nodes, "g", [vi("x", TensorProto.FLOAT, ["b", 3, 32, "w"])],
                              [vi(x, TensorProto.FLOAT, None)], initializer=weights)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    typed, served = _typing(model)
    assert any(k.entry.op_type == "Conv" and isinstance(t, generic.Template)
               for k, t in generic.TEMPLATES.items())
    assert any(3 in pinned for pinned in generic.PINNED.values())
    assert typed == _typing(model, templates=False)[0]
    assert dict(typed[0])["r11"] == "float32[b,15,32,w]"
    # Relu's from its fourth layer on, Conv's from its seventh (the first read before
    # its entry is known, one marks the key, one keeps its build, one declines and pins
    # 3, one marks the new key, one keeps its build), and each template's check; one
    # layer sooner each when the process has found the entries before
    assert (12 - 3) + (12 - 6) + 2 <= len(served) <= (12 - 2) + (12 - 5) + 2
    assert None not in served


def test_a_template_key_met_twice_makes_no_template():
    """A fire module's 1x1 squeeze and expand convs (after a 3x3 that makes the reader
    meet the entry) have one template key, met twice (the next module has other sizes
    after its pool): no template is made; a third makes it of the second's build and is
    its first instance. Each typed as the ordinary build types it."""
    def model(convs: int) -> onnx.ModelProto:
        channels = [(3, 8, 3), (8, 2, 1), (2, 4, 1), (4, 6, 1)][:convs]  # (in, out, k)
        weights = [onnx.numpy_helper.from_array(np.zeros((b, a, k, k), np.float32),
                                                f"w{i}") for i, (a, b, k) in
                   enumerate(channels)]
        nodes = [helper.make_node("Conv", [f"c{i - 1}" if i else "x", f"w{i}"], [f"c{i}"])
                 for i in range(convs)]
        graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info(
            "x", TensorProto.FLOAT, ["b", 3, "h", "w"])], [helper.make_tensor_value_info(
                f"c{convs - 1}", TensorProto.FLOAT, None)], initializer=weights)
        return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])

    twice, served = _typing(model(3))
    assert not served and not any(isinstance(t, generic.Template)
                                  for t in generic.TEMPLATES.values())
    assert twice == _typing(model(3), templates=False)[0]
    assert dict(twice[0])["c2"] == "float32[b,4,h-2,w-2]"
    thrice, served = _typing(model(4))
    assert len(served) == 2 and None not in served  # the template's check, the third
    assert thrice == _typing(model(4), templates=False)[0]
    assert dict(thrice[0])["c3"] == "float32[b,6,h-2,w-2]"


def test_a_size_past_the_limits_is_built_the_ordinary_way():
    """Flatten's ``a1*a2`` over a template's sizes: at constants whose product is past a
    type's limit the template gives way to the ordinary build, whose error is the
    answer (here the flattened sizes of [2, 2**40, 2**30])."""
    inputs, nodes = [], []
    for prefix, shape in (("s", [2, 5, 7]), ("t", [2, 6, 8]), ("u", [2, 9, 10]),
                          ("x", [2, 2**40, 2**30])):
        inputs.append(helper.make_tensor_value_info(prefix, TensorProto.FLOAT, shape))
        nodes.append(helper.make_node("Flatten", [prefix], [f"{prefix}y"], axis=1))
    graph = helper.make_graph(nodes, "g", inputs, [helper.make_tensor_value_info(
        "xy", TensorProto.FLOAT, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    found, served = _typing(model)
    assert found == _typing(model, templates=False)[0]
    assert served[-1] is None and isinstance(found[0], str)  # a template asked, declined


def test_a_model_naming_sizes_like_the_templates_is_typed_by_them():
    """A model whose own named sizes are spelt like a template's (``size0``, ``size1``)
    is typed by templates exactly as the ordinary build types it: the template's sizes
    are private, so the model's ``size1`` stays a size of its own beside the template's
    second size (were they one, ``[size1, 5] @ [5, 7]`` would come out ``[7, 7]``)."""
    assert _compare("Add", [("size0", 3), (3,)], {})
    assert _compare("MatMul", [("size1", 3), (3, "size0")], {})
    assert _compare("MatMul", [("size1", 5), (5, 7)], {})
    found, served = _typing(_model("MatMul", [("size1", 5), (5, 7)], {}))
    assert dict(found[0])["xy0"] == "float32[size1,7]" and served[-1] is not None
    found, _ = _typing(_model("Add", [("size0", 3), (3,)], {}))
    assert dict(found[0])["xy0"] == "float32[size0,3]"


def test_the_template_sizes_cannot_be_named():
    """No text names a template's size: not its own text (not an identifier, so a
    model's ``dim_param`` of that text is an unknown size), not the name of a user's
    size of that spelling, not another private size of the same text."""
    size = generic.SYMBOLS[0]
    text = str(size)
    with pytest.raises(ValueError, match="identifier"):
        Dim(text)
    assert Dim(size.name) is size and size.name != text and text != size.name
    assert private(text) != size and hash(size.name) != hash(text)
    assert _dim_param(text) is None
    user = Dim("size0")
    assert user != generic.SYMBOLS[0] and str(user + size) in (f"size0 + {text}",
                                                              f"{text} + size0")
    assert user + size == size + user and (user + size) - user == size
    same = private("n")  # spelt as a user's n: still another size, in a canonical order
    n = Dim("n")
    assert same + n == n + same != 2 * n and (same + n) - n == same
    assert dim_max(same, n + 1) == dim_max(n + 1, same) != dim_max(n, n + 1)


def _conv_model(first: list, conv: list, named: list) -> onnx.ModelProto:
    """Conv nodes (kernel 3) on the inputs ``(x, w)`` of ``conv`` after a Conv on
    ``first`` (read before the reader knows the entry), with ``named`` other inputs
    and nodes (value infos and nodes) first."""
    inputs, nodes = list(named[0]), list(named[1])
    for i, (x, w) in enumerate([first, *conv]):
        inputs += [helper.make_tensor_value_info(f"x{i}", TensorProto.FLOAT, x),
                   helper.make_tensor_value_info(f"w{i}", TensorProto.FLOAT, w)]
        nodes.append(helper.make_node("Conv", [f"x{i}", f"w{i}"], [f"y{i}"],
                                      kernel_shape=[3]))
    graph = helper.make_graph(nodes, "g", inputs, [helper.make_tensor_value_info(
        n.output[0], TensorProto.FLOAT, None) for n in nodes])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])


def test_a_template_made_under_contradictory_facts_types_nothing():
    """A model whose facts contradict each other (a Conv's ``m == 3`` and ``5 == m``)
    would prove anything of a template's sizes: it is refused at that Conv (its own
    conditions contradict each other, onnx/contradiction.py), with or without
    templates, and a Conv template made while reading it must not drop its conditions
    (window 3 fits, weight's window is 3) in another, consistent model (the memo
    outlives a model): there a window larger than the input is refused as the ordinary
    build refuses it."""
    vi = helper.make_tensor_value_info
    contradictory = _conv_model([[2, 5, 9], [4, "m", "m"]],
                                [[[22, 5, 22], [14, 5, 3]], [[2, 7, 2], [4, 7, 3]]],
                                [[], []])
    refused = _typing(contradictory)[0]
    assert refused == _typing(contradictory, templates=False)[0]
    assert refused[0] == "TypeInferenceError" and "contradict each other" in refused[1]
    consistent = _conv_model([[1, 1, 4], [1, 1, 3]], [[[2, 7, 2], [4, 7, 3]]],
                             [[vi("p", TensorProto.FLOAT, [2, "k"]),
                               vi("q", TensorProto.FLOAT, [5, 2])],
                              [helper.make_node("MatMul", ["p", "q"], ["pq"])]])
    ordinary = _typing(consistent, templates=False)[0]
    assert ordinary[0] == "TypeInferenceError" and "window does not fit" in ordinary[1]
    generic.TEMPLATES.clear()
    nodememo.MEMO.clear()
    with pytest.raises(Exception, match="contradict each other"):  # refused at its first
        read_types(_conv_model([[2, 5, 9], [4, "m", "m"]], [[[22, 5, 22], [14, 5, 3]]],
                               [[], []]))  # Conv; the templates made are kept
    nodememo.MEMO.clear()
    with pytest.raises(Exception, match="window does not fit"):
        read_types(consistent)


def test_facts_naming_a_template_size_type_nothing():
    """A model whose facts name ``size0`` (``size0 == n`` from a MatMul, and ``n >= 3``)
    though no input of the node does: a MaxPool template of ``[1, n, size0]`` must not
    take the model's ``size0`` for its own (the facts would prove its window fits), so
    the window larger than ``[1, n, 2]`` is refused as the ordinary build refuses it."""
    vi = helper.make_tensor_value_info
    nodes = [helper.make_node("MaxPool", ["p"], ["y0"], kernel_shape=[3]),
             helper.make_node("MatMul", ["a", "b"], ["ab"])]
    inputs = [vi("p", TensorProto.FLOAT, [1, 1, "n"]), vi("a", TensorProto.FLOAT, [2, "size0"]),
              vi("b", TensorProto.FLOAT, ["n", 2])]
    for i, size in enumerate((7, 8, 2)):
        inputs.append(vi(f"x{i}", TensorProto.FLOAT, [1, "n", size]))
        nodes.append(helper.make_node("MaxPool", [f"x{i}"], [f"y{i + 1}"], kernel_shape=[3]))
    graph = helper.make_graph(nodes, "g", inputs, [helper.make_tensor_value_info(
        "y3", TensorProto.FLOAT, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    found = _typing(model)[0]
    assert found == _typing(model, templates=False)[0]
    assert found[0] == "TypeInferenceError" and "window does not fit" in found[1]


@pytest.mark.parametrize("op_type, attrs, ranks", [
    ("MaxPool", {"kernel_shape": [3], "strides": [2]}, (3,)),
    ("Conv", {"strides": [2]}, (3, 3)),
    ("Add", {}, (2, 1)),
    ("MatMul", {}, (2, 2)),
])
def test_template_equals_ordinary_build_under_facts(op_type, attrs, ranks):
    """As above, in a model whose earlier nodes made facts (``n >= 3``, ``m == n``) over
    the named sizes the inputs take: the template is made and used under them."""
    served = 0
    for shapes in _assignments((1, 2, 3, "n", "m"), ranks):
        served += _compare(op_type, shapes, attrs, facts=True)
    assert served > 0, "no template typed a node"


#: The blocks of a random chain: (op type, attributes, how many extra inputs)
BLOCKS = ("MatMul", "Add", "Mul", "Relu", "Concat", "Gemm", "Transpose", "Softmax")


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_random_distinct_blocks_typed_as_fresh(data):
    """A chain of a random pattern of blocks repeated, each block of its own sizes (0..9
    and named sizes, some spelt like a template's; its other inputs weights or not),
    typed with the templates as without them: types, conditions, untyped names or the
    error."""
    size = st.one_of(st.integers(0, 9), st.sampled_from(["n", "size0", "size1"]))
    vi = helper.make_tensor_value_info
    x = [data.draw(size, "batch"), data.draw(size, "width")]
    inputs, nodes, weights = [vi("x0", TensorProto.FLOAT, x)], [], []
    pattern = data.draw(st.lists(st.sampled_from(BLOCKS), min_size=1, max_size=3))
    for i, op in enumerate(pattern * data.draw(st.integers(2, 5), "repeats")):
        # an extra input's first size: the chain's (3 times in 4) or another (an error,
        # or a broadcast)
        fit = x[1] if data.draw(st.integers(0, 3), "fits") else data.draw(size)
        attrs, extra = {}, []
        if op in ("MatMul", "Gemm"):
            extra = [[fit, data.draw(size)]]
            if op == "Gemm":
                extra[0].reverse()
                attrs = {"transB": 1}
            x = [x[0], extra[0][0] if op == "Gemm" else extra[0][1]]
        elif op in ("Add", "Mul"):
            extra = [[data.draw(st.sampled_from([fit, 1]))]]
        elif op == "Concat":
            extra = [[data.draw(st.one_of(st.just(x[0]), size)), data.draw(size)]]
            attrs = {"axis": 1}
        elif op == "Transpose":
            attrs = {"perm": [1, 0]}
            x = x[::-1]
        elif op == "Softmax":
            attrs = {"axis": -1}
        names = [f"x{i}"]
        for k, shape in enumerate(extra):
            names.append(f"e{i}_{k}")
            if all(type(d) is int for d in shape) and data.draw(st.booleans(), "weight"):
                weights.append(onnx.numpy_helper.from_array(
                    np.ones(shape, dtype=np.float32), names[-1]))
            else:
                inputs.append(vi(names[-1], TensorProto.FLOAT, shape))
        nodes.append(helper.make_node(op, names, [f"x{i + 1}"], name=f"b{i}", **attrs))
    graph = helper.make_graph(nodes, "g", inputs,
                              [vi(nodes[-1].output[0], TensorProto.FLOAT, None)],
                              initializer=weights)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    assert _typing(model)[0] == _typing(model, templates=False)[0]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.lists(st.integers(-3, 3), min_size=3, max_size=3),
                          st.integers(-9, 9), st.sampled_from(["==", "!=", ">=", ">", "<", "<="]),
                          st.booleans()), min_size=1, max_size=3),
       st.lists(st.integers(0, 12), min_size=3, max_size=3))
def test_a_template_checks_its_conditions_as_holds_does(clauses, constants):
    """A template's conditions checked at an instance's constants (as linear forms where
    they are linear, by substitution where a floor makes them not) hold exactly where
    Condition.holds says they do."""
    a, b, c = generic.SYMBOLS[:3]
    conditions = []
    for (x, y, z), k, op, floor in clauses:
        left = x * a + y * b + z * c + k
        conditions.append(Condition(left // 2 if floor else left, op, 0))
    made = generic.Template((TensorType("float32", [a]),), tuple(conditions), ())
    sizes = {s.name: v for s, v in zip((a, b, c), constants, strict=True)}
    expected = all(cond.holds(sizes) for cond in conditions)
    found = generic.instance(made, tuple(constants), ())
    assert (found is not None) == expected
    if expected:
        assert found[0] == (TensorType("float32", [constants[0]]),)


def test_the_rule_of_counted_values_has_one_home():
    """nodememo.read_inputs says for both memos whether a node's input values count (every
    input given is known: vacuously with none given); an input not defined yet stops it."""
    t = TensorType("float32", (2,))
    reader = type("Reader", (), {"types": {"a": t, "b": t, "c": t}, "values": {"a": 1},
                                 "unread": {"b"}})()
    assert nodememo.read_inputs(reader, ["a", "", "b"]) == ([t, None, t], True)
    assert nodememo.read_inputs(reader, ["a", "c"]) == ([t, t], False)
    assert nodememo.read_inputs(reader, ["", ""]) == ([None, None], True)
    assert nodememo.read_inputs(reader, ["a", "undefined"]) is None
    assert generic.read_inputs is nodememo.read_inputs  # (no copy of the rule)
