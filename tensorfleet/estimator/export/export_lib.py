"""Serving input receivers and ``Estimator.export_saved_model``.

A serving input receiver function builds the placeholders a served model is
fed (``receiver_tensors``) and the features its ``model_fn`` reads from them.
Exporting calls it in a fresh graph, builds the PREDICT-mode model on its
features, restores the latest checkpoint and writes a SavedModel (tag
``serve``) with one signature per export output the receiver can feed, into
``<export_dir_base>/<timestamp>``.
"""

from __future__ import annotations

import logging
import os
import shutil
import time
from typing import Any, Callable, Dict, Optional

from tensorfleet import dtypes as _dtypes
from tensorfleet.estimator.export.export_output import ExportOutput, PredictOutput
from tensorfleet.framework.graph import Tensor
from tensorfleet.framework.sparse_tensor import SparseTensor
from tensorfleet.ops import array_ops
from tensorfleet.ops.parsing_ops import parse_example
from tensorfleet.ops.variables import local_variables_initializer
from tensorfleet.runtime.session import Session
from tensorfleet.saved_model import signature_constants, tag_constants
from tensorfleet.saved_model.builder import EXTRA_ASSETS_DIRECTORY, SavedModelBuilder
from tensorfleet.training.saver import Saver
from tensorfleet.training.training_util import get_or_create_global_step

logger = logging.getLogger(__name__)


def _wrap(value: Any, default_key: str, what: str) -> Dict[str, Any]:
    if isinstance(value, (Tensor, SparseTensor)):
        return {default_key: value}
    if not isinstance(value, dict) or not value:
        raise ValueError(f"{what} must be a Tensor or a non-empty dict of Tensors, got "
                         f"{value!r}")
    for k, v in value.items():
        if not isinstance(k, str):
            raise ValueError(f"{what} keys must be strings: {k!r}.")
        if not isinstance(v, (Tensor, SparseTensor)):
            raise ValueError(f"{what} must be Tensors or SparseTensors: {k}: {v!r}")
    return dict(value)


class ServingInputReceiver:
    """The features a served model reads and the tensors its callers feed.

    ``features``: a Tensor (named ``feature``) or dict of Tensor / SparseTensor;
    ``receiver_tensors``: a Tensor (named ``input``) or dict of Tensor.
    """

    def __init__(self, features: Any, receiver_tensors: Any,
                 receiver_tensors_alternatives: Any = None):
        self.features = _wrap(features, "feature", "features")
        self.receiver_tensors = _wrap(receiver_tensors, "input", "receiver_tensors")
        for k, v in self.receiver_tensors.items():
            if isinstance(v, SparseTensor):
                raise ValueError(f"receiver_tensors must be dense Tensors: {k} is sparse")
        if receiver_tensors_alternatives is not None:
            raise ValueError("receiver_tensors_alternatives are not supported")
        self.receiver_tensors_alternatives = None


def build_parsing_serving_input_receiver_fn(feature_spec: Dict[str, Any],
                                            default_batch_size: Optional[int] = None
                                            ) -> Callable[[], ServingInputReceiver]:
    """A receiver fn fed serialized ``tf.train.Example``s (``examples``, a string
    vector) and parsing them with ``feature_spec`` (``make_parse_example_spec``)."""
    if not isinstance(feature_spec, dict) or not feature_spec:
        raise ValueError(f"feature_spec must be a non-empty dict, got {feature_spec!r}")

    def serving_input_receiver_fn() -> ServingInputReceiver:
        serialized = array_ops.placeholder(_dtypes.string, [default_batch_size],
                                           name="input_example_tensor")
        features = parse_example(serialized, feature_spec)
        return ServingInputReceiver(features, {"examples": serialized})

    return serving_input_receiver_fn


def build_raw_serving_input_receiver_fn(features: Dict[str, Any],
                                        default_batch_size: Optional[int] = None
                                        ) -> Callable[[], ServingInputReceiver]:
    """A receiver fn fed the features themselves: one placeholder per feature, of the
    feature's dtype and shape with the batch dimension ``default_batch_size``."""
    feats = _wrap(features, "feature", "features")
    specs = {}
    for name, t in feats.items():
        if isinstance(t, SparseTensor):
            raise ValueError(f"build_raw_serving_input_receiver_fn: feature {name} is "
                             f"sparse; raw receivers take dense features")
        dims = t.shape.as_list() if t.shape.ndims is not None else None
        if dims:
            dims[0] = default_batch_size
        specs[name] = (t.dtype, dims)

    def serving_input_receiver_fn() -> ServingInputReceiver:
        receivers = {name: array_ops.placeholder(dt, shape, name=name)
                     for name, (dt, shape) in specs.items()}
        return ServingInputReceiver(dict(receivers), receivers)

    return serving_input_receiver_fn


def build_signature_defs(receiver: ServingInputReceiver, export_outputs: Dict[str, Any]
                         ) -> Dict[str, Any]:
    """One signature per export output that ``receiver`` can feed (a classification or
    regression output needs a single string input; others are left out, with a log)."""
    out = {}
    for key, output in export_outputs.items():
        if not isinstance(output, ExportOutput):
            raise ValueError(f"export_outputs must be ExportOutput instances, got "
                             f"{key}: {output!r}")
        try:
            out[key] = output.as_signature_def(receiver.receiver_tensors)
        except ValueError as e:
            logger.warning("Export includes no signature %s: %s", key, e)
    if not out:
        raise ValueError("None of the export outputs can be fed by the serving input "
                         "receiver; no signature to export")
    return out


def _export_dir(base: str) -> str:
    stamp = int(time.time())
    while os.path.exists(os.path.join(base, str(stamp))) or \
            os.path.exists(os.path.join(base, f"temp-{stamp}")):
        stamp += 1
    return os.path.join(base, str(stamp))


def export_saved_model(estimator: Any, predict_mode: str, export_dir_base: Any,
                       serving_input_receiver_fn: Callable[[], ServingInputReceiver],
                       assets_extra: Optional[Dict[str, str]] = None, as_text: bool = False,
                       checkpoint_path: Optional[str] = None) -> bytes:
    """Writes ``estimator``'s model, served through ``serving_input_receiver_fn``, as a
    SavedModel under ``export_dir_base``; returns the new directory (bytes).

    Raises:
      ValueError: no checkpoint, a receiver fn that returns something else, or no
        signature the receiver can feed.
    """
    if isinstance(export_dir_base, bytes):
        export_dir_base = export_dir_base.decode()
    if not callable(serving_input_receiver_fn):
        raise ValueError(f"serving_input_receiver_fn must be callable, got "
                         f"{serving_input_receiver_fn!r}")
    ckpt = estimator._resolve_checkpoint(checkpoint_path)
    if ckpt is None:
        raise ValueError(f"Couldn't find trained model at {estimator.model_dir}.")
    graph = estimator._new_graph()
    with graph.as_default():
        get_or_create_global_step(graph)
        receiver = serving_input_receiver_fn()
        if not isinstance(receiver, ServingInputReceiver):
            raise ValueError(f"serving_input_receiver_fn must return a ServingInputReceiver, "
                             f"got {receiver!r}")
        spec = estimator._call_model_fn(receiver.features, None, predict_mode)
        outputs = spec.export_outputs or {
            signature_constants.DEFAULT_SERVING_SIGNATURE_DEF_KEY:
            PredictOutput(spec.predictions)}
        signatures = build_signature_defs(receiver, outputs)
        saver = Saver(sharded=True)
        init_local = local_variables_initializer()
        final_dir = _export_dir(export_dir_base)
        temp_dir = os.path.join(export_dir_base, "temp-" + os.path.basename(final_dir))
        with Session(graph=graph) as sess:
            saver.restore(sess, ckpt)
            sess.run(init_local)
            builder = SavedModelBuilder(temp_dir)
            builder.add_meta_graph_and_variables(sess, [tag_constants.SERVING],
                                                 signature_def_map=signatures,
                                                 clear_devices=True)
            builder.save(as_text)
    for dest, source in (assets_extra or {}).items():
        target = os.path.join(temp_dir, EXTRA_ASSETS_DIRECTORY, dest)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copyfile(source, target)
    os.rename(temp_dir, final_dir)
    logger.info("SavedModel written to: %s", final_dir)
    return final_dir.encode()


__all__ = ["ServingInputReceiver", "build_parsing_serving_input_receiver_fn",
           "build_raw_serving_input_receiver_fn", "build_signature_defs", "export_saved_model"]
