"""The ``kantensor`` command: demo, infer, query, check, repl.

Types are written in the compact notation (``float32[3,?]``). In queries,
a bare name (``X``) stands for an unknown type, a name in dtype position
(``D[3]``) for an unknown dtype and a name in a shape (``float32[n,3]``)
for an unknown size; ``?`` is an anonymous unknown size.
"""

from __future__ import annotations

import argparse
import cmd
import re
import shlex
import sys
from collections.abc import Sequence
from typing import Any


def _target(text: str, params: dict[str, Any] | None = None) -> tuple[Any, str]:
    """A catalogue Op by name (its parameters bound), or signature text, and its label."""
    from .ops import CATALOGUE
    from .signature.signature import Signature

    if text in CATALOGUE:
        op = CATALOGUE[text]
        if hasattr(op, "bind"):
            return op.bind(**(params or {})), text
        if params:
            raise TypeError(f"{text} takes no parameters, got {', '.join(params)}")
        return op, text
    if params:
        raise TypeError("parameters (name=value) need a catalogue Op, not signature text")
    return Signature.parse(text), ""


_PARAM = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)=(.*)$")


def _split_params(words: Sequence[str]) -> tuple[list[str], dict[str, Any]]:
    """Separate ``name=value`` parameters (Python literals, else strings) from types."""
    import ast

    rest: list[str] = []
    params: dict[str, Any] = {}
    for word in words:
        match = _PARAM.match(word)
        if not match:
            rest.append(word)
            continue
        name, value = match.groups()
        try:
            params[name] = ast.literal_eval(value)
        except (ValueError, SyntaxError):
            params[name] = value
    return rest, params


def _query_term(text: str) -> Any:
    """A type in the compact notation where names are logic variables (see the module
    docstring), read with the DSL's grammar."""
    from .query import pattern, var
    from .signature.ast import DimVar, FixedDim
    from .signature.parser import parse_tensor_type
    from .types.dtypes import DTYPES

    head, sizes = parse_tensor_type(text)
    if sizes is None:
        return var(head)
    entries: list[Any] = []
    for size in sizes:
        if size is None or isinstance(size, FixedDim | DimVar):
            entries.append(None if size is None else
                           size.size if isinstance(size, FixedDim) else var(size.name))
        else:
            raise ValueError(f"bad size {size} in {text!r}: in a query a size is an int, "
                             "? or a name")
    return pattern(head if head in DTYPES else var(head), entries)


def run_infer(sig_text: str, types: Sequence[str], out: Any = None) -> int:
    out = out or sys.stdout
    from .signature.solve import infer
    from .types.type import TensorType

    types, params = _split_params(types)
    parsed = [TensorType.parse(t) for t in types]
    target, name = _target(sig_text, params)
    sig, op = target.signature_for(tuple(parsed)) if hasattr(target, "signature_for") \
        else (target, None)
    results = infer(sig, parsed, name=op)
    label = f"{op or name} {sig}".strip()
    print(f"{label}: ({', '.join(types)}) -> ({', '.join(map(str, results))})", file=out)
    return 0


def run_query(sig_text: str, inputs: Sequence[str], outputs: Sequence[str],
              limit: int | None, out: Any = None) -> int:
    out = out or sys.stdout
    from .query import query

    inputs, params = _split_params(inputs)
    target, _ = _target(sig_text, params)
    sols = query(target, [_query_term(t) for t in inputs],
                 [_query_term(t) for t in outputs], limit=limit)
    print(repr(sols), file=out)
    return 0 if sols else 1


def run_check(paths: Sequence[str], out: Any = None) -> int:
    out = out or sys.stdout
    from .ops.catalogue import CatalogueError, load_file

    status = 0
    for path in paths:
        try:
            entries = load_file(path)
            examples = sum(entry.run_examples() for entry in entries)
        except (CatalogueError, OSError) as exc:
            print(f"error: {exc}", file=out)
            status = 1
        else:
            print(f"{path}: ok, {len(entries)} ops, {examples} examples", file=out)
    return status


def _demo() -> int:
    import numpy as np

    import kantensor as kt

    x = kt.matrix("x", "float64", shape=(2, None))
    y = kt.vector("y", "float64")
    z = (x + y) * 2 - x / 4
    print("graph:")
    kt.dprint(z, print_type=True)
    f = kt.function([x, y], z)
    print(f"\ntypes: {f.signature}")
    xv = np.arange(6.0).reshape(2, 3)
    yv = np.array([1.0, 2.0, 3.0])
    print(f"\nf(x, y) with x = {xv.tolist()}, y = {yv.tolist()}:")
    print(f(xv, yv))
    print("\ntype inference, forwards and backwards:")
    run_infer("+(m,n),(n,p)->(m,p)", ["float64[5,3,4]", "float32[4,2]"])
    print("which dtype D makes add(D[3], float32[3]) a float64[3]?")
    run_query("add", ["D[3]", "float32[3]"], ["float64[3]"], None)
    return 0


class Repl(cmd.Cmd):
    """Interactive type queries: ``infer SIG TYPE...``, ``query SIG IN... -> OUT...``."""

    intro = "kantensor type REPL. Commands: infer, query, check, help, quit."
    prompt = "kt> "

    def _guard(self, fn: Any, *args: Any) -> None:
        try:
            fn(*args, out=self.stdout)
        except Exception as exc:  # the REPL reports and carries on
            print(f"error: {type(exc).__name__}: {exc}", file=self.stdout)

    def do_infer(self, line: str) -> None:
        """infer SIGNATURE|OP TYPE... [NAME=VALUE...] -- output types, e.g.
        infer add float32[3] int8[]   or   infer sum float32[2,3] axis=1"""
        words = shlex.split(line)
        if not words:
            print("usage: infer SIGNATURE|OP TYPE...", file=self.stdout)
            return
        self._guard(run_infer, words[0], words[1:])

    def do_query(self, line: str) -> None:
        """query SIGNATURE|OP IN... -> OUT... -- e.g. query add D[3] float32[3] -> float64[3]"""
        words = shlex.split(line)
        if "->" not in words or not words:
            print("usage: query SIGNATURE|OP IN... -> OUT...", file=self.stdout)
            return
        k = words.index("->")
        self._guard(lambda *a, out: run_query(*a, None, out=out), words[0], words[1:k],
                    words[k + 1:])

    def do_check(self, line: str) -> None:
        """check FILE... -- validate catalogue files"""
        self._guard(run_check, shlex.split(line))

    def do_quit(self, line: str) -> bool:
        """quit -- leave the REPL"""
        return True

    do_EOF = do_quit

    def emptyline(self) -> None:
        pass


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="kantensor", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("demo", help="build, print, type and run a small graph")
    p = sub.add_parser("infer", help="output types of a signature or catalogue Op")
    p.add_argument("signature", help="signature text or a catalogue Op name")
    p.add_argument("types", nargs="*",
                   help="input types, e.g. float32[3,?], and parameters, e.g. axis=1")
    p = sub.add_parser("query", help="solve a signature for unknowns, in any direction")
    p.add_argument("signature")
    p.add_argument("--in", dest="inputs", nargs="*", default=[], metavar="TYPE",
                   help="input types (names are unknowns) and parameters NAME=VALUE")
    p.add_argument("--out", dest="outputs", nargs="+", required=True, metavar="TYPE")
    p.add_argument("--limit", type=int, default=20)
    p = sub.add_parser("check", help="validate catalogue files (signatures/*.toml) and "
                                     "run their examples")
    p.add_argument("files", nargs="+")
    sub.add_parser("repl", help="interactive type queries")
    args = parser.parse_args(argv)
    from .signature.errors import SignatureSyntaxError, TypeInferenceError

    try:
        if args.command == "demo":
            return _demo()
        if args.command == "infer":
            return run_infer(args.signature, args.types)
        if args.command == "query":
            return run_query(args.signature, args.inputs, args.outputs, args.limit)
        if args.command == "check":
            return run_check(args.files)
        Repl().cmdloop()
        return 0
    except (SignatureSyntaxError, TypeInferenceError, ValueError, TypeError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
