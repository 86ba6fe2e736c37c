"""The instructions each part of a first ``infer_shapes`` executes, counted by valgrind's
callgrind: cold_instructions.py's one number, taken apart by function, as deterministic
as it (two runs agree to about 0.1%), for finding what a first call spends on a loaded
machine, where timers around the parts vary more than the parts.

Callgrind counts the instructions of C functions, not of Python ones. So each Python
function named (``module:qualname``, a method as ``module:Class.name``) is wrapped, in
the timed process, so that it runs inside a C function of its own (``zone0``,
``zone1``, ...: a tiny extension module compiled here with the C compiler that built
Python), and callgrind's inclusive count of that C function is the Python function's,
its callees included (a recursive call is counted once, at the outermost). The wrapper
replaces the function wherever a module holds it (``from x import f`` included), before
the call; it adds a few hundred instructions a call to the total. Only the call is
counted, in a process set up as cold_instructions.py sets one up, except that every
module named is imported before the call (so a named module's import is not counted:
name the functions that import it instead). Instructions are not time: a copy of many
bytes counts each byte, and SHA-256 runs without the processor's own instructions for it.

Name a few functions a run (five or so). Every zone is entered from Python's evaluation
loop and calls back into it, so many zones make cycles in callgrind's call graph, and
the inclusive counts of functions inside them come out wrong: with 27 names in one run,
``Facts.decide`` read 0.04 million instructions of ``pool_stack(7)``'s first call and
``SignatureOp.make_node`` 2.9 million, against 5.9 and 32.3 million named with two or
three others (the call's total agrees either way).

Run: python benchmarks/cold_parts.py [--layers 12] [--model PATH] [--second] TREE
     FUNCTION ... (``--second``: a second call, on new size names, instead of the first)
(e.g. ``kantensor.onnx.importer:_Reader._entry kantensor.ops.trust:_import``). Needs
valgrind, callgrind_annotate and a C compiler; about a minute.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sysconfig
import tempfile
from pathlib import Path

import cold_instructions
from cold_instructions import callgrind, model_file, model_options

#: The extension: one C function per part, each calling the Python callable it is given.
ZONE = ("static PyObject* zone{i}(PyObject* self, PyObject* args) {{ PyObject *fn, *a, *k;"
        " if (!PyArg_ParseTuple(args, \"OOO\", &fn, &a, &k)) return NULL;"
        " return PyObject_Call(fn, a, k == Py_None ? NULL : k); }}")

#: The timed process's start: the functions wrapped; cold_instructions.py's process
#: follows (the model read, one call counted: its CALL, or SECOND).
CALL = """import functools, importlib, json, sys
sys.path.insert(0, sys.argv[3])
import zones

def wrapped(fn, zone):
    busy = []
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        if busy:  # (a recursive call: counted in the outermost)
            return fn(*args, **kwargs)
        busy.append(True)
        try:
            return zone(fn, args, kwargs or None)
        finally:
            busy.pop()
    return wrapper

def wrap(k, name):
    module_name, _, qualname = name.partition(":")
    module = importlib.import_module(module_name)
    *path, attr = qualname.split(".")
    owner = module
    for part in path:  # (not functools.reduce: callgrind counts inside that one)
        owner = getattr(owner, part)
    raw = owner.__dict__[attr]
    fn = raw.__func__ if isinstance(raw, staticmethod | classmethod) else raw
    new = wrapped(fn, getattr(zones, f"zone{k}"))
    setattr(owner, attr, type(raw)(new) if isinstance(raw, staticmethod | classmethod)
            else new)
    for other in list(sys.modules.values()):
        held = getattr(other, "__dict__", None)
        if isinstance(held, dict) and other is not module and other.__name__ != "__main__":
            for key, value in list(held.items()):
                if value is fn:
                    held[key] = new

for k, name in enumerate(json.loads(sys.argv[2])):
    wrap(k, name)
"""


def extension(folder: Path, n: int) -> Path:
    """The ``zones`` module of ``n`` C functions, compiled into ``folder``."""
    source = folder / "zones.c"
    source.write_text("\n".join([
        "#define PY_SSIZE_T_CLEAN", "#include <Python.h>",
        *(ZONE.format(i=i) for i in range(n)),
        "static PyMethodDef M[] = {",
        *(f'  {{"zone{i}", zone{i}, METH_VARARGS, ""}},' for i in range(n)),
        "  {NULL, NULL, 0, NULL}};",
        'static struct PyModuleDef D = {PyModuleDef_HEAD_INIT, "zones", NULL, -1, M};',
        "PyMODINIT_FUNC PyInit_zones(void) { return PyModule_Create(&D); }"]))
    made = folder / f"zones{sysconfig.get_config_var('EXT_SUFFIX')}"
    compiler = (sysconfig.get_config_var("CC") or "cc").split()
    subprocess.run([*compiler, "-O1", "-g", "-fno-ipa-icf", "-shared", "-fPIC",
                    f"-I{sysconfig.get_paths()['include']}", str(source), "-o", str(made)],
                   check=True, timeout=300)
    return folder


def counts(tree: Path, model: Path, names: list[str], folder: Path, second: bool = False
           ) -> tuple[int, list[int]]:
    """The instructions of the first ``infer_shapes`` of ``model`` by ``tree`` (with
    ``second``, of a call after one on other size names: cold_instructions.SECOND), and
    of each function of ``names`` within it."""
    call = CALL + (cold_instructions.SECOND if second else cold_instructions.CALL)
    total, out = callgrind(tree, folder, call, str(model), json.dumps(names),
                           str(extension(folder, len(names))))
    listed = subprocess.run(["callgrind_annotate", "--inclusive=yes", "--threshold=100",
                             str(out)], text=True, capture_output=True, check=True,
                            timeout=600).stdout
    parts = [0] * len(names)
    for line in listed.splitlines():  # "  1,234 (1.6%)  .../zones.c:zone7 [...]"
        found = re.match(r"\s*([\d,]+) .*zones\.c:zone(\d+) ", line)
        if found:
            k = int(found.group(2))
            parts[k] = max(parts[k], int(found.group(1).replace(",", "")))
    return total, parts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("tree", type=Path)
    parser.add_argument("functions", nargs="+", help="module:qualname")
    parser.add_argument("--second", action="store_true", help="split a second call on "
                        "the model with new size names instead of the first "
                        "(cold_instructions.py --second)")
    model_options(parser)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as made:
        folder = Path(made)
        model = model_file(args, folder)
        total, parts = counts(args.tree.resolve(), model, args.functions, folder,
                              args.second)
    print(f"{total:>14,}  the {'second' if args.second else 'first'} call")
    for name, count in zip(args.functions, parts, strict=True):
        print(f"{count:>14,}  {name}")


if __name__ == "__main__":
    main()
