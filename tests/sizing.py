"""How many examples, graphs or points the suite's properties and brute-force loops run:
one switch for the whole suite.

``make test`` (and CI) runs each sized loop at its *quick* size, so the clean-clone run
stays near 10 minutes on 2 cores; ``KANTENSOR_LONG=1`` runs every one at its *long* size
(the sizes ``make test`` ran up to 357b36b, about 13 minutes on 2 cores, README's "Test
sizes"). A knob's own variable (``KANTENSOR_FACTS_EXAMPLES=5000``, ...) sets that knob
alone and wins over both. The quick sizes keep every ``@example`` and every seed a test
names: those are the regressions, and they run at any size.
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
