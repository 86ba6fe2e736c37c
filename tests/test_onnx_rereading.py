"""Models refused under several builders' choices, read again under other assignments
of them (:mod:`kantensor.onnx.rereading`), judged by onnxruntime: every value's type is
onnxruntime's shape or unknown, and the contract holds exactly where onnxruntime runs
(or is undecided where a reading's assumption fails), at every size from 0 to 3.

Each model slices ``x[N, D, S]`` by bounds ``-(size // q)`` on up to three axes (each
bound's sign a choice: counting from the end where ``size // q >= 1``) and gathers at
``-(size // q) - r`` of a sliced axis: under the choices the index is out of range at
every size, so the first reading is refused; where a choice fails the bound is 0 and
onnxruntime may run it."""

from __future__ import annotations

import itertools
import random

import pytest
from onnx import helper

import kantensor.onnx as ko
from differential import count
from kantensor.onnx.rereading import MAX_READINGS, read_refuting
from kantensor.syntax.errors import TypeInferenceError
from kantensor.types.conditions import AnyOf, Condition, Source, is_choice
from kantensor.types.dim import Dim
from test_onnx_shape_found import BIG, _judged, _model, typed

NAMES = "NDS"
POINTS = list(itertools.product(range(4), repeat=len(NAMES)))


def _sliced(bounds, index):
    """``x`` sliced on axis ``a`` from ``-(x.shape[b] // q)`` for each ``(a, b, q)`` of
    ``bounds`` in turn, then gathered on ``bounds[0]``'s axis at ``-(x.shape[b] // q) -
    index``."""
    nodes = [helper.make_node("Shape", ["x"], ["i_shape"])]
    consts = {"big": [BIG], "index": index}
    last = "x"
    for k, (a, b, q) in enumerate(bounds):
        consts.update({f"at{k}": b, f"q{k}": -q, f"axis{k}": [a]})
        nodes += [helper.make_node("Gather", ["i_shape", f"at{k}"], [f"i_size{k}"], axis=0),
                  helper.make_node("Div", [f"i_size{k}", f"q{k}"], [f"i_q{k}"]),
                  helper.make_node("Unsqueeze", [f"i_q{k}", "axis0"], [f"i_q{k}1"]),
                  helper.make_node("Slice", [last, f"i_q{k}1", "big", f"axis{k}"],
                                   [f"y{k}"])]
        last = f"y{k}"
    consts["axis0"] = [0]
    nodes += [helper.make_node("Sub", ["i_q0", "index"], ["i_index"]),
              helper.make_node("Gather", [last, "i_index"], ["z"], axis=bounds[0][0])]
    return _model(nodes, NAMES, consts)


def test_two_different_choices_are_read_again_where_one_fails():
    """``x[-(S//3):, -(N//2):]`` then ``Gather`` at ``-(S//3) - 1`` of axis 0: two
    different choices (``S//3 >= 1``, ``N//2 >= 1``), the Gather out of range under the
    first at every size. The model was refused (no single fact negates two choices),
    where onnxruntime runs it wherever ``S <= 2`` and ``N >= 1``; it is read again with
    the first choice negated (an assumption), and at the other assignment where the first
    choice holds, refused too: so where ``S >= 3`` the model is invalid."""
    model = _sliced([(0, 2, 3), (1, 0, 2)], 1)
    assert typed(model)[0] is not None, typed(model)[1]
    contract = ko.contract(model)
    assert "DSL: where N >= 2, S <= 2" in str(contract)
    # the reading under the first choice and the second's negation is refused too: the
    # first choice holds nowhere the model is valid (invalid there, not uncovered)
    assert contract.holds(N=2, D=0, S=3).value is False
    assert contract.holds(N=1, D=0, S=0).value is None  # (the second choice fails)
    stats = _judged(model, NAMES, POINTS)
    assert stats["onnxruntime ran"] == 36 and stats["values exact"] > 0, stats
    assert stats["contract agreed"] + stats["contract undecided"] == len(POINTS), stats


def test_random_slices_under_several_choices_are_typed_where_onnxruntime_runs():
    """Seeded random models of 1 to 3 such slices (bounds by N, D or S over 2 or 3) and
    a Gather at an offset of 1 to 3 below the first bound: none typed wrong or refused
    where onnxruntime runs; some have several different choices."""
    rng = random.Random(9101)
    several = 0
    for _ in range(12):
        k = rng.randint(1, 3)
        axes = rng.sample(range(3), k)
        bounds = [(a, rng.randrange(3), rng.choice((2, 3))) for a in axes]
        model = _sliced(bounds, rng.randint(1, 3))
        stats = _judged(model, NAMES, POINTS)
        count("rereading: sizes judged by onnxruntime", len(POINTS))
        several += len({(b, q) for _, b, q in bounds}) > 1 and \
            stats.get("onnxruntime ran", 0) > 0 and typed(model)[0] is not None
    assert several >= 3, several


def test_readings_are_bounded_and_the_first_error_is_raised():
    """A model refused in every reading under three different choices (each reading
    making them again) is read at most ``MAX_READINGS`` times; its first reading's error
    is raised (the builders' own choices), and each later reading's givens hold what the
    refusal showed: not all of the three."""
    choices = [Condition(Dim(n), ">=", 1, Source(op="Slice", otherwise="another length"))
               for n in "NDS"]
    givens = []

    class Reader:
        def __init__(self, given):
            givens.append(given)
            self.conditions = [*given, *choices]

    def run(reader):
        raise TypeInferenceError(f"reading {len(givens)}")

    with pytest.raises(TypeInferenceError, match="reading 1$"):
        read_refuting(Reader, run)
    assert len(givens) == MAX_READINGS == 8
    shown = AnyOf(tuple((c.negated(),) for c in choices))
    assert all(shown in given for given in givens[1:])
    assert [sum(map(is_choice, given)) for given in givens[1:]] == [1, 1, 1, 2, 2, 2, 3]
