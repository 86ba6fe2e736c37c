"""ONNX's traditional machine-learning family (``onnx/defs/traditionalml``, domain
``ai.onnx.ml``): Binarizer, ArrayFeatureExtractor, LabelEncoder and TreeEnsemble
(``signatures/onnx/traditionalml.toml``), each op's builder beside its kernel.
"""

from __future__ import annotations

import functools
import operator
from typing import Any

import numpy as np

from ..ops.params import ParamError
from ..ops.paramvalues import ArrayParam
from ..ops.templates import dims, reads_ranks, typed
from ..syntax.ast import DTypeEq, DTypeName, DTypeVar, InCategory
from ..types.dtypes import NUMPY_STRING


def binarizer(x: np.ndarray, *, threshold: float = 0.0) -> np.ndarray:
    return (x > threshold).astype(x.dtype)


@reads_ranks
def build_array_feature_extractor(types: tuple, **_: Any) -> dict[str, Any]:
    """ArrayFeatureExtractor: the indices' elements taken from the last axis (a vector's
    result is one row)."""
    x, i = types
    a, k = dims("a", x.ndim), dims("k", i.ndim)
    taken = functools.reduce(operator.mul, k) if k else 1
    lead = a[:-1] if x.ndim > 1 else [1]
    return {"x": a, "i": k, "y": [*lead, taken]}


def array_feature_extractor(x: np.ndarray, i: np.ndarray) -> np.ndarray:
    out = np.take(x, i.reshape(-1), axis=-1)
    return out.reshape(1, -1) if x.ndim == 1 else out


#: LabelEncoder's value attributes, and the dtype of the values each gives.
_VALUES = {"values_int64s": "int64", "values_floats": "float32", "values_strings": "string"}

#: LabelEncoder's key attributes, and the dtype of the keys each gives (the input's: its
#: schema's shape inference, and onnxruntime, refuse another).
_KEYS = {"keys_int64s": "int64", "keys_floats": "float32", "keys_strings": "string"}


@reads_ranks
def build_label_encoder(types: tuple, values_tensor: ArrayParam | None = None,
                        **params: Any) -> dict[str, Any]:
    """LabelEncoder: the input's shape, the dtype of its values attribute; the input's
    dtype ``T`` the keys' (the keys attribute given, or keys_tensor's dtype)."""
    keys = params.get("keys_tensor")
    key = keys.dtype if keys is not None else next(
        (d for k, d in _KEYS.items() if params.get(k)), None)
    same = [DTypeEq(DTypeVar("T"), DTypeName(key))] if key is not None else []
    if values_tensor is not None:
        dtype = values_tensor.dtype
    else:
        given = [d for key, d in _VALUES.items() if params.get(key)]
        if len(given) != 1:
            raise ParamError("LabelEncoder needs exactly one values attribute")
        (dtype,) = given
    strings = [InCategory(DTypeVar("T"), "string")] if types[0].dtype == "string" else []
    return {"y": typed([], dtype), "fits": [*strings, *same]}


def _keys(params: dict) -> list:
    for key in ("keys_tensor", "keys_int64s", "keys_floats", "keys_strings"):
        value = params.get(key)
        if value is not None and len(value.values if isinstance(value, ArrayParam) else value):
            return list(value.values if isinstance(value, ArrayParam) else value)
    raise ValueError("LabelEncoder needs a keys attribute")


def label_encoder(x: np.ndarray, **params: Any) -> np.ndarray:
    values_tensor = params.get("values_tensor")
    values = list(values_tensor.values) if values_tensor is not None else next(
        list(params[key]) for key in _VALUES if params.get(key))
    table = dict(zip(_keys(params), values, strict=True))
    default = params.get("default_tensor")
    if default is not None:
        missing = default.values[0]
    elif params.get("values_strings"):
        missing = params.get("default_string", "_Unused")
    elif params.get("values_floats"):
        missing = params.get("default_float", -0.0)
    else:
        missing = params.get("default_int64", -1)
    found = [table.get(v, missing) for v in x.astype(object).ravel().tolist()]
    dtype = values_tensor.dtype if values_tensor is not None else next(
        d for key, d in _VALUES.items() if params.get(key))
    out = np.array(found, dtype=object).reshape(x.shape)
    return out.astype(NUMPY_STRING if dtype == "string" else dtype)


@reads_ranks
def build_tree_ensemble(types: tuple, n_targets: int | None = None,
                        nodes_splits: ArrayParam | None = None, **_: Any) -> dict[str, Any]:
    """TreeEnsemble: (N, F) in, (N, n_targets) out, of the input's dtype ``T``, which is
    the dtype of the ``nodes_splits`` tensor (its schema's shape inference, and
    onnxruntime, refuse another)."""
    if n_targets is None or n_targets < 1:
        raise ParamError("TreeEnsemble needs n_targets >= 1")
    same = [DTypeEq(DTypeVar("T"), DTypeName(nodes_splits.dtype))] \
        if nodes_splits is not None else []
    return {"y": [*dims("n"), n_targets], "same": same}


#: TreeEnsemble's node modes: how a node compares a feature with its split.
_MODES = {0: np.less_equal, 1: np.less, 2: np.greater_equal, 3: np.greater, 4: np.equal,
          5: np.not_equal}


def tree_ensemble(x: np.ndarray, *, n_targets: int, tree_roots: tuple,
                  nodes_featureids: tuple, nodes_modes: ArrayParam,
                  nodes_splits: ArrayParam, nodes_truenodeids: tuple,
                  nodes_trueleafs: tuple, nodes_falsenodeids: tuple,
                  nodes_falseleafs: tuple, leaf_targetids: tuple, leaf_weights: ArrayParam,
                  aggregate_function: int = 1, post_transform: int = 0,
                  membership_values: ArrayParam | None = None,
                  nodes_missing_value_tracks_true: tuple = (),
                  nodes_hitrates: ArrayParam | None = None) -> np.ndarray:
    if post_transform != 0:
        raise NotImplementedError("TreeEnsemble: only post_transform NONE is computed")
    modes, splits = nodes_modes.values, nodes_splits.values
    weights = leaf_weights.values
    members: dict[int, set] = {}
    if membership_values is not None:
        sets = iter(_member_sets(membership_values.values))
        members = {k: next(sets) for k, m in enumerate(modes) if m == 6}
    tracks = nodes_missing_value_tracks_true or (0,) * len(modes)
    out = np.zeros((x.shape[0], n_targets), dtype=np.float64)
    counts = len(tree_roots)
    for row, features in enumerate(np.asarray(x, dtype=np.float64)):
        per_tree = np.full((counts, n_targets), np.nan)
        for t, node in enumerate(tree_roots):
            leaf = False
            while not leaf:
                value = features[nodes_featureids[node]]
                if np.isnan(value):
                    go = bool(tracks[node])
                elif modes[node] == 6:
                    go = value in members[node]
                else:
                    go = bool(_MODES[modes[node]](value, splits[node]))
                node, leaf = (nodes_truenodeids[node], nodes_trueleafs[node]) if go else \
                    (nodes_falsenodeids[node], nodes_falseleafs[node])
            target = leaf_targetids[node]
            per_tree[t, target] = np.nansum([per_tree[t, target], weights[node]])
        out[row] = _aggregate(per_tree, aggregate_function)
    return out.astype(x.dtype)


def _member_sets(values: tuple) -> list[set]:
    """The membership values of each member node, as ONNX lists them (NaN-separated)."""
    sets, current = [], set()
    for v in values:
        if np.isnan(v):
            sets.append(current)
            current = set()
        else:
            current.add(v)
    return [*sets, current]


def _aggregate(per_tree: np.ndarray, how: int) -> np.ndarray:
    """The trees' outputs for one row combined: AVERAGE, SUM, MIN, MAX (a target no
    tree reaches is 0)."""
    reached = ~np.isnan(per_tree)
    if how == 0:
        out = np.nansum(per_tree, axis=0) / per_tree.shape[0]
    elif how == 1:
        out = np.nansum(per_tree, axis=0)
    else:
        with np.errstate(all="ignore"), np.testing.suppress_warnings() as sup:
            sup.filter(RuntimeWarning)
            out = (np.nanmin if how == 2 else np.nanmax)(per_tree, axis=0)
    return np.where(reached.any(axis=0), out, 0.0)
