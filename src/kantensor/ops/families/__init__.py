"""The Python half of the catalogue: one module per Op family, holding the builders that
render signature templates from parameters and the implementations NumPy lacks. The
data half is ``signatures/*.toml``; the machinery they use is :mod:`kantensor.ops`."""
