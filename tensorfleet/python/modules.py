"""The ``tensorflow.python.*`` module paths that TF 1.x programs import, mapped onto
tensorfleet's own modules.

``from tensorfleet.python.framework import ops`` or ``from tensorfleet.python.ops import
rnn_cell_impl`` give the tensorfleet module that holds the same functions (the module
object itself, so every name it defines is there). Where TensorFlow's module gathers
names that tensorfleet keeps in several modules (``framework.ops``: graphs, tensors,
collections and gradient registration), the path is a module holding the public names
of each of them. Importing ``tensorfleet.python`` registers every path in
``sys.modules``; a path missing from the table is a ``ModuleNotFoundError``.
"""

from __future__ import annotations

import importlib
import sys
import types
from typing import Dict, List, Sequence, Union

import tensorfleet  # noqa: F401  (the whole API is loaded before the paths point into it)

_ROOT = "tensorfleet.python"

# path under tensorfleet.python -> one tensorfleet module, or several merged in order
# ("module:name" merges just that name).
_TABLE: Dict[str, Union[str, Sequence[str]]] = {
    "framework.ops": ("tensorfleet.framework", "tensorfleet.framework.graph",
                      "tensorfleet.framework.indexed_slices", "tensorfleet.gradients.registry",
                      "tensorfleet.ops.template:op_scope",
                      "tensorfleet.contrib.framework:get_name_scope"),
    "framework.dtypes": "tensorfleet.dtypes",
    "framework.tensor_shape": "tensorfleet.framework.tensor_shape",
    "framework.sparse_tensor": "tensorfleet.framework.sparse_tensor",
    "framework.errors": "tensorfleet.errors",
    "framework.errors_impl": "tensorfleet.errors",
    "framework.constant_op": ("tensorfleet.ops.array_ops",),
    "framework.graph_util": "tensorfleet.framework.graph_util",
    "framework.random_seed": ("tensorfleet.framework.graph",),
    "ops.array_ops": "tensorfleet.ops.array_ops",
    "ops.math_ops": "tensorfleet.ops.math_ops",
    "ops.nn_ops": "tensorfleet.ops.nn_ops",
    "ops.nn": "tensorfleet.api.nn",
    "ops.init_ops": "tensorfleet.ops.init_ops",
    "ops.variable_scope": "tensorfleet.ops.variable_scope",
    "ops.variables": "tensorfleet.ops.variables",
    "ops.state_ops": "tensorfleet.ops.state_ops",
    "ops.random_ops": "tensorfleet.ops.random_ops",
    "ops.control_flow_ops": "tensorfleet.ops.control_flow_ops",
    "ops.data_flow_ops": "tensorfleet.ops.data_flow_ops",
    "ops.embedding_ops": "tensorfleet.ops.embedding_ops",
    "ops.sparse_ops": "tensorfleet.ops.sparse_ops",
    "ops.string_ops": ("tensorfleet.ops.string_ops", "tensorfleet.ops.string_manip_ops"),
    "ops.tensor_array_ops": "tensorfleet.ops.tensor_array_ops",
    "ops.functional_ops": "tensorfleet.ops.functional_ops",
    "ops.check_ops": "tensorfleet.ops.check_ops",
    "ops.lookup_ops": "tensorfleet.ops.lookup_ops",
    "ops.partitioned_variables": "tensorfleet.ops.partitioned_variables",
    "ops.script_ops": "tensorfleet.ops.script_ops",
    "ops.clip_ops": ("tensorfleet.ops.math_ops",),
    "ops.rnn": "tensorfleet.ops.rnn",
    "ops.rnn_cell": "tensorfleet.ops.rnn_cell",
    "ops.rnn_cell_impl": "tensorfleet.ops.rnn_cell_impl",
    "ops.gradients": "tensorfleet.gradients",
    "ops.gradients_impl": "tensorfleet.gradients.gradients_impl",
    "layers.core": "tensorfleet.nn_layers.functional",
    "layers.layers": "tensorfleet.nn_layers.functional",
    "layers.base": "tensorfleet.nn_layers.objects",
    "training.training": "tensorfleet.api.train",
    "training.training_util": "tensorfleet.training.training_util",
    "training.optimizer": "tensorfleet.training.optimizer",
    "training.adam": "tensorfleet.training.optimizers",
    "training.gradient_descent": "tensorfleet.training.optimizers",
    "training.momentum": "tensorfleet.training.optimizers",
    "training.adagrad": "tensorfleet.training.optimizers",
    "training.rmsprop": "tensorfleet.training.optimizers",
    "training.saver": "tensorfleet.training.saver",
    "training.session_run_hook": "tensorfleet.training.session_run_hook",
    "training.basic_session_run_hooks": "tensorfleet.training.basic_hooks",
    "training.monitored_session": "tensorfleet.training.monitored_session",
    "training.queue_runner": "tensorfleet.training.queue_runner",
    "training.queue_runner_impl": "tensorfleet.training.queue_runner",
    "training.coordinator": "tensorfleet.training.coordinator",
    "training.input": "tensorfleet.training.input",
    "training.learning_rate_decay": "tensorfleet.training.learning_rate_decay",
    "training.moving_averages": "tensorfleet.training.moving_averages",
    "training.device_setter": "tensorfleet.training.device_setter",
    "training.sync_replicas_optimizer": "tensorfleet.training.sync_replicas_optimizer",
    "training.checkpoint_management": "tensorfleet.training.checkpoint_management",
    "client.session": "tensorfleet.runtime.session",
    "client.device_lib": "tensorfleet.python.device_lib",
    "client.timeline": "tensorfleet.runtime.step_stats",
    "platform.tf_logging": "tensorfleet.platform.tf_logging",
    "platform.gfile": "tensorfleet.platform.gfile",
    "platform.flags": "tensorfleet.platform.flags",
    "platform.app": "tensorfleet.platform.app",
    "platform.test": "tensorfleet.testing.testcase",
    "util.nest": "tensorfleet.framework.nest",
    "util.compat": "tensorfleet.compat",
    "lib.io.tf_record": "tensorfleet.platform.tf_record",
    "summary.summary": "tensorfleet.api.summary",
    "debug": "tensorfleet.debug",
}


def _merged(path: str, sources: Sequence[str]) -> types.ModuleType:
    mod = types.ModuleType(f"{_ROOT}.{path}",
                           f"``tensorflow.python.{path}``: the public names of "
                           f"{', '.join(sources)}.")
    for src in sources:
        # "module:name" takes one name of a module, a bare module all its public names.
        src, _, only = src.partition(":")
        real = importlib.import_module(src)
        names: List[str] = [only] if only else list(
            getattr(real, "__all__", None) or [n for n in vars(real) if not n.startswith("_")])
        for n in names:
            if hasattr(real, n):
                setattr(mod, n, getattr(real, n))
    return mod


def _package(name: str) -> types.ModuleType:
    """The (synthetic) package ``name``, created and attached to its parent once."""
    if name in sys.modules:
        return sys.modules[name]
    pkg = types.ModuleType(name, f"``{name}``: tensorflow.python module paths.")
    pkg.__path__ = []  # a package: unknown submodules give ModuleNotFoundError
    sys.modules[name] = pkg
    parent, _, leaf = name.rpartition(".")
    setattr(_package(parent), leaf, pkg)
    return pkg


def register() -> None:
    """Puts every path of the table in ``sys.modules`` (idempotent)."""
    for path, target in _TABLE.items():
        full = f"{_ROOT}.{path}"
        if full in sys.modules:
            continue
        mod = importlib.import_module(target) if isinstance(target, str) \
            else _merged(path, target)
        sys.modules[full] = mod
        parent, _, leaf = full.rpartition(".")
        setattr(_package(parent), leaf, mod)


# Importing this module is what makes the paths importable.
register()

__all__ = ["register"]
