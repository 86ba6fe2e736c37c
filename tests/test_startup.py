"""Start-up (issue 36): what ``import kantensor`` leaves for first use. Timings are in
benchmarks/import_time.py; here only which libraries a fresh interpreter has loaded."""

from __future__ import annotations

import subprocess
import sys


def _loaded_after(statement: str, modules: list[str]) -> dict[str, bool]:
    code = (f"{statement}\nimport sys\n"
            f"print(' '.join(str(m in sys.modules) for m in {modules!r}))")
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True,
                         text=True).stdout.split()
    return dict(zip(modules, (flag == "True" for flag in out), strict=True))


def test_import_kantensor_leaves_graphviz_and_numpy_random_for_first_use():
    loaded = _loaded_after("import kantensor", ["graphviz", "numpy.random", "kantensor.ops"])
    assert loaded == {"graphviz": False, "numpy.random": False, "kantensor.ops": True}


def test_first_picture_and_first_trace_load_them():
    """A first picture loads graphviz; a first trace makes its traced ``numpy.random``
    (the sampler in the traced code answers a typed tensor, as when it was made at
    import)."""
    loaded = _loaded_after(
        "import kantensor as kt\nimport numpy as np\n"
        "kt.graphviz(kt.matrix('x') + 1)\n"
        "def f(a):\n    return a + np.random.rand(a.shape[0])\n"
        "assert str(kt.eval_shape(f, 'float32[n]').type) == 'float64[n]'",
        ["graphviz", "numpy.random"])
    assert loaded == {"graphviz": True, "numpy.random": True}
