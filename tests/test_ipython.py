"""The IPython extension, in a real Jupyter kernel (ipykernel, driven by jupyter_client):
the magics' rich results and short errors, completion of tensor methods, ``x.sum?``."""

from __future__ import annotations

import re

import pytest
from jupyter_client.manager import start_new_kernel

import kantensor as kt
from htmltree import parse


@pytest.fixture(scope="module")
def kernel():
    km, kc = start_new_kernel(kernel_name="python3",
                              extra_arguments=["--HistoryManager.enabled=False"])
    try:
        outputs = run(kc, "import kantensor as kt\n%load_ext kantensor")
        assert not [o for o in outputs if o["msg_type"] == "error"], outputs
        yield kc
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)


def run(kc, code: str) -> list[dict]:
    """Execute ``code``; the iopub messages it produced (outputs, errors)."""
    outputs: list[dict] = []

    def hook(msg: dict) -> None:
        if msg["msg_type"] in ("execute_result", "display_data", "stream", "error"):
            outputs.append({"msg_type": msg["msg_type"], **msg["content"]})

    reply = kc.execute_interactive(code, output_hook=hook, timeout=60)
    assert reply["content"]["status"] in ("ok", "error")
    return outputs


def only(outputs: list[dict], kind: str) -> dict:
    found = [o for o in outputs if o["msg_type"] == kind]
    assert len(found) == 1 and len(outputs) == 1, outputs
    return found[0]


def test_query_magic_shows_a_table(kernel):
    out = only(run(kernel, "%query add D[n,m] float32[3] -> float64[2,3]"), "execute_result")
    assert out["data"]["text/plain"] == ("D = float64, n = 2, m = 3\nD = float64, n = 2, m = 1"
                                         "\n2 solutions")
    html = parse(out["data"]["text/html"])
    (table,) = html.find_all("table")
    assert table.rows()[:3] == [["D", "n", "m"], ["float64", "2", "3"], ["float64", "2", "1"]]
    assert "2 solutions" in html.text()  # the whole list says how long it is
    empty = only(run(kernel, "%query add float32[4] float32[3] -> X"), "execute_result")
    assert "no solutions" in parse(empty["data"]["text/html"]).text()


def test_infer_magic_gives_types(kernel):
    out = only(run(kernel, "%infer sum int8[2,n,4] axis=-1"), "execute_result")
    rows = parse(out["data"]["text/html"]).find_all("table")[0].rows()
    assert rows[1] == ["input", "0", "int8[2,n,4]"] and rows[2] == ["output", "0", "int64[2,n]"]
    # The magic's value is an object whose outputs are the TensorTypes infer gives.
    run(kernel, "r = %infer matmul float32[2,3] float32[3,4]")
    out = only(run(kernel, "r.outputs == (kt.TensorType('float32', (2, 4)),)"), "execute_result")
    assert out["data"]["text/plain"] == "True"
    # What named sizes must meet is shown, after "where"
    out = only(run(kernel, "%infer matmul float32[a,b] float32[c,d]"), "execute_result")
    assert out["data"]["text/plain"].endswith("-> (float32[a,d]) where b == c")
    assert "where b == c" in parse(out["data"]["text/html"]).text()


@pytest.mark.parametrize("line, message, culprit", [
    ("%infer ad float32[3] int8[]", "unknown Op 'ad' (did you mean add?)", "ad"),
    ("%infer add float32[3] float33[2]", "unknown dtype 'float33'", "float33"),
    ("%infer add flaot32[3] float32[3]", "did you mean float32?", "flaot32"),
    ("%query add flaot32[3] Y -> float32[3]", "did you mean float32?", "flaot32"),
    ("%query add D[3] float32[3] -> \"float64[3]", "unbalanced \" quote", "\""),
    ("%infer (m,n->() float32[2,3]", "bad signature: expected ')' or ','", "->"),
])
def test_magic_errors_are_a_message_with_a_caret(kernel, line, message, culprit):
    out = only(run(kernel, line), "display_data")  # not an error: no traceback
    text = out["data"]["text/plain"]
    assert message in text and "Traceback" not in text
    shown, caret = text.splitlines()[-2:]
    assert shown.strip() == line and caret.index("^") == shown.index(culprit)
    html = parse(out["data"]["text/html"])
    assert message in html.find_all("pre")[0].text()
    # The message wraps; the line and its caret never do, so the caret stays under it.
    assert "white-space:pre-wrap" in html.find_all("pre")[0].attrs["style"]
    (pair,) = [s for s in html.find_all("span") if s.attrs.get("style") == "white-space:pre"]
    assert pair.text() == f"{shown}\n{caret}"


def test_wrong_number_of_inputs_is_reported_as_infer_does(kernel):
    out = only(run(kernel, "%query add float32[3] -> X"), "display_data")
    assert "add +(),()->(): takes 2 inputs, got 1" in out["data"]["text/plain"]


def test_completion_lists_tensor_methods(kernel):
    run(kernel, "x = kt.matrix('x', 'float32')")
    assert "x.sum" in completions(kernel, "x.su")
    assert "x.squeeze" not in completions(kernel, "x.su")
    assert completions(kernel, "x.res") == ["x.reshape"]


def completions(kc, code: str) -> list[str]:
    """What the kernel completes ``code`` (cursor at its end) to."""
    reply = kc.complete(code, len(code), reply=True, timeout=30)["content"]
    return [code[:reply["cursor_start"]] + m for m in reply["matches"]]


def test_question_mark_shows_the_ops_doc(kernel):
    reply = kernel.inspect("x.sum", 5, reply=True, timeout=30)["content"]
    assert reply["found"]
    text = re.sub(r"\x1b\[[0-9;]*m", "", reply["data"]["text/plain"])  # no colours
    assert kt.sum.__doc__.splitlines()[0] in text and "functools.partial" not in text
    assert "Sum over axis" in text  # the Op's own doc


def test_rich_displays_in_the_kernel(kernel):
    out = only(run(kernel, "kt.graphviz(kt.dvector('a') + kt.dvector('b'))"), "execute_result")
    assert out["data"]["image/svg+xml"].lstrip().startswith("<?xml")
    out = only(run(kernel, "kt.TensorType('float32', (kt.Dim('n'), 3))"), "execute_result")
    spans = parse(out["data"]["text/html"]).find_all("span")
    assert [s.text() for s in spans if "kantensor-symbolic" in s.attrs.get("class", "")][0] == "n"


def test_refine_magic_works_on_the_notebooks_variables(kernel):
    run(kernel, "x = kt.tensor('x', 'float32', shape=(None, None))\n"
                "W = kt.tensor('W', 'float32', shape=(3, 4))\n"
                "y = kt.tanh((x + 1.0) @ W)")
    out = only(run(kernel, "%refine y -> float32[5,4]"), "execute_result")
    table = parse(out["data"]["text/html"]).find_all("table")[0].rows()
    assert table[0] == ["variable", "refined type", "was"]
    assert ["x", "float32[5,3]", "float32[?,?]"] in table
    assert ["W", "float32[3,4]", ""] in table
    run(kernel, "r = %refine y x:float32[2,?]")
    out = only(run(kernel, "str(r[x]), str(r[y])"), "execute_result")
    assert out["data"]["text/plain"] == "('float32[2,3]', 'float32[2,4]')"
    failed = only(run(kernel, "%refine y x:float32[?,5]"), "display_data")
    text = failed["data"]["text/plain"]
    assert "x axis 1 is 5 because of given x: float32[?,5]" in text and "Traceback" not in text
    # A conflict chain's long lines wrap in the notebook (and its HTML export), not cut
    # at the output's edge.
    assert "white-space:pre-wrap" in parse(failed["data"]["text/html"]).find_all("pre")[0] \
        .attrs["style"]
