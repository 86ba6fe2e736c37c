import os

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


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    """Report the conformance suite's totals: cases run per Op and the agreement."""
    from conformance import STATS

    _fuzz_summary(terminalreporter)
    _soundness_summary(terminalreporter)
    _bruteforce_summary(terminalreporter)
    _refine_summary(terminalreporter)
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


def _fuzz_summary(terminalreporter):
    """Report the fuzz suite: cases per text entry point and the slowest case."""
    from fuzzing import STATS as FUZZ

    if not FUZZ:
        return
    terminalreporter.section("fuzzing of text entry points")
    for entry, (cases, slowest, text) in sorted(FUZZ.items()):
        terminalreporter.write_line(f"{entry}: {cases} cases, slowest {slowest:.3f} s "
                                    f"({text})")


def _soundness_summary(terminalreporter):
    """Report the random-graph soundness suite: graphs, nodes, agreement."""
    from soundness import STATS as SOUND

    if not SOUND:
        return
    terminalreporter.section("random graphs against NumPy")
    for key, count in sorted(SOUND.items()):
        terminalreporter.write_line(f"{key}: {count}")
