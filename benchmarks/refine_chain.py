"""``kt.refine`` on a long chain of additions whose length is given only at its end
(``z = z + 1.0``, ``--nodes`` times, ``z`` of unknown length; ``given={z: "float64[7]"}``):
every node's relation runs, the size flows back through the whole chain.  Each run in a
process of its own (the graph built first, untimed); CPU time of refine
(``time.process_time``: steady on a shared machine), best of ``--repeat`` processes.

``python benchmarks/refine_chain.py [--nodes 1000000] [--repeat 3]``; ``--src DIR``
times another checkout's ``src`` (``PYTHONPATH``) taking turns with this one.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path


def time_refine(nodes: int) -> dict:
    import kantensor as kt

    z = kt.tensor("z", "float64", shape=(None,))
    for _ in range(nodes):
        z = z + 1.0
    start = time.process_time()
    result = kt.refine(z, given={z: "float64[7]"})
    seconds = time.process_time() - start
    inputs = [v for v in result if v.owner is None and v.name == "z"]
    assert str(result[inputs[0]]) == "float64[7]", result[inputs[0]]
    return {"nodes": nodes, "seconds": seconds}


def one(src: str | None, nodes: int) -> dict:
    env = dict(os.environ)
    if src:
        env["PYTHONPATH"] = src
    out = subprocess.run([sys.executable, __file__, "--child", str(nodes)], env=env,
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--nodes", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--src", action="append", default=[],
                        help="another checkout's src directory to time in turn")
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child is not None:
        print(json.dumps(time_refine(args.child)))
        return
    here = str(Path(__file__).resolve().parent.parent / "src")
    sources = [here, *args.src]
    best = {s: float("inf") for s in sources}
    for _ in range(args.repeat):
        for s in sources:
            best[s] = min(best[s], one(s, args.nodes)["seconds"])
    for s in sources:
        t = best[s]
        print(f"refine of a {args.nodes:,}-node chain, {s}: {t:.2f} s CPU "
              f"({t / args.nodes * 1e6:.1f} us/node), best of {args.repeat}")


if __name__ == "__main__":
    main()
