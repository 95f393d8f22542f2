"""The model analyzer's two views of a graph, as TensorFlow's tfprof shows them.

``scope``: a tree of op names split at ``/`` (a missing prefix becomes a node of its
own), under the root ``_TFProfRoot``. A node is *accounted* when one of its types
(op type, or a type the op log gives it) matches ``account_type_regexes``; a node is
kept when it is accounted or has kept descendants. Then a kept node is *shown* when it
passes the thresholds (its own parameters, float ops and runs; its subtree's time and
bytes), the name filters and ``max_depth``; a hidden node hands its shown descendants
to its parent. Totals add the node itself and its kept children, or with
``account_displayed_op_only`` its shown children.

``op``: one node per op type, summing its accounted ops, sorted by ``order_by`` and
chained so that each type's totals include the types after it (the cumulative share of
a sorted table), under ``_TFProfRoot``.
"""

from __future__ import annotations

import logging
import re
from typing import Any, Callable, Dict, List, Optional, Sequence

from tensorfleet.model_analyzer.node_stats import NodeStats
from tensorfleet.protos.tfprof_output_pb2 import GraphNodeProto, MultiGraphNodeProto

logger = logging.getLogger(__name__)

ROOT = "_TFProfRoot"
SCOPE_PARENT = "_TFScopeParent"

_STAT_FIELDS = ("run_count", "exec_micros", "accelerator_exec_micros", "cpu_exec_micros",
                "requested_bytes", "peak_bytes", "residual_bytes", "output_bytes",
                "parameters", "float_ops")
_TOTAL_OF = {f: "total_" + f for f in _STAT_FIELDS}

# order_by -> the total it sorts on, largest first ("name" sorts by name).
_ORDER_KEYS = {"bytes": "total_requested_bytes", "peak_bytes": "total_peak_bytes",
               "residual_bytes": "total_residual_bytes",
               "output_bytes": "total_output_bytes", "micros": "total_exec_micros",
               "accelerator_micros": "total_accelerator_exec_micros",
               "cpu_micros": "total_cpu_exec_micros", "params": "total_parameters",
               "float_ops": "total_float_ops", "occurrence": "total_run_count"}


def _full_match(regexes: Sequence[str], text: str) -> bool:
    return any(re.fullmatch(rx, text) for rx in regexes)


def _reset_totals(proto: Any) -> None:
    for f in _STAT_FIELDS:
        if f == "run_count" and isinstance(proto, MultiGraphNodeProto):
            continue  # a type node has no run count of its own
        setattr(proto, _TOTAL_OF[f], getattr(proto, f))
    if isinstance(proto, GraphNodeProto):
        proto.total_definition_count = 1


def _aggregate(proto: Any, child: Any) -> None:
    for f in _STAT_FIELDS:
        if f == "run_count" and isinstance(proto, MultiGraphNodeProto):
            continue
        total = _TOTAL_OF[f]
        setattr(proto, total, getattr(proto, total) + getattr(child, total))
    if isinstance(proto, GraphNodeProto):
        proto.total_definition_count += child.total_definition_count


def _fill_self(proto: GraphNodeProto, node: NodeStats, step: int) -> None:
    micros, count, devices = node.run_stats(step)
    proto.run_count = count
    proto.exec_micros = micros
    proto.cpu_exec_micros = micros  # every tensorfleet kernel runs on the CPU
    proto.parameters = node.parameters
    proto.float_ops = node.float_ops
    proto.devices.extend(devices)
    for i, shape in node.input_shapes.items():
        proto.input_shapes[i].CopyFrom(shape)


def _sort(protos: List[Any], order_by: str) -> List[Any]:
    out = sorted(protos, key=lambda p: p.name)
    key = _ORDER_KEYS.get(order_by)
    if key is not None:
        out.sort(key=lambda p: -getattr(p, key))
    return out


def _passes(proto: Any, opts: Dict[str, Any], depth: int, run_count: int) -> bool:
    """TensorFlow's display test: own parameters, float ops and runs; subtree time and
    bytes; depth; name filters."""
    limits = (("total_requested_bytes", "min_bytes"), ("total_peak_bytes", "min_peak_bytes"),
              ("total_residual_bytes", "min_residual_bytes"),
              ("total_output_bytes", "min_output_bytes"),
              ("total_exec_micros", "min_micros"),
              ("total_accelerator_exec_micros", "min_accelerator_micros"),
              ("total_cpu_exec_micros", "min_cpu_micros"),
              ("parameters", "min_params"), ("float_ops", "min_float_ops"))
    for field, key in limits:
        if getattr(proto, field) < opts.get(key, 0):
            return False
    if run_count < opts.get("min_occurrence", 0) or depth > opts["max_depth"]:
        return False
    if not _full_match(opts["show_name_regexes"], proto.name):
        return False
    return not _full_match(opts["hide_name_regexes"], proto.name)


class _ScopeNode:
    def __init__(self, name: str, node: Optional[NodeStats], step: int):
        self.name = name
        self.types = node.types if node is not None else [SCOPE_PARENT]
        self.proto = GraphNodeProto(name=name)
        if node is not None:
            _fill_self(self.proto, node, step)
        self.children: List["_ScopeNode"] = []
        self.kept: List["_ScopeNode"] = []
        self.accounted = False


def _scope_tree(nodes: Dict[str, NodeStats], step: int) -> List[_ScopeNode]:
    tree: Dict[str, _ScopeNode] = {}
    for name in nodes:
        tree[name] = _ScopeNode(name, nodes[name], step)
    for name in list(tree):
        prefix = name
        while "/" in prefix:
            prefix = prefix.rsplit("/", 1)[0]
            if prefix not in tree:
                tree[prefix] = _ScopeNode(prefix, None, step)
    roots = []
    for name in sorted(tree):
        if "/" in name:
            tree[name.rsplit("/", 1)[0]].children.append(tree[name])
        else:
            roots.append(tree[name])
    return roots


def _account(nodes: List[_ScopeNode], opts: Dict[str, Any]) -> List[_ScopeNode]:
    kept = []
    for node in nodes:
        kept_children = _account(node.children, opts)
        node.accounted = any(_full_match(opts["account_type_regexes"], t) for t in node.types)
        if node.accounted or kept_children:
            _reset_totals(node.proto)
            for c in kept_children:
                _aggregate(node.proto, c.proto)
            node.kept = kept_children
            kept.append(node)
    return kept


def _search_start(nodes: List[_ScopeNode], regexes: Sequence[str]) -> List[_ScopeNode]:
    found = []
    for node in nodes:
        if _full_match(regexes, node.name):
            found.append(node)
        else:
            found.extend(_search_start(node.kept, regexes))
    return found


def _show(nodes: List[_ScopeNode], opts: Dict[str, Any], depth: int) -> List[_ScopeNode]:
    shown = []
    for node in nodes:
        show = node.name == ROOT or _passes(node.proto, opts, depth, node.proto.run_count)
        children: List[_ScopeNode] = []
        if not _full_match(opts["trim_name_regexes"], node.name) and \
                depth <= opts["max_depth"]:
            children = _show(node.kept, opts, depth + 1)
        if show:
            if opts["account_displayed_op_only"]:
                _reset_totals(node.proto)
                for c in children:
                    _aggregate(node.proto, c.proto)
            by_name = {c.name: c for c in children}
            node.kept = [by_name[p.name] for p in _sort([c.proto for c in children],
                                                        opts["order_by"])]
            shown.append(node)
        else:
            shown.extend(children)
    return shown


def _emit(node: _ScopeNode, into: GraphNodeProto) -> None:
    for child in node.kept:
        out = into.children.add()
        out.CopyFrom(child.proto)
        del out.children[:]
        _emit(child, out)


def scope_view(nodes: Dict[str, NodeStats], opts: Dict[str, Any]) -> GraphNodeProto:
    """The ``scope`` view of ``nodes`` under ``opts`` (see the module docstring)."""
    step = int(opts["step"])
    root = _ScopeNode(ROOT, None, step)
    roots = _account(_scope_tree(nodes, step), opts)
    _reset_totals(root.proto)
    root.proto.total_definition_count = 1
    for r in roots:
        _aggregate(root.proto, r.proto)
    starts = opts["start_name_regexes"]
    if list(starts) != [".*"]:
        roots = _search_start(roots, starts)
    root.kept = roots
    _show([root], opts, 1)
    out = GraphNodeProto()
    out.CopyFrom(root.proto)
    _emit(root, out)
    return out


def op_view(nodes: Dict[str, NodeStats], opts: Dict[str, Any]) -> MultiGraphNodeProto:
    """The ``op`` view of ``nodes`` under ``opts`` (see the module docstring)."""
    step = int(opts["step"])
    by_type: Dict[str, MultiGraphNodeProto] = {}
    for node in sorted(nodes.values(), key=lambda n: n.name):
        if not any(_full_match(opts["account_type_regexes"], t) for t in node.types):
            continue
        graph_node = GraphNodeProto(name=node.name)
        _fill_self(graph_node, node, step)
        _reset_totals(graph_node)
        group = by_type.setdefault(node.op_type, MultiGraphNodeProto(name=node.op_type))
        group.graph_nodes.add().CopyFrom(graph_node)
        for f in _STAT_FIELDS[1:]:
            setattr(group, f, getattr(group, f) + getattr(graph_node, f))
    runs = {t: sum(g.run_count for g in p.graph_nodes) for t, p in by_type.items()}
    for p in by_type.values():
        _reset_totals(p)
    order = _sort(list(by_type.values()), opts["order_by"])
    for later, earlier in zip(reversed(order), list(reversed(order))[1:]):
        _aggregate(earlier, later)
    root = MultiGraphNodeProto(name=ROOT)
    if order:
        _aggregate(root, order[0])
    starts = opts["start_name_regexes"]
    first = 0
    if list(starts) not in ([], [".*"]):
        first = next((i for i, p in enumerate(order) if _full_match(starts, p.name)),
                     len(order))
    shown = []
    for depth, p in enumerate(order[first:]):
        if _full_match(opts["trim_name_regexes"], p.name) or depth > opts["max_depth"]:
            break
        if _passes(p, opts, depth, runs[p.name]):
            shown.append(p)
    if opts["account_displayed_op_only"]:
        for i in range(len(shown) - 1, -1, -1):
            _reset_totals(shown[i])
            if i + 1 < len(shown):
                _aggregate(shown[i], shown[i + 1])
        _reset_totals(root)
        if shown:
            _aggregate(root, shown[0])
    out = MultiGraphNodeProto()
    out.CopyFrom(root)
    parent = out
    for p in shown:
        child = parent.children.add()
        child.CopyFrom(p)
        del child.children[:]
        parent = child
    return out


# -- the text report -------------------------------------------------------------------------
_TEXT_FIELDS: Dict[str, Callable[[Any], str]] = {
    "bytes": lambda p: f"{p.requested_bytes}B/{p.total_requested_bytes}B",
    "micros": lambda p: f"{p.exec_micros}us/{p.total_exec_micros}us",
    "params": lambda p: f"{p.parameters}/{p.total_parameters} params",
    "float_ops": lambda p: f"{p.float_ops}/{p.total_float_ops} flops",
    "occurrence": lambda p: f"{getattr(p, 'run_count', 0)} runs",
    "device": lambda p: "|".join(getattr(p, "devices", [])),
}


def format_report(result: Any, opts: Dict[str, Any]) -> str:
    """A text table of ``result``: one line per node, its own and total measures."""
    selected = [s for s in opts.get("select", []) if s in _TEXT_FIELDS]
    lines = ["node name | " + " | ".join(selected)]

    def walk(p: Any, indent: int) -> None:
        fields = ", ".join(_TEXT_FIELDS[s](p) for s in selected)
        lines.append(f"{' ' * indent}{p.name} ({fields})")
        for c in p.children:
            walk(c, indent + 2)
    walk(result, 0)
    return "\n".join(lines) + "\n"


__all__ = ["ROOT", "format_report", "op_view", "scope_view"]
