"""ONNX's tensor family (``onnx/defs/tensor``), by kind of op: :mod:`.shape`,
:mod:`.reshape`, :mod:`.padding`, :mod:`.indexing`, :mod:`.elementwise`, :mod:`.cast`,
:mod:`.grid` and :mod:`.resize`. Its entries are ``signatures/onnx/tensor.toml``; each op's
builder lies beside its implementation.
"""
