"""The DSL's vocabulary table against the grammar file it describes (Lark's own reading of
``grammar.lark``), and the messages derived from both."""

from __future__ import annotations

import ast
import pickle
from importlib import resources

import numpy as np
import pytest
from lark import Token
from lark.load_grammar import load_grammar

import kantensor as kt
from kantensor.syntax import vocabulary as V
from kantensor.syntax.ast import DTYPE_CALLS, RESERVED, DimVar, DTypeFunction, DTypeVar
from kantensor.syntax.limits import MAX_NESTING
from kantensor.syntax.parser import _lark
from kantensor.types.dtypes import DEFAULT_RANGE, DTYPE_FUNCTIONS
from kantensor.types.numpy_dtypes import NUMPY_DTYPES

GRAMMAR = resources.files("kantensor.syntax").joinpath("grammar.lark").read_text("utf-8")


def grammar_literals() -> set[str]:
    """Every string literal of the grammar, in its rules and its terminals, as Lark
    parses the grammar file."""
    grammar, _ = load_grammar(GRAMMAR, "grammar.lark", None, False)
    trees = [tree for _, (tree, _) in grammar.term_defs] + \
            [tree for _, _, tree, _ in grammar.rule_defs]
    found = set()
    for tree in trees:
        for sub in tree.iter_subtrees():
            for child in sub.children:
                if isinstance(child, Token) and child.type == "STRING":
                    found.add(ast.literal_eval(child.value))
    return found


def test_the_grammar_literals_are_the_table_words():
    assert grammar_literals() == {w.text for w in V.VOCABULARY}


def test_every_rule_the_table_names_is_a_rule_of_the_grammar():
    rules = {r.alias or r.origin.name for r in _lark().rules}
    named = [w.rule for w in V.VOCABULARY if w.rule is not None]
    assert set(named) <= rules
    assert len(named) == len(set(named))  # one word per rule: by_rule is a function
    assert all(V.by_rule(w.rule) is w for w in V.VOCABULARY if w.rule is not None)


def test_reserved_words_are_the_keywords_and_never_names():
    assert RESERVED == {w.text for w in V.KEYWORDS}
    assert RESERVED == {w for w in grammar_literals() if w.isidentifier()}
    for word in sorted(RESERVED):
        with pytest.raises(kt.SignatureSyntaxError):
            kt.Signature.parse(f"({word})->()")
        with pytest.raises(ValueError, match="reserved"):
            DimVar(word)


ONE_ARGUMENT = [w for w in V.DTYPE_FUNCTIONS if w.arity == (1, 1)]


def test_every_dtype_function_has_one_node_and_one_argument_ones_an_implementation():
    assert set(DTYPE_CALLS) == set(V.DTYPE_FUNCTIONS)
    for word, node in DTYPE_CALLS.items():  # one node for all the one-argument ones
        assert node is DTypeFunction if word in ONE_ARGUMENT else node.word is word
    assert set(DTYPE_FUNCTIONS) == set(ONE_ARGUMENT)
    with pytest.raises(ValueError, match="not a one-argument dtype function"):
        DTypeFunction(V.PROMOTE, "t")


#: NumPy's answer for the one-argument dtype functions it has: float(T) is what T meets
#: a Python float as (NEP 50, default float64), real(T) the dtype of an array's ``.real``
#: (for NumPy's own dtypes: ml_dtypes' low-precision ones do not promote weakly).
NUMPY = {V.FLOAT: lambda d: np.result_type(np.dtype(d), 1.0).name,
         V.REAL: lambda d: np.zeros((), d).real.dtype.name}


@pytest.mark.parametrize("word", ONE_ARGUMENT, ids=lambda w: w.text)
def test_a_one_argument_dtype_function_is_its_row_and_its_implementation(word):
    """What docs/signatures.rst ("Adding a DSL construct") says a new one is: a row, a
    grammar line and an implementation; parsing, printing, pickling and inference follow."""
    sig = kt.Signature.parse(f"(n):t->(n):{word.text}(t)")
    node = sig.outputs[0].dtype
    assert node == DTypeFunction(word, DTypeVar("t")) and node.word is word
    assert kt.Signature.parse(str(sig)) == sig == pickle.loads(pickle.dumps(sig))
    assert pickle.loads(pickle.dumps(sig)).outputs[0].dtype.word is word
    with kt.default_dtype("float64"):
        for dtype in sorted(DEFAULT_RANGE):  # what t ranges over (no string)
            (out,) = sig.infer([kt.TensorType(dtype, (2,))])
            assert out.dtype == DTYPE_FUNCTIONS[word](dtype)
            if word in NUMPY and NUMPY_DTYPES[dtype].isbuiltin == 1:  # NumPy's own dtypes
                assert out.dtype == NUMPY[word](dtype), dtype


def _call_text(word: V.Word, args: list[str]) -> str:
    """A signature that calls ``word`` on ``args`` where the word's role allows it."""
    call = f"{word.text}({','.join(args)})"
    if word.role is V.Role.DIM_FUNCTION:
        return f"({','.join(args)})->({call})"
    if word is V.BROADCAST:  # a clause over sizes: broadcast(a, b) == c
        return f"({','.join([*args, 'c'])})->() where {call} == c"
    inputs = ",".join(f"(n):{a}" for a in args) or "(n)"
    if word.role is V.Role.DTYPE_FUNCTION:
        return f"{inputs}->():{call}"
    return f"{inputs}->() where {call}"


@pytest.mark.parametrize("word", V.FUNCTIONS, ids=lambda w: w.text)
def test_each_call_takes_the_arguments_the_table_says(word):
    least, most = word.arity
    for count in range(5):
        text = _call_text(word, ["a", "b", "c", "d"][:count])
        fits = count >= least and (most is None or count <= most)
        if fits:
            kt.Signature.parse(text)
        else:
            with pytest.raises(kt.SignatureSyntaxError):
                kt.Signature.parse(text)


def _nested(word: V.Word, depth: int) -> str:
    """A signature nesting ``word``'s rule ``depth`` times inside itself."""
    if word.role is V.Role.DIM_FUNCTION:
        return "(" + f"{word.text}(" * depth + "n" + ")" * depth + ")->()"
    if word.role is V.Role.DTYPE_FUNCTION:
        return "(n):" + f"{word.text}(" * depth + "t" + ")" * depth + "->()"
    if word is V.NEG:
        return "(" + "-(" * depth + "n" + ")" * depth + ")->()"
    if word is V.POW:
        return "(" + "(" * depth + "n" + "**2)" * depth + ")->()"
    return "(" + f"n{word.text}(" * depth + "n" + ")" * depth + ")->()"


@pytest.mark.parametrize("word", [w for w in V.VOCABULARY if w.nests], ids=lambda w: w.rule)
def test_the_words_that_nest_count_towards_the_nesting_limit(word):
    sig = kt.Signature.parse(_nested(word, MAX_NESTING))
    assert kt.Signature.parse(str(sig)) == sig
    with pytest.raises(kt.SignatureSyntaxError, match="nested more than 64 levels deep "
                                                      "at position"):
        kt.Signature.parse(_nested(word, MAX_NESTING + 1))


DTYPE_FORMS = ("a dtype name or variable, promote(...), join(...), float(...), real(...) or "
               "loopfloat(...)")
MESSAGES = [
    # only a dtype stands after ':' (join and real were listed beside "a dtype")
    ("(n):t->():", f"expected a dtype ({DTYPE_FORMS}) at position 10"),
    ("(n):->()", f"expected a dtype ({DTYPE_FORMS}) at position 4"),
    # a dim comparison other than '==' takes an expression only
    ("(m,n)->(m) where m >== 1", "expected an expression at position 21"),
    ("(m,n)->(m) where m < ", "expected an expression at position 20"),
    # '==' compares dims or dtypes
    ("(m,n)->(m) where m == ", "expected an expression or a dtype at position 21"),
    ("(n)->() where", "expected a where-clause at position 13"),
    ("(n)->() where n > 1,", "expected a where-clause at position 20"),
    ("(n+...)->()", "expected an expression at position 3"),
    ("(n)->() where promote(x) == n+1", f"expected a dtype ({DTYPE_FORMS}) at position 28"),
    ("(m,,n)->()", "expected ')' or a dimension at position 3"),
    ("(n,", "expected ')' or a dimension at position 3"),
    ("(n", "expected ')' or ',' at position 2"),
    ("(.", "expected an integer (the size k >= 1 of a '.k.' group, as in '.2.') at "
           "position 2"),
]


@pytest.mark.parametrize(("text", "message"), MESSAGES)
def test_messages_list_only_what_may_stand_there(text, message):
    with pytest.raises(kt.SignatureSyntaxError) as info:
        kt.Signature.parse(text)
    assert info.value.message == message


def test_what_a_message_names_parses_there():
    """Each phrase an error names, put where it was expected, parses."""
    examples = {"a dtype": ["float32", "t", "promote(t)", "join(t)", "float(t)", "real(t)"],
                "an expression": ["1", "n", "min(n)", "(n)", "-n"]}
    for text, filler in (("(n):t->():", "a dtype"), ("(n)->(n) where n > ", "an expression")):
        for example in examples[filler]:
            kt.Signature.parse(text + example)
