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
import signal
import sys
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

_TERM = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*(?:\[(.*)\])?\s*$")


def _signature(text: str, params: dict[str, Any] | None = None,
               types: Sequence[Any] = ()) -> tuple[Any, str]:
    """A catalogue Op by name (its parameters bound, its template rendered for
    ``types``), or signature text."""
    from .ops import CATALOGUE
    from .ops.op import OpFamily
    from .query import signature_of
    from .signature.ast import Signature

    if text in CATALOGUE:
        op = CATALOGUE[text]
        if isinstance(op, OpFamily):
            sig, label = signature_of(op.bind(**(params or {})), types)
            return sig, f"{label} {sig}"
        if params:
            raise TypeError(f"{text} takes no parameters, got {', '.join(params)}")
        return op.signature, f"{text} {op.signature}"
    if params:
        raise TypeError("parameters (name=value) need a catalogue Op, not signature text")
    return Signature.parse(text), text


_PARAM = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)=(.*)$")


MAX_PARAM_TEXT = 1_000
"""Longest ``name=value`` parameter value read as a Python literal."""


def _literal(value: str) -> Any:
    """A Python literal (``1``, ``(0, 1)``, ``None``), else the text itself; never evaluated
    beyond literals, and bounded in length so no input can exhaust the parser."""
    import ast

    if len(value) > MAX_PARAM_TEXT:
        raise ValueError(f"parameter value too long: {len(value)} characters "
                         f"(at most {MAX_PARAM_TEXT})")
    try:
        return ast.literal_eval(value)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return value


def _split_params(words: Sequence[str]) -> tuple[list[str], dict[str, Any]]:
    """Separate ``name=value`` parameters (Python literals, else strings) from types."""
    rest: list[str] = []
    params: dict[str, Any] = {}
    for word in words:
        match = _PARAM.match(word)
        if not match:
            rest.append(word)
            continue
        name, value = match.groups()
        params[name] = _literal(value)
    return rest, params


def _query_term(text: str) -> Any:
    """Compact notation where names are logic variables (see module docstring)."""
    from .query import pattern, var
    from .types.dtypes import DTYPES
    from .types.limits import MAX_SIZE, MAX_TYPE_TEXT, check_text

    check_text(text, MAX_TYPE_TEXT, "type text")

    match = _TERM.match(text)
    if not match:
        raise ValueError(f"cannot read type {text!r}: expected e.g. float32[3,?], D[n], or X")
    head, body = match.groups()
    if body is None:
        return var(head)
    dtype = head if head in DTYPES else var(head)
    sizes = []
    for entry in (e.strip() for e in body.split(",") if e.strip()):
        if entry == "?":
            sizes.append(None)
        elif entry.isascii() and entry.isdigit():
            if len(entry) > 19 or int(entry) > MAX_SIZE:
                raise ValueError(f"size {entry[:20]} in {text[:80]!r} is too large "
                                 "(at most 2**63 - 1)")
            sizes.append(int(entry))
        elif re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", entry):
            sizes.append(var(entry))
        else:
            raise ValueError(f"bad size {entry!r} in {text!r}: expected an int, ? or a name")
    return pattern(dtype, sizes)


def run_infer(sig_text: str, types: Sequence[str], out: Any = None) -> int:
    out = out or sys.stdout
    from .signature.solve import infer
    from .types.type import TensorType

    types, params = _split_params(types)
    parsed = [TensorType.parse(t) for t in types]
    sig, label = _signature(sig_text, params, parsed)
    results = infer(sig, parsed)
    print(f"{label}: ({', '.join(types)}) -> ({', '.join(map(str, results))})", file=out)
    return 0


def run_query(sig_text: str, inputs: Sequence[str], outputs: Sequence[str],
              limit: int | None, out: Any = None) -> int:
    out = out or sys.stdout
    from .query import query

    inputs, params = _split_params(inputs)
    in_terms = [_query_term(t) for t in inputs]
    sig, _ = _signature(sig_text, params, in_terms)
    sols = query(sig, in_terms, [_query_term(t) for t in outputs], limit=limit)
    print(repr(sols), file=out)
    return 0 if sols else 1


@contextmanager
def _time_limit(seconds: float | None, error: Any) -> Iterator[None]:
    """Raise ``error`` if the block runs longer than ``seconds`` (POSIX main thread only;
    elsewhere, or with ``None`` or ``0``, no limit)."""
    usable = (seconds is not None and seconds > 0 and hasattr(signal, "setitimer")
              and threading.current_thread() is threading.main_thread())
    if not usable:
        yield
        return

    def expire(signum: int, frame: Any) -> None:
        raise error

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


CHECK_TIMEOUT = 60.0
"""Seconds ``kantensor check`` gives the examples of one entry (``--timeout``)."""


def run_check(paths: Sequence[str], out: Any = None, timeout: float | None = CHECK_TIMEOUT
              ) -> int:
    """Validate catalogue files and run their examples; each entry's examples get at most
    ``timeout`` seconds, so a pathological signature is reported, not waited for."""
    out = out or sys.stdout
    from .ops.catalogue import CatalogueError, load_file

    status = 0
    for path in paths:
        try:
            entries = load_file(path)
            examples = 0
            for entry in entries:
                late = CatalogueError(f"{entry.where}: its examples took longer than "
                                      f"{timeout:g} s (the time limit, see --timeout)"
                                      if timeout is not None else "")
                with _time_limit(timeout, late):
                    examples += entry.run_examples()
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

    def _words(self, line: str) -> list[str] | None:
        """The line split as a shell would; None (reported) on unbalanced quotes."""
        try:
            return shlex.split(line)
        except ValueError as exc:
            print(f"error: {exc}", file=self.stdout)
            return None

    def do_infer(self, line: str) -> None:
        """infer SIGNATURE|OP TYPE... [NAME=VALUE...] -- output types, e.g.
        infer add float32[3] int8[]   or   infer sum float32[2,3] axis=1"""
        words = self._words(line)
        if words is None:
            return
        if not words:
            print("usage: infer SIGNATURE|OP TYPE...", file=self.stdout)
            return
        self._guard(run_infer, words[0], words[1:])

    def do_query(self, line: str) -> None:
        """query SIGNATURE|OP IN... -> OUT... -- e.g. query add D[3] float32[3] -> float64[3]"""
        words = self._words(line)
        if words is None:
            return
        if "->" not in words or not words:
            print("usage: query SIGNATURE|OP IN... -> OUT...", file=self.stdout)
            return
        k = words.index("->")
        self._guard(lambda *a, out: run_query(*a, None, out=out), words[0], words[1:k],
                    words[k + 1:])

    def do_check(self, line: str) -> None:
        """check FILE... -- validate catalogue files"""
        words = self._words(line)
        if words is not None:
            self._guard(run_check, words)

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
    p.add_argument("--timeout", type=float, default=CHECK_TIMEOUT, metavar="SECONDS",
                   help=f"time limit for the examples of one entry, 0 for none (default "
                        f"{CHECK_TIMEOUT:g})")
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
            return run_check(args.files, timeout=args.timeout)
        Repl().cmdloop()
        return 0
    except (SignatureSyntaxError, TypeInferenceError, ValueError, TypeError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
