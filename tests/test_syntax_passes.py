"""The parser's two passes (kantensor/syntax/parser.py): the inline pass (the AST built
as Lark reduces, no positions) gives the AST the positioned pass (a tree with positions,
its nesting checked, then made the AST; the parser before the inline pass) gives, and
every text the inline pass refuses gets the positioned pass's error, unchanged."""

from __future__ import annotations

import os
import re
import threading
import time

import pytest

from fuzzing import mutants
from kantensor.ops.catalogue import catalogue_files
from kantensor.syntax import parser
from kantensor.syntax.errors import SignatureSyntaxError
from kantensor.syntax.limits import MAX_NESTING
from kantensor.syntax.parser import _parse, _parse_positioned, parse_alternatives
from test_fuzz_text import PIECES_SIG, PIECES_TYPE, SIGNATURES, TYPES


def _outcome(parse, text: str, start: str) -> tuple:
    try:
        return "ok", parse(text, start)
    except SignatureSyntaxError as e:
        return "error", str(e), e.position, e.expected


def _inline(text: str, start: str) -> object:
    return _parse(text, start, "a text", shipped=False)  # (Lark's inline pass itself)


def _texts() -> list[tuple[str, str]]:
    """Every signature of the shipped catalogue files (templates among them), the fuzz
    seeds and their mutants, and expressions nested around the limit in every place."""
    shipped: list[str] = []
    for folder in (None, "onnx"):
        for _, text in catalogue_files(folder):
            shipped += re.findall(r'^signature = "([^"\\]*)"', text, re.M)
    sigs = shipped + SIGNATURES + mutants(SIGNATURES + shipped, 1500, PIECES_SIG, seed=5)
    types = TYPES + mutants(TYPES, 500, PIECES_TYPE, seed=6)
    for depth in (MAX_NESTING - 1, MAX_NESTING, MAX_NESTING + 1):
        nests = [("-(", "n", ")", "float(", ")"), ("min(n,", "n", ")", "promote(", ")"),
                 ("(", "n", "**2)", "real(", ")")]
        for open_dim, atom, close_dim, open_dtype, close_dtype in nests:
            dim = open_dim * depth + atom + close_dim * depth
            dtype = open_dtype * depth + "t" + close_dtype * depth
            sigs += [f"({dim})->()", f"(n)->() where {dim} >= 1", f"(n):t->():{dtype}",
                     f"(n):t->() where {dtype} == t", f"(n)->() where broadcast(n, {dim}) == n"]
            types += [f"float32[3,{dim}]"]
        types += [f"int8[{'+'.join(['n'] * (depth + 1))}]"]
    return [(t, "start") for t in sigs] + [(t, "tensor_type") for t in types]


def test_the_passes_agree():
    texts = _texts()
    kinds = set()
    for text, start in texts:
        inline = _outcome(_inline, text, start)
        assert inline == _outcome(_parse_positioned, text, start), text
        kinds.add(inline[0])
    assert kinds == {"ok", "error"}  # both kinds of outcome were compared


def test_threads_share_the_inline_pass():
    """The inline pass has one transformer: texts parsed at once from several threads
    each get their own AST."""
    texts = [f"(a{i},b{i}):t->(a{i}*b{i}+{i}):t where t in floating" for i in range(200)]
    expected = [_parse_positioned(t, "start") for t in texts]
    got: dict[int, list] = {}

    def work(k: int) -> None:
        got[k] = [_inline(t, "start") for t in (texts if k % 2 else texts[::-1])]

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for k, results in got.items():
        assert results == (expected if k % 2 else expected[::-1])


def test_a_child_forked_while_another_thread_parses_can_parse():
    """The inline pass's lock is held while a text parses: a process forked then gets a
    free lock (the parsing thread does not exist in the child), so it parses at once."""
    held = threading.Event()
    release = threading.Event()

    def hold() -> None:
        with parser._INLINE_LOCK:
            held.set()
            release.wait(5)

    t = threading.Thread(target=hold)
    t.start()
    held.wait(5)
    pid = os.fork()
    if pid == 0:  # the child: parse, exit 0 when it answered (a held lock would hang)
        ok = parse_alternatives("(n)->(n)")[0].inputs is not None
        os._exit(0 if ok else 1)
    release.set()
    t.join()
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        time.sleep(0.05)
    else:
        os.kill(pid, 9)
        os.waitpid(pid, 0)
        pytest.fail("the forked child did not parse within 20 s: the lock stayed held")
    assert os.waitstatus_to_exitcode(status) == 0
