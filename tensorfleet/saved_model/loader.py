"""``tf.saved_model.loader.load``: a SavedModel back into a session's graph.

The meta graph whose tags match is imported into ``sess.graph`` (names kept, or
under ``import_scope``), each variable is assigned its saved value, and the
``main_op`` (if any) runs. The result describes the meta graph: its tags and its
``signature_def`` map, whose tensor names can be fetched and fed in ``sess``.
Also ``simple_save``, which writes a one-signature SavedModel from a session.
"""

from __future__ import annotations

import json
import logging
import os
from typing import Any, Dict, List, Optional, Sequence

import numpy as np
from safetensors.numpy import load_file

from tensorfleet import errors
from tensorfleet.framework import tensor_proto as _tp
from tensorfleet.framework.serialization import import_graph_def
from tensorfleet.framework.tensor_shape import TensorShape
from tensorfleet.ops import array_ops, state_ops
from tensorfleet.saved_model import signature_constants as sc
from tensorfleet.saved_model import tag_constants, tensorflow_layout
from tensorfleet.saved_model.builder import (FORMAT, SAVED_MODEL_FILENAME, VARIABLES_DIRECTORY,
                                             VARIABLES_FILENAME, SavedModelBuilder)
from tensorfleet.saved_model.signature import SignatureDef, TensorInfo, predict_signature_def

logger = logging.getLogger(__name__)


class MetaInfoDef:
    """The tags of a loaded meta graph (``meta_info_def.tags``, as TensorFlow)."""

    def __init__(self, tags: List[str]):
        self.tags = list(tags)


class MetaGraphDef:
    """What ``load`` returns: the meta graph's tags and signatures."""

    def __init__(self, tags: List[str], signature_def: Dict[str, SignatureDef]):
        self.meta_info_def = MetaInfoDef(tags)
        self.signature_def = signature_def


def maybe_saved_model_directory(export_dir: Any) -> bool:
    """True when ``export_dir`` holds a (finished) SavedModel, tensorfleet's or
    TensorFlow's."""
    if isinstance(export_dir, bytes):
        export_dir = export_dir.decode()
    return os.path.isfile(os.path.join(export_dir, SAVED_MODEL_FILENAME)) or \
        tensorflow_layout.is_tensorflow_saved_model(export_dir)


def _tensor_info(proto: Any) -> TensorInfo:
    dims = _tp.shape_from_proto(proto.tensor_shape)
    return TensorInfo(proto.name, _tp.dtype_from_enum(proto.dtype, f"tensor {proto.name}"),
                      TensorShape(dims))


def _load_tensorflow(sess: Any, tags: Sequence[str], export_dir: str) -> "MetaGraphDef":
    want, sigs = tensorflow_layout.load_tensorflow_saved_model(sess, tags, export_dir)
    signatures = {key: SignatureDef({k: _tensor_info(v) for k, v in s.inputs.items()},
                                    {k: _tensor_info(v) for k, v in s.outputs.items()},
                                    s.method_name) for key, s in sigs.items()}
    logger.info("Loaded TensorFlow SavedModel %s (tags %s) for inference", export_dir, want)
    return MetaGraphDef(want, signatures)


def _read(export_dir: str) -> Dict[str, Any]:
    path = os.path.join(export_dir, SAVED_MODEL_FILENAME)
    if not os.path.isfile(path):
        raise OSError(f"SavedModel file does not exist at: {export_dir}/"
                      f"{{{SAVED_MODEL_FILENAME}}}")
    with open(path, "rb") as f:
        data = f.read()
    try:
        doc = json.loads(data.decode("utf-8"))
    except ValueError as e:  # UnicodeDecodeError and JSONDecodeError are ValueErrors
        raise errors.InvalidArgumentError(None, None, f"{path} is not a tensorfleet "
                                                      f"SavedModel: {e}") from None
    except RecursionError:
        # The parser recurses once per level: a hostile file nests until it overflows.
        raise errors.InvalidArgumentError(None, None, f"{path} is not a tensorfleet "
                                                      f"SavedModel: it nests deeper than the "
                                                      f"parser allows") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT or \
            not isinstance(doc.get("meta_graphs"), list):
        raise errors.InvalidArgumentError(None, None, f"{path} is not a tensorfleet "
                                                      f"SavedModel")
    return doc


def _prefixed(info: TensorInfo, prefix: str) -> TensorInfo:
    return TensorInfo(prefix + info.name, info.dtype, info.tensor_shape)


def load(sess: Any, tags: Sequence[str], export_dir: Any, import_scope: Optional[str] = None,
         **saver_kwargs: Any) -> MetaGraphDef:
    """Loads the meta graph tagged ``tags`` from ``export_dir`` into ``sess``.

    A SavedModel TensorFlow wrote (only ``saved_model.pb`` and its ``variables/``) is
    loaded for inference: the nodes its signatures need, each variable a constant.

    Raises:
      OSError: no SavedModel in ``export_dir``.
      RuntimeError: no meta graph with exactly these tags.
      InvalidArgumentError: a malformed graph or variables file.
    """
    if isinstance(export_dir, bytes):
        export_dir = export_dir.decode()
    if saver_kwargs:
        raise ValueError(f"load: unsupported arguments {sorted(saver_kwargs)}")
    if not os.path.isfile(os.path.join(export_dir, SAVED_MODEL_FILENAME)) and \
            tensorflow_layout.is_tensorflow_saved_model(export_dir):
        if import_scope:
            raise ValueError("load: import_scope is not supported for a SavedModel "
                             "TensorFlow wrote")
        return _load_tensorflow(sess, tags, export_dir)
    doc = _read(export_dir)
    want = sorted(set(tags))
    meta = next((mg for mg in doc["meta_graphs"] if mg.get("tags") == want), None)
    if meta is None:
        available = [mg.get("tags") for mg in doc["meta_graphs"]]
        raise RuntimeError(f"MetaGraphDef associated with tags {want} could not be found in "
                           f"SavedModel. To inspect available tag-sets in the SavedModel, "
                           f"they are: {available}")
    prefix = f"{import_scope}/" if import_scope else ""
    graph = sess.graph
    import_graph_def(meta["graph_def"], graph=graph, name_prefix=prefix)
    names = list(meta.get("variables") or [])
    if names:
        values = load_file(os.path.join(export_dir, VARIABLES_DIRECTORY, VARIABLES_FILENAME))
        assigns, feed = [], {}
        with graph.as_default():
            for name in names:
                if name not in values:
                    raise errors.NotFoundError(None, None, f"Variable {name} is missing from "
                                                           f"the SavedModel's variables file")
                value = np.asarray(values[name])
                ref = graph.get_tensor_by_name(f"{prefix}{name}:0")
                if ref.shape.is_fully_defined() and value.size == ref.shape.num_elements():
                    # safetensors stores a scalar as a 1-element vector.
                    value = value.reshape(ref.shape.as_list())
                ph = array_ops.placeholder(value.dtype, value.shape)
                assigns.append(state_ops.assign(ref, ph))
                feed[ph] = value
        sess.run(assigns, feed_dict=feed)
    if meta.get("main_op"):
        sess.run(graph.get_operation_by_name(prefix + meta["main_op"]))
    signatures = {}
    for key, plain in (meta.get("signature_def") or {}).items():
        sig = SignatureDef.from_plain(plain)
        signatures[key] = SignatureDef({k: _prefixed(v, prefix) for k, v in sig.inputs.items()},
                                       {k: _prefixed(v, prefix) for k, v in sig.outputs.items()},
                                       sig.method_name)
    logger.info("Restored SavedModel %s (tags %s)", export_dir, want)
    return MetaGraphDef(want, signatures)


def simple_save(session: Any, export_dir: str, inputs: Dict[str, Any], outputs: Dict[str, Any],
                legacy_init_op: Any = None) -> None:
    """Saves ``session``'s graph and variables with one predict signature (the default
    serving one) from ``inputs`` and ``outputs``, tagged SERVING."""
    builder = SavedModelBuilder(export_dir)
    builder.add_meta_graph_and_variables(
        session, [tag_constants.SERVING],
        signature_def_map={sc.DEFAULT_SERVING_SIGNATURE_DEF_KEY:
                           predict_signature_def(inputs, outputs)},
        main_op=legacy_init_op, clear_devices=True)
    builder.save()


__all__ = ["load", "maybe_saved_model_directory", "simple_save", "MetaGraphDef"]
