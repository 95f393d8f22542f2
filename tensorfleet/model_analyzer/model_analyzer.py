"""``tf.profiler``: ``profile``, ``Profiler`` and ``write_op_log``.

The analyzer counts parameters (trainable variables' elements) and float operations
(see ``float_ops.py``) from the graph, takes op times from the ``RunMetadata`` of
traced steps, and reports them by name scope (``cmd="scope"``) or by op type
(``cmd="op"``) as TensorFlow's tfprof protocol buffers (``views.py``). The ``graph`` and
``code`` views are not offered; neither are timeline or pprof output, nor memory
(tensorfleet's traces record no allocations, so byte measures are 0 and a positive
``min_bytes`` hides every node, as it does in TensorFlow for a step without memory
stats).
"""

from __future__ import annotations

import copy
import logging
import os
import sys
from typing import Any, Dict, List, Optional, Tuple

from tensorfleet.framework.graph import get_default_graph
from tensorfleet.model_analyzer import advisor, node_stats, views
from tensorfleet.model_analyzer.option_builder import ProfileOptionBuilder
from tensorfleet.protos.tfprof_log_pb2 import OpLogProto
from tensorfleet.protos.tfprof_output_pb2 import (AdviceProto, GraphNodeProto,
    MultiGraphNodeProto)

logger = logging.getLogger(__name__)

_OPTION_KEYS = frozenset(ProfileOptionBuilder().build()) | frozenset(
    ProfileOptionBuilder.time_and_memory())
_BYTE_LIMITS = ("min_bytes", "min_peak_bytes", "min_residual_bytes", "min_output_bytes")
_VIEWS = {"scope": views.scope_view, "op": views.op_view}


def _check_options(options: Any) -> Dict[str, Any]:
    if not isinstance(options, dict):
        raise TypeError(f"options must be a dict (see tf.profiler.ProfileOptionBuilder), "
                        f"got {type(options).__name__}")
    unknown = sorted(set(options) - _OPTION_KEYS)
    if unknown:
        raise ValueError(f"Unknown profiler option {unknown[0]!r}; known: "
                         f"{sorted(_OPTION_KEYS)}")
    opts = ProfileOptionBuilder().build()
    opts.update(copy.deepcopy(options))
    output = str(opts["output"])
    if output.split(":", 1)[0] in ("timeline", "pprof"):
        raise ValueError(f"profiler output {output!r} is not supported by tensorfleet; use "
                         f"'stdout', 'none' or file:outfile=<path> (and "
                         f"tensorfleet's Timeline of the step stats for a trace)")
    if output not in ("stdout", "none") and not output.startswith("file:outfile="):
        raise ValueError(f"Unknown profiler output {output!r}")
    if any(opts.get(k, 0) > 0 for k in _BYTE_LIMITS):
        logger.warning("tensorfleet's step traces record no memory, so every byte measure "
                       "is 0 and a positive min_bytes hides every node; set it to 0 "
                       "(ProfileOptionBuilder.with_min_memory()) to see times")
    return opts


def _write(result: Any, opts: Dict[str, Any]) -> None:
    output = str(opts["output"])
    if output == "none":
        return
    report = views.format_report(result, opts)
    if output == "stdout":
        # The caller asked for the report on standard output.
        sys.stdout.write(report)
        sys.stdout.flush()
        return
    with open(output[len("file:outfile="):], "w") as f:
        f.write(report)


def _view(cmd: str) -> Any:
    if cmd not in _VIEWS:
        raise ValueError(f"profiler view {cmd!r} is not supported by tensorfleet; use "
                         f"'scope' or 'op'")
    return _VIEWS[cmd]


def _graph(graph: Any) -> Any:
    return graph if graph is not None else get_default_graph()


def profile(graph: Any = None, run_meta: Any = None, op_log: Optional[OpLogProto] = None,
            cmd: str = "scope", options: Optional[Dict[str, Any]] = None) -> Any:
    """Profiles ``graph`` (default: the default graph).

    Args:
      graph: the ``Graph`` to analyze.
      run_meta: the ``RunMetadata`` of a traced step, for op times.
      op_log: an ``OpLogProto`` adding types or float-op counts to ops.
      cmd: ``"scope"`` (a ``GraphNodeProto`` tree by name scope) or ``"op"`` (a
        ``MultiGraphNodeProto`` chain by op type).
      options: a ``ProfileOptionBuilder`` dict (default: the trainable parameters).

    Raises:
      ValueError: an unsupported view, output or option.
    """
    view = _view(cmd)
    opts = _check_options(options if options is not None
                          else ProfileOptionBuilder.trainable_variables_parameter())
    g = _graph(graph)
    nodes = node_stats.collect(g, node_stats.default_op_log(g, op_log))
    if run_meta is not None:
        node_stats.add_run(nodes, 0, run_meta)
        if opts["step"] not in (-1, 0):
            raise ValueError(f"options step={opts['step']}: profile() has one run, step 0")
    result = view(nodes, opts)
    _write(result, opts)
    return result


class Profiler:
    """Profiles a graph over several traced steps.

    ``add_step(step, run_meta)`` records a step's op times; ``profile_name_scope`` and
    ``profile_operations`` report them (``options["step"]`` picks a step, -1 averages
    the times over the steps).
    """

    def __init__(self, graph: Any = None, op_log: Optional[OpLogProto] = None):
        self._graph = _graph(graph)
        if op_log is not None and not isinstance(op_log, OpLogProto):
            raise TypeError(f"op_log must be a tf.profiler.OpLogProto, got "
                            f"{type(op_log).__name__}")
        self._op_log = op_log
        self._steps: List[Tuple[int, Any]] = []

    def add_step(self, step: int, run_meta: Any) -> None:
        """Adds the op times of ``run_meta`` (a traced step's ``RunMetadata``) as
        ``step``."""
        nodes = node_stats.collect(self._graph, OpLogProto())
        node_stats.add_run(nodes, int(step), run_meta)  # checks run_meta now
        self._steps.append((int(step), run_meta))

    def _nodes(self) -> Dict[str, node_stats.NodeStats]:
        nodes = node_stats.collect(self._graph,
                                   node_stats.default_op_log(self._graph, self._op_log))
        for step, run_meta in self._steps:
            node_stats.add_run(nodes, step, run_meta)
        return nodes

    def advise(self, options: Optional[Dict[str, Any]] = None) -> AdviceProto:
        """The checkers' reports on the steps added (see ``tf.profiler.advise``)."""
        return advisor.run_checkers(self._nodes(), bool(self._steps),
                                    _check_advice_options(options))

    def profile_name_scope(self, options: Dict[str, Any]) -> GraphNodeProto:
        """The scope view (a ``GraphNodeProto`` tree)."""
        opts = _check_options(options)
        result = views.scope_view(self._nodes(), opts)
        _write(result, opts)
        return result

    def profile_operations(self, options: Dict[str, Any]) -> MultiGraphNodeProto:
        """The op-type view (a ``MultiGraphNodeProto`` chain)."""
        opts = _check_options(options)
        result = views.op_view(self._nodes(), opts)
        _write(result, opts)
        return result


def _check_advice_options(options: Any) -> Dict[str, Any]:
    if options is None:
        return copy.deepcopy(advisor.ALL_ADVICE)
    if not isinstance(options, dict):
        raise TypeError(f"advise options must be a dict of checker name -> options, got "
                        f"{type(options).__name__}")
    return options


def advise(graph: Any = None, run_meta: Any = None,
           options: Optional[Dict[str, Any]] = None) -> AdviceProto:
    """Runs the checkers of ``options`` (default: all of them) over ``graph`` and the
    traced step ``run_meta``; returns their reports as an ``AdviceProto``.

    Raises:
      ValueError: an unknown checker or checker options.
    """
    opts = _check_advice_options(options)
    g = _graph(graph)
    nodes = node_stats.collect(g, node_stats.default_op_log(g))
    if run_meta is not None:
        node_stats.add_run(nodes, 0, run_meta)
    return advisor.run_checkers(nodes, run_meta is not None, opts)


def _code_def(op: Any, entry: Any, strings: Dict[str, int], op_log: OpLogProto) -> None:
    def sid(text: str) -> int:
        if text not in strings:
            strings[text] = len(strings) + 1
            op_log.id_to_string[strings[text]] = text
        return strings[text]
    for filename, lineno, function, line in op.traceback:
        entry.code_def.traces.add(file_id=sid(filename), lineno=int(lineno),
                                  function_id=sid(function), line_id=sid(line or ""))


def write_op_log(graph: Any, log_dir: str, op_log: Optional[OpLogProto] = None,
                 run_meta: Any = None, add_trace: bool = True) -> str:
    """Writes the op log of ``graph`` (trainable-variable types, float-op counts, the
    ``op_log`` given and, with ``add_trace``, the code that created each op) to
    ``<log_dir>/tfprof_log``; returns that path.

    Raises:
      ValueError: ``run_meta`` is given (tensorfleet's step stats hold no shapes to
        complete the float-op counts with).
    """
    if run_meta is not None:
        raise ValueError("write_op_log(run_meta=...) is not supported: tensorfleet's step "
                         "stats record no tensor shapes; float ops come from the graph")
    g = _graph(graph)
    log = node_stats.default_op_log(g, op_log)
    if add_trace:
        by_name = {e.name: e for e in log.log_entries}
        strings: Dict[str, int] = {}
        for op in g.get_operations():
            entry = by_name.get(op.name)
            if entry is None:
                entry = by_name[op.name] = log.log_entries.add(name=op.name)
            if not entry.HasField("code_def"):
                _code_def(op, entry, strings, log)
    os.makedirs(log_dir, exist_ok=True)
    path = os.path.join(log_dir, "tfprof_log")
    with open(path + ".tmp", "wb") as f:
        f.write(log.SerializeToString())
    os.replace(path + ".tmp", path)
    return path


__all__ = ["Profiler", "advise", "profile", "write_op_log"]
