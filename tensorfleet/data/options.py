"""``tf.data.Options`` and its groups: settings attached to a data set with
``Dataset.with_options`` and read back with ``Dataset.options()``.

Each field is typed and checked when set (an unknown field is an AttributeError, a value
of the wrong type a TypeError); unset fields read None, and ``merge`` combines two sets,
the other's set fields winning.

What tensorfleet does with them: its pipelines always produce elements in their
deterministic order (which ``deterministic=False`` permits, so every value is honoured);
``experimental_distribute.auto_shard_policy`` OFF and AUTO both mean no automatic sharding
(AUTO finds no distribution strategy to shard for), while FILE, DATA and HINT are refused
by ``with_options``, since tensorfleet does not shard data sets automatically (use
``Dataset.shard``). The threading, autotuning, optimization and service fields tune how
TensorFlow's runtime executes a pipeline; tensorfleet's iterator runs its own fixed plan,
so ``with_options`` logs a warning naming each such field that is set.
"""

from __future__ import annotations

import enum
import logging
from typing import Any, Dict, List, Tuple

logger = logging.getLogger(__name__)

# The index of the shard a HINT-sharded pipeline's ``shard`` call gets from the runtime.
SHARD_HINT = -1


class AutoShardPolicy(enum.IntEnum):
    """How a distribution strategy splits a data set among workers."""
    OFF = -1
    AUTO = 0
    FILE = 1
    DATA = 2
    HINT = 3


class AutotuneAlgorithm(enum.IntEnum):
    """The algorithm TensorFlow's autotuner uses."""
    DEFAULT = 0
    HILL_CLIMB = 1
    GRADIENT_DESCENT = 2
    MAX_PARALLELISM = 3
    STAGE_BASED = 4


class ExternalStatePolicy(enum.IntEnum):
    """What saving an iterator does about state outside the data set."""
    WARN = 0
    IGNORE = 1
    FAIL = 2


class _OptionsGroup:
    """Typed fields: ``_FIELDS`` maps a name to ``(type or types, default)``."""

    _FIELDS: Dict[str, Tuple[Any, Any]] = {}

    def __init__(self) -> None:
        object.__setattr__(self, "_values", {})

    def __getattr__(self, name: str) -> Any:
        fields = type(self)._FIELDS
        if name not in fields:
            raise AttributeError(f"{type(self).__name__} has no option {name!r}")
        kind, default = fields[name]
        values = self.__dict__["_values"]
        if name not in values and isinstance(default, type):
            values[name] = default()  # a nested group, created on first read
        return values.get(name, default)

    def __setattr__(self, name: str, value: Any) -> None:
        fields = type(self)._FIELDS
        if name not in fields:
            raise AttributeError(f"{type(self).__name__} has no option {name!r}; its options "
                                 f"are {sorted(fields)}")
        kind = fields[name][0]
        if value is not None and not (isinstance(value, kind) and
                                      not (isinstance(value, bool) and bool not in _tuple(kind)
                                           and int in _tuple(kind))):
            raise TypeError(f"{type(self).__name__}.{name} must be {_names(kind)} or None, got "
                            f"{value!r}")
        self._values[name] = value

    def _set_fields(self, prefix: str = "") -> List[str]:
        out = []
        for name, value in self._values.items():
            if isinstance(value, _OptionsGroup):
                out += value._set_fields(f"{prefix}{name}.")
            elif value is not None:
                out.append(f"{prefix}{name}")
        return out

    def merge(self, other: "_OptionsGroup") -> "_OptionsGroup":
        """A copy of these options with ``other``'s set fields applied over them."""
        if type(other) is not type(self):
            raise TypeError(f"can only merge {type(self).__name__} with another, got "
                            f"{type(other).__name__}")
        out = type(self)()
        for src in (self, other):
            for name, value in src._values.items():
                if isinstance(value, _OptionsGroup):
                    current = out._values.get(name)
                    out._values[name] = value if current is None else current.merge(value)
                elif value is not None:
                    out._values[name] = value
        return out

    def __eq__(self, other: Any) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return all(getattr(self, n) == getattr(other, n) for n in type(self)._FIELDS)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(self._set_fields()) or 'defaults'})"


def _tuple(kind: Any) -> tuple:
    return kind if isinstance(kind, tuple) else (kind,)


def _names(kind: Any) -> str:
    return " or ".join(k.__name__ for k in _tuple(kind))


class ThreadingOptions(_OptionsGroup):
    """Thread pool sizes of TensorFlow's runtime for a pipeline."""
    _FIELDS = {"max_intra_op_parallelism": (int, None), "private_threadpool_size": (int, None)}


class AutotuneOptions(_OptionsGroup):
    """TensorFlow's autotuner settings."""
    _FIELDS = {"enabled": (bool, None), "cpu_budget": (int, None), "ram_budget": (int, None),
               "autotune_algorithm": (AutotuneAlgorithm, None),
               "initial_parallelism": (int, None), "min_parallelism": (int, None)}


class DistributeOptions(_OptionsGroup):
    """How a distribution strategy shards the data set."""
    _FIELDS = {"auto_shard_policy": (AutoShardPolicy, AutoShardPolicy.AUTO),
               "num_devices": (int, None)}


class OptimizationOptions(_OptionsGroup):
    """Which static rewrites TensorFlow may apply to the pipeline."""
    _FIELDS = {n: (bool, None) for n in (
        "apply_default_optimizations", "filter_fusion", "filter_parallelization",
        "inject_prefetch", "map_and_batch_fusion", "map_and_filter_fusion", "map_fusion",
        "map_parallelization", "noop_elimination", "parallel_batch",
        "seq_interleave_prefetch", "shuffle_and_repeat_fusion")}


class ServiceOptions(_OptionsGroup):
    """Settings for reading from the tf.data service."""
    _FIELDS = {"pinned": (bool, None)}


class Options(_OptionsGroup):
    """All options of a data set (see the module docstring for their effect)."""
    _FIELDS = {"deterministic": (bool, None), "experimental_deterministic": (bool, None),
               "autotune": (AutotuneOptions, AutotuneOptions),
               "experimental_distribute": (DistributeOptions, DistributeOptions),
               "experimental_optimization": (OptimizationOptions, OptimizationOptions),
               "experimental_service": (ServiceOptions, ServiceOptions),
               "threading": (ThreadingOptions, ThreadingOptions),
               "experimental_threading": (ThreadingOptions, ThreadingOptions),
               "experimental_external_state_policy": (ExternalStatePolicy, None),
               "experimental_slack": (bool, None), "experimental_symbolic_checkpoint":
               (bool, None), "experimental_warm_start": (bool, None),
               "dataset_name": (str, None), "framework_type": (list, None)}

    def __getattr__(self, name: str) -> Any:
        # experimental_threading is the 1.x name of threading: one group under both.
        if name == "experimental_threading":
            name = "threading"
        return super().__getattr__(name)

    def __setattr__(self, name: str, value: Any) -> None:
        super().__setattr__("threading" if name == "experimental_threading" else name, value)


_SEMANTIC = {"deterministic", "experimental_deterministic",
             "experimental_distribute.auto_shard_policy", "experimental_external_state_policy",
             "dataset_name", "framework_type"}


def check_options(options: Any) -> Options:
    """Validates options for ``Dataset.with_options`` (see the module docstring).

    Raises:
      TypeError: ``options`` is not an ``Options``.
      ValueError: an automatic sharding policy other than OFF or AUTO.
    """
    if not isinstance(options, Options):
        raise TypeError(f"with_options needs a tf.data.Options, got {type(options).__name__}")
    policy = options.experimental_distribute.auto_shard_policy
    if policy not in (AutoShardPolicy.OFF, AutoShardPolicy.AUTO):
        raise ValueError(f"auto_shard_policy {policy.name} is not supported: tensorfleet does "
                         f"not shard data sets automatically; use Dataset.shard")
    tuning = [f for f in options._set_fields() if f not in _SEMANTIC]
    if tuning:
        logger.warning("tf.data options %s tune TensorFlow's pipeline runtime and have no "
                       "effect on tensorfleet's iterators", ", ".join(sorted(tuning)))
    return options


__all__ = ["AutoShardPolicy", "AutotuneAlgorithm", "AutotuneOptions", "DistributeOptions",
           "ExternalStatePolicy", "OptimizationOptions", "Options", "SHARD_HINT",
           "ServiceOptions", "ThreadingOptions", "check_options"]
