"""Signatures of a SavedModel: which tensors a caller feeds and fetches, by key.

``TensorInfo`` names one tensor of the saved graph (with its dtype and shape);
``SignatureDef`` maps input and output keys to ``TensorInfo`` and names its
method (predict, classify or regress, as TensorFlow Serving). Both are plain data
so a signature is stored as JSON beside the graph.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import Tensor
from tensorfleet.framework.sparse_tensor import SparseTensor
from tensorfleet.framework.tensor_shape import TensorShape
from tensorfleet.saved_model import signature_constants as sc


class TensorInfo:
    """A tensor of the saved graph: ``name`` (``"op:0"``), ``dtype`` and ``tensor_shape``."""

    def __init__(self, name: str, dtype: _dtypes.DType, tensor_shape: TensorShape):
        self.name = name
        self.dtype = dtype
        self.tensor_shape = tensor_shape

    def to_plain(self) -> Dict[str, Any]:
        """As JSON-able data."""
        return {"name": self.name, "dtype": self.dtype.name,
                "shape": self.tensor_shape.as_list() if self.tensor_shape.ndims is not None
                else None}

    @classmethod
    def from_plain(cls, d: Dict[str, Any]) -> "TensorInfo":
        """From ``to_plain``'s data; ValueError when malformed."""
        if not isinstance(d, dict) or not isinstance(d.get("name"), str):
            raise ValueError(f"malformed tensor info {d!r}")
        shape = d.get("shape")
        return cls(d["name"], _dtypes.as_dtype(d["dtype"]),
                   TensorShape(shape) if shape is not None else TensorShape(None))

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, TensorInfo) and self.to_plain() == other.to_plain()

    def __repr__(self) -> str:
        return f"TensorInfo(name={self.name!r}, dtype={self.dtype.name}, " \
               f"shape={self.tensor_shape})"


class SignatureDef:
    """Named inputs and outputs of one way to call the model, and its method name."""

    def __init__(self, inputs: Dict[str, TensorInfo], outputs: Dict[str, TensorInfo],
                 method_name: str):
        self.inputs = dict(inputs)
        self.outputs = dict(outputs)
        self.method_name = method_name

    def to_plain(self) -> Dict[str, Any]:
        """As JSON-able data."""
        return {"inputs": {k: v.to_plain() for k, v in self.inputs.items()},
                "outputs": {k: v.to_plain() for k, v in self.outputs.items()},
                "method_name": self.method_name}

    @classmethod
    def from_plain(cls, d: Dict[str, Any]) -> "SignatureDef":
        """From ``to_plain``'s data; ValueError when malformed."""
        if not isinstance(d, dict) or not isinstance(d.get("inputs"), dict) or \
                not isinstance(d.get("outputs"), dict):
            raise ValueError(f"malformed signature {d!r}")
        return cls({k: TensorInfo.from_plain(v) for k, v in d["inputs"].items()},
                   {k: TensorInfo.from_plain(v) for k, v in d["outputs"].items()},
                   str(d.get("method_name", "")))

    def __repr__(self) -> str:
        return f"SignatureDef(method_name={self.method_name!r}, inputs={sorted(self.inputs)}, " \
               f"outputs={sorted(self.outputs)})"


def build_tensor_info(tensor: Any) -> TensorInfo:
    """The ``TensorInfo`` of a dense tensor.

    Raises:
      ValueError: for a ``SparseTensor`` (signatures here hold dense tensors only).
      TypeError: for anything that is not a tensor.
    """
    if isinstance(tensor, SparseTensor):
        raise ValueError("build_tensor_info: SparseTensor signature entries are not "
                         "supported; densify the tensor first")
    if not isinstance(tensor, Tensor):
        raise TypeError(f"build_tensor_info: expected a Tensor, got {tensor!r}")
    return TensorInfo(tensor.name, tensor.dtype, tensor.shape)


def build_signature_def(inputs: Optional[Dict[str, TensorInfo]] = None,
                        outputs: Optional[Dict[str, TensorInfo]] = None,
                        method_name: Optional[str] = None) -> SignatureDef:
    """A ``SignatureDef`` from ``TensorInfo`` dicts."""
    return SignatureDef(inputs or {}, outputs or {}, method_name or "")


def _infos(tensors: Dict[str, Any], what: str) -> Dict[str, TensorInfo]:
    if not isinstance(tensors, dict) or not tensors:
        raise ValueError(f"{what} must be a non-empty dict of tensors, got {tensors!r}")
    return {str(k): build_tensor_info(v) for k, v in tensors.items()}


def predict_signature_def(inputs: Dict[str, Any], outputs: Dict[str, Any]) -> SignatureDef:
    """A predict signature: any named inputs and outputs."""
    return SignatureDef(_infos(inputs, "Prediction inputs"),
                        _infos(outputs, "Prediction outputs"), sc.PREDICT_METHOD_NAME)


def classification_signature_def(examples: Any, classes: Any, scores: Any) -> SignatureDef:
    """A classify signature: serialized examples in, ``classes`` and/or ``scores`` out."""
    if examples is None:
        raise ValueError("Classification examples cannot be None.")
    if classes is None and scores is None:
        raise ValueError("Classification classes and scores cannot both be None.")
    outputs = {}
    if classes is not None:
        outputs[sc.CLASSIFY_OUTPUT_CLASSES] = build_tensor_info(classes)
    if scores is not None:
        outputs[sc.CLASSIFY_OUTPUT_SCORES] = build_tensor_info(scores)
    return SignatureDef({sc.CLASSIFY_INPUTS: build_tensor_info(examples)}, outputs,
                        sc.CLASSIFY_METHOD_NAME)


def regression_signature_def(examples: Any, predictions: Any) -> SignatureDef:
    """A regress signature: serialized examples in, ``predictions`` out."""
    if examples is None or predictions is None:
        raise ValueError("Regression examples and predictions cannot be None.")
    return SignatureDef({sc.REGRESS_INPUTS: build_tensor_info(examples)},
                        {sc.REGRESS_OUTPUTS: build_tensor_info(predictions)},
                        sc.REGRESS_METHOD_NAME)


def is_valid_signature(signature_def: SignatureDef) -> bool:
    """True when the signature has outputs and a known method with its required keys."""
    if not isinstance(signature_def, SignatureDef) or not signature_def.outputs:
        return False
    m = signature_def.method_name
    if m == sc.CLASSIFY_METHOD_NAME:
        return set(signature_def.inputs) == {sc.CLASSIFY_INPUTS}
    if m == sc.REGRESS_METHOD_NAME:
        return set(signature_def.inputs) == {sc.REGRESS_INPUTS}
    return m == sc.PREDICT_METHOD_NAME and bool(signature_def.inputs)


__all__: List[str] = ["TensorInfo", "SignatureDef", "build_tensor_info", "build_signature_def",
                      "predict_signature_def", "classification_signature_def",
                      "regression_signature_def", "is_valid_signature"]
