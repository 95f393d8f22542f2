"""``tf.estimator.export`` outputs: what a model serves, as signatures of a SavedModel.

A ``model_fn`` names them in ``EstimatorSpec.export_outputs``; at export each
becomes a ``SignatureDef`` over the tensors the serving input receiver takes.
Classification and regression signatures read serialized ``tf.train.Example``s
(one string input); a predict signature reads any inputs.
"""

from __future__ import annotations

from typing import Any, Dict

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import Tensor
from tensorfleet.saved_model import signature as sig_lib
from tensorfleet.saved_model.signature import SignatureDef


class ExportOutput:
    """One way to serve the model; ``as_signature_def`` builds its signature."""

    def as_signature_def(self, receiver_tensors: Dict[str, Tensor]) -> SignatureDef:
        """The signature of this output fed by ``receiver_tensors``."""
        raise TypeError(f"{type(self).__name__} must define as_signature_def")


def _single_string_input(receiver_tensors: Dict[str, Tensor], what: str) -> Tensor:
    if len(receiver_tensors) != 1:
        raise ValueError(f"{what} input must be a single string Tensor; got "
                         f"{receiver_tensors}")
    (examples,) = receiver_tensors.values()
    if not isinstance(examples, Tensor) or examples.dtype is not _dtypes.string:
        raise ValueError(f"{what} input must be a single string Tensor; got {examples}")
    return examples


class ClassificationOutput(ExportOutput):
    """Class ``scores`` (float) and/or ``classes`` (string labels), per example."""

    def __init__(self, scores: Any = None, classes: Any = None):
        if scores is not None and not (isinstance(scores, Tensor) and
                                       scores.dtype.is_floating):
            raise ValueError(f"Classification scores must be a float32 Tensor; got {scores}")
        if classes is not None and not (isinstance(classes, Tensor) and
                                        classes.dtype is _dtypes.string):
            raise ValueError(f"Classification classes must be a string Tensor; got {classes}")
        if scores is None and classes is None:
            raise ValueError("At least one of scores and classes must be set.")
        self.scores = scores
        self.classes = classes

    def as_signature_def(self, receiver_tensors: Dict[str, Tensor]) -> SignatureDef:
        examples = _single_string_input(receiver_tensors, "Classification")
        return sig_lib.classification_signature_def(examples, self.classes, self.scores)


class RegressionOutput(ExportOutput):
    """One float ``value`` per example."""

    def __init__(self, value: Any):
        if not (isinstance(value, Tensor) and value.dtype.is_floating):
            raise ValueError(f"Regression output value must be a float32 Tensor; got {value}")
        self.value = value

    def as_signature_def(self, receiver_tensors: Dict[str, Tensor]) -> SignatureDef:
        examples = _single_string_input(receiver_tensors, "Regression")
        return sig_lib.regression_signature_def(examples, self.value)


class PredictOutput(ExportOutput):
    """Any named output tensors (a single tensor is named ``output``)."""

    def __init__(self, outputs: Any):
        if isinstance(outputs, Tensor):
            outputs = {"output": outputs}
        if not isinstance(outputs, dict) or not outputs:
            raise ValueError(f"Prediction outputs must be a Tensor or a non-empty dict of "
                             f"Tensors; got {outputs!r}")
        for key, value in outputs.items():
            if not isinstance(key, str):
                raise ValueError(f"Prediction output key must be a string; got {key!r}.")
            if not isinstance(value, Tensor):
                raise ValueError(f"Prediction output value must be a Tensor; got {value!r}.")
        self.outputs = dict(outputs)

    def as_signature_def(self, receiver_tensors: Dict[str, Tensor]) -> SignatureDef:
        return sig_lib.predict_signature_def(receiver_tensors, self.outputs)


__all__ = ["ExportOutput", "ClassificationOutput", "RegressionOutput", "PredictOutput"]
