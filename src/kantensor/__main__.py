"""``python -m kantensor``: the same as the ``kantensor`` command."""

import sys

from .cli import main

sys.exit(main())
