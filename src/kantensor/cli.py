"""The ``kantensor`` command."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence


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
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="kantensor", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("demo", help="build, print, type and run a small graph")
    args = parser.parse_args(argv)
    if args.command == "demo":
        return _demo()
    return 2  # pragma: no cover - argparse rejects unknown commands


if __name__ == "__main__":
    sys.exit(main())
