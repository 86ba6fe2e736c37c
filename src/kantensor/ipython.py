"""The IPython extension: ``%load_ext kantensor`` gives one line magic per command.

``%infer add float32[3] int8[]``, ``%query add D[3] float32[3] -> float64[3]`` and
``%refine y x:float32[5,?]`` (``y`` and ``x`` Variables of the notebook) take the REPL's
syntax (:mod:`kantensor.commands`) and return rich results (an HTML table in
notebooks). A command that fails shows its message, with a caret under the culprit,
instead of a traceback. The magics are made from :data:`~kantensor.commands.COMMANDS`,
so a new command there is a new magic here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .commands import COMMANDS, ERRORS, Command, format_error
from .graph.display import block, message

_ERROR_STYLE = "font-family:monospace;color:#a4161a;margin:2px 0"


class CommandFailure:
    """What a magic shows when its command fails: the message, without a traceback."""

    def __init__(self, command: str, exc: BaseException) -> None:
        self.command = command
        self.exc = exc
        self.message = format_error(exc, f"%{command} ")

    def __repr__(self) -> str:
        return f"%{self.command}: {self.message}"

    def _repr_html_(self) -> str:
        return block(f"%{self.command} failed", "", message(self.message, _ERROR_STYLE))


def magic(command: Command, show: Callable[[Any], None],
          namespace: dict[str, Any] | None = None) -> Callable[[str], Any]:
    """The line magic of ``command``: its result, or None after ``show``-ing a failure.
    ``namespace`` (the notebook's variables) is where ``%refine`` finds graphs."""
    def run(line: str) -> Any:
        try:
            return command(line, namespace)
        except ERRORS as exc:
            show(CommandFailure(command.name, exc))
            return None
    run.__name__ = command.name
    run.__doc__ = f"%{command.usage}\n\n{command.summary}"
    return run


def load_ipython_extension(ipython: Any) -> None:
    """Register ``%infer``, ``%query``, ... in an IPython shell (``%load_ext kantensor``)."""
    def show(obj: Any) -> None:  # IPython.display.display, without importing IPython
        data, metadata = ipython.display_formatter.format(obj)
        ipython.display_pub.publish(data=data, metadata=metadata)

    for name, command in COMMANDS.items():
        ipython.register_magic_function(magic(command, show, ipython.user_ns),
                                        magic_kind="line",
                                        magic_name=name)
