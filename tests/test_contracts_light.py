"""The contracts of the nine light models of the onnx wheel, checked by onnxruntime
(issue 33): at points inside each claimed valid set, outside it, and the +-1 neighbours
of its boundaries, every claimed-valid point runs and claimed-invalid points fail.

Each model is converted to opset 17 and its image input named ``(N, 3, H, W)``
(tests/contract_points.py); onnxruntime runs in a worker process (a crash is a failure),
keeping the session between sizes. Points stay within N in 1..4, H and W in 8..700 and
``N*H*W <= 2*300*300`` (what a run costs).

A window that does not fit its padded input makes the point invalid (issue 33, point 5;
docs/contracts.rst): onnxruntime refuses it for Conv, but where a pool's window overhangs
its input by less than a stride, onnxruntime's truncating division computes a position
from the partial window, where ONNX's output-size formula (floor) gives none. So
onnxruntime runs with its windows watched (tests/ortwindows.py): a run fails outright (an
error, a crash), or runs through a window that differs from ONNX's formula at the input
shape onnxruntime fed it (each such window cross-checked with onnx.reference), or runs
with an empty window map, or runs; all but the last count as invalid, each counted
apart. Every claimed-valid point runs within ONNX's rule, and at least 99% of the
claimed-invalid points are invalid.

``KANTENSOR_CONTRACT_POINTS`` (default 8) is the number of points per model (the issue's
figure: 200, about 20 minutes); ``KANTENSOR_CONTRACT_GRID=1`` runs AlexNet on the whole
grid N in {1, 2, 4}, H and W in 100..420 step 16 (1,323 runs, a few minutes).
"""

from __future__ import annotations

import os

import numpy as np
import pytest

import kantensor.onnx as ko
import ortrun
import ortwindows
import sizing
from contract_points import LIGHT, light_model, points
from differential import count

POINTS = sizing.size("CONTRACT_POINTS", 8, 200)
GRID = os.environ.get("KANTENSOR_CONTRACT_GRID", "") not in ("", "0")
WINDOW = {"N": (1, 4), "H": (8, 700), "W": (8, 700)}


def _affordable(p: dict) -> bool:
    return p["N"] * p["H"] * p["W"] <= 2 * 300 * 300


def _runs(model, name: str, p: dict) -> bool:
    x = np.zeros((p["N"], 3, p["H"], p["W"]), np.float32)
    return isinstance(ortrun.run(model, {name: x}), list)


@pytest.mark.parametrize("name", LIGHT)
def test_the_claimed_valid_sizes_run_and_the_others_fail(name):
    model, data = light_model(name)
    contract = ko.contract(model)
    assert contract.exact, str(contract)
    chosen = points(contract, WINDOW, POINTS, seed=33, affordable=_affordable)
    assert len(chosen) >= POINTS // 2
    watched = ortwindows.Watched(model)
    wrong, failed, invalid = [], 0, 0
    windows = {"truncated": 0, "empty": 0}
    for p in chosen:
        claim = contract.holds(p).value
        run = ortwindows.judge(watched,
                               {data: np.zeros((p["N"], 3, p["H"], p["W"]), np.float32)})
        if isinstance(run, ortwindows.Window):
            assert run.agreed is not False, run  # onnx.reference says what the formula says
            count("light contracts: windows cross-checked by onnx.reference",
                  run.agreed is True)
        if claim:
            ran = isinstance(run, list)
            count("light contracts: valid points run" if ran else "light contracts: VALID FAIL")
            if not ran:
                wrong.append(f"{p}: claimed valid, onnxruntime: {run}")
            continue
        invalid += 1
        if isinstance(run, ortrun.Refusal):
            failed += 1
        elif isinstance(run, ortwindows.Window):
            windows[run.why] += 1
        else:
            wrong.append(f"{p}: claimed invalid ({contract.holds(p)}), onnxruntime runs it")
    count("light contracts: invalid points that fail outright", failed)
    count("light contracts: invalid points run only through a truncated window",
          windows["truncated"])
    count("light contracts: invalid points run with an empty window map", windows["empty"])
    count("light contracts: INVALID POINTS THAT RUN", len(wrong))
    assert not [w for w in wrong if "claimed valid" in w], wrong
    assert failed + sum(windows.values()) >= 0.99 * invalid, (
        f"of {invalid} claimed-invalid points, {failed} fail outright, "
        f"{windows['truncated']} run only through a truncated window and {windows['empty']} "
        f"with an empty window map: {wrong}")


def test_alexnet_accepts_36_points_of_the_grid():
    """The issue's grid: N in {1, 2, 4}, H and W in 100..420 step 16. The contract
    claims 36 of its 1,323 points; onnxruntime runs each of them, and refuses the other
    points (all of them with KANTENSOR_CONTRACT_GRID=1; else 40 of them)."""
    model, data = light_model("bvlc_alexnet")
    contract = ko.contract(model)
    sizes = range(100, 421, 16)
    claimed = contract.solutions(N=[1, 2, 4], H=sizes, W=sizes)
    assert len(claimed) == 36
    assert {(p["N"], p["H"], p["W"]) for p in claimed} >= {(1, 212, 212), (1, 228, 228),
                                                           (1, 148, 308), (2, 116, 212)}
    for p in claimed:
        assert _runs(model, data, p), p
    rest = [{"N": n, "H": h, "W": w} for n in (1, 2, 4) for h in sizes for w in sizes
            if {"N": n, "H": h, "W": w} not in claimed]
    if not GRID:
        rest = [rest[k] for k in np.random.default_rng(33).choice(len(rest), 40,
                                                                   replace=False)]
    ran = [p for p in rest if _runs(model, data, p)]
    count("AlexNet grid: points refused", len(rest) - len(ran))
    assert ran == []


def test_the_sets_of_square_images_of_one_are_the_issue_s():
    """With N = 1 and H = W: AlexNet H in [211, 242], VGG19 [224, 255], Inception-v1
    [221, 252]; each end runs in onnxruntime and each end's outer neighbour fails."""
    for name, want in (("bvlc_alexnet", (211, 242)), ("vgg19", (224, 255)),
                       ("inception_v1", (221, 252))):
        model, data = light_model(name)
        square = ko.contract(model).fix(N=1, W="H")
        assert square.sets()["H"].text("H") == f"H in [{want[0]}, {want[1]}]", name
        if name != "vgg19":  # VGG19 is the slowest to run: its ends are in the test above
            for h, runs in ((want[0] - 1, False), (want[0], True), (want[1], True),
                            (want[1] + 1, False)):
                assert _runs(model, data, {"N": 1, "H": h, "W": h}) == runs, (name, h)
