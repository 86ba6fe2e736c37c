"""ONNX's nn family (``onnx/defs/nn``), by kind of op: :mod:`.conv` (its variants:
:mod:`.convvariants`), :mod:`.unpool`, :mod:`.normalization`, :mod:`.attention` and
:mod:`.layers`. Its entries are ``signatures/onnx/nn.toml``; each op's builder lies beside
its implementation.
"""
