"""How many examples, graphs or points the suite's properties and brute-force loops run:
one switch for the whole suite.

Each sized loop reads its size with :func:`size` (``sizing.size(NAME, quick, long)``);
README's "Test sizes" lists them all. ``make test`` (and CI) runs each at its *quick*
size, so the clean-clone run stays near 10 minutes on 2 cores; ``KANTENSOR_LONG=1`` runs
every one at its *long* size: the long runs the docs name (7,600 soundness graphs, 20,000
text mutants per entry point, 5,000 examples of the size-fact properties, ...), hours for
the whole suite, so give it the files you mean. A knob's own variable
(``KANTENSOR_FACTS_EXAMPLES=150``, ...) sets that knob alone and wins over both. The quick
sizes keep every ``@example`` and every seed a test names: those are the regressions, and
they run at any size. Seeds, deadlines and other settings that are not sizes keep their
own variables.
"""

from __future__ import annotations

import os

#: ``KANTENSOR_LONG=1``: every sized loop at its long size.
LONG = os.environ.get("KANTENSOR_LONG", "") not in ("", "0")


def size(name: str, quick: int, long: int) -> int:
    """The size of knob ``KANTENSOR_<name>``: its variable if set, else ``long`` under
    ``KANTENSOR_LONG=1``, else ``quick``."""
    value = os.environ.get(f"KANTENSOR_{name}")
    if value not in (None, ""):
        return int(value)
    return long if LONG else quick
