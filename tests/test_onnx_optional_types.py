"""The element types the optional ops and SequenceMap take: their schemas' at each opset.

Optional, OptionalHasElement and OptionalGetElement hold a tensor or a sequence of the
15 element types of the sequences until opset 27 (no bfloat16, float8 or sub-byte type;
an empty Optional's type attribute too), of every element type from 28; the last two
take an optional only until opset 17. SequenceMap's input sequence, its additional
inputs (tensors or sequences) and its body's outputs are of those 15 types. Any element
type was taken before (an Optional of bfloat16, an OptionalGetElement of a tensor at
opset 15, a SequenceMap whose body gives int4).

Oracles nobody here wrote (tests/onnxsweep.py): onnxruntime at load, and where it refuses
for another reason (complex elements, an opset it does not know), onnx's strict shape
inference; where onnxruntime takes what onnx refuses (an empty Optional of a bfloat16
type attribute, which onnxruntime does not check), either verdict is right.
"""

from __future__ import annotations

import onnx
import pytest

from onnxsweep import ELEMS, OPTIONAL_CASES, Tally, sequence_map_models

NEWEST = onnx.defs.onnx_opset_version()


@pytest.mark.parametrize(("name", "first", "op", "make"), OPTIONAL_CASES,
                         ids=[c[0] for c in OPTIONAL_CASES])
def test_optional_ops_refused_exactly_where_the_oracles_refuse(name, first, op, make):
    tally = Tally()
    for opset in range(first, NEWEST + 1):
        for code, dtype in ELEMS.items():
            tally.judge(f"{name} {dtype} @{opset}", make(code, opset), op)
    assert not tally.wrong_accepts and not tally.wrong_refusals, str(tally)
    assert tally.judged > 100


def test_sequence_map_refused_exactly_where_the_oracles_refuse():
    tally = Tally()
    for what, op, model in sequence_map_models(NEWEST):
        tally.judge(what, model, op)
    assert not tally.wrong_accepts and not tally.wrong_refusals, (
        str(tally), tally.wrong_accepts[:5], tally.wrong_refusals[:5])
    assert tally.judged > 500
