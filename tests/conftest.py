import importlib
import json
import os
import sys
from collections import Counter

import pytest
from hypothesis import settings

import kantensor as kt

# In CI (CI=true) every hypothesis test draws the same examples on every run, so a
# landing never depends on luck; locally each run explores new ones.
settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")


@pytest.fixture
def default_float64():
    """Switch the default float dtype to float64 for one test."""
    old = kt.get_default_dtype()
    kt.set_default_dtype("float64")
    yield
    kt.set_default_dtype(old)


# -- figures of the suites, also when pytest-xdist runs the tests in worker processes ------
def _sum(mine, theirs):
    """Numbers add up, dicts merge key by key, lists (tuples once sent) item by item."""
    if isinstance(mine, dict):
        for key, value in theirs.items():
            mine[key] = _sum(mine[key], value) if key in mine else value
        return mine
    if isinstance(mine, list | tuple):
        return type(mine)(_sum(a, b) for a, b in zip(mine, theirs, strict=True))
    return mine + theirs


def _counters(mine, theirs):
    """Per Op, a Counter of cases (a Counter says 0 for a count never made)."""
    for key, value in theirs.items():
        mine.setdefault(key, Counter()).update(value)
    return mine


def _fuzz(mine, theirs):
    """Per entry point: cases add up; the slowest case (and its text) is the slower."""
    for key, (cases, slowest, text) in theirs.items():
        old = mine.get(key, (0, -1.0, ""))
        mine[key] = (old[0] + cases, *max((old[1], old[2]), (slowest, text)))
    return mine


def _onnx_fuzz(mine, theirs):
    """Outcomes add up per entry point; the peak memory is the larger."""
    for entry, outcomes in theirs["outcomes"].items():
        mine["outcomes"].setdefault(entry, Counter()).update(outcomes)
    mine["peak_kb"] = max(mine["peak_kb"], theirs["peak_kb"])
    return mine


def _soundness(mine, theirs):
    """Counts add up; the deepest node is the deepest."""
    for key, value in theirs.items():
        mine[key] = max(mine.get(key, 0), value) if key == "deepest node" else \
            mine.get(key, 0) + value
    return mine


#: The figures each suite keeps in a module of tests/, and how two workers' figures
#: merge: a worker sends them when it finishes, the controller merges them before its
#: summary.
FIGURES = {("conformance", "STATS"): _counters, ("fuzzing", "STATS"): _fuzz,
           ("soundness", "STATS"): _soundness, ("test_bruteforce", "CASES"): _sum,
           ("test_refine", "STATS"): _sum, ("dask_cases", "STATS"): _counters,
           ("test_onnx_nodes", "SUMMARY"): _sum, ("test_onnx_differential", "STATS"): _sum,
           ("test_onnx_shape_differential", "STATS"): _sum,
           ("differential", "STATS"): _sum, ("test_fuzz_onnx", "SUMMARY"): _onnx_fuzz}


def pytest_sessionfinish(session):
    output = getattr(session.config, "workeroutput", None)
    if output is None:  # not an xdist worker
        return
    figures = [[module, name, getattr(sys.modules[module], name)]
               for module, name in FIGURES if module in sys.modules]
    output["kantensor figures"] = json.dumps(figures)


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error):
    """The controller merges a finished worker's figures into its own modules (an
    optional hook: pytest-xdist's, so ``-p no:xdist`` runs the tests in one process)."""
    for module, name, value in json.loads(node.workeroutput.get("kantensor figures", "[]")):
        target = getattr(importlib.import_module(module), name)
        FIGURES[module, name](target, value)


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    """Report the conformance suite's totals: cases run per Op and the agreement."""
    from conformance import STATS

    _fuzz_summary(terminalreporter)
    _onnx_fuzz_summary(terminalreporter)
    _soundness_summary(terminalreporter)
    _bruteforce_summary(terminalreporter)
    _refine_summary(terminalreporter)
    _dask_summary(terminalreporter)
    _onnx_summary(terminalreporter)
    _differential_summary(terminalreporter)
    if not STATS:
        return
    cases = sum(s["cases"] for s in STATS.values())
    disagree = sum(s["disagree"] for s in STATS.values())
    write = terminalreporter.write_line
    terminalreporter.section("conformance with NumPy")
    write(f"{cases} cases over {len(STATS)} Ops, {cases - disagree} agree "
          f"({100 * (cases - disagree) / cases:.2f}%)")
    write("  ".join(f"{name}:{s['cases']}" + (f"(!{s['disagree']})" if s["disagree"] else "")
                    for name, s in sorted(STATS.items())))
    planned = sum(s["planned"] for s in STATS.values())
    write(f"{planned} cases over {sum(1 for s in STATS.values() if s['planned'])} Ops also "
          "identical with the memory plan forced on and in the plain interpreter")


def _bruteforce_summary(terminalreporter):
    """Report the brute-force check of the relation: cases compared per Op."""
    import sys

    module = sys.modules.get("test_bruteforce")
    if module is None or not module.CASES:
        return
    terminalreporter.section("one relation, by brute force")
    total = sum(module.CASES.values())
    terminalreporter.write_line(f"{total} cases: " + ", ".join(
        f"{name} {n}" for name, n in module.CASES.items()))


def _refine_summary(terminalreporter):
    """Report refine's recovery: sizes the random graphs determine, and found."""
    import sys

    module = sys.modules.get("test_refine")
    if module is None or not module.STATS:
        return
    terminalreporter.section("refine against brute force")
    for kind, (graphs, determined, recovered) in sorted(module.STATS.items()):
        share = 100 * recovered / determined if determined else 100.0
        terminalreporter.write_line(
            f"{kind}: {graphs} graphs, {determined} sizes left unknown forwards but "
            f"determined by the graph, {recovered} recovered ({share:.1f}%)")


def _differential_summary(terminalreporter):
    """Report the differential harnesses of issue 38: each one's figures."""
    for module, title in (("test_onnx_differential", "ONNX models: kantensor against "
                           "onnxruntime"),
                          ("test_onnx_shape_differential", "ONNX shape arithmetic: kantensor "
                           "against onnxruntime"),
                          ("differential", "forward, query, refine and run")):
        stats = getattr(sys.modules.get(module), "STATS", None)
        if not stats:
            continue
        terminalreporter.section(title)
        terminalreporter.write_line(", ".join(f"{key}: {value}" for key, value in stats.items()))


def _dask_summary(terminalreporter):
    """Report the Dask backend's suite: Ops and cases, chunks and values agreeing."""
    import sys

    module = sys.modules.get("dask_cases")
    if module is None or not module.STATS:
        return
    stats = module.STATS
    cases = sum(s["cases"] for s in stats.values())
    disagree = sum(s["disagree"] for s in stats.values())
    terminalreporter.section("Dask backend against its blocks and NumPy")
    terminalreporter.write_line(
        f"{cases} cases over {len(stats)} Ops, random chunks: {cases - disagree} with "
        f"predicted chunks = computed blocks and values = NumPy backend "
        f"({100 * (cases - disagree) / cases:.2f}%)")
    refused = sum(s["refused"] for s in stats.values())
    whole = sorted(name for name, s in stats.items() if s["refused"])
    terminalreporter.write_line(
        f"without allow_rechunk: {refused} cases refused, each announced by its plan, over "
        f"{len(whole)} Ops that need a whole axis ({', '.join(whole)})")


def _fuzz_summary(terminalreporter):
    """Report the fuzz suite: cases per text entry point and the slowest case."""
    from fuzzing import STATS as FUZZ

    if not FUZZ:
        return
    terminalreporter.section("fuzzing of the text and ONNX entry points")
    for entry, (cases, slowest, text) in sorted(FUZZ.items()):
        terminalreporter.write_line(f"{entry}: {cases} cases, slowest {slowest:.3f} s "
                                    f"({text})")


def _onnx_fuzz_summary(terminalreporter):
    """Report the ONNX mutation fuzz: outcomes per entry point, the peak memory."""
    module = sys.modules.get("test_fuzz_onnx")
    if module is None or not module.SUMMARY["outcomes"]:
        return
    terminalreporter.section("fuzzing of ONNX models")
    for entry, outcomes in sorted(module.SUMMARY["outcomes"].items()):
        terminalreporter.write_line(f"{entry}: {sum(outcomes.values())} cases: " + ", ".join(
            f"{name} {n}" for name, n in Counter(outcomes).most_common()))
    terminalreporter.write_line(f"peak resident memory of a child beyond the fork: "
                                f"{module.SUMMARY['peak_kb'] / 1024:.0f} MB")


def _soundness_summary(terminalreporter):
    """Report the random-graph soundness suite: graphs, nodes, agreement."""
    from soundness import STATS as SOUND

    if not SOUND:
        return
    terminalreporter.section("random graphs against NumPy")
    for key, count in sorted(SOUND.items()):
        terminalreporter.write_line(f"{key}: {count}")


def _onnx_summary(terminalreporter):
    """Report ONNX's node cases: typed exactly, unknown, wrong, and run equal."""
    module = sys.modules.get("test_onnx_nodes")
    if module is None or not module.SUMMARY:
        return
    s = Counter(module.SUMMARY)
    cases = s["cases"]
    terminalreporter.section("ONNX node test cases")
    for mode in ("symbolic", "concrete"):
        exact = s[f"{mode} exact"]
        terminalreporter.write_line(
            f"{mode}: {cases} cases of {s['op types']} op types: {exact} exact "
            f"({100 * exact / cases:.1f}%), {s[f'{mode} unknown']} unknown, "
            f"{s[f'{mode} refused']} refused, {s[f'{mode} wrong']} wrong")
    terminalreporter.write_line(
        f"op types exact in every case (symbolic): {s['op types exact']}; executed: "
        f"{s['ran']} ran, {s['equal']} equal to the expected outputs")
    terminalreporter.write_line(
        f"in scope (default domain; no sequence, optional, string, control-flow op): "
        f"{s['scope cases']} cases of {s['scope op types']} op types: {s['scope exact']} "
        f"exact ({100 * s['scope exact'] / max(s['scope cases'], 1):.1f}%), "
        f"{s['scope op types exact']} op types exact in every case, {s['scope equal']} "
        "executed equal")
    runnable = s["scope reference"]
    terminalreporter.write_line(
        f"onnx.reference reproduces {s['reference']} of the {cases} cases, {runnable} in "
        f"scope; of those, executed equal: {s['scope equal of reference']} "
        f"({100 * s['scope equal of reference'] / max(runnable, 1):.1f}%)")
