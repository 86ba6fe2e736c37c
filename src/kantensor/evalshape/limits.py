"""Whether a case's error is the program's or kantensor's own limit.

A case that raised is, by default, one the program refuses: NumPy would raise there
too, so its conditions are what the program assumes false (:func:`.result.merged`).
That holds for the user's own ``raise`` (or an error NumPy itself raised on concrete
values), for a relation's refusal (:class:`~kantensor.TypeInferenceError`: the types
do not meet, as NumPy's do not) and for kantensor's errors that say NumPy's (an axis
out of range, ``need at least one array to stack``). It does not hold where kantensor
cannot type what NumPy runs: a parameter it cannot take (``ParamError``: a slice bound
that is a tensor), ``NotImplementedError``, a rendering limit, or a ``TypeError`` of
its own (``int()`` of a symbolic tensor, an entry not supported during eval_shape).
Such a case is *not covered*: its conditions are marked as a choice
(``Source.otherwise``) as a loop's limit is, so that a contract says undecided there,
never invalid.
"""

from __future__ import annotations

from pathlib import Path

from ..ops.params import AxisError, ParamError
from ..syntax.errors import RenderingLimit, TypeInferenceError
from ..types.dtypes import PromotionError

#: kantensor's own source tree: an error raised in it is kantensor's, not the user's.
_PACKAGE = str(Path(__file__).resolve().parents[1])


def own_limit(error: BaseException) -> bool:
    """Whether ``error`` (as raised in the traced run) is kantensor's limit rather than
    the program's refusal (module docstring)."""
    if isinstance(error, AxisError):
        return False
    if isinstance(error, ParamError | NotImplementedError | RenderingLimit):
        return _raised_by_kantensor(error) or isinstance(error, ParamError | RenderingLimit)
    return isinstance(error, TypeError) and not isinstance(
        error, TypeInferenceError | PromotionError) and _raised_by_kantensor(error)


def _raised_by_kantensor(error: BaseException) -> bool:
    """Whether the innermost frame ``error`` was raised in is kantensor's."""
    tb = error.__traceback__
    if tb is None:
        return False
    while tb.tb_next is not None:
        tb = tb.tb_next
    return str(Path(tb.tb_frame.f_code.co_filename).resolve()).startswith(_PACKAGE)
