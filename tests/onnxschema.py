"""What ONNX's schemas say of each input's element types: the oracle of
tests/test_onnx_type_constraints.py, read from ``onnx.defs`` (nobody here wrote it).

``onnx.defs.get_schema(op, opset).type_constraints`` names, per type parameter (``T``,
``Tind``, ...), the element types it takes; each input is of one parameter, or of one
type written out (``tensor(int64)``). :func:`input_sets` gives each input's set as
kantensor's dtype names (the element types kantensor has); :func:`ranges` the runs of
opsets over which an op's sets stay the same (where the catalogue splits its entries).

Run as a script (``python tests/onnxschema.py Add Conv``) it prints each op's runs and
the where-clause each input's type parameter asks for, the text a catalogue entry
states (``T in (...)``).
"""

from __future__ import annotations

import sys
from functools import cache

from onnx import TensorProto, defs

from kantensor.onnx.dtypes import DTYPES
from kantensor.syntax.ast import category_text

#: The newest opset of the default domain the installed onnx knows.
NEWEST = defs.onnx_opset_version()


def _dtypes(texts) -> frozenset[str]:
    """kantensor's dtypes of ONNX type strings (``tensor(float16)``; sequences,
    optionals and element types kantensor lacks left out)."""
    out = set()
    for text in texts:
        if not text.startswith("tensor("):
            continue
        code = TensorProto.DataType.Value(text.removeprefix("tensor(").removesuffix(")").upper())
        if code in DTYPES:
            out.add(DTYPES[code])
    return frozenset(out)


@cache
def schema(op_type: str, opset: int, domain: str = ""):
    """The schema of ``op_type`` at ``opset`` (the newest version not after it), or None
    where the op does not exist yet (or was removed)."""
    try:
        found = defs.get_schema(op_type, opset, domain)
    except defs.SchemaError:
        return None
    return None if found.deprecated else found


@cache
def input_sets(op_type: str, opset: int, domain: str = ""
               ) -> tuple[tuple[str, str, frozenset[str]], ...]:
    """Per input of the schema: its name, its type parameter (or written type) and the
    dtypes it takes."""
    found = schema(op_type, opset, domain)
    if found is None:
        return ()
    params = {c.type_param_str: c.allowed_type_strs for c in found.type_constraints}
    return tuple((i.name, i.type_str, _dtypes(params.get(i.type_str, [i.type_str])))
                 for i in found.inputs)


#: A formal parameter's option in the catalogue's notation of inputs and outputs.
_MARKS = {defs.OpSchema.FormalParameterOption.Single: "{}",
          defs.OpSchema.FormalParameterOption.Optional: "{}?",
          defs.OpSchema.FormalParameterOption.Variadic: "*{}"}


def outputs(op_type: str, opset: int, domain: str = "") -> tuple[str, ...] | None:
    """The schema's formal outputs in the catalogue's notation (``Values``, ``mask?``,
    ``*outputs``; a variadic one of no least number ``*outputs?``), or None where the op
    does not exist."""
    found = schema(op_type, opset, domain)
    if found is None:
        return None
    return tuple(_formal(f) for f in found.outputs)


def inputs(op_type: str, opset: int, domain: str = "") -> tuple[str, ...] | None:
    """The schema's formal inputs in the catalogue's notation (as :func:`outputs`)."""
    found = schema(op_type, opset, domain)
    return None if found is None else tuple(_formal(f) for f in found.inputs)


def _formal(formal: defs.OpSchema.FormalParameter) -> str:
    """A formal input or output in the catalogue's notation (a variadic one of no least
    number ``*name?``)."""
    text = _MARKS[formal.option].format(formal.name)
    return text + "?" if text.startswith("*") and formal.min_arity == 0 else text


def output_counts(op_type: str, opset: int, domain: str = "") -> tuple[int, int | None]:
    """The schema's fewest and most outputs of a node (None: any number)."""
    found = schema(op_type, opset, domain)
    return found.min_output, None if found.max_output >= 2**31 - 1 else found.max_output


def param_sets(op_type: str, opset: int, domain: str = "") -> dict[str, frozenset[str]]:
    """Each type parameter's (or written type's) dtypes, by its name."""
    return {param: allowed for _, param, allowed in input_sets(op_type, opset, domain)}


def ranges(op_type: str, since: int, until: int | None, domain: str = ""
           ) -> list[tuple[int, int, tuple]]:
    """The runs (first, last, input sets) of opsets in since..until over which the
    schema's input sets stay the same."""
    out: list[tuple[int, int, tuple]] = []
    for opset in range(since, (until or NEWEST) + 1):
        sets = input_sets(op_type, opset, domain)
        if out and out[-1][2] == sets:
            out[-1] = (out[-1][0], opset, sets)
        else:
            out.append((opset, opset, sets))
    return out


def clause(name: str, allowed: frozenset[str]) -> str:
    """The where-clause stating that dtype variable ``name`` takes ``allowed``."""
    return f"{name} in {category_text(tuple(sorted(allowed)))}"


def main(ops: list[str]) -> None:
    for op_type in ops:
        for first, last, sets in ranges(op_type, 1, None):
            if not sets:
                continue
            print(f"{op_type} {first}..{last}:")
            for param in dict.fromkeys(p for _, p, _ in sets):
                names = [n for n, p, _ in sets if p == param]
                print(f"  {'/'.join(names)}: {clause(param, param_sets(op_type, first)[param])}")


if __name__ == "__main__":
    main(sys.argv[1:])
