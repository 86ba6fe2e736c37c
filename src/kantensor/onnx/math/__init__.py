"""ONNX's math family (``onnx/defs/math``), by kind of op: :mod:`.elementwise`,
:mod:`.activations`, :mod:`.linalg`, :mod:`.axis` and :mod:`.spectral`. Its entries are
``signatures/onnx/math.toml``; each op's builder lies beside its implementation.
"""
