"""The published ImageNet weights of the application models, read from Keras's cache.

Keras downloads ``<name>.h5`` into ``~/.keras/models`` the first time a model is built
with ``weights='imagenet'``; here nothing is downloaded, so the file must already be
there (or ``weights`` names a weights file). The HDF5 layout is Keras's: the root's
``layer_names`` attribute lists the layers in order, each layer group's ``weight_names``
its arrays. Layers are matched by name when the file holds every weighted layer of the
model under its name, else in order, as Keras's ``load_weights`` matches them.
"""

from __future__ import annotations

import logging
import os
from typing import Any, List, NamedTuple, Optional

import numpy as np

from tensorfleet.keras.utils import get_file

logger = logging.getLogger(__name__)

BASE_URL = "https://storage.googleapis.com/tensorflow/keras-applications/"


class WeightsFile(NamedTuple):
    """One published weights file: its name in the cache and its URL."""
    fname: str
    url: str


def published(folder: str, fname: str) -> WeightsFile:
    """The weights file ``fname`` published under ``keras-applications/<folder>/``."""
    return WeightsFile(fname, BASE_URL + folder + "/" + fname)


def _decode(names: Any) -> List[str]:
    return [n.decode("utf-8") if isinstance(n, bytes) else str(n) for n in names]


def _read_h5(path: str) -> List[tuple]:
    """``[(layer_name, [arrays])]`` for the layers of the file that hold weights."""
    try:
        import h5py
    except ImportError as e:
        raise ImportError("reading Keras .h5 weights files needs h5py (pip install "
                          "h5py)") from e
    out = []
    with h5py.File(path, "r") as f:
        root = f["model_weights"] if "model_weights" in f else f
        if "layer_names" not in root.attrs:
            raise ValueError(f"{path}: not a Keras weights file (no layer_names attribute)")
        for name in _decode(root.attrs["layer_names"]):
            group = root[name]
            weight_names = _decode(group.attrs.get("weight_names", []))
            if weight_names:
                out.append((name, [np.asarray(group[w]) for w in weight_names]))
    return out


def load_weights(model: Any, path: str) -> None:
    """Sets the weights of ``model`` from the Keras ``.h5`` file at ``path``.

    Raises:
      ValueError: the file's layers with weights do not match the model's in number,
        or an array's shape differs from its weight's.
    """
    stored = _read_h5(path)
    layers = [layer for layer in model.layers if layer.weights]
    by_name = dict(stored)
    if len(by_name) == len(stored) and all(layer.name in by_name for layer in layers):
        # every layer found under its own name: the order of the file does not matter
        pairs = [(layer.name, by_name[layer.name], layer) for layer in layers]
        if len(stored) != len(layers):
            raise ValueError(f"{path} holds weights for {len(stored)} layers but the model "
                             f"{model.name!r} has {len(layers)} layers with weights")
    else:
        if len(stored) != len(layers):
            raise ValueError(f"{path} holds weights for {len(stored)} layers but the model "
                             f"{model.name!r} has {len(layers)} layers with weights")
        pairs = [(name, arrays, layer) for (name, arrays), layer in zip(stored, layers)]
    for name, arrays, layer in pairs:
        shapes = [tuple(w.shape.as_list()) for w in layer.weights]
        if [a.shape for a in arrays] != shapes:
            raise ValueError(f"{path}: layer {name!r} holds arrays of shapes "
                             f"{[a.shape for a in arrays]}, but the model's layer "
                             f"{layer.name!r} has weights of shapes {shapes}")
    for name, arrays, layer in pairs:
        layer.set_weights(arrays)
    logger.info("loaded the weights of %d layers from %s", len(layers), path)


def resolve(weights: Optional[str], top: Optional[WeightsFile],
            notop: Optional[WeightsFile], include_top: bool) -> Optional[str]:
    """The path of the weights file to load for ``weights`` (``None``, ``'imagenet'`` or
    a path), or ``None`` for random initialization.

    Raises:
      FileNotFoundError: the published file is not in the Keras cache (the message names
        the path and the URL), or ``weights`` is a path that does not exist.
    """
    if weights is None:
        return None
    if weights == "imagenet":
        spec = top if include_top else notop
        if spec is None:
            raise ValueError(f"no ImageNet weights are published for this model with "
                             f"include_top={include_top}")
        return get_file(spec.fname, spec.url, cache_subdir="models")
    if not os.path.exists(weights):
        raise FileNotFoundError(f"weights: {weights!r} is neither None, 'imagenet' nor the "
                                f"path of a weights file")
    return weights
