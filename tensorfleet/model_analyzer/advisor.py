"""``tf.profiler.advise``: checkers that read a profile and say what looks wrong.

``ExpensiveOperationChecker`` lists the op types and top-level scopes that took the most
time in the traced steps (as TensorFlow words it). The rules of ``OperationChecker``
(use the fused batch-norm kernel, NCHW on GPUs) and ``AcceleratorUtilizationChecker``
concern kernels and devices tensorfleet does not have, so their entries are empty, as
TensorFlow's are for a graph run on the CPU; ``JobChecker`` has no open implementation
and gives no entry, as in TensorFlow. The code-location part of the expensive-operation
report needs the ``code`` view, which is not offered.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional

from tensorfleet.model_analyzer import node_stats, views
from tensorfleet.model_analyzer.option_builder import ProfileOptionBuilder
from tensorfleet.protos.tfprof_output_pb2 import AdviceProto

ALL_ADVICE = {"ExpensiveOperationChecker": {}, "AcceleratorUtilizationChecker": {},
              "JobChecker": {}, "OperationChecker": {}}


def _time(micros: int) -> str:
    if micros < 1000:
        return f"{micros}us"
    if micros < 1000000:
        return f"{micros / 1000:.2f}ms"
    return f"{micros / 1000000:.2f}sec"


def _opts(max_depth: int, min_micros: int) -> Dict[str, Any]:
    return (ProfileOptionBuilder().with_max_depth(max_depth)
            .with_min_execution_time(min_micros).order_by("micros")
            .account_displayed_op_only(False).select(["micros"]).with_empty_output().build())


def _expensive_operations(nodes: Dict[str, node_stats.NodeStats], traced: bool) -> List[str]:
    if not traced:
        return []
    reports = []
    root = views.op_view(nodes, _opts(3, 1))
    node, lines = root, []
    for i in range(3):
        if not node.children:
            break
        node = node.children[0]
        share = 100.0 * node.exec_micros / (root.total_exec_micros + 1e-10)
        lines.append(f"top {i + 1} operation type: {node.name}, cpu: "
                     f"{_time(node.cpu_exec_micros)}, accelerator: "
                     f"{_time(node.accelerator_exec_micros)}, total: "
                     f"{_time(node.exec_micros)} ({share:.2f}%)")
    if lines:
        reports.append("\n".join(lines))
    scope = views.scope_view(nodes, _opts(100, 100))
    lines = [f"top {i + 1} graph node: {c.name}, cpu: {_time(c.cpu_exec_micros)}, "
             f"accelerator: {_time(c.accelerator_exec_micros)}, total: {_time(c.exec_micros)}"
             for i, c in enumerate(scope.children[:3])]
    if lines:
        reports.append("\n".join(lines))
    return reports


def _no_applicable_rule(nodes: Dict[str, node_stats.NodeStats], traced: bool) -> List[str]:
    # The rules of these checkers concern kernels tensorfleet does not have (fused batch
    # normalization, GPU data layouts, accelerator occupancy): their entries are empty,
    # as TensorFlow's are for a graph run on the CPU.
    return []


_CHECKERS: Dict[str, Optional[Callable[[Dict[str, node_stats.NodeStats], bool], List[str]]]] = {
    "ExpensiveOperationChecker": _expensive_operations,
    "OperationChecker": _no_applicable_rule,
    "AcceleratorUtilizationChecker": _no_applicable_rule,
    "JobChecker": None,
}


def run_checkers(nodes: Dict[str, node_stats.NodeStats], traced: bool,
                 options: Dict[str, Any]) -> AdviceProto:
    """The ``AdviceProto`` of the checkers named in ``options``.

    Raises:
      ValueError: an unknown checker, or checker options (none is configurable).
    """
    out = AdviceProto()
    for name, checker_options in options.items():
        if name not in _CHECKERS:
            raise ValueError(f"Unknown checker {name!r}; known: {sorted(_CHECKERS)}")
        if checker_options:
            raise ValueError(f"{name} takes no options, got {checker_options!r}")
        checker = _CHECKERS[name]
        if checker is None:
            continue
        entry = out.checkers[name]
        entry.reports.extend(checker(nodes, traced))
    return out


__all__ = ["ALL_ADVICE", "run_checkers"]
