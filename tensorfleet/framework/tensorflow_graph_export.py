"""Graphs as TensorFlow's ``GraphDef`` message, for TensorFlow and its tools to read.

tensorfleet's op types and attr names are TensorFlow's; what its nodes do not carry
are the type attrs TensorFlow's op definitions require (``T``, ``Tidx``, ``Tparams``
...), which follow from the dtypes of the node's inputs and outputs. ``TYPE_ATTRS``
says, per op type, which attr comes from which input or output; every other attr
is converted as it is (types, shapes, tensors, lists).

Ops TensorFlow does not have (tensorfleet's checkpoint ops, for instance) and ops
holding sub-graphs (functional ``While``/``If``) are listed, all at once, in the
error ``to_tensorflow_graph_def`` raises with ``strict=True``; without it they are
written as they are, which TensorBoard displays but TensorFlow cannot import.
"""

from __future__ import annotations

import logging
from typing import Any, Dict, List, Optional, Sequence, Tuple

from tensorfleet import dtypes as _dtypes
from tensorfleet import errors
from tensorfleet.framework import serialization as _ser
from tensorfleet.framework import tensor_proto as _tp
from tensorfleet.framework.graph import Graph
from tensorfleet.framework.tensorflow_fused_forms import expand_fused
from tensorfleet.protos import attr_value_pb2, graph_pb2

logger = logging.getLogger(__name__)

# The GraphDef producer version written (TensorFlow 1.15's graphs are 134).
GRAPH_PRODUCER = 134

# op type -> (type attr, where its dtype comes from): ("in", i) input i, ("in", -1) the
# last input, ("out", i) output i, ("ins", (a, b)) the list of inputs a..b-1.
_Src = Tuple[str, Any]
_T0: List[Tuple[str, _Src]] = [("T", ("in", 0))]
TYPE_ATTRS: Dict[str, List[Tuple[str, _Src]]] = {}
for _op in ["Identity", "Snapshot", "StopGradient", "Add", "AddV2", "Sub", "Mul", "RealDiv",
            "Div", "FloorDiv", "FloorMod", "Maximum", "Minimum", "Pow", "SquaredDifference",
            "Equal", "NotEqual", "Greater", "Less", "GreaterEqual", "LessEqual", "Neg", "Abs",
            "Square", "Sqrt", "Rsqrt", "Exp", "Log", "Tanh", "Sigmoid", "Sign", "Relu",
            "Relu6", "Elu", "Selu", "Softplus", "Softmax", "LogSoftmax", "LeakyRelu",
            "Conv2D", "DepthwiseConv2dNative", "MaxPool", "AvgPool", "MatMul", "BatchMatMulV2",
            "BiasAdd", "ZerosLike", "OnesLike", "Rank", "Relu6", "PreventGradient",
            "Unpack", "Pack", "AddN", "FusedBatchNorm"]:
    TYPE_ATTRS[_op] = _T0
TYPE_ATTRS.update({
    "Reshape": [("T", ("in", 0)), ("Tshape", ("in", 1))],
    "ExpandDims": [("T", ("in", 0)), ("Tdim", ("in", 1))],
    "Transpose": [("T", ("in", 0)), ("Tperm", ("in", 1))],
    "Tile": [("T", ("in", 0)), ("Tmultiples", ("in", 1))],
    "Pad": [("T", ("in", 0)), ("Tpaddings", ("in", 1))],
    "Fill": [("T", ("in", 1)), ("index_type", ("in", 0))],
    "ConcatV2": [("T", ("in", 0)), ("Tidx", ("in", -1))],
    "Mean": [("T", ("in", 0)), ("Tidx", ("in", 1))],
    "Sum": [("T", ("in", 0)), ("Tidx", ("in", 1))],
    "Max": [("T", ("in", 0)), ("Tidx", ("in", 1))],
    "Min": [("T", ("in", 0)), ("Tidx", ("in", 1))],
    "Prod": [("T", ("in", 0)), ("Tidx", ("in", 1))],
    "ArgMax": [("T", ("in", 0)), ("Tidx", ("in", 1))],
    "GatherV2": [("Tparams", ("in", 0)), ("Tindices", ("in", 1)), ("Taxis", ("in", 2))],
    "DynamicPartition": [("T", ("in", 0))],
    "DynamicStitch": [("T", ("out", 0))],
    "ParallelDynamicStitch": [("T", ("out", 0))],
    "Shape": [("T", ("in", 0))],
    "Size": [("T", ("in", 0))],
    "Range": [("Tidx", ("in", 0))],
    "Squeeze": [("T", ("in", 0))],
    "StridedSlice": [("T", ("in", 0)), ("Index", ("in", 1))],
    "Slice": [("T", ("in", 0)), ("Index", ("in", 1))],
    "Select": [("T", ("in", 1))],
    "SelectV2": [("T", ("in", 1))],
    "Assert": [("T", ("ins", (1, None)))],
    "FusedBatchNormV3": [("T", ("in", 0)), ("U", ("in", 1))],
    "AsString": [("T", ("in", 0))],
    "StringToHashBucketFast": [],
    "ParseExample": [],
    "Cast": [], "Const": [], "Placeholder": [], "PlaceholderWithDefault": [("dtype", ("in", 0))],
    "VariableV2": [], "NoOp": [], "Assign": [("T", ("in", 0))],
    "LogicalAnd": [], "LogicalOr": [], "LogicalNot": [],
    # The TensorFlow forms of the fused categorical-feature ops (tensorflow_fused_forms).
    "Log1p": _T0, "Where": _T0, "Unique": _T0, "SparseFillEmptyRows": [("T", ("in", 1))],
    "GatherNd": [("Tparams", ("in", 0)), ("Tindices", ("in", 1))],
    **{op: [("T", ("in", 0)), ("Tidx", ("in", 1)), ("Tnumsegments", ("in", 3))]
       for op in ("SparseSegmentSumWithNumSegments", "SparseSegmentMeanWithNumSegments",
                  "SparseSegmentSqrtNWithNumSegments")},
    "SparseCross": [],
    # What a training graph adds: the optimizers' updates, the global step's increment
    # and the gradients' own ops.
    **{op: _T0 for op in ("ApplyGradientDescent", "ApplyMomentum", "ApplyAdam", "ApplyAdagrad",
                          "ApplyRMSProp", "AssignAdd",
                          "AssignSub", "ReluGrad", "Relu6Grad", "TanhGrad", "SigmoidGrad",
                          "BiasAddGrad", "BroadcastGradientArgs", "Conv2DBackpropFilter",
                          "RandomStandardNormal", "RandomUniform", "TruncatedNormal")},
    "Conv2DBackpropInput": [("T", ("in", 1))],
    "SparseSoftmaxCrossEntropyWithLogits": [("T", ("in", 0)), ("Tlabels", ("in", 1))],
    "SplitV": [("T", ("in", 0)), ("Tlen", ("in", 1))],
})

# The attrs TensorFlow's op definitions declare for each op type written (attrs
# tensorfleet keeps beyond these, such as ``axis`` of Softmax, are rewritten into
# TensorFlow's form by ``_REWRITES`` or dropped).
TF_ATTRS: Dict[str, Any] = {
    "AsString": {'T', 'fill', 'precision', 'scientific', 'shortest', 'width'},
    "StringToHashBucketFast": {'num_buckets'},
    "ParseExample": {'Ndense', 'Nsparse', 'Tdense', 'dense_shapes', 'sparse_types'},
    "Abs": {'T'},
    "Add": {'T'},
    "AddN": {'N', 'T'},
    "AddV2": {'T'},
    "ArgMax": {'T', 'Tidx', 'output_type'},
    "Assert": {'T', 'summarize'},
    "Assign": {'T', 'use_locking', 'validate_shape'},
    "AvgPool": {'T', 'data_format', 'ksize', 'padding', 'strides'},
    "BatchMatMulV2": {'T', 'adj_x', 'adj_y', 'grad_x', 'grad_y'},
    "BiasAdd": {'T', 'data_format'},
    "Cast": {'DstT', 'SrcT', 'Truncate'},
    "ConcatV2": {'N', 'T', 'Tidx'},
    "Const": {'dtype', 'value'},
    "Conv2D": {'T', 'data_format', 'dilations', 'explicit_paddings', 'padding', 'strides',
               'use_cudnn_on_gpu'},
    "DepthwiseConv2dNative": {'T', 'data_format', 'dilations', 'explicit_paddings', 'padding',
                              'strides'},
    "Div": {'T'},
    "DynamicPartition": {'T', 'num_partitions'},
    "DynamicStitch": {'N', 'T'},
    "Elu": {'T'},
    "Equal": {'T', 'incompatible_shape_error'},
    "Exp": {'T'},
    "ExpandDims": {'T', 'Tdim'},
    "Fill": {'T', 'index_type'},
    "FloorDiv": {'T'},
    "FloorMod": {'T'},
    "FusedBatchNorm": {'T', 'data_format', 'epsilon', 'exponential_avg_factor', 'is_training'},
    "FusedBatchNormV3": {'T', 'U', 'data_format', 'epsilon', 'exponential_avg_factor',
                         'is_training'},
    "GatherV2": {'Taxis', 'Tindices', 'Tparams', 'batch_dims'},
    "Greater": {'T'},
    "GreaterEqual": {'T'},
    "Identity": {'T'},
    "LeakyRelu": {'T', 'alpha'},
    "Less": {'T'},
    "LessEqual": {'T'},
    "Log": {'T'},
    "LogSoftmax": {'T'},
    "LogicalAnd": set(),
    "LogicalNot": set(),
    "LogicalOr": set(),
    "MatMul": {'T', 'grad_a', 'grad_b', 'transpose_a', 'transpose_b'},
    "Max": {'T', 'Tidx', 'keep_dims'},
    "MaxPool": {'T', 'data_format', 'explicit_paddings', 'ksize', 'padding', 'strides'},
    "Maximum": {'T'},
    "Mean": {'T', 'Tidx', 'keep_dims'},
    "Min": {'T', 'Tidx', 'keep_dims'},
    "Minimum": {'T'},
    "Mul": {'T'},
    "Neg": {'T'},
    "NoOp": set(),
    "NotEqual": {'T', 'incompatible_shape_error'},
    "OnesLike": {'T'},
    "Pack": {'N', 'T', 'axis'},
    "Pad": {'T', 'Tpaddings'},
    "ParallelDynamicStitch": {'N', 'T'},
    "Placeholder": {'dtype', 'shape'},
    "PlaceholderWithDefault": {'dtype', 'shape'},
    "Pow": {'T'},
    "PreventGradient": {'T', 'message'},
    "Prod": {'T', 'Tidx', 'keep_dims'},
    "Range": {'Tidx'},
    "Rank": {'T'},
    "RealDiv": {'T'},
    "Relu": {'T'},
    "Relu6": {'T'},
    "Reshape": {'T', 'Tshape'},
    "Rsqrt": {'T'},
    "Select": {'T'},
    "SelectV2": {'T'},
    "Selu": {'T'},
    "Shape": {'T', 'out_type'},
    "Sigmoid": {'T'},
    "Sign": {'T'},
    "Size": {'T', 'out_type'},
    "Slice": {'Index', 'T'},
    "Snapshot": {'T'},
    "Softmax": {'T'},
    "Softplus": {'T'},
    "Sqrt": {'T'},
    "Square": {'T'},
    "SquaredDifference": {'T'},
    "Squeeze": {'T', 'squeeze_dims'},
    "StopGradient": {'T'},
    "StridedSlice": {'Index', 'T', 'begin_mask', 'ellipsis_mask', 'end_mask', 'new_axis_mask',
                     'shrink_axis_mask'},
    "Sub": {'T'},
    "Sum": {'T', 'Tidx', 'keep_dims'},
    "Tanh": {'T'},
    "Tile": {'T', 'Tmultiples'},
    "Transpose": {'T', 'Tperm'},
    "Unpack": {'T', 'axis', 'num'},
    "VariableV2": {'container', 'dtype', 'shape', 'shared_name'},
    "ZerosLike": {'T'},
    "Log1p": {'T'},
    "Where": {'T'},
    "Unique": {'T', 'out_idx'},
    "SparseFillEmptyRows": {'T'},
    "GatherNd": {'Tparams', 'Tindices'},
    # Tsegmentids (TensorFlow 2.x) is left at its default, int32, so TensorFlow 1.x
    # reads these nodes too.
    "SparseSegmentSumWithNumSegments": {'T', 'Tidx', 'Tnumsegments'},
    "SparseSegmentMeanWithNumSegments": {'T', 'Tidx', 'Tnumsegments'},
    "SparseSegmentSqrtNWithNumSegments": {'T', 'Tidx', 'Tnumsegments'},
    "ApplyGradientDescent": {'T', 'use_locking'},
    "ApplyMomentum": {'T', 'use_locking', 'use_nesterov'},
    "ApplyAdam": {'T', 'use_locking', 'use_nesterov'},
    "ApplyAdagrad": {'T', 'use_locking', 'update_slots'},
    "ApplyRMSProp": {'T', 'use_locking'},
    "AssignAdd": {'T', 'use_locking'},
    "AssignSub": {'T', 'use_locking'},
    "ReluGrad": {'T'}, "Relu6Grad": {'T'}, "TanhGrad": {'T'}, "SigmoidGrad": {'T'},
    "BiasAddGrad": {'T', 'data_format'},
    "BroadcastGradientArgs": {'T'},
    **{op: {'T', 'data_format', 'dilations', 'explicit_paddings', 'padding', 'strides',
            'use_cudnn_on_gpu'} for op in ("Conv2DBackpropInput", "Conv2DBackpropFilter")},
    "SparseSoftmaxCrossEntropyWithLogits": {'T', 'Tlabels'},
    **{op: {'T', 'dtype', 'seed', 'seed2'} for op in ("RandomStandardNormal", "RandomUniform",
                                                      "TruncatedNormal")},
    "SplitV": {'T', 'Tlen', 'num_split'},
    "SparseCross": {'N', 'hashed_output', 'num_buckets', 'hash_key', 'sparse_types',
                    'dense_types', 'out_type', 'internal_type'},
}


def _attr_value(plain: Any, where: str) -> Any:
    """A tensorfleet plain attr as an ``AttrValue`` message."""
    av = attr_value_pb2.AttrValue()
    tag = next(iter(plain)) if isinstance(plain, dict) and len(plain) == 1 else None
    value = _ser.decode_attr(plain)
    if tag in ("s", "y"):
        av.s = value if isinstance(value, bytes) else str(value).encode("utf-8")
    elif tag == "b":
        av.b = bool(value)
    elif tag == "i":
        av.i = int(value)
    elif tag == "f":
        av.f = float(value)
    elif tag == "type":
        av.type = value.enum
    elif tag == "shape":
        av.shape.CopyFrom(_tp.shape_to_proto(value.as_list() if value.ndims is not None
                                             else None))
    elif tag == "tensor":
        av.tensor.CopyFrom(_tp.make_tensor_proto(value))
    elif tag == "list":
        for item in plain["list"]:
            kind = next(iter(item)) if isinstance(item, dict) and len(item) == 1 else None
            v = _ser.decode_attr(item)
            if kind in ("s", "y"):
                av.list.s.append(v if isinstance(v, bytes) else str(v).encode("utf-8"))
            elif kind == "i":
                av.list.i.append(int(v))
            elif kind == "f":
                av.list.f.append(float(v))
            elif kind == "b":
                av.list.b.append(bool(v))
            elif kind == "type":
                av.list.type.append(v.enum)
            elif kind == "shape":
                av.list.shape.append(_tp.shape_to_proto(v.as_list() if v.ndims is not None
                                                        else None))
            elif kind == "tensor":
                av.list.tensor.append(_tp.make_tensor_proto(v))
            else:
                raise ValueError(f"{where}: a list item of kind {kind} has no TensorFlow form")
        if not plain["list"]:
            av.list.SetInParent()
    else:
        raise ValueError(f"{where}: an attr of kind {tag} has no TensorFlow form")
    return av


def _input_name(s: str) -> str:
    # TensorFlow names output 0 by the node name alone.
    if not s.startswith("^") and s.endswith(":0"):
        return s[:-2]
    return s


def _dtype_of(node: Dict[str, Any], outs: Dict[str, List[Any]], src: _Src
              ) -> Optional[Any]:
    kind, where = src
    if kind == "out":
        sig = node.get("out") or []
        return _dtypes.as_dtype(sig[where][0]) if where < len(sig) else None
    data_inputs = [i for i in node.get("input", []) if not i.startswith("^")]

    def dtype(s: str) -> Optional[_dtypes.DType]:
        name, _, idx = s.rpartition(":")
        if not _ or not idx.isdigit():
            name, idx = s, "0"
        sig = outs.get(name) or []
        k = int(idx)
        return _dtypes.as_dtype(sig[k][0]) if k < len(sig) else None

    if kind == "ins":
        a, b = where
        return [dtype(s) for s in data_inputs[a:b]]
    if not data_inputs or where >= len(data_inputs):
        return None
    return dtype(data_inputs[where])


def exportable(op_type: str) -> bool:
    """Whether op type ``op_type`` has a TensorFlow form here."""
    return op_type in TF_ATTRS


class _Context:
    """What a rewrite may look at and add: input ranks and new constant nodes."""

    def __init__(self, gd: Any, outs: Dict[str, List[Any]]):
        self._gd = gd
        self._outs = outs
        self._names = set(outs)

    def input_rank(self, node: Dict[str, Any], i: int) -> Optional[int]:
        data = [s for s in node.get("input", []) if not s.startswith("^")]
        if i >= len(data):
            return None
        name, sep, idx = data[i].rpartition(":")
        if not sep or not idx.isdigit():
            name, idx = data[i], "0"
        sig = self._outs.get(name) or []
        if int(idx) >= len(sig) or sig[int(idx)][1] is None:
            return None
        return len(sig[int(idx)][1])

    def input_dtype(self, node: Dict[str, Any], i: int) -> Optional[Any]:
        """The dtype of data input ``i`` of ``node``, or None when unknown."""
        return _dtype_of(node, self._outs, ("in", i))

    def add_const(self, name: str, value: Any) -> str:
        base, k = name, 1
        while name in self._names:
            name = f"{base}_{k}"
            k += 1
        self._names.add(name)
        node = self._gd.node.add(name=name, op="Const")
        proto = _tp.make_tensor_proto(value)
        node.attr["value"].tensor.CopyFrom(proto)
        node.attr["dtype"].type = proto.dtype
        return name


def _all_axes(node: Dict[str, Any], ctx: _Context) -> None:
    """A reduction over every axis: TensorFlow wants the axes as an input."""
    data = [s for s in node["input"] if not s.startswith("^")]
    if len(data) != 1:
        return
    rank = ctx.input_rank(node, 0)
    if rank is None:
        raise ValueError(f"node {node['name']} ({node['op']}) reduces a tensor of unknown "
                         f"rank over all axes")
    import numpy as np
    axes = ctx.add_const(node["name"] + "/reduction_indices", np.arange(rank, dtype=np.int32))
    node["input"] = data + [axes] + [s for s in node["input"] if s.startswith("^")]


def _axis_input(node: Dict[str, Any], ctx: _Context) -> None:
    """ArgMax/ArgMin: the axis is an input in TensorFlow, an attr here."""
    axis = node.get("attr", {}).pop("axis", None)
    if axis is None:
        return
    import numpy as np
    dim = ctx.add_const(node["name"] + "/dimension",
                        np.array(_ser.decode_attr(axis), dtype=np.int32))
    data = [s for s in node["input"] if not s.startswith("^")]
    node["input"] = data + [dim] + [s for s in node["input"] if s.startswith("^")]


def _last_axis_only(node: Dict[str, Any], ctx: _Context) -> None:
    axis = node.get("attr", {}).pop("axis", None)
    if axis is None:
        return
    a = _ser.decode_attr(axis)
    rank = ctx.input_rank(node, 0)
    if a != -1 and (rank is None or a != rank - 1):
        raise ValueError(f"node {node['name']} ({node['op']}) works along axis {a}; "
                         f"TensorFlow's works along the last one only")


def _parse_example(node: Dict[str, Any], ctx: _Context) -> None:
    """ParseExample: the feature keys are attrs here, string inputs in TensorFlow."""
    import numpy as np
    attrs = node["attr"]
    sparse = _ser.decode_attr(attrs.pop("sparse", {"list": []}))
    dense = _ser.decode_attr(attrs.pop("dense", {"list": []}))
    if _ser.decode_attr(attrs.pop("single", {"b": False})):
        raise ValueError(f"node {node['name']} (ParseExample) parses a single example; "
                         f"TensorFlow's op parses a batch")
    for f in sparse:
        if f.get("kind") != "var":
            raise ValueError(f"node {node['name']} (ParseExample): a {f.get('kind')} sparse "
                             f"feature has no TensorFlow ParseExample form")
    if any(f.get("seq") for f in dense):
        raise ValueError(f"node {node['name']} (ParseExample): sequence features have no "
                         f"TensorFlow ParseExample form")
    data = [s for s in node["input"] if not s.startswith("^")]
    control = [s for s in node["input"] if s.startswith("^")]
    name = node["name"]
    names = ctx.add_const(name + "/names", np.zeros([0], dtype=object))
    sparse_keys = [ctx.add_const(f"{name}/sparse_keys_{i}", np.array(f["key"].encode(),
                                                                    dtype=object))
                   for i, f in enumerate(sparse)]
    dense_keys = [ctx.add_const(f"{name}/dense_keys_{i}", np.array(f["key"].encode(),
                                                                  dtype=object))
                  for i, f in enumerate(dense)]
    node["input"] = [data[0], names] + sparse_keys + dense_keys + data[1:] + control
    attrs["Nsparse"] = {"i": len(sparse)}
    attrs["Ndense"] = {"i": len(dense)}
    attrs["sparse_types"] = {"list": [{"type": f["type"].name} for f in sparse]}
    attrs["Tdense"] = {"list": [{"type": f["type"].name} for f in dense]}
    attrs["dense_shapes"] = {"list": [{"shape": [int(d) for d in f["shape"]]} for f in dense]}


def _sparse_cross(node: Dict[str, Any], ctx: _Context) -> None:
    """SparseCross: TensorFlow's op lists the dtypes of its inputs in attrs."""
    n = int(_ser.decode_attr(node["attr"]["N"]))
    data = [s for s in node["input"] if not s.startswith("^")]
    types = [ctx.input_dtype(node, i) for i in range(len(data))]
    sparse_types, dense_types = types[n:2 * n], types[3 * n:]
    for t in sparse_types + dense_types:
        if t not in (_dtypes.int64, _dtypes.string):
            raise ValueError(f"node {node['name']} (SparseCross) crosses a feature of dtype "
                             f"{t.name if t else 'unknown'}; TensorFlow's crosses int64 and "
                             f"string features")
    attrs = node["attr"]
    attrs["sparse_types"] = {"list": [{"type": t.name} for t in sparse_types]}
    attrs["dense_types"] = {"list": [{"type": t.name} for t in dense_types]}
    hashed = bool(_ser.decode_attr(attrs.get("hashed_output", {"b": False})))
    attrs["out_type"] = {"type": "int64" if hashed else "string"}
    # As TensorFlow's python wrapper chooses it: int64 once any feature is an integer.
    internal = _dtypes.int64 if _dtypes.int64 in sparse_types + dense_types else _dtypes.string
    attrs["internal_type"] = {"type": internal.name}


_REWRITES: Dict[str, Any] = {
    "ParseExample": _parse_example,
    "SparseCross": _sparse_cross,
    **{op: _all_axes for op in ("Sum", "Mean", "Max", "Min", "Prod")},
    "ArgMax": _axis_input,
    "Softmax": _last_axis_only, "LogSoftmax": _last_axis_only,
}


def to_tensorflow_graph_def(graph: Any, strict: bool = True) -> Any:
    """``graph`` (a ``Graph`` or a tensorfleet ``GraphDef``) as TensorFlow's message.

    Raises:
      InvalidArgumentError: with ``strict``, naming every op type TensorFlow lacks or
        that cannot be written; without, only attrs that have no TensorFlow form.
    """
    if isinstance(graph, Graph):
        plain = _ser.graph_to_plain(graph)
    elif isinstance(graph, dict):
        plain = graph
    else:
        raise TypeError(f"Expected a Graph or a GraphDef, got {type(graph).__name__}")
    nodes, problems = expand_fused(plain.get("node", []))
    if strict:
        missing = sorted({n.get("op", "") for n in nodes if not exportable(n.get("op", ""))})
        if missing:
            raise errors.InvalidArgumentError(
                None, None, f"Cannot write the graph as a TensorFlow GraphDef: "
                f"{len(missing)} op type(s) have no TensorFlow form here: {', '.join(missing)}")
    outs = {n.get("name"): n.get("out") or [] for n in nodes}
    gd = graph_pb2.GraphDef()
    gd.versions.producer = GRAPH_PRODUCER
    ctx = _Context(gd, outs)
    for original in nodes:
        n = dict(original)
        n["input"] = list(n.get("input", []))
        n["attr"] = dict(n.get("attr") or {})
        rewrite = _REWRITES.get(n.get("op", ""))
        if rewrite is not None:
            try:
                rewrite(n, ctx)
            except ValueError as e:
                problems.append(str(e))
        allowed = TF_ATTRS.get(n.get("op", ""))
        node = gd.node.add(name=n.get("name", ""), op=n.get("op", ""),
                           device=n.get("device", "") or "")
        node.input.extend(_input_name(s) for s in n["input"])
        for key, value in n["attr"].items():
            if isinstance(value, dict) and next(iter(value), None) == "n":
                continue  # unset (None): TensorFlow applies the attr's default
            if allowed is not None and key not in allowed and not key.startswith("_"):
                logger.debug("node %s: attr %s has no TensorFlow counterpart; left out",
                             node.name, key)
                continue
            try:
                av = _attr_value(value, f"node {node.name} attr {key}")
            except (ValueError, errors.InvalidArgumentError) as e:
                problems.append(str(e))
                continue
            node.attr[key].CopyFrom(av)
        for key, src in TYPE_ATTRS.get(node.op, []):
            if key in node.attr or (allowed is not None and key not in allowed):
                continue
            dt = _dtype_of(n, outs, src)
            if isinstance(dt, list):
                if None not in dt:
                    node.attr[key].list.type.extend(d.enum for d in dt)
                    if not dt:
                        node.attr[key].list.SetInParent()
            elif dt is not None:
                node.attr[key].type = dt.enum
        if node.op in ("ConcatV2", "DynamicStitch", "ParallelDynamicStitch", "AddN", "Pack") \
                and "N" not in node.attr:
            data = [i for i in node.input if not i.startswith("^")]
            node.attr["N"].i = len(data) - 1 if node.op == "ConcatV2" else (
                len(data) // 2 if "Stitch" in node.op else len(data))
    if problems and strict:
        raise errors.InvalidArgumentError(None, None, "Cannot write the graph as a TensorFlow "
                                          "GraphDef: " + "; ".join(problems))
    for p in problems:
        # Not strict: a graph for TensorBoard, or write_graph, which warns about the
        # op types TensorFlow lacks (whose attrs these mostly are).
        logger.debug("Writing a TensorFlow GraphDef: %s (left out)", p)
    return gd


__all__ = ["TYPE_ATTRS", "TF_ATTRS", "GRAPH_PRODUCER", "exportable", "to_tensorflow_graph_def"]
