"""wav2vec2's ``torch.export`` attention (issue #32): the frames' count computed by
integer ``Div`` before the convs (tests/exported_models.py ``frame_heads``) is the
windows' count only where the windows hold, so each Reshape's ``-1`` is a quotient by a
size, ``(8*w - 8)//(4*w - 4)`` with ``w = (samples + 240)//320``: 2 under the last
window's ``w - 1 >= 1`` (at ``w == 1`` it is ``0//0``). Left undecided, the quotients
made nine conditions of the real export and cost its first ``infer_shapes`` 15x the
instructions (the prover asked of them node after node). Judged by onnxruntime: every
value exact, a size it computes alike at every run typed as that int, and every
condition kept needed (broken at some size, where onnxruntime refuses the model)."""

from __future__ import annotations

import itertools

import exported_models as em
import ortrun
import shapejudge as sj
from kantensor.onnx import infer_shapes
from kantensor.onnx.importer import read_types
from kantensor.types.conditions import Condition
from kantensor.types.dim import Dim
from kantensor.types.facts import Facts
from kantensor.types.symbols import substitute


def test_the_heads_of_frames_counted_by_div_are_ints_where_onnxruntime_finds_them_alike():
    model, sizes = em.frame_heads()
    typed = infer_shapes(model)
    runs = sj.runtime_shapes(model, sizes)
    judgement = sj.judge(typed, runs, sizes)
    assert judgement.counts[sj.EXACT] == len(sj.values_of(model))
    dims = sj.typed_shapes(typed)
    alike = {(name, axis): size for name in sj.values_of(model)
             for axis, size in enumerate(runs[0][name])
             if all(run[name][axis] == size for run in runs)}
    assert {key: dims[key[0]][key[1]] for key in alike} == alike


def _broken(condition, others) -> dict | None:
    """A size assignment of a grid where ``condition`` fails, the fewest ``others``
    failing there (None: it holds wherever it is defined on the grid)."""
    found = []
    for batch, samples in itertools.product((0, 1, 2), range(0, 1300, 7)):
        at = {"batch": batch, "samples": samples}
        try:
            if condition.holds(at):
                continue
        except ZeroDivisionError:
            continue
        found.append((sum(not _holds(c, at) for c in others), samples, batch, at))
    return min(found, key=lambda f: f[:3])[3] if found else None


def _holds(condition, at: dict) -> bool:
    try:
        return condition.holds(at)
    except ZeroDivisionError:
        return False


def test_every_condition_kept_is_broken_where_onnxruntime_refuses_the_model():
    model, _ = em.frame_heads()
    conditions = read_types(model).conditions
    assert conditions
    for condition in conditions:
        at = _broken(condition, [c for c in conditions if c is not condition])
        assert at is not None, f"{condition} holds wherever it is defined"
        got = ortrun.run(model, sj.concrete_inputs(model, at))
        assert isinstance(got, ortrun.Refusal), (str(condition), at, got)


def test_a_quotient_by_a_multiple_is_simplified_only_where_the_facts_show_it_by_brute_force():
    """``(k*den + r)//den`` and ``% den`` under a fact ``w >= low`` (``w`` a size or a
    floor of one), simplified, equal Python's quotient and remainder at every ``n`` from
    0 to 40 where the fact holds and ``den`` is not 0; and some simplify to ints."""
    n = Dim("n")
    ints = 0
    for w, b, d, k, r, low in itertools.product((n, n // 3), (1, 3), (-4, -1, 0, 2),
                                                (-2, 0, 3), (0, 1, 5), (0, 1, 2)):
        den = b * w + d
        if isinstance(den, int):
            continue
        num = k * den + r
        facts = Facts([Condition(w, ">=", low)])
        for op in ("//", "%"):
            exact = num // den if op == "//" else num % den
            formed = facts.simplify(exact)
            ints += isinstance(formed, int)
            for at in range(41):
                sizes = {"n": at}
                if substitute(w, sizes) < low or substitute(den, sizes) == 0:
                    continue
                value = substitute(num, sizes), substitute(den, sizes)
                want = value[0] // value[1] if op == "//" else value[0] % value[1]
                assert substitute(formed, sizes) == want, (str(exact), str(facts), at)
    assert ints
