"""``tf.GraphOptions``, ``tf.OptimizerOptions`` and ``tf.LogMessage``: the remaining
session-configuration and log messages of TF 1.x, as plain classes like
``tf.ConfigProto`` (``ConfigProto(graph_options=tf.GraphOptions(...))`` keeps them).

tensorfleet runs graphs as built, so the graph-optimisation switches that only change
speed (constant folding, common subexpressions, optimisation level, shape inference)
are accepted and recorded. Switches that ask for something tensorfleet does not have,
so that a program would silently lose what it asked for, raise ``ValueError``: XLA
(``global_jit_level`` ON_1/ON_2, ``cpu_global_jit``), cost models and timelines.
"""

from __future__ import annotations

from typing import Any, Dict, Optional


def _bool(value: Any, field: str) -> bool:
    if not isinstance(value, (bool, int)):
        raise TypeError(f"{field} must be a bool, got {value!r}")
    return bool(value)


def _int(value: Any, field: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{field} must be an int, got {value!r}")
    return value


class OptimizerOptions:
    """Graph-optimisation options (``GraphOptions.optimizer_options``)."""

    # Level
    L1, L0 = 0, -1
    # GlobalJitLevel
    DEFAULT, OFF, ON_1, ON_2 = 0, -1, 1, 2

    def __init__(self, do_common_subexpression_elimination: bool = False,
                 do_constant_folding: bool = False, max_folded_constant_in_bytes: int = 0,
                 do_function_inlining: bool = False, opt_level: int = 0,
                 global_jit_level: int = 0, cpu_global_jit: bool = False):
        """Raises ValueError for an unknown level or for XLA, which tensorfleet lacks."""
        self.do_common_subexpression_elimination = _bool(
            do_common_subexpression_elimination, "do_common_subexpression_elimination")
        self.do_constant_folding = _bool(do_constant_folding, "do_constant_folding")
        self.max_folded_constant_in_bytes = _int(max_folded_constant_in_bytes,
                                                 "max_folded_constant_in_bytes")
        self.do_function_inlining = _bool(do_function_inlining, "do_function_inlining")
        if opt_level not in (self.L0, self.L1):
            raise ValueError(f"OptimizerOptions: opt_level must be L0 (-1) or L1 (0), got "
                             f"{opt_level!r}")
        self.opt_level = opt_level
        if global_jit_level not in (self.DEFAULT, self.OFF, self.ON_1, self.ON_2):
            raise ValueError(f"OptimizerOptions: unknown global_jit_level {global_jit_level!r}")
        if global_jit_level in (self.ON_1, self.ON_2) or cpu_global_jit:
            raise ValueError("OptimizerOptions: XLA compilation (global_jit_level ON_1/ON_2, "
                             "cpu_global_jit) is not supported by tensorfleet")
        self.global_jit_level = global_jit_level
        self.cpu_global_jit = False

    def to_plain(self) -> Dict[str, Any]:
        """The options as a plain dict (for logs and graph metadata)."""
        return dict(vars(self))

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, OptimizerOptions) and vars(self) == vars(other)

    def __repr__(self) -> str:
        return f"OptimizerOptions({self.to_plain()!r})"


class GraphOptions:
    """Options of graph construction and optimisation (``ConfigProto.graph_options``)."""

    def __init__(self, enable_recv_scheduling: bool = False,
                 optimizer_options: Optional[OptimizerOptions] = None,
                 build_cost_model: int = 0, build_cost_model_after: int = 0,
                 infer_shapes: bool = False, place_pruned_graph: bool = False,
                 enable_bfloat16_sendrecv: bool = False, timeline_step: int = 0,
                 rewrite_options: Any = None):
        """Raises ValueError for cost models and timelines (tensorfleet collects none)
        and for bfloat16 transfers (tensorfleet sends tensors in their own dtype)."""
        if optimizer_options is not None and not isinstance(optimizer_options, OptimizerOptions):
            raise TypeError(f"GraphOptions: optimizer_options must be an OptimizerOptions, got "
                            f"{type(optimizer_options).__name__}")
        if _int(build_cost_model, "build_cost_model") or _int(build_cost_model_after,
                                                                "build_cost_model_after"):
            raise ValueError("GraphOptions: build_cost_model is not supported: tensorfleet "
                             "builds no cost model")
        if _int(timeline_step, "timeline_step"):
            raise ValueError("GraphOptions: timeline_step is not supported: tensorfleet "
                             "records no timeline")
        if _bool(enable_bfloat16_sendrecv, "enable_bfloat16_sendrecv"):
            raise ValueError("GraphOptions: enable_bfloat16_sendrecv is not supported: "
                             "tensors are sent in their own dtype")
        self.enable_recv_scheduling = _bool(enable_recv_scheduling, "enable_recv_scheduling")
        self.optimizer_options = optimizer_options or OptimizerOptions()
        self.build_cost_model = 0
        self.build_cost_model_after = 0
        self.infer_shapes = _bool(infer_shapes, "infer_shapes")
        self.place_pruned_graph = _bool(place_pruned_graph, "place_pruned_graph")
        self.enable_bfloat16_sendrecv = False
        self.timeline_step = 0
        self.rewrite_options = rewrite_options

    def to_plain(self) -> Dict[str, Any]:
        """The options as a plain dict, ``optimizer_options`` nested."""
        d = {k: v for k, v in vars(self).items() if k != "rewrite_options"}
        d["optimizer_options"] = self.optimizer_options.to_plain()
        return d

    def __repr__(self) -> str:
        return f"GraphOptions({self.to_plain()!r})"


class LogMessage:
    """A log line as event files carry it: ``level`` and ``message``."""

    UNKNOWN, DEBUGGING, INFO, WARN, ERROR, FATAL = 0, 10, 20, 30, 40, 50
    _LEVELS = {0: "UNKNOWN", 10: "DEBUGGING", 20: "INFO", 30: "WARN", 40: "ERROR", 50: "FATAL"}

    def __init__(self, level: int = 0, message: str = ""):
        """Raises ValueError for a level that is not one of the class constants."""
        if level not in self._LEVELS:
            raise ValueError(f"LogMessage: unknown level {level!r}; use one of "
                             f"{sorted(self._LEVELS)}")
        if not isinstance(message, str):
            raise TypeError(f"LogMessage: message must be a string, got {message!r}")
        self.level = level
        self.message = message

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, LogMessage) and (self.level, self.message) == (
            other.level, other.message)

    def __repr__(self) -> str:
        return f"LogMessage(level={self._LEVELS[self.level]}, message={self.message!r})"


class GPUOptions:
    """GPU memory and visibility options (``ConfigProto.gpu_options``).

    Every field of TensorFlow's message is accepted and kept, as TensorFlow does on a
    machine without GPUs: tensorfleet places no op on a GPU, so they have no effect.
    ``config.gpu_options.allow_growth = True`` works as it does in TensorFlow.
    """

    _FIELDS = {"per_process_gpu_memory_fraction": (float, 0.0), "allow_growth": (bool, False),
               "allocator_type": (str, ""), "deferred_deletion_bytes": (int, 0),
               "visible_device_list": (str, ""), "polling_active_delay_usecs": (int, 0),
               "polling_inactive_delay_msecs": (int, 0), "force_gpu_compatible": (bool, False)}

    def __init__(self, **fields: Any):
        """Raises ValueError for a field TensorFlow's GPUOptions lacks, TypeError for a value
        of the wrong type, ValueError for a negative memory fraction."""
        for name, (_, default) in self._FIELDS.items():
            setattr(self, name, default)
        for name, value in fields.items():
            if name == "experimental" and value is None:
                continue
            if name not in self._FIELDS:
                raise ValueError(f'Protocol message GPUOptions has no "{name}" field.')
            setattr(self, name, value)

    def __setattr__(self, name: str, value: Any) -> None:
        kind = self._FIELDS.get(name, (None,))[0]
        if kind is None:
            raise AttributeError(f'Protocol message GPUOptions has no "{name}" field.')
        if kind is float and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        if kind is bool and isinstance(value, int):
            value = bool(value)
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise TypeError(f"GPUOptions.{name} must be {kind.__name__}, got {value!r}")
        if name == "per_process_gpu_memory_fraction" and value < 0:
            raise ValueError(f"GPUOptions.per_process_gpu_memory_fraction must be >= 0, got "
                             f"{value}")
        object.__setattr__(self, name, value)

    def to_plain(self) -> Dict[str, Any]:
        """The options as a plain dict."""
        return {k: getattr(self, k) for k in self._FIELDS}

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, GPUOptions) and self.to_plain() == other.to_plain()

    def __repr__(self) -> str:
        return f"GPUOptions({self.to_plain()!r})"


__all__ = ["GraphOptions", "GPUOptions", "OptimizerOptions", "LogMessage"]
