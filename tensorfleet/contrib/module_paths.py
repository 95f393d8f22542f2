"""The ``tensorflow.contrib.*.python.*`` import paths that TF 1.x programs use:
``from tensorflow.contrib.layers.python.layers import batch_norm`` reaches
``tf.contrib.layers``, and ``from tensorflow.contrib.seq2seq.python.ops import
attention_wrapper`` (or ``helper``, ``basic_decoder``, ``decoder``,
``beam_search_decoder``, ``loss``) reaches ``tf.contrib.seq2seq``: importing
``tensorfleet.contrib`` registers them in ``sys.modules``."""

from __future__ import annotations

import sys
import types

from tensorfleet.contrib import layers as _layers
from tensorfleet.contrib import seq2seq as _seq2seq

_SEQ2SEQ_MODULES = ("attention_wrapper", "basic_decoder", "beam_search_decoder", "decoder",
                    "helper", "loss")


def _package(name: str, doc: str) -> types.ModuleType:
    pkg = types.ModuleType(name, doc)
    pkg.__path__ = []  # a package: other submodules are a ModuleNotFoundError
    sys.modules[name] = pkg
    return pkg


def register() -> None:
    """Registers the paths (idempotent)."""
    layers_path = "tensorfleet.contrib.layers.python"
    if layers_path in sys.modules:
        return
    pkg = _package(layers_path, "``tensorflow.contrib.layers.python``: ``layers`` is "
                                "``tf.contrib.layers``.")
    pkg.layers = _layers
    sys.modules[layers_path + ".layers"] = _layers
    _layers.python = pkg
    s2s_path = "tensorfleet.contrib.seq2seq.python"
    s2s = _package(s2s_path, "``tensorflow.contrib.seq2seq.python``: its ``ops`` modules "
                             "are ``tf.contrib.seq2seq``.")
    ops = _package(s2s_path + ".ops", "Each module of ``tensorflow.contrib.seq2seq.python.ops``"
                                      " is ``tf.contrib.seq2seq``, which holds all their names.")
    s2s.ops = ops
    for name in _SEQ2SEQ_MODULES:
        setattr(ops, name, _seq2seq)
        sys.modules[f"{s2s_path}.ops.{name}"] = _seq2seq
    _seq2seq.python = s2s


# Importing this module is what makes the path importable.
register()

__all__ = ["register"]
