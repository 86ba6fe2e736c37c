"""Whether onnxruntime and kantensor take a model: the load-time verdicts the ONNX
type-constraint tests compare (each test reads onnxruntime's text its own way).

onnxruntime loads the model in this process with graph optimisations off (the model as
written); loading runs no kernel, so none of the crashes :mod:`ortrun` guards against.
"""

from __future__ import annotations

import warnings

import onnx
import pytest

from kantensor.onnx import from_onnx

ort = pytest.importorskip("onnxruntime")


def ort_refusal(model: onnx.ModelProto) -> str | None:
    """onnxruntime's error text where it refuses to load ``model``, None where it loads."""
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    options.log_severity_level = 4  # (its refusal is the text returned, not a log line)
    try:
        ort.InferenceSession(model.SerializeToString(), options,
                             providers=["CPUExecutionProvider"])
    except Exception as e:  # onnxruntime's own exception classes
        return str(e)
    return None


def kantensor_accepts(model: onnx.ModelProto) -> bool:
    """Whether kantensor types ``model`` (a TypeError or ValueError is a refusal)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            from_onnx(model)
        except (TypeError, ValueError):
            return False
    return True
