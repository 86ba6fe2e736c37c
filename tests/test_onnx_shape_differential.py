"""The ONNX shape-arithmetic differential harness (issue 32): random graphs of the size
arithmetic exporters emit (tests/onnx_shape_graphs.py: Shape, Gather, Concat, Div, Cast,
Where, Reshape, Expand, Slice, Pad, Range, If, ...) over one input with named sizes,
every value a graph output, typed by kantensor and run by onnxruntime at several
all-distinct size assignments from 0 to 7 (one with a 0, one with a 1).

At each assignment:

* (a) wherever onnxruntime runs the model, every value's symbolic type (named sizes
  replaced by the assignment) is the shape onnxruntime computed, or unknown: never
  another size. Each value is counted exact, unknown or wrong;
* (b) the model's contract (``kantensor.onnx.contract``) holds where onnxruntime runs
  and fails where onnxruntime refuses; undecided only where docs/contracts.rst says it
  may be (sizes the data decide, a choice not covered), counted apart;
* the model typed at those sizes (the input's sizes fixed) is refused only where
  onnxruntime refuses it, and otherwise states no other size than onnxruntime's.

onnxruntime runs in a worker process (tests/ortrun.py). ``KANTENSOR_ONNX_SHAPES_MODELS``
(default 30) sets the number of models, ``KANTENSOR_ONNX_SHAPES_SIZES`` (default 4) the
assignments per model, ``KANTENSOR_ONNX_SHAPES_SEED`` (default 32) the seed; the figures
go to the summary. The long run (docs/contracts.rst): ``KANTENSOR_ONNX_SHAPES_MODELS=3000
KANTENSOR_ONNX_SHAPES_SIZES=6``.
"""

from __future__ import annotations

import os
import random
import re
import warnings

import numpy as np
from onnx.reference import ReferenceEvaluator

import kantensor.onnx as ko
import ortrun
import sizing
from kantensor.onnx import from_onnx
from onnx_chains import fixed
from onnx_shape_graphs import assignments, random_model
from onnxjudge import at

MODELS = sizing.size("ONNX_SHAPES_MODELS", 30, 3000)
SIZES = sizing.size("ONNX_SHAPES_SIZES", 4, 6)
SEED = int(os.environ.get("KANTENSOR_ONNX_SHAPES_SEED", "32"))

#: Figures for the summary (tests/conftest.py).
STATS: dict[str, int] = {}


def typed(model):
    """The shapes kantensor states for ``model``'s outputs (None: refused; a None entry:
    a value of no tensor type), and why it refused."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return [getattr(v.type, "shape", None) for v in from_onnx(model)[1]], ""
    except (TypeError, ValueError) as exc:  # TypeInferenceError, OnnxImportError, ...
        return None, f"{type(exc).__name__}: {exc}"


def judge(shape, ran, sizes) -> str:
    """``exact``, ``unknown`` or ``wrong``: a stated shape against onnxruntime's."""
    if shape is None:
        return "unknown"
    stated = at(shape, sizes)
    if len(stated) != len(ran) or any(s is not None and s != n
                                      for s, n in zip(stated, ran, strict=True)):
        return "wrong"
    return "unknown" if None in stated else "exact"


def unstated_index(ran, contract) -> bool:
    """Whether onnxruntime refused at a Gather's index out of bounds where the contract
    states nothing of that Gather: its indices' values are data whose interval kantensor
    does not know (docs/contracts.rst, "Index bounds")."""
    found = re.search(r"running Gather node. Name:'([^']+)'.*out of data bounds", ran.why)
    return found is not None and f"Gather {found.group(1)})" not in str(contract)


def spec_runs(model, x) -> bool:
    """Whether ONNX's reference implementation runs ``model`` on ``x`` (asked where
    onnxruntime runs it: a point is valid where both run it, docs/contracts.rst)."""
    return spec_shapes(model, x) is not None


def spec_shapes(model, x) -> list | None:
    """The shapes of ``model``'s outputs by ONNX's reference implementation on ``x``, or
    None where it refuses."""
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            got = ReferenceEvaluator(model).run(None, {"x": x})
    except Exception:  # its errors have no common base class
        return None
    return [list(np.shape(v)) for v in got]


def untyped_where_oracles_differ(why: str, model, x, ran) -> bool:
    """Whether kantensor left a value untyped (NotKnown: it states no type, and no
    invalid model) where onnxruntime and ONNX's reference give outputs of different
    shapes: a Slice of a negative step to INT64_MAX, which onnxruntime walks through
    index 0 and the spec stops before (docs/onnx.rst), feeding ConstantOfShape: no one
    rank is right."""
    return why.startswith("NotKnown") and spec_shapes(model, x) not in (
        None, [list(r) for r in ran])


def check(model, names, sizes_list, stats, problems, where=""):
    """Judge one model at each assignment; count into ``stats``, append ``problems``."""

    def count(key):
        stats[key] = stats.get(key, 0) + 1

    symbolic, why = typed(model)
    contract = None
    if symbolic is not None:
        try:
            contract = ko.contract(model)
        except (TypeError, ValueError) as exc:
            problems.append(f"typed, but its contract raised {exc!r}{where}")
    for sizes in sizes_list:
        count("assignments")
        m = fixed(model, sizes)
        x = np.zeros([sizes[n] for n in names], np.float32)
        ran = ortrun.run(m, {"x": x})
        refused = isinstance(ran, ortrun.Refusal)
        at_sizes = f" at {sizes}{where}"
        count("onnxruntime refused" if refused else "onnxruntime ran")
        if symbolic is None:
            if refused:
                pass
            elif untyped_where_oracles_differ(why, m, x, ran):
                count("model untyped where onnxruntime and the spec (onnx.reference) "
                      "differ")
            elif spec_runs(m, x):
                problems.append(f"refused ({why[:200]}) but onnxruntime ran{at_sizes}")
            else:
                count("model refused, invalid by the spec (onnx.reference), run by "
                      "onnxruntime")
            continue
        verdict = contract.holds(**sizes) if contract is not None else None
        if verdict is None:
            pass
        elif verdict.value is None:
            count("contract undecided")
        elif verdict.value is not refused or (verdict.value is False and not spec_runs(m, x)):
            count("contract agreed" if verdict.value is not refused else
                  "contract agreed, invalid by the spec (onnx.reference), run by onnxruntime")
        elif refused and unstated_index(ran, contract):
            count("contract silent on data indices")
        else:
            problems.append(f"contract says {verdict!r}, onnxruntime "
                            f"{ran.why[:200] if refused else 'ran'}{at_sizes}")
        chosen = verdict is not None and verdict.value is None and verdict.atom is not None \
            and verdict.atom.chosen  # sizes where the types are another choice's
        if not refused and (verdict is None or verdict.value is True or
                            verdict.value is None and not chosen):
            for name, shape, got in zip(model.graph.output, symbolic, ran, strict=True):
                judged = judge(shape, got, sizes)
                count(f"values {judged}")
                if judged == "wrong":
                    problems.append(f"{name.name}: typed {shape}, {at(shape, sizes)} here, "
                                    f"onnxruntime computed {got}{at_sizes}")
        elif not refused:
            count("values where the contract is not covered or fails")
        now, why_now = typed(m)
        if now is None:
            count("fixed sizes refused")
            if not refused and not untyped_where_oracles_differ(why_now, m, x, ran) and \
                    spec_runs(m, x):
                problems.append(f"at fixed sizes refused ({why_now[:200]}) but onnxruntime "
                                f"ran{at_sizes}")
        elif not refused:
            for name, shape, got in zip(model.graph.output, now, ran, strict=True):
                if judge(shape, got, sizes) == "wrong":
                    problems.append(f"{name.name}: typed {shape} at fixed sizes, onnxruntime "
                                    f"computed {got}{at_sizes}")


def test_onnxruntime_computes_the_sizes_kantensor_states():
    rng = random.Random(SEED)
    stats = dict.fromkeys(("models", "models refused", "assignments", "onnxruntime ran",
                           "onnxruntime refused", "values exact", "values unknown",
                           "values wrong", "contract agreed", "contract undecided",
                           "contract silent on data indices", "fixed sizes refused"), 0)
    problems: list[str] = []
    for k in range(MODELS):
        model, names = random_model(rng)
        stats["models"] += 1
        if typed(model)[0] is None:
            stats["models refused"] += 1
        check(model, names, assignments(rng, names, SIZES), stats, problems,
              f": model {k} (seed {SEED})")
    for key, value in stats.items():
        STATS[key] = STATS.get(key, 0) + value
    assert not problems, f"{len(problems)} disagreements:\n" + "\n".join(problems[:10])
    # neither side of the oracle is vacuous
    assert stats["onnxruntime ran"] >= stats["assignments"] // 5
    assert stats["onnxruntime refused"] >= stats["assignments"] // 10
    assert stats["values exact"] >= stats["values unknown"]
