"""The REPL of the ``kantensor`` command (``kantensor repl``) and ``kantensor check``
(which the REPL runs too): both built from the command table,
:data:`kantensor.commands.COMMANDS`.

The command line (:mod:`kantensor.cli`) imports this module only for these two and the
table's commands: ``kantensor onnx MODEL`` does not load the command table, the query
and refinement front ends it runs, or the line editor.
"""

from __future__ import annotations

import cmd
import os
import signal
import sys
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from .commands import COMMANDS, ERRORS, Command, CommandError, Word, format_error, lookup, split
from .onnxcommands import onnx_models, onnx_registry
from .ops import CATALOGUE, FAMILIES
from .ops.catalogue import CatalogueError, Entry, load_file
from .ops.display import op_text
from .syntax.alternative import unbound_in_clauses
from .types.dtypes import DTYPES

__all__ = ["CHECK_TIMEOUT", "HISTORY_ENV", "CheckTimeout", "Repl", "history_path",
           "run_check"]

try:  # line editing, completion and history; absent on some platforms
    import readline
except ImportError:  # pragma: no cover - the REPL still works, without editing
    readline = None

#: Where the REPL keeps its history (an environment variable overrides it, for tests).
HISTORY_ENV = "KANTENSOR_HISTORY"
HISTORY_LENGTH = 1000


def history_path() -> Path:
    """The REPL's history file: $KANTENSOR_HISTORY, else ~/.kantensor_history."""
    return Path(os.environ.get(HISTORY_ENV) or Path.home() / ".kantensor_history")


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


class CheckTimeout(BaseException):
    """The examples of one catalogue entry ran past ``kantensor check``'s time limit.

    An interruption, like KeyboardInterrupt: a BaseException, so neither the code that
    handles bad values (``except ValueError``) nor a blanket ``except Exception`` in the
    code it interrupts swallows or rewraps it."""


CHECK_TIMEOUT = 60.0
"""Seconds ``kantensor check`` gives the examples of one entry (``--timeout``)."""


def _loader(path: str, onnx: bool) -> Any:
    """How ``check`` reads ``path``: as ONNX entries (with ``--onnx``, or a file of the
    catalogue's ONNX folder), else as plain catalogue entries."""
    if onnx_models is None:
        if onnx:
            raise ValueError("checking ONNX entries needs the onnx package: pip install "
                             "'kantensor[onnx]'")
        return load_file
    return onnx_registry.load_onnx_file if onnx or onnx_registry.is_onnx_file(path) \
        else load_file


def run_check(paths: Sequence[str], out: Any = None, timeout: float | None = CHECK_TIMEOUT,
              allow: Sequence[str] = (), onnx: bool = False) -> int:
    """Validate catalogue files and run their examples; each entry's examples get at most
    ``timeout`` seconds, so a pathological signature is reported, not waited for. The
    files may import only numpy, kantensor and the packages in ``allow``. Files of ONNX
    entries (``onnx``, or in the catalogue's ONNX folder) are read as the ONNX loader
    reads them (their keys ``since``, ``until``, ``inputs``, ...)."""
    out = out or sys.stdout
    status = 0
    for path in paths:
        failed = False
        try:
            entries = _loader(path, onnx)(path, allow=allow)
        except (CatalogueError, OSError, ValueError) as exc:  # ValueError: a NUL in a path
            said = str(exc) if isinstance(exc, OSError | CatalogueError) else f"{path!r}: {exc}"
            for message in getattr(exc, "errors", [said]):
                print(f"error: {message}", file=out)
            entries, failed = getattr(exc, "entries", []), True  # their examples still run
        examples = 0
        for entry in entries:  # every example runs: every error is reported
            for message in _unbound_sizes(entry):
                print(f"error: {message}", file=out)
                failed = True
            late = CheckTimeout(f"{entry.where}: its examples took longer than "
                                f"{timeout:g} s (the time limit, see --timeout)"
                                if timeout is not None else "")
            try:
                with _time_limit(timeout, late):
                    errors = entry.example_errors()
            except (CatalogueError, CheckTimeout) as exc:
                errors = [str(exc)]
            examples += len(entry.examples)
            for message in errors:
                print(f"error: {message}", file=out)
            failed = failed or bool(errors)
        if failed:
            status = 1
        else:
            print(f"{path}: ok, {len(entries)} ops, {examples} examples", file=out)
    return status


def _unbound_sizes(entry: Entry) -> list[str]:
    """A where-clause of an entry's signature using a size bound nowhere (a slip that
    parses: ``where m > k`` with no ``k`` in any operand), one message each."""
    if not isinstance(entry, Entry) or entry.is_template:  # rendered by a builder (which
        return []  # may declare such sizes), or an ONNX structured op (no signature)
    return [f"{entry.where}: signature: where-clause {clause} uses size {name}, which is "
            f"bound nowhere (no operand has it, no '{name} == ...' clause defines it)"
            for alt in entry.signature.alternatives
            for name, clause in unbound_in_clauses(alt)]


def _complete(text: str, names: Sequence[str], space: bool = True) -> list[str]:
    """The names starting with ``text``; a unique one gets a space after it (with
    ``space``: not for dtypes, which a shape follows)."""
    found = sorted({n for n in names if n.startswith(text)})
    return [found[0] + " "] if space and len(found) == 1 else found


def _interruptible() -> Any:
    """Make SIGINT raise KeyboardInterrupt (in the main thread, where a handler can be
    set); the handler it replaces, or None where nothing changed."""
    if threading.current_thread() is not threading.main_thread() or \
            signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        return None
    return signal.signal(signal.SIGINT, signal.default_int_handler)


class Repl(cmd.Cmd):
    """Interactive type queries; its commands are :data:`kantensor.commands.COMMANDS`
    plus ``help``, ``ops``, ``check`` and ``quit``."""

    intro = ("kantensor type REPL. Commands: " + ", ".join(COMMANDS) +
             ", ops, check, help [OP], quit. Tab completes; Ctrl-C cancels a line.")
    prompt = "kt> "

    def __init__(self, *args: Any, history: Path | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.history = history
        if readline is not None:
            # "-" and "=" belong to words here (->, axis=1); "[" and "," split them.
            readline.set_completer_delims(" \t\n[],()'\"")

    def cmdloop(self, intro: Any = None) -> None:
        """Run until quit or Ctrl-D; Ctrl-C cancels the line being typed, not the REPL.
        Ctrl-C raises KeyboardInterrupt here even where the REPL was started with SIGINT
        ignored (``nohup``, a parent that ignores it: Python then installs no handler,
        and Ctrl-C did nothing)."""
        self._load_history()
        previous = _interruptible()
        try:
            while True:
                try:
                    super().cmdloop(intro)
                    return
                except KeyboardInterrupt:
                    print("^C", file=self.stdout)
                    intro = ""
        finally:
            if previous is not None:
                signal.signal(signal.SIGINT, previous)
            self._save_history()

    def _load_history(self) -> None:
        if readline is None or self.history is None or not self.use_rawinput:
            return
        readline.clear_history()
        readline.set_history_length(HISTORY_LENGTH)
        try:
            readline.read_history_file(self.history)
        except OSError:  # no history yet (or unreadable): start afresh
            pass

    def _save_history(self) -> None:
        if readline is None or self.history is None or not self.use_rawinput:
            return
        try:
            readline.write_history_file(self.history)
        except OSError as exc:
            print(f"warning: history not saved to {self.history}: {exc.strerror}",
                  file=self.stdout)

    def _run(self, command: Command, line: str) -> None:
        try:
            result = command(line)
        except ERRORS as exc:  # the REPL reports and carries on
            # cmd hands over the arguments only; the caret points into the whole line.
            full = self.lastcmd
            prefix = full[:len(full) - len(line)] if full.endswith(line) else ""
            print(f"error: {format_error(exc, prefix)}", file=self.stdout)
            return
        print(result if isinstance(result, str) else repr(result), file=self.stdout)

    def default(self, line: str) -> None:
        word = line.split()[0]
        near = [c for c in self.get_names() if c.startswith("do_")]
        print(f"error: unknown command {word!r}; commands: "
              f"{', '.join(n[3:] for n in near if n != 'do_EOF')}", file=self.stdout)

    def _complete_args(self, text: str, line: str, begidx: int) -> list[str]:
        """Op names for the first argument, then dtype names (and ``->`` in queries)."""
        args = line[:begidx].split()
        if len(args) <= 1:
            return _complete(text, list(CATALOGUE))
        return _complete(text, [*DTYPES, "->"] if args[0] == "query" else DTYPES, space=False)

    def completenames(self, text: str, *ignored: Any) -> list[str]:
        return _complete(text, [n[3:] for n in self.get_names()
                                if n.startswith("do_") and n != "do_EOF"])

    def completedefault(self, text: str, line: str, begidx: int, endidx: int) -> list[str]:
        return self._complete_args(text, line, begidx)

    def complete_help(self, text: str, line: str, begidx: int, endidx: int) -> list[str]:
        return _complete(text, [*self.completenames(""), *CATALOGUE])

    def do_help(self, arg: str) -> None:
        """help [COMMAND|OP] -- a command's usage, or an Op's signature, parameters and doc"""
        name = arg.strip()
        if name in CATALOGUE:
            print(op_text(CATALOGUE[name].facts()), file=self.stdout)
        elif not name or hasattr(self, f"do_{name}"):
            super().do_help(name)
        else:
            try:
                lookup(Word(name, 0), name)
            except CommandError as exc:
                print(f"error: {exc.message}", file=self.stdout)

    def do_ops(self, line: str) -> None:
        """ops [FAMILY...] -- the built-in Ops, by family (catalogue file): every family,
        or those named (ops linalg)"""
        asked = line.split()
        unknown = [w for w in asked if w not in FAMILIES]
        if unknown:
            print(f"error: no family {unknown[0]!r}; the families: {', '.join(FAMILIES)}",
                  file=self.stdout)
            return
        for family, names in FAMILIES.items():
            if asked and family not in asked:
                continue
            print(f"{family}:", file=self.stdout)
            text = "  "
            for name in names:
                if len(text) + len(name) > 78:
                    print(text.rstrip(), file=self.stdout)
                    text = "  "
                text += name + " "
            print(text.rstrip(), file=self.stdout)

    def do_check(self, line: str) -> None:
        """check [--allow PACKAGE]... FILE... -- validate catalogue files and run their
        examples (they may import numpy, kantensor and the allowed packages only)"""
        try:
            words = [w.text for w in split(line)]
            allow = [words[i + 1] for i, w in enumerate(words[:-1]) if w == "--allow"]
            files = [w for i, w in enumerate(words)
                     if w != "--allow" and (i == 0 or words[i - 1] != "--allow")]
            run_check(files, out=self.stdout, allow=allow)
        except CommandError as exc:
            print(f"error: {exc}", file=self.stdout)

    def do_quit(self, line: str) -> bool:
        """quit -- leave the REPL (or Ctrl-D)"""
        return True

    def do_EOF(self, line: str) -> bool:
        print(file=self.stdout)  # Ctrl-D: leave the shell prompt on a line of its own
        return True

    def emptyline(self) -> None:
        pass

    def get_names(self) -> list[str]:
        """The command methods ``help`` lists: Ctrl-D's ``do_EOF`` is no command."""
        return [n for n in super().get_names() if n != "do_EOF"]


def _do(command: Command) -> Any:
    def do(self: Repl, line: str) -> None:
        self._run(command, line)
    do.__doc__ = f"{command.usage}\n  {command.summary}"
    return do


for _name, _command in COMMANDS.items():
    setattr(Repl, f"do_{_name}", _do(_command))
