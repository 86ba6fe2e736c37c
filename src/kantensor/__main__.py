"""``python -m kantensor``: the same as the ``kantensor`` command."""

from .cli import run

run()
