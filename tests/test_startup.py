"""Start-up (issue 36): what ``import kantensor`` leaves for first use, and the catalogue
tables it reads precompiled. Timings are in benchmarks/import_time.py, not here."""

from __future__ import annotations

import gc
import subprocess
import sys

import pytest

from kantensor.graph.heap import collector_paused
from kantensor.ops import catalogue, shipped
from kantensor.ops.catalogue import catalogue_files, catalogue_root, load_all, read_tables


def _printed(code: str) -> str:
    """What a fresh interpreter running ``code`` prints (stripped)."""
    return subprocess.run([sys.executable, "-c", code], check=True, capture_output=True,
                          text=True).stdout.strip()


def _loaded_after(statement: str, modules: list[str]) -> dict[str, bool]:
    out = _printed(f"{statement}\nimport sys\n"
                   f"print(' '.join(str(m in sys.modules) for m in {modules!r}))").split()
    return dict(zip(modules, (flag == "True" for flag in out), strict=True))


def test_import_kantensor_leaves_graphviz_and_numpy_random_for_first_use():
    loaded = _loaded_after("import kantensor", ["graphviz", "numpy.random", "kantensor.ops"])
    assert loaded == {"graphviz": False, "numpy.random": False, "kantensor.ops": True}


def test_first_picture_and_first_trace_load_them():
    """A first picture loads graphviz; a first trace makes its traced ``numpy.random``
    (the sampler in the traced code answers a typed tensor, as when it was made at
    import)."""
    loaded = _loaded_after(
        "import kantensor as kt\nimport numpy as np\n"
        "kt.graphviz(kt.matrix('x') + 1)\n"
        "def f(a):\n    return a + np.random.rand(a.shape[0])\n"
        "assert str(kt.eval_shape(f, 'float32[n]').type) == 'float64[n]'",
        ["graphviz", "numpy.random"])
    assert loaded == {"graphviz": True, "numpy.random": True}


def test_a_first_onnx_typing_with_constants_leaves_numpy_ma_unloaded():
    """A constant is checked for a mask by the class in ``numpy.ma`` only once something
    has imported it (nothing is a masked array before): asking ``np.ma`` imported it,
    ~8 ms of a first ``infer_shapes``. A masked array is still refused."""
    model = ("from onnx import helper, TensorProto\n"
             "x = helper.make_tensor_value_info('x', TensorProto.FLOAT, ['n', 4])\n"
             "c = helper.make_tensor('c', TensorProto.INT64, [2], [-1, 2])\n"
             "nodes = [helper.make_node('Constant', [], ['s'], value=c),\n"
             "         helper.make_node('Reshape', ['x', 's'], ['y'])]\n"
             "g = helper.make_graph(nodes, 'g', [x],\n"
             "    [helper.make_tensor_value_info('y', TensorProto.FLOAT, None)])\n"
             "import kantensor.onnx as ko\n"
             "ko.infer_shapes(helper.make_model(g))")
    assert _loaded_after(model, ["numpy.ma"]) == {"numpy.ma": False}
    loaded = _loaded_after(
        "import numpy as np, kantensor as kt\n"
        "try:\n    kt.constant(np.ma.masked_array([1, 2], mask=[0, 1]))\n"
        "except TypeError as e:\n    assert 'masked arrays are not supported' in str(e)\n"
        "else:\n    raise AssertionError('a masked array was taken')", ["numpy.ma"])
    assert loaded == {"numpy.ma": True}


_FAMILY = ["kantensor.onnx.math", "kantensor.onnx.nn", "kantensor.onnx.tensor",
           "kantensor.onnx.math.activations", "kantensor.onnx.nn.conv",
           "kantensor.onnx.nn.convvariants", "kantensor.onnx.tensor.shape"]


def test_import_kantensor_onnx_loads_the_family_packages_not_their_modules():
    """The three family packages (a docstring each) are imported at start, so a first
    ``infer_shapes`` does not find and read them (issue 32); the modules of the entries'
    code are left to the entries that name them."""
    assert _loaded_after("import kantensor.onnx", _FAMILY) == dict.fromkeys(_FAMILY[:3], True) \
        | dict.fromkeys(_FAMILY[3:], False)


def test_a_first_typing_of_conv_and_pool_leaves_conv_variants_unloaded():
    """Conv and MaxPool load nn/conv.py, not ConvInteger's and QLinearConv's code
    (nn/convvariants.py: no builder of theirs registered); the model is typed as onnx
    types it."""
    model = ("from onnx import helper, TensorProto, shape_inference\n"
             "x = helper.make_tensor_value_info('x', TensorProto.FLOAT, [1, 3, 8, 8])\n"
             "w = helper.make_tensor('w', TensorProto.FLOAT, [4, 3, 3, 3], [0.0] * 108)\n"
             "nodes = [helper.make_node('Conv', ['x', 'w'], ['c']),\n"
             "         helper.make_node('Relu', ['c'], ['r']),\n"
             "         helper.make_node('MaxPool', ['r'], ['y'], kernel_shape=[2, 2],\n"
             "                          strides=[2, 2])]\n"
             "g = helper.make_graph(nodes, 'g', [x], [helper.make_tensor_value_info(\n"
             "    'y', TensorProto.FLOAT, None)], [w])\n"
             "m = helper.make_model(g, opset_imports=[helper.make_opsetid('', 17)])\n"
             "import kantensor.onnx as ko\n"
             "def shapes(m):\n"
             "    return {v.name: [d.dim_value for d in v.type.tensor_type.shape.dim]\n"
             "            for v in [*m.graph.value_info, *m.graph.output]}\n"
             "assert shapes(ko.infer_shapes(m)) == shapes(shape_inference.infer_shapes(m))\n"
             "assert shapes(ko.infer_shapes(m))['y'] == [1, 4, 3, 3]\n"
             "from kantensor.ops.templates import BUILDERS\n"
             "assert not [b for b in BUILDERS if b.endswith('.build_conv_integer')]")
    loaded = _loaded_after(model, _FAMILY)
    assert loaded == dict.fromkeys(_FAMILY, True) | {"kantensor.onnx.tensor.shape": False,
                                                     "kantensor.onnx.nn.convvariants": False}

def test_the_shipped_catalogue_tables_are_those_of_the_toml_files():
    """signatures/tables.jsonl is what ``make catalogue-index`` makes of the files now,
    and gives each file exactly the tables TOML gives (run ``make catalogue-index``
    after editing a catalogue file)."""
    assert (catalogue_root() / shipped.TABLES).read_text(encoding="utf-8") == \
        shipped.serialized()
    tables = shipped.precompiled()
    files = list(catalogue_files())
    assert sorted(tables) == sorted(name for name, _ in files)
    for name, text in files:
        assert shipped.tables_of(name, text, tables) == read_tables(name, text)


def test_a_file_edited_since_is_read_from_its_toml():
    tables = shipped.precompiled()
    name, text = next(iter(catalogue_files()))
    edited = text.replace('doc = "', 'doc = "Edited. ', 1)
    assert edited != text
    assert shipped.tables_of(name, edited, tables) is None
    assert shipped.tables_of("nosuchfile.toml", text, tables) is None


@pytest.mark.parametrize("cut", ["line lost", "line added", "last line lost", "no index",
                                 "deep index", "unreadable"])
def test_tables_whose_lines_moved_are_not_used(monkeypatch: pytest.MonkeyPatch, cut: str):
    """The precompiled tables are one index line and one line per table: with a table's
    line lost or one added (each file's tables would be another's lines), the index
    not JSON or nested deeper than json decodes (RecursionError), or the file not
    readable (a folder of that name), no file's tables are used (the files are read
    from their TOML)."""
    path = catalogue_root() / shipped.TABLES
    lines = path.read_text(encoding="utf-8").split("\n")
    assert len(lines) > 100 and lines[-1] == ""
    changed = {"line lost": lines[:50] + lines[51:],
               "line added": lines[:50] + ['{"name": "Add"}'] + lines[50:],
               "last line lost": lines[:-2] + [""],
               "no index": ["{"] + lines[1:], "deep index": ["[" * 100_000] + lines[1:],
               "unreadable": None}[cut]

    class Text:
        def read_text(self, encoding: str) -> str:
            if changed is None:
                raise IsADirectoryError(f"{path} is a folder")
            return "\n".join(changed)

    monkeypatch.setattr(shipped, "_index", lambda folder: Text())
    assert shipped.precompiled() == {}
    monkeypatch.setattr(shipped, "_index", lambda folder: path)
    assert len(shipped.precompiled()) == len(list(catalogue_files()))


def test_loading_from_the_precompiled_tables_gives_the_entries_of_the_toml(monkeypatch):
    """load_all reads the precompiled tables; with none it reads every TOML file: the
    same entries either way."""
    def described(entries: list) -> list:
        return [(e.file, e.index, e.name, str(e.signature), e.impl, e.compute, e.operator,
                 e.method, e.variadic, e.doc, e.spec.text, e.builder, e.examples, e.numpy,
                 e.extra, e.lowering) for e in entries]

    def no_toml(*args: object) -> None:
        raise AssertionError("a shipped file was read from its TOML")

    with monkeypatch.context() as patched:
        patched.setattr(catalogue, "read_tables", no_toml)
        fast = described(load_all())
    monkeypatch.setattr(catalogue, "precompiled", dict)
    assert described(load_all()) == fast


def test_the_collector_is_resumed_as_it_was_after_import():
    """``import kantensor`` and ``import kantensor.onnx`` pause the cyclic collector
    while they import (a tenth of their time) and leave it as they found it: on, or off
    when the user had turned it off; also when the import fails."""
    def collecting(code: str) -> list[str]:
        return subprocess.run([sys.executable, "-c", code + "\nprint(gc.isenabled())"],
                              check=True, capture_output=True, text=True).stdout.split()

    assert collecting("import gc, kantensor.onnx") == ["True"]
    assert collecting("import gc; gc.disable(); import kantensor.onnx") == ["False"]
    assert collecting("import gc, sys\nsys.modules['onnx'] = None\ntry:\n"
                      "    import kantensor.onnx\nexcept ImportError:\n    pass") == ["True"]


def test_paused_collector_resumes_as_it_was():
    before = gc.isenabled()
    try:
        gc.enable()
        with pytest.raises(RuntimeError), collector_paused():
            assert not gc.isenabled()
            raise RuntimeError
        assert gc.isenabled()
        gc.disable()
        with collector_paused():
            with collector_paused():
                pass
            assert not gc.isenabled()
        assert not gc.isenabled()
    finally:
        (gc.enable if before else gc.disable)()


#: Modules that ``kantensor onnx MODEL`` never needs: loaded on first use only.
_FRONT_END_MODULES = ["kantensor.evalshape", "kantensor.refinement", "kantensor.ipython",
                      "kantensor.commands", "kantensor.printing", "kantensor.graphtext"]


def test_import_kantensor_leaves_the_front_ends_for_first_use():
    """``import kantensor`` (so every ``import kantensor.X``) loads none of the front ends
    of :data:`kantensor.FRONT_ENDS`; ``kantensor.onnx`` needs none of them either, nor
    the backend's compiler (its control flow and FlexAttention load it when used)."""
    modules = [f"kantensor.{m}" for m in sorted(__import__("kantensor").FRONT_ENDS)]
    loaded = _loaded_after("import kantensor", modules + _FRONT_END_MODULES)
    assert not any(loaded.values()), loaded
    loaded = _loaded_after("import kantensor.onnx", _FRONT_END_MODULES +
                           ["kantensor.onnx.runner", "kantensor.onnx.controlflow"])
    assert not any(loaded.values()), loaded


def test_a_front_end_loads_on_first_access_and_is_the_modules_own():
    """Each name of FRONT_ENDS is the defining module's object, reached as ``kt.NAME``
    and by ``from kantensor import NAME``, and stays an attribute after."""
    code = ("import importlib, kantensor as kt\n"
            "for module, names in kt.FRONT_ENDS.items():\n"
            "    m = importlib.import_module('kantensor.' + module)\n"
            "    for name in names:\n"
            "        assert getattr(kt, name) is getattr(m, name), name\n"
            "        assert name in vars(kt)\n"
            "        assert name in kt.__all__ or name == 'load_ipython_extension'\n"
            "from kantensor import refine, eval_shape, load_ipython_extension\n"
            "print('ok')")
    assert _printed(code) == "ok"
    loaded = _loaded_after("from kantensor import eval_shape", ["kantensor.evalshape",
                                                                "kantensor.refinement"])
    assert loaded == {"kantensor.evalshape": True, "kantensor.refinement": False}


def test_in_place_writes_are_refused_alike_before_and_after_eval_shape_loads():
    """Before kantensor.evalshape is loaded, its rebind hook's default says "not
    tracing", as the loaded hook does outside a trace: the same errors either way."""
    code = ("import numpy as np, sys, kantensor as kt\n"
            "x, z = kt.vector('x', 'float32'), kt.vector('z', 'float32')\n"
            "def said():\n"
            "    out = []\n"
            "    for f in (lambda: np.add(x, 1, out=z), lambda: x.__setitem__(0, 1.0),\n"
            "              lambda: np.add.at(x, 0, 1)):\n"
            "        try:\n"
            "            f()\n"
            "        except TypeError as e:\n"
            "            out.append(str(e))\n"
            "    return out\n"
            "before = said()\n"
            "assert 'kantensor.evalshape' not in sys.modules\n"
            "import kantensor.evalshape\n"
            "assert said() == before and len(before) == 3, before\n"
            "print('ok')")
    assert _printed(code) == "ok"


def test_the_front_ends_subpackages_stay_attributes_of_the_package():
    """``import kantensor`` made ``kantensor.evalshape``, ``.refinement``, ``.printing``
    and ``.ipython`` attributes (the package imported them); loaded on first use, they
    still are: ``kt.evalshape.AssumptionError`` (the documented exception) is reached
    without importing it by name, and loads the module then. Other names stay missing."""
    code = ("import sys, kantensor as kt\n"
            "assert 'kantensor.evalshape' not in sys.modules\n"
            "from kantensor.evalshape.assumptions import AssumptionError\n"
            "assert kt.evalshape.AssumptionError is AssumptionError\n"
            "import kantensor.refinement as r, kantensor.printing as p, kantensor.ipython as i\n"
            "assert (kt.refinement, kt.printing, kt.ipython) == (r, p, i)\n"
            "assert not hasattr(kt, 'no_such_module') and not hasattr(kt, 'onnx')\n"
            "print('ok')")
    fresh = ("import sys, kantensor as kt\n"
             "kt.refinement.RefinementError, kt.printing.dprint, kt.ipython\n"
             "print(kt.evalshape.AssumptionError.__name__)")
    for statement, said in ((code, "ok"), (fresh, "AssumptionError")):
        out = subprocess.run([sys.executable, "-c", statement], check=True,
                             capture_output=True, text=True).stdout
        assert out.strip() == said


def test_promoting_collector_moves_the_young_objects_unwalked_within_its_limit():
    """``collector_paused(promote=True)`` ends with what the block left in the young
    generations moved to the oldest, and no young collection run after it (CPython's own
    counts, generation lists and collection callbacks say so); but the young collection
    runs as before where objects are frozen (their freeze is kept), or past
    PROMOTED_LIMIT since the last full collection; with the collector off, nothing."""
    from kantensor.graph import heap

    before = gc.isenabled()
    started: list[int] = []
    watch = lambda phase, info: started.append(info["generation"]) if phase == "start" \
        else None  # noqa: E731

    def block() -> list:
        started.clear()
        with collector_paused(promote=True):
            made = [[k] for k in range(3000)]
        made.append([])  # (an allocation: the collector runs here if it is due)
        return made

    gc.callbacks.append(watch)
    try:
        gc.enable()
        gc.collect()  # (a full collection: nothing promoted since)
        kept = block()
        assert not started and gc.get_count()[0] < 100
        oldest = {id(o) for o in gc.get_objects(2)}
        assert all(id(o) in oldest for o in kept[:-1:97])
        assert gc.get_freeze_count() == 0 and gc.isenabled()

        gc.freeze()  # a caller's frozen objects stay frozen: nothing promoted
        frozen = gc.get_freeze_count()
        young = block()
        assert gc.get_freeze_count() == frozen and started[:1] == [0]
        gc.unfreeze()

        gc.collect()
        limit = heap.PROMOTED_LIMIT
        try:
            heap.PROMOTED_LIMIT = 4000
            young = block()
            assert not started  # (3,000 promoted)
            more = block()
            assert started[:1] == [0]  # (6,000 past the limit: collected as before)
            gc.collect()  # a full collection starts the count again
            last = block()
            assert not started
        finally:
            heap.PROMOTED_LIMIT = limit

        gc.disable()
        off = block()
        assert not gc.isenabled() and gc.get_count()[0] >= 3000 and not started
        del kept, young, more, last, off
    finally:
        gc.callbacks.remove(watch)
        (gc.enable if before else gc.disable)()
