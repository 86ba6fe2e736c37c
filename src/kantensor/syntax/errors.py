"""Exceptions raised by signature parsing and type inference."""

from __future__ import annotations

from typing import Any

from ..graph.display import block, message

_ERROR_STYLE = "font-family:monospace;color:#a4161a;margin:2px 0"


def error_html(exc: BaseException) -> str:
    """An error as its kind and its message (long lines wrap, carets stay aligned)."""
    return block(type(exc).__name__, "", message(exc, _ERROR_STYLE))

__all__ = ["COMMAND_ERRORS", "RenderingLimit", "SignatureSyntaxError", "TypeInferenceError",
           "Unrendered", "placeholder_error"]


#: Characters of the offending line a syntax error shows on each side of its position.
CONTEXT = 60


class SignatureSyntaxError(ValueError):
    """A malformed signature text.

    Attributes: ``text`` (the signature), ``position`` (0-based character offset of the
    offending character; ``len(text)`` for an unexpected end), ``expected`` (a short
    description of what was expected there) and ``message`` (first line of ``str(err)``).
    """

    __module__ = "kantensor"  # its public home: tracebacks name kantensor.SignatureSyntaxError

    def __init__(self, message: str, text: str, position: int, expected: str = "") -> None:
        super().__init__(message, text, position, expected)
        self.message = message
        self.text = text
        self.position = position
        self.expected = expected

    def __str__(self) -> str:
        # Show only the line holding the error, so multi-line signatures stay readable,
        # and of a long line only CONTEXT characters on each side of the position.
        start = self.text.rfind("\n", 0, self.position) + 1
        end = self.text.find("\n", self.position)
        end = len(self.text) if end < 0 else end
        lo, hi = max(start, self.position - CONTEXT), min(end, self.position + CONTEXT)
        head, tail = "..." * (lo > start), "..." * (hi < end)
        line = head + self.text[lo:hi] + tail
        return f"{self.message}\n  {line}\n  {' ' * (len(head) + self.position - lo)}^"

    def _repr_html_(self) -> str:
        return error_html(self)


class TypeInferenceError(TypeError):
    """Input types that no alternative of a signature accepts.

    ``signature`` is the signature whose alternatives all failed, when one was solved
    (None for an error found before solving, such as an input's own sizes).
    """

    __module__ = "kantensor"  # its public home, whichever layer raises it

    def __init__(self, message: str, *, signature: Any = None) -> None:
        super().__init__(message)
        self.signature = signature

    def _repr_html_(self) -> str:
        return error_html(self)


class RenderingLimit(TypeInferenceError):
    """A template's builder refuses to write a relation this large (``squeeze(axis=None)``
    over too many axes of unknown size): a limit, not "no such types", so a query that
    meets it raises it instead of answering without those types."""


class Unrendered(Exception):  # noqa: N818 - (a mark beside an error's own class)
    """The mark of a builder's refusal for want of a size or value its inputs' types do
    not say (an ONNX Squeeze without axes, of unknown sizes): not "no such types",
    so a relation rendering it from what its terms know raises a :class:`RenderingLimit`
    saying what it needs instead of answering without those types."""


#: The errors a command (the REPL, the ``kantensor`` program, the notebook magics) reports
#: as a message: the DSL's two and those of bad values. Anything else is a bug, with a
#: traceback. (Here, below every command, so that ``kantensor onnx`` reports alike without
#: loading the command table.)
COMMAND_ERRORS = (SignatureSyntaxError, TypeInferenceError, ValueError, TypeError, IndexError)


def placeholder_error(text: str, pos: int) -> SignatureSyntaxError:
    """A placeholder ``{name}`` in a signature that is not a template."""
    return SignatureSyntaxError(
        f"placeholder at position {pos}: only a template (the signature of a catalogue "
        "entry with a builder) has placeholders", text, pos, "a signature")
