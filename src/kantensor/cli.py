"""The ``kantensor`` command: demo, infer, query, refine, check, onnx, contract, repl.

Types are written in the compact notation (``float32[3,?]``). In queries,
a bare name (``X``) stands for an unknown type, a name in dtype position
(``D[3]``) for an unknown dtype and a name in a shape (``float32[n,3]``)
for an unknown size; ``?`` is an anonymous unknown size.
"""

from __future__ import annotations

import argparse
import gc
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

from . import __version__
from .graph.heap import collector_paused
from .syntax.errors import COMMAND_ERRORS as ERRORS

# An entry point, so it may import late (tests/test_imports.py), for the command line's
# start-up time: ``kantensor onnx MODEL`` and ``kantensor contract MODEL`` are parsed and
# run without the command table (:mod:`kantensor.commands`, with the query and
# refinement front ends its commands run) and without the REPL (:mod:`kantensor.repl`,
# with the line editor); the other subcommands import them when they run. The names of
# :mod:`kantensor.repl` stay reachable here (``kantensor.cli.Repl``, PEP 562).

#: The subcommands of :mod:`kantensor.onnxcommands`, parsed without the command table.
ONNX_COMMANDS = ("onnx", "contract")


def run_command(name: str, args: argparse.Namespace, out: Any = None) -> int:
    """Run the :data:`~kantensor.commands.COMMANDS` entry ``name`` on parsed arguments and
    print its result; exit status 1 when it is an empty answer (a query with no
    solutions). With ``--file``, the graph text reads that Python file's variables (the
    file is run first: the user asked for it by name)."""
    import runpy

    from .commands import COMMANDS, Answers
    from .query import Solutions

    command = COMMANDS[name]
    namespace = None
    if getattr(args, "file", None) is not None:
        try:
            namespace = runpy.run_path(args.file)
        except OSError as exc:
            raise ValueError(f"cannot run {args.file}: {exc.strerror}") from None
    result = command.run_args(args, namespace)
    answers = isinstance(result, Solutions | Answers)
    print(repr(result) if answers else result, file=out or sys.stdout)
    return 1 if answers and not result else 0


def _demo() -> int:
    import numpy as np

    import kantensor as kt

    from .commands import COMMANDS

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
    print(COMMANDS["infer"]("'+(m,n),(n,p)->(m,p)' float64[5,3,4] float32[4,2]"))
    print("which dtype D makes add(D[3], float32[3]) a float64[3]?")
    print(repr(COMMANDS["query"]("add D[3] float32[3] -> float64[3]")))
    return 0


def _description() -> str:
    """The module docstring as plain text (no reStructuredText markup)."""
    return (__doc__ or "").replace("``", "")


def _parser(table: bool = True) -> argparse.ArgumentParser:
    """The ``kantensor`` program's arguments; the ONNX subcommands alone unless ``table``
    (the command table's, ``demo``, ``check`` and ``repl`` too). Without ``table``, an
    error of the program's own line (``unrecognized arguments``) is reported by the whole
    parser, so its usage still lists every subcommand (built only then)."""
    parser = argparse.ArgumentParser(prog="kantensor", description=_description(),
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"kantensor {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    if table:
        from .commands import COMMANDS
        from .repl import CHECK_TIMEOUT, HISTORY_ENV

        sub.add_parser("demo", help="build, print, type and run a small graph")
        for name, command in COMMANDS.items():  # infer, query, refine, ...: from the table
            if not command.cli:
                continue
            p = sub.add_parser(name, help=command.summary.split(", e.g.")[0],
                               description=f"{command.summary}\n\nIn the REPL and as the "
                                           f"magic %{name}: {command.usage}",
                               formatter_class=argparse.RawDescriptionHelpFormatter)
            for option in command.options:
                p.add_argument(*option.flags, **option.settings)
        p = sub.add_parser("check", help="validate catalogue files (signatures/*.toml) and "
                                         "run their examples")
        p.add_argument("files", nargs="+")
        p.add_argument("--allow", action="append", default=[], metavar="PACKAGE",
                       help="a package (besides numpy and kantensor) whose modules the files "
                            "may import and whose registered builders they may name; "
                            "repeatable")
        p.add_argument("--timeout", type=float, default=CHECK_TIMEOUT, metavar="SECONDS",
                       help=f"time limit for the examples of one entry, 0 for none (default "
                            f"{CHECK_TIMEOUT:g})")
        p.add_argument("--onnx", action="store_true",
                       help="the files hold ONNX entries (keys onnx, domain, since, until, "
                            "inputs); implied for the files of signatures/onnx/")
    p = sub.add_parser("onnx", help="type an ONNX model: print its inputs' and outputs' "
                                    "types (symbolic sizes as Dim expressions)")
    p.add_argument("model", metavar="MODEL", help="an .onnx file")
    p.add_argument("-o", "--output", metavar="OUT",
                   help="write the model with every value typed (value_info) to OUT")
    p = sub.add_parser("contract", help="which input sizes an ONNX model accepts: the "
                                        "conditions, each with its node, solved into boxes")
    p.add_argument("model", metavar="MODEL", help="an .onnx file")
    p.add_argument("--fix", action="append", default=[], metavar="NAME=VALUE",
                   help="give a size an int or another size's name (N=1, W=H); repeatable")
    p.add_argument("--trt", action="store_true",
                   help="TensorRT optimisation profiles: each input's (min, opt, max) "
                        "shapes over a box of valid sizes")
    p.add_argument("--opt", action="append", default=[], metavar="NAME=INT",
                   help="the sizes the TensorRT box is made around; repeatable")
    p.add_argument("--input", action="append", default=[], metavar="NAME=D0,D1,...",
                   help="name an input's dims first (ints, names, ? for unknown), for a "
                        "model exported at fixed sizes: data_0=N,3,H,W; repeatable")
    p.add_argument("--opset", type=int, metavar="K",
                   help="convert the model to opset K first (onnx's version converter)")
    if table:
        sub.add_parser("repl", help=f"interactive type queries (history in {HISTORY_ENV} or "
                                    "~/.kantensor_history)")
    else:  # a mistake is reported with the usage of every subcommand, not of these two
        parser.error = _error_of_every_subcommand  # type: ignore[method-assign]
    return parser


def _error_of_every_subcommand(message: str) -> NoReturn:
    """Report a mistake on the command line as the parser of every subcommand does."""
    _parser().error(message)


def main(argv: Sequence[str] | None = None, freeze: bool = False) -> int:
    """The ``kantensor`` program on ``argv`` (default: the process's arguments); its exit
    status. With ``freeze`` (:func:`run`: a process of its own), what the imports of the
    subcommand made is frozen out of the cyclic collector's passes once they are done."""
    argv = sys.argv[1:] if argv is None else list(argv)
    with collector_paused():  # (the imports a subcommand needs: see kantensor.graph.heap)
        args = _parser(table=argv[:1] not in [[c] for c in ONNX_COMMANDS]).parse_args(argv)
        if args.command in ONNX_COMMANDS:
            from .onnxcommands import run_contract, run_onnx
        else:
            from .commands import COMMANDS
            from .repl import Repl, history_path, run_check
    if freeze:
        gc.freeze()
    try:
        if args.command == "onnx":
            return run_onnx(args.model, args.output)
        if args.command == "contract":
            return run_contract(args.model, args.fix, args.trt, args.input, args.opset,
                                args.opt)
        if args.command == "demo":
            return _demo()
        if args.command in COMMANDS:
            return run_command(args.command, args)
        if args.command == "check":
            return run_check(args.files, timeout=args.timeout, allow=args.allow,
                             onnx=args.onnx)
        Repl(history=history_path()).cmdloop()
        return 0
    except ERRORS as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1


def run() -> None:
    """The ``kantensor`` program (its console script, ``python -m kantensor``): ``main`` in
    a process of its own. What the imports made, the subcommand's included, lives until
    the process ends, so it is frozen out of the cyclic collector's passes
    (``gc.freeze``, after the subcommand's imports): the command's own objects are
    collected as usual, and its collections never walk the imported heap."""
    sys.exit(main(freeze=True))


def __getattr__(name: str) -> Any:
    """A name of :mod:`kantensor.repl`'s ``__all__``, reachable here too
    (``kantensor.cli.Repl``), from the REPL loaded on first use; a dunder name is missing
    without loading it (the import system asks for ``__path__``)."""
    if not name.startswith("__"):
        from . import repl

        if name in repl.__all__:
            return getattr(repl, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


if __name__ == "__main__":
    run()
