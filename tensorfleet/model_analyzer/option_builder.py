"""``tf.profiler.ProfileOptionBuilder``: the options dict of ``tf.profiler.profile`` and
``Profiler.profile_*``, with TensorFlow's keys and defaults."""

from __future__ import annotations

import copy
from typing import Any, Dict, List, Optional, Sequence


def _defaults() -> Dict[str, Any]:
    return {"max_depth": 100, "min_bytes": 0, "min_micros": 0, "min_params": 0,
            "min_float_ops": 0, "min_occurrence": 0, "order_by": "name",
            "account_type_regexes": [".*"], "start_name_regexes": [".*"],
            "trim_name_regexes": [], "show_name_regexes": [".*"], "hide_name_regexes": [],
            "account_displayed_op_only": False, "select": ["micros"], "step": -1,
            "output": "stdout"}


class ProfileOptionBuilder:
    """Builds the options of a profile: ``ProfileOptionBuilder(base).with_...().build()``.

    ``trainable_variables_parameter()``, ``float_operation()`` and ``time_and_memory()``
    give the three common starting points.
    """

    def __init__(self, options: Optional[Dict[str, Any]] = None):
        if options is not None and not isinstance(options, dict):
            raise TypeError(f"ProfileOptionBuilder: options must be a dict, got "
                            f"{type(options).__name__}")
        self._options = copy.deepcopy(options) if options is not None else _defaults()

    @staticmethod
    def trainable_variables_parameter() -> Dict[str, Any]:
        """Counts the parameters of the trainable variables, by name scope."""
        return {"max_depth": 10000, "min_bytes": 0, "min_micros": 0, "min_params": 0,
                "min_float_ops": 0, "min_occurrence": 0, "order_by": "name",
                "account_type_regexes": ["_trainable_variables"],
                "start_name_regexes": [".*"], "trim_name_regexes": [],
                "show_name_regexes": [".*"], "hide_name_regexes": [],
                "account_displayed_op_only": True, "select": ["params"], "step": -1,
                "output": "stdout"}

    @staticmethod
    def float_operation() -> Dict[str, Any]:
        """Counts the float operations of the ops whose shapes are known."""
        return {"max_depth": 10000, "min_bytes": 0, "min_micros": 0, "min_params": 0,
                "min_float_ops": 1, "min_occurrence": 0, "order_by": "float_ops",
                "account_type_regexes": [".*"], "start_name_regexes": [".*"],
                "trim_name_regexes": [], "show_name_regexes": [".*"],
                "hide_name_regexes": [], "account_displayed_op_only": True,
                "select": ["float_ops"], "step": -1, "output": "stdout"}

    @staticmethod
    def time_and_memory(min_micros: int = 1, min_bytes: int = 1,
                        min_accelerator_micros: int = 0, min_cpu_micros: int = 0,
                        min_peak_bytes: int = 0, min_residual_bytes: int = 0,
                        min_output_bytes: int = 0) -> Dict[str, Any]:
        """Shows the ops that took at least ``min_micros`` and ``min_bytes``."""
        return {"max_depth": 10000, "min_bytes": min_bytes,
                "min_peak_bytes": min_peak_bytes, "min_residual_bytes": min_residual_bytes,
                "min_output_bytes": min_output_bytes, "min_micros": min_micros,
                "min_accelerator_micros": min_accelerator_micros,
                "min_cpu_micros": min_cpu_micros, "min_params": 0, "min_float_ops": 0,
                "min_occurrence": 0, "order_by": "micros", "account_type_regexes": [".*"],
                "start_name_regexes": [".*"], "trim_name_regexes": [],
                "show_name_regexes": [".*"], "hide_name_regexes": [],
                "account_displayed_op_only": True, "select": ["micros", "bytes"],
                "step": -1, "output": "stdout"}

    def build(self) -> Dict[str, Any]:
        """A copy of the options built so far."""
        return copy.deepcopy(self._options)

    def with_max_depth(self, max_depth: int) -> "ProfileOptionBuilder":
        """Shows nodes at most ``max_depth`` levels below the root."""
        self._options["max_depth"] = max_depth
        return self

    def with_min_memory(self, min_bytes: int = 0, min_peak_bytes: int = 0,
                        min_residual_bytes: int = 0,
                        min_output_bytes: int = 0) -> "ProfileOptionBuilder":
        """Shows nodes with at least this much memory."""
        self._options.update(min_bytes=min_bytes, min_peak_bytes=min_peak_bytes,
                             min_residual_bytes=min_residual_bytes,
                             min_output_bytes=min_output_bytes)
        return self

    def with_min_execution_time(self, min_micros: int = 0, min_accelerator_micros: int = 0,
                                min_cpu_micros: int = 0) -> "ProfileOptionBuilder":
        """Shows nodes that ran at least this long."""
        self._options.update(min_micros=min_micros,
                             min_accelerator_micros=min_accelerator_micros,
                             min_cpu_micros=min_cpu_micros)
        return self

    def with_min_parameters(self, min_params: int) -> "ProfileOptionBuilder":
        """Shows nodes with at least ``min_params`` parameters of their own."""
        self._options["min_params"] = min_params
        return self

    def with_min_occurrence(self, min_occurrence: int) -> "ProfileOptionBuilder":
        """Shows nodes that ran at least ``min_occurrence`` times."""
        self._options["min_occurrence"] = min_occurrence
        return self

    def with_min_float_operations(self, min_float_ops: int) -> "ProfileOptionBuilder":
        """Shows nodes with at least ``min_float_ops`` float operations of their own."""
        self._options["min_float_ops"] = min_float_ops
        return self

    def with_accounted_types(self, account_type_regexes: Sequence[str]
                             ) -> "ProfileOptionBuilder":
        """Accounts only nodes with a type (op type or op-log type) matching one of these."""
        self._options["account_type_regexes"] = list(account_type_regexes)
        return self

    def with_node_names(self, start_name_regexes: Optional[Sequence[str]] = None,
                        show_name_regexes: Optional[Sequence[str]] = None,
                        hide_name_regexes: Optional[Sequence[str]] = None,
                        trim_name_regexes: Optional[Sequence[str]] = None
                        ) -> "ProfileOptionBuilder":
        """Selects nodes by name (regular expressions matching the whole name)."""
        for key, value in (("start_name_regexes", start_name_regexes),
                           ("show_name_regexes", show_name_regexes),
                           ("hide_name_regexes", hide_name_regexes),
                           ("trim_name_regexes", trim_name_regexes)):
            if value is not None:
                self._options[key] = list(value)
        return self

    def account_displayed_op_only(self, is_true: bool) -> "ProfileOptionBuilder":
        """Whether totals count only the nodes shown."""
        self._options["account_displayed_op_only"] = bool(is_true)
        return self

    def with_empty_output(self) -> "ProfileOptionBuilder":
        """Returns the result only, writing nothing."""
        self._options["output"] = "none"
        return self

    def with_stdout_output(self) -> "ProfileOptionBuilder":
        """Writes the text report to standard output."""
        self._options["output"] = "stdout"
        return self

    def with_file_output(self, outfile: str) -> "ProfileOptionBuilder":
        """Writes the text report to ``outfile``."""
        self._options["output"] = f"file:outfile={outfile}"
        return self

    def with_timeline_output(self, timeline_file: str) -> "ProfileOptionBuilder":
        """Asks for a timeline file; ``profile`` refuses it (use
        ``tensorfleet``'s ``Timeline`` of the step stats instead)."""
        self._options["output"] = f"timeline:outfile={timeline_file}"
        return self

    def with_pprof_output(self, pprof_file: str) -> "ProfileOptionBuilder":
        """Asks for a pprof file; ``profile`` refuses it."""
        self._options["output"] = f"pprof:outfile={pprof_file}"
        return self

    def order_by(self, attribute: str) -> "ProfileOptionBuilder":
        """Orders siblings by ``name``, ``depth``, ``micros``, ``params``, ``float_ops``,
        ``occurrence`` or a memory measure."""
        self._options["order_by"] = attribute
        return self

    def select(self, attributes: List[str]) -> "ProfileOptionBuilder":
        """The measures the text report shows."""
        self._options["select"] = list(attributes)
        return self

    def with_step(self, step: int) -> "ProfileOptionBuilder":
        """Profiles the run of step ``step`` (-1: the average over the steps added)."""
        self._options["step"] = step
        return self


__all__ = ["ProfileOptionBuilder"]
