"""Size parameters written with names in the commands (``infer zeros shape=(n,3)``).

The REPL, the magics and the ``kantensor`` program read a parameter as a Python literal,
else as text; a size parameter holding a name (``shape=(n,3)``) was refused ("expected
an int or a Dim, got '(n,3)'"), though the Python call ``kt.zeros((n, 3))`` builds. Now
its names are named sizes (Python's syntax says what is a tuple, the DSL's what each
size is), and the call's size inputs are added as the call adds them. Oracle: NumPy at
every assignment of the names in 0..3, against the answer of ``infer`` and of ``query``
(each at the sizes where its conditions hold).
"""

from __future__ import annotations

import ast
import itertools
from types import SimpleNamespace

import numpy as np
import pytest
from unification import var

import kantensor as kt
from kantensor.commands import COMMANDS
from kantensor.commands.words import _sizes_named
from kantensor.ops.callspec import KINDS, OWN_SIZE_KINDS, SIZE_KINDS, Param
from kantensor.ops.sizeparams import SIZED_KINDS, SIZES_AMONG_KINDS, SIZES_ONLY_KINDS
from kantensor.types.symbols import substitute
from test_one_relation import ENTRIES, _bound, _flat

SIZES = range(4)

#: (the command's words after the Op: input types then parameters, NumPy's value at the
#: names' sizes on inputs of those sizes)
CASES = [
    ("zeros", "shape=(n,3)", lambda s: np.zeros((s["n"], 3))),
    ("ones", "shape=(2*n,n)", lambda s: np.ones((2 * s["n"], s["n"]))),
    ("zeros", "shape=n+1", lambda s: np.zeros(s["n"] + 1)),
    ("ones", "shape=[n,m]", lambda s: np.ones((s["n"], s["m"]))),
    ("broadcast_to", "float32[3] shape=(n,3)",
     lambda s: np.broadcast_to(np.zeros(3), (s["n"], 3))),
    ("broadcast_to", "float32[m] shape=(n,3)",
     lambda s: np.broadcast_to(np.zeros(s["m"]), (s["n"], 3))),
    ("arange", "start=n", lambda s: np.arange(s["n"])),
    ("eye", "N=n+1", lambda s: np.eye(s["n"] + 1)),
    ("tile", "float32[2] reps=(n,)", lambda s: np.tile(np.zeros(2), (s["n"],))),
    ("repeat", "float32[2] repeats=n", lambda s: np.repeat(np.zeros(2), s["n"])),
    ("reshape", "float32[n,6] shape=(n,2,3)",
     lambda s: np.zeros((s["n"], 6)).reshape(s["n"], 2, 3)),
    ("reshape", "float32[n,6] shape=(m,-1)",
     lambda s: np.zeros((s["n"], 6)).reshape(s["m"], -1)),
]


def _numpy(fn, sizes):
    try:
        return fn(sizes).shape
    except ValueError:
        return None


def _at(shape, conditions, sizes):
    """The shape at ``sizes`` where every condition holds; None where one fails (one
    that divides by 0 there is undefined: another must fail, ``m >= 1``)."""
    undefined = False
    for c in conditions:
        try:
            if not c.holds(sizes):
                return None
        except ZeroDivisionError:
            undefined = True
    assert not undefined, (conditions, sizes)
    return tuple(substitute(d, sizes) if isinstance(d, kt.Dim) else d for d in shape)


@pytest.mark.parametrize(("op", "words", "fn"), CASES, ids=[f"{c[0]} {c[1]}" for c in CASES])
def test_a_size_parameter_with_names_is_numpys_size(op, words, fn):
    """``infer OP ... shape=(n,3)`` gives one type (and the conditions it holds under)
    that is NumPy's shape at every n, m in 0..3, and refuses nothing NumPy computes; the
    query of the same call with the output open answers the same."""
    inferred = COMMANDS["infer"](f"{op} {words}")
    (out,) = inferred.outputs
    answers = list(COMMANDS["query"](f"{op} {words} -> Y"))
    for n, m in itertools.product(SIZES, repeat=2):
        sizes = {"n": n, "m": m}
        want = _numpy(fn, sizes)
        assert _at(out.shape, inferred.conditions, sizes) == want, (sizes, inferred, want)
        got = {_at(a["Y"].shape, a.where, sizes) for a in answers} - {None}
        assert got == ({want} if want is not None else set()), (sizes, answers, want)


def test_the_kinds_of_sizes_are_split_in_one_home():
    """ops/sizeparams holds the kinds that may hold sizes as two tables, of sizes only
    and of sizes among other things; the call's kinds are them, by object."""
    assert not set(SIZES_ONLY_KINDS) & set(SIZES_AMONG_KINDS)
    assert SIZED_KINDS == {**SIZES_ONLY_KINDS, **SIZES_AMONG_KINDS}
    assert all(KINDS[kind] is read for kind, read in SIZED_KINDS.items())


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_the_commands_read_names_as_sizes_for_the_kinds_of_sizes_only(kind):
    """A parameter's text ``n`` is the named size ``Dim("n")`` for a kind of
    :data:`SIZES_ONLY_KINDS` (the one home: a kind added there is seen by the commands
    and by the call, which carries its Dims and takes the size read), and stays text for
    every other kind (its own check words the error)."""
    op = SimpleNamespace(spec=SimpleNamespace(params=[Param("p", kind)]))
    read = _sizes_named(op, {"p": "n"})["p"]
    if kind not in SIZES_ONLY_KINDS:
        assert read == "n"
        return
    assert read == kt.Dim("n")
    assert kind in SIZE_KINDS | OWN_SIZE_KINDS
    assert KINDS[kind](read) in (kt.Dim("n"), (kt.Dim("n"),))


def test_a_size_parameter_of_text_that_is_no_size_is_still_refused():
    """Text that is neither a literal nor sizes is the parameter's own error, as before
    (a name there is a size only in a size parameter: ``mode=`` keeps its text)."""
    with pytest.raises(ValueError, match="expected an int or a Dim, got '\\(n,foo-\\)'"):
        COMMANDS["infer"]("zeros shape=(n,foo-)")
    assert str(COMMANDS["infer"]("pad float32[3] pad_width=1 mode=constant").outputs[0]) == \
        "float32[5]"


def _command_words(example):
    """The parameters of a catalogue example as command words (``axis=1``), or None
    where one is no literal without spaces that reads back as itself (a list NumPy
    takes as a tuple, a slice)."""
    words = []
    for k, v in example.items():
        if k in ("in", "out", "error"):
            continue
        text = repr(v).replace(" ", "")
        try:
            if ast.literal_eval(text) != v or isinstance(v, list):
                return None
        except (ValueError, SyntaxError):
            return None
        words.append(f"{k}={text}")
    return words


def _answers(run, *args):
    """The answers of ``run(*args)`` (each type and its conditions), or what its arity
    error says (after the Op's label, which names the Op alone or with its signature)."""
    try:
        return [(str(a["Z"]), a.where) for a in run(*args)]
    except kt.TypeInferenceError as exc:
        return str(exc).rsplit(": ", 1)[-1]


def test_the_query_command_answers_every_catalogue_example_as_query_does():
    """``query OP TYPES PARAMS -> Z`` of each catalogue example (the REPL's, the magic's
    and the CLI's words) gives the answers ``kt.query`` gives (test_one_relation judges
    those by brute force), or the same error."""
    compared = 0
    for entry in ENTRIES:
        for example in entry.examples:
            words = "in" in example and _command_words(example)
            found = words is not None and words is not False and _bound(entry, example)
            types = [str(t) for t in _flat(example["in"])] if found else []
            if not found or any(" " in t for t in types):
                continue
            op, given = found
            line = f"{entry.name} {' '.join(types)} {' '.join(words)} -> Z"
            assert _answers(kt.query, op, given, [var("Z")]) == \
                _answers(COMMANDS["query"], line), line
            compared += 1
    assert compared > 400, compared
