"""Points to check a contract with: inside its valid set, outside it, and the +-1
neighbours of each boundary of its boxes, within a window of affordable sizes.

Used by tests/test_contracts_light.py (onnxruntime runs the nine light models of the onnx
wheel at these points) and tests/test_contracts.py. A point is a dict of sizes by name.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from pathlib import Path

import onnx
from onnx import version_converter

from kantensor.onnx.contract import data_inputs, with_input_dims

#: The light models of the onnx wheel (onnx/backend/test/data/light/).
LIGHT = ["bvlc_alexnet", "densenet121", "inception_v1", "inception_v2", "resnet50",
         "shufflenet", "squeezenet", "vgg19", "zfnet512"]


def light_path(name: str) -> str:
    return str(Path(onnx.__file__).parent / "backend" / "test" / "data" / "light" /
               f"light_{name}.onnx")


def light_model(name: str) -> tuple[onnx.ModelProto, str]:
    """The light model ``name`` at opset 17 (onnx's version converter; kantensor types
    opset 10 and later) with its image input's batch and spatial sizes named N, H, W;
    and that input's name."""
    model = version_converter.convert_version(onnx.load(light_path(name)), 17)
    (data,) = data_inputs(model)
    return with_input_dims(model, {data: ("N", 3, "H", "W")}), data


def points(contract, window: Mapping[str, tuple[int, int]], total: int, seed: int = 0,
           affordable: Callable[[dict], bool] = lambda p: True) -> list[dict[str, int]]:
    """About ``total`` points of ``window`` (each size's (lo, hi)): the +-1 neighbours of
    every boundary of the contract's boxes within the window first (up to half of
    ``total``), then alternately a valid and an invalid point; only ``affordable`` ones."""
    rng = random.Random(seed)
    names = contract.names
    cells = [c for c in contract.cells if _meets(c, contract, window)]
    edge: list[dict] = []
    for cell in cells:
        base = _inside(cell, contract, window, rng)
        if base is None:
            continue
        for name, s in contract.sizes:
            lo_w, hi_w = window[name]
            if s in cell.defined:
                v = base[name]
                ends = [v - 1, v + 1]
            else:
                ends = []
                for lo, hi in cell.set_of(s).runs():
                    if lo > hi_w:
                        break
                    ends += [lo - 1, lo] + ([hi, hi + 1] if hi is not None else [])
            for v in ends:
                if lo_w <= v <= hi_w:
                    p = {**base, name: v}
                    if affordable(p) and p not in edge:
                        edge.append(p)
    rng.shuffle(edge)
    out = edge[:total // 2]
    tries, misses = 0, 0
    while len(out) < total and tries < 50 * total:
        tries += 1
        want_valid = len(out) % 2 == 0 and bool(cells) and misses < _MISSES
        if want_valid:
            p = _inside(rng.choice(cells), contract, window, rng)
        else:
            p = {n: rng.randint(*window[n]) for n in names}
        if p is None or not affordable(p) or p in out:
            misses += want_valid  # a small valid set runs out: invalid points go on
            continue
        if bool(contract.holds(p).value) == want_valid:
            out.append(p)
    return out


#: Valid points drawn in vain before :func:`points` draws only invalid ones.
_MISSES = 200


def _meets(cell, contract, window) -> bool:
    for name, s in contract.sizes:
        if s not in cell.defined and not any(True for _ in cell.set_of(s).within(*window[name])):
            return False
    return True


def _inside(cell, contract, window, rng) -> dict | None:
    """A random point of ``cell`` within the window (its rest conditions checked)."""
    for _ in range(20):
        point = {}
        for name, s in contract.sizes:
            if s in cell.defined:
                continue
            lo, hi = window[name]
            choices = list(cell.set_of(s).within(lo, hi))
            if not choices:
                return None
            point[s] = rng.choice(choices)
        full = cell.values(point)
        named = {n: full[s] for n, s in contract.sizes}
        if all(window[n][0] <= v <= window[n][1] for n, v in named.items()) and \
                contract.holds(named).value:
            return named
    return None

