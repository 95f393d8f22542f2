"""Importing TensorFlow's ``GraphDef`` messages (frozen graphs, ``.pb`` / ``.pbtxt``).

Each TensorFlow op type maps onto tensorfleet's op constructors through one table,
``IMPORTERS``: op name -> a function of the node's input tensors, its attrs and its
name that builds the same computation. A graph holding op types the table lacks is
refused before anything is built, with one error listing every missing op; so is a
graph that defines functions, or one with TensorFlow 1.x's Switch/Merge/Enter/Exit
control flow (tensorfleet's loops are functional ``While`` ops, so those graphs do not
import; the error says so).

Node attrs are read through ``_Attrs``, which turns ``AttrValue`` messages into
Python values; constant inputs that must be known while building (axes, shapes of
some ops) are read from their ``Const`` nodes.
"""

from __future__ import annotations

import logging
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np
from google.protobuf import text_format
from google.protobuf.message import DecodeError

from tensorfleet import dtypes as _dtypes
from tensorfleet import errors
from tensorfleet.framework import tensor_proto as _tp
from tensorfleet.framework.graph import Graph, Tensor, get_default_graph
from tensorfleet.compat import renamed_ops
from tensorfleet.ops import (array_ops, categorical_ops, control_flow_ops, hash_ops, math_ops,
                             nn_conv_variant_ops, nn_norm_ops, nn_ops, parsing_ops, scatter_ops,
                             sparse_ops)
from tensorfleet.ops.tensorflow_training_graph_import import TRAINING_IMPORTERS
from tensorfleet.protos import graph_pb2

logger = logging.getLogger(__name__)

# TensorFlow 1.x control flow: frames of Enter/Exit around Switch/Merge.
V1_CONTROL_FLOW = frozenset({"Switch", "Merge", "Enter", "Exit", "NextIteration", "LoopCond",
                             "RefSwitch", "RefMerge", "RefEnter", "RefExit",
                             "RefNextIteration"})


class _Attrs:
    """A node's attrs as Python values."""

    def __init__(self, node: Any):
        self._node = node

    def has(self, key: str) -> bool:
        return key in self._node.attr

    def get(self, key: str, default: Any = None) -> Any:
        if key not in self._node.attr:
            return default
        v = self._node.attr[key]
        kind = v.WhichOneof("value")
        what = f"attr {key} of node {self._node.name}"
        if kind == "s":
            return v.s.decode("utf-8", "replace")
        if kind in ("i", "f", "b"):
            return getattr(v, kind)
        if kind == "type":
            return _tp.dtype_from_enum(v.type, what)
        if kind == "shape":
            return _tp.shape_from_proto(v.shape)
        if kind == "tensor":
            return _tp.make_ndarray(v.tensor, what)
        if kind == "list":
            lv = v.list
            for field in ("i", "f", "b", "s"):
                if len(getattr(lv, field)):
                    vals = list(getattr(lv, field))
                    return [x.decode("utf-8", "replace") for x in vals] if field == "s" else vals
            if len(lv.type):
                return [_tp.dtype_from_enum(t, what) for t in lv.type]
            if len(lv.shape):
                return [_tp.shape_from_proto(s) for s in lv.shape]
            return []
        raise errors.InvalidArgumentError(None, None, f"{what}: attr kind {kind} is not "
                                          f"supported")

    def __getitem__(self, key: str) -> Any:
        if key not in self._node.attr:
            raise errors.InvalidArgumentError(None, None, f"Node {self._node.name} "
                                              f"({self._node.op}) lacks attr {key}")
        return self.get(key)


class _Node:
    """What an importer gets: inputs, attrs, the node's name, constant lookups."""

    def __init__(self, node: Any, inputs: List[Tensor], consts: List[Optional[np.ndarray]]):
        self.name = node.name
        self.op = node.op
        self.inputs = inputs
        self.attrs = _Attrs(node)
        self._consts = consts

    def const_or_none(self, i: int) -> Optional[np.ndarray]:
        """The value of input ``i`` when it comes from a ``Const`` node, else None."""
        return self._consts[i] if i < len(self._consts) else None

    def const(self, i: int) -> np.ndarray:
        """The value of input ``i``, which must come from a ``Const`` node."""
        v = self._consts[i] if i < len(self._consts) else None
        if v is None:
            raise errors.InvalidArgumentError(
                None, None, f"Node {self.name} ({self.op}): input {i} must be a constant "
                f"to import this op")
        return v


Importer = Callable[[_Node], Any]
IMPORTERS: Dict[str, Importer] = {}


def _register(names: Sequence[str], fn: Importer) -> None:
    for n in names:
        IMPORTERS[n] = fn


class _Constructors:
    """The public constructors by their ``tf.*`` name, looked up in the op families that
    define them (the public namespaces sit above ``ops/`` and are not imported here)."""

    def __init__(self, *families: Any) -> None:
        self._families = families

    def __getattr__(self, name: str) -> Any:
        for family in self._families:
            fn = getattr(family, name, None)
            if fn is not None:
                return fn
        raise AttributeError(f"no op family defines {name!r}")


_TF = _Constructors(array_ops, math_ops, control_flow_ops, parsing_ops, categorical_ops,
                    hash_ops, renamed_ops, sparse_ops, scatter_ops)
_TF.nn = _Constructors(nn_ops, nn_conv_variant_ops, nn_norm_ops)


def _tf() -> Any:
    return _TF


def _unary(fn_name: str, module: str = "") -> Importer:
    def build(n: _Node) -> Any:
        tf = _tf()
        fn = getattr(tf.nn if module == "nn" else tf, fn_name)
        return fn(n.inputs[0], name=n.name)
    return build


def _binary(fn_name: str) -> Importer:
    return lambda n: getattr(_tf(), fn_name)(n.inputs[0], n.inputs[1], name=n.name)


def _no_padding_list(n: _Node) -> None:
    if n.attrs.get("explicit_paddings"):
        raise errors.InvalidArgumentError(None, None, f"Node {n.name} ({n.op}): explicit "
                                          f"paddings are not supported")


def _placeholder(n: _Node) -> Any:
    return _tf().placeholder(n.attrs["dtype"], n.attrs.get("shape"), name=n.name)


def _const(n: _Node) -> Any:
    value = n.attrs["value"]
    return _tf().constant(value, dtype=n.attrs.get("dtype"), name=n.name)


def _conv2d(n: _Node) -> Any:
    _no_padding_list(n)
    a = n.attrs
    return _tf().nn.conv2d(n.inputs[0], n.inputs[1], strides=a["strides"], padding=a["padding"],
                           data_format=a.get("data_format", "NHWC"),
                           dilations=a.get("dilations"), name=n.name)


def _depthwise(n: _Node) -> Any:
    _no_padding_list(n)
    a = n.attrs
    return _tf().nn.depthwise_conv2d_native(
        n.inputs[0], n.inputs[1], strides=a["strides"], padding=a["padding"],
        data_format=a.get("data_format", "NHWC"), dilations=a.get("dilations"), name=n.name)


def _pool(fn_name: str) -> Importer:
    def build(n: _Node) -> Any:
        a = n.attrs
        return getattr(_tf().nn, fn_name)(n.inputs[0], ksize=a["ksize"], strides=a["strides"],
                                          padding=a["padding"],
                                          data_format=a.get("data_format", "NHWC"),
                                          name=n.name)
    return build


def _matmul(n: _Node) -> Any:
    a = n.attrs
    return _tf().matmul(n.inputs[0], n.inputs[1], transpose_a=a.get("transpose_a", False),
                        transpose_b=a.get("transpose_b", False), name=n.name)


def _batch_matmul(n: _Node) -> Any:
    a = n.attrs
    return _tf().batch_matmul(n.inputs[0], n.inputs[1], adj_x=a.get("adj_x", False),
                              adj_y=a.get("adj_y", False), name=n.name)


def _bias_add(n: _Node) -> Any:
    return _tf().nn.bias_add(n.inputs[0], n.inputs[1],
                             data_format=n.attrs.get("data_format", "NHWC"), name=n.name)


def _concat(n: _Node) -> Any:
    count = n.attrs["N"]
    if len(n.inputs) != count + 1:
        raise errors.InvalidArgumentError(None, None, f"Node {n.name} (ConcatV2): N={count} "
                                          f"but {len(n.inputs)} inputs")
    return _tf().concat(n.inputs[:count], int(n.const(count)), name=n.name)


def _reduce(fn_name: str) -> Importer:
    def build(n: _Node) -> Any:
        # Gradient graphs reduce over axes computed in the graph (BroadcastGradientArgs).
        axis = n.const_or_none(1)
        axis = n.inputs[1] if axis is None else [int(x) for x in np.ravel(axis)]
        return getattr(_tf(), fn_name)(n.inputs[0], axis=axis,
                                       keepdims=bool(n.attrs.get("keep_dims", False)),
                                       name=n.name)
    return build


def _gather(n: _Node) -> Any:
    if n.attrs.get("batch_dims", 0):
        raise errors.InvalidArgumentError(None, None, f"Node {n.name} (GatherV2): batch_dims "
                                          f"is not supported")
    axis = int(n.const(2)) if n.op == "GatherV2" else 0
    return _tf().gather(n.inputs[0], n.inputs[1], axis=axis, name=n.name)


def _dynamic_stitch(n: _Node) -> Any:
    count = n.attrs["N"]
    return _tf().dynamic_stitch(n.inputs[:count], n.inputs[count:], name=n.name)


def _dynamic_partition(n: _Node) -> Any:
    return _tf().dynamic_partition(n.inputs[0], n.inputs[1], n.attrs["num_partitions"],
                                   name=n.name)


def _strided_slice(n: _Node) -> Any:
    a = n.attrs
    return _tf().strided_slice(n.inputs[0], n.inputs[1], n.inputs[2], n.inputs[3],
                               begin_mask=a.get("begin_mask", 0), end_mask=a.get("end_mask", 0),
                               ellipsis_mask=a.get("ellipsis_mask", 0),
                               new_axis_mask=a.get("new_axis_mask", 0),
                               shrink_axis_mask=a.get("shrink_axis_mask", 0), name=n.name)


def _fused_batch_norm(n: _Node) -> Any:
    a = n.attrs
    if a.get("is_training", True):
        raise errors.InvalidArgumentError(None, None, f"Node {n.name} ({n.op}): only inference "
                                          f"(is_training=false) batch norm is imported")
    y = _tf().nn.fused_batch_norm(n.inputs[0], n.inputs[1], n.inputs[2], n.inputs[3],
                                  n.inputs[4], epsilon=a.get("epsilon", 1e-4),
                                  data_format=a.get("data_format", "NHWC"), is_training=False,
                                  name=n.name)
    return [y[0]]


def _squeeze(n: _Node) -> Any:
    dims = n.attrs.get("squeeze_dims") or None
    return _tf().squeeze(n.inputs[0], axis=dims, name=n.name)


_register(["Placeholder"], _placeholder)
_register(["PlaceholderWithDefault"], lambda n: _tf().placeholder_with_default(
    n.inputs[0], n.attrs.get("shape"), name=n.name))
_register(["Const"], _const)
_register(["Identity", "Snapshot", "StopGradient", "PreventGradient"],
          lambda n: _tf().identity(n.inputs[0], name=n.name))
_register(["NoOp"], lambda n: _tf().no_op(name=n.name))
for _op, _fn in [("Add", "add"), ("AddV2", "add"), ("Sub", "subtract"), ("Mul", "multiply"),
                 ("RealDiv", "realdiv"), ("Div", "div"), ("FloorDiv", "floordiv"),
                 ("FloorMod", "floormod"), ("Maximum", "maximum"), ("Minimum", "minimum"),
                 ("Pow", "pow"), ("SquaredDifference", "squared_difference"),
                 ("Equal", "equal"), ("Greater", "greater"), ("Less", "less"),
                 ("GreaterEqual", "greater_equal"), ("LessEqual", "less_equal"),
                 ("LogicalAnd", "logical_and"), ("LogicalOr", "logical_or"),
                 ("Reshape", "reshape"), ("ExpandDims", "expand_dims"),
                 ("Transpose", "transpose"), ("Tile", "tile"), ("Fill", "fill"),
                 ("Pad", "pad")]:
    _register([_op], _binary(_fn))
for _op, _fn in [("Neg", "negative"), ("Abs", "abs"), ("Square", "square"), ("Sqrt", "sqrt"),
                 ("Rsqrt", "rsqrt"), ("Exp", "exp"), ("Log", "log"), ("Tanh", "tanh"),
                 ("Sigmoid", "sigmoid"), ("LogicalNot", "logical_not"), ("Sign", "sign"),
                 ("Rank", "rank"), ("ZerosLike", "zeros_like"), ("OnesLike", "ones_like")]:
    _register([_op], _unary(_fn))
for _op, _fn in [("Relu", "relu"), ("Relu6", "relu6"), ("Elu", "elu"), ("Selu", "selu"),
                 ("Softplus", "softplus"), ("Softmax", "softmax"),
                 ("LogSoftmax", "log_softmax")]:
    _register([_op], _unary(_fn, "nn"))
_register(["LeakyRelu"], lambda n: _tf().nn.leaky_relu(n.inputs[0], n.attrs.get("alpha", 0.2),
                                                       name=n.name))
_register(["Conv2D"], _conv2d)
_register(["DepthwiseConv2dNative"], _depthwise)
_register(["MaxPool"], _pool("max_pool"))
_register(["AvgPool"], _pool("avg_pool"))
_register(["MatMul"], _matmul)
_register(["BatchMatMul", "BatchMatMulV2"], _batch_matmul)
_register(["BiasAdd"], _bias_add)
_register(["ConcatV2"], _concat)
_register(["Mean"], _reduce("reduce_mean"))
_register(["Sum"], _reduce("reduce_sum"))
_register(["Max"], _reduce("reduce_max"))
_register(["Min"], _reduce("reduce_min"))
_register(["Prod"], _reduce("reduce_prod"))
_register(["GatherV2", "Gather"], _gather)
_register(["DynamicStitch", "ParallelDynamicStitch"], _dynamic_stitch)
_register(["DynamicPartition"], _dynamic_partition)
_register(["Shape"], lambda n: _tf().shape(n.inputs[0], out_type=n.attrs.get("out_type",
                                                                             _dtypes.int32),
                                           name=n.name))
_register(["Size"], lambda n: _tf().size(n.inputs[0], out_type=n.attrs.get("out_type",
                                                                           _dtypes.int32),
                                         name=n.name))
_register(["Range"], lambda n: _tf().range(n.inputs[0], n.inputs[1], n.inputs[2],
                                           name=n.name))
_register(["Cast"], lambda n: _tf().cast(n.inputs[0], n.attrs["DstT"], name=n.name))
_register(["Pack"], lambda n: _tf().stack(n.inputs, axis=n.attrs.get("axis", 0), name=n.name))
_register(["Unpack"], lambda n: _tf().unstack(n.inputs[0], num=n.attrs["num"],
                                              axis=n.attrs.get("axis", 0), name=n.name))
_register(["Squeeze"], _squeeze)
_register(["StridedSlice"], _strided_slice)
_register(["Slice"], lambda n: _tf().slice(n.inputs[0], n.inputs[1], n.inputs[2], name=n.name))
_register(["ArgMax"], lambda n: _tf().argmax(n.inputs[0], int(n.const(1)),
                                             output_type=n.attrs.get("output_type",
                                                                     _dtypes.int64),
                                             name=n.name))
_register(["Select", "SelectV2"], lambda n: _tf().where(n.inputs[0], n.inputs[1], n.inputs[2],
                                                        name=n.name))
_register(["FusedBatchNorm", "FusedBatchNormV2", "FusedBatchNormV3"], _fused_batch_norm)
def _parse_example(n: _Node) -> Any:
    tf = _tf()
    a = n.attrs
    ns, nd = a["Nsparse"], a["Ndense"]
    if len(n.inputs) != 2 + ns + 2 * nd:
        raise errors.InvalidArgumentError(None, None, f"Node {n.name} (ParseExample): "
                                          f"{len(n.inputs)} inputs for {ns} sparse and {nd} "
                                          f"dense features")

    def key(i: int) -> str:
        v = n.const(i)
        return (v.item() if v.ndim == 0 else v.reshape(-1)[0]).decode("utf-8")

    sparse_keys = [key(2 + i) for i in range(ns)]
    dense_keys = [key(2 + ns + i) for i in range(nd)]
    features: Dict[str, Any] = {}
    for k, dt in zip(sparse_keys, a.get("sparse_types", [])):
        features[k] = tf.VarLenFeature(dt)
    for i, (k, dt, shape) in enumerate(zip(dense_keys, a.get("Tdense", []),
                                           a.get("dense_shapes", []))):
        default = n.const(2 + ns + nd + i)
        features[k] = tf.FixedLenFeature(shape, dt, default_value=None if default.size == 0
                                         else default)
    parsed = tf.parse_example(n.inputs[0], features, name=n.name)
    sparse = [parsed[k] for k in sparse_keys]
    return ([s.indices for s in sparse] + [s.values for s in sparse] +
            [s.dense_shape for s in sparse] + [parsed[k] for k in dense_keys])


_register(["AddN"], lambda n: _tf().add_n(n.inputs, name=n.name))
_register(["ParseExample"], _parse_example)
_register(["AsString"], lambda n: _tf().as_string(
    n.inputs[0], precision=n.attrs.get("precision", -1),
    scientific=n.attrs.get("scientific", False), shortest=n.attrs.get("shortest", False),
    width=n.attrs.get("width", -1), fill=n.attrs.get("fill", ""), name=n.name))
_register(["StringToHashBucketFast"], lambda n: _tf().string_to_hash_bucket_fast(
    n.inputs[0], n.attrs["num_buckets"], name=n.name))
# Sparse categorical features: what feature columns and embedding lookups become in
# TensorFlow's graphs (and in tensorfleet's, written for TensorFlow).


def _fill_empty_rows(n: _Node) -> Any:
    from tensorfleet.framework.sparse_tensor import SparseTensor
    filled, _ = _tf().sparse_fill_empty_rows(SparseTensor(*n.inputs[:3]), n.inputs[3],
                                             name=n.name)
    return list(filled.indices.op.outputs)


def _segment(fn_name: str) -> Importer:
    def build(n: _Node) -> Any:
        return getattr(_tf(), fn_name)(n.inputs[0], n.inputs[1], n.inputs[2], name=n.name,
                                       num_segments=n.inputs[3] if len(n.inputs) > 3 else None)
    return build


def _sparse_cross(n: _Node) -> Any:
    from tensorfleet.framework.sparse_tensor import SparseTensor
    count = n.attrs["N"]
    sparse = [SparseTensor(n.inputs[i], n.inputs[count + i], n.inputs[2 * count + i])
              for i in range(count)]
    inputs = sparse + list(n.inputs[3 * count:])
    if n.attrs["hashed_output"]:
        out = _tf().sparse_cross_hashed(inputs, num_buckets=n.attrs["num_buckets"],
                                        hash_key=n.attrs["hash_key"], name=n.name)
    else:
        out = _tf().sparse_cross(inputs, name=n.name)
    return [out.indices, out.values, out.dense_shape]


_register(["Where"], lambda n: _tf().where(n.inputs[0], name=n.name))
_register(["GatherNd"], lambda n: _tf().gather_nd(n.inputs[0], n.inputs[1], name=n.name))
_register(["Unique"], lambda n: list(_tf().unique(
    n.inputs[0], out_idx=n.attrs.get("out_idx", _dtypes.int32), name=n.name)))
_register(["SparseFillEmptyRows"], _fill_empty_rows)
for _op, _fn in [("SparseSegmentSum", "sparse_segment_sum"),
                 ("SparseSegmentMean", "sparse_segment_mean"),
                 ("SparseSegmentSqrtN", "sparse_segment_sqrt_n")]:
    _register([_op, _op + "WithNumSegments"], _segment(_fn))
_register(["SparseCross"], _sparse_cross)
_register(["NotEqual"], _binary("not_equal"))
_register(["Log1p"], _unary("log1p"))
_register(["Assert"], lambda n: _tf().Assert(n.inputs[0], n.inputs[1:],
                                             summarize=n.attrs.get("summarize", 3),
                                             name=n.name))


IMPORTERS.update(TRAINING_IMPORTERS)


def parse_tensorflow_graph_def(data: Any, path: str = "graph def") -> Any:
    """A TensorFlow ``GraphDef`` message from binary or text-format bytes.

    Raises:
      InvalidArgumentError: neither parses, naming ``path``.
    """
    msg = graph_pb2.GraphDef()
    raw = bytes(data) if not isinstance(data, str) else data.encode("utf-8")
    # protobuf's parser stops at 100 levels of nesting, so a hostile file cannot
    # exhaust the stack; that is a DecodeError like any other damage.
    binary_error = "no nodes"
    try:
        msg.ParseFromString(raw)
        if len(msg.node) or not raw:
            return msg
    except DecodeError as e:
        binary_error = str(e)
    msg = graph_pb2.GraphDef()
    try:
        # Fields this version does not know (node type annotations such as
        # experimental_type) are skipped, as the binary parser skips them.
        text_format.Parse(raw.decode("utf-8"), msg, allow_unknown_field=True)
    except (text_format.ParseError, UnicodeDecodeError) as e:
        raise errors.InvalidArgumentError(
            None, None, f"{path} is not a GraphDef (neither binary: {binary_error}; nor "
            f"text format: {e})") from None
    return msg


def _split_input(s: str) -> Tuple[str, int, bool]:
    if s.startswith("^"):
        return s[1:], -1, True
    name, sep, idx = s.rpartition(":")
    if sep and idx.isdigit():
        return name, int(idx), False
    return s, 0, False


def _order(nodes: Sequence[Any]) -> List[Any]:
    """The nodes with each after every node it reads (graph files need not be sorted)."""
    by_name = {}
    for n in nodes:
        if n.name in by_name:
            raise errors.InvalidArgumentError(None, None, f"Graph def has two nodes named "
                                              f"{n.name}")
        by_name[n.name] = n
    state: Dict[str, int] = {}
    out: List[Any] = []
    for root in nodes:
        if root.name in state:
            continue
        stack: List[Tuple[Any, int]] = [(root, 0)]
        state[root.name] = 1
        while stack:
            node, i = stack.pop()
            if i < len(node.input):
                stack.append((node, i + 1))
                dep = _split_input(node.input[i])[0]
                if dep not in by_name:
                    raise errors.InvalidArgumentError(
                        None, None, f"Node {node.name} reads {node.input[i]!r}, which is not "
                        f"in the graph def")
                if state.get(dep) == 1:
                    raise errors.InvalidArgumentError(
                        None, None, f"Graph def has a cycle through node {dep}")
                if dep not in state:
                    state[dep] = 1
                    stack.append((by_name[dep], 0))
                continue
            state[node.name] = 2
            out.append(node)
    return out


def check_importable(graph_def: Any) -> None:
    """Raises if the graph def cannot be imported, naming every reason at once.

    Raises:
      InvalidArgumentError: it defines functions, uses TensorFlow 1.x control flow,
        or holds op types tensorfleet lacks (all listed).
    """
    ops = {n.op for n in graph_def.node}
    problems = []
    if len(graph_def.library.function) or len(graph_def.library.gradient):
        problems.append(f"it defines {len(graph_def.library.function)} function(s), which "
                        f"are not imported")
    flow = sorted(ops & V1_CONTROL_FLOW)
    if flow:
        problems.append(f"it uses TensorFlow 1.x control flow ({', '.join(flow)}), which "
                        f"tensorfleet does not run; export the graph with control flow v2 "
                        f"(functional While/If) instead")
    missing = sorted(ops - set(IMPORTERS) - V1_CONTROL_FLOW)
    if missing:
        problems.append(f"{len(missing)} op type(s) have no tensorfleet equivalent: "
                        f"{', '.join(missing)}")
    if problems:
        raise errors.InvalidArgumentError(None, None, "Cannot import the graph def: "
                                          + "; ".join(problems))


def import_tensorflow_graph_def(graph_def: Any, input_map: Optional[Dict[str, Tensor]] = None,
                                return_elements: Optional[List[str]] = None,
                                name: Optional[str] = None,
                                graph: Optional[Graph] = None) -> Optional[List[Any]]:
    """Builds the nodes of a TensorFlow ``GraphDef`` message into a tensorfleet graph.

    As ``tf.import_graph_def``: under name scope ``name`` (``"import"`` when None, none
    when ``""``); ``input_map`` replaces tensors of the graph def (``"x:0"`` or ``"x"``)
    by tensors of the graph; ``return_elements`` names the tensors (``"y:0"``) and
    operations (``"y"``) to return.

    Raises:
      InvalidArgumentError: see ``check_importable``; also a malformed node.
      ValueError: an ``input_map`` key or return element naming no node.
    """
    check_importable(graph_def)
    g = graph if graph is not None else get_default_graph()
    nodes = _order(list(graph_def.node))
    known = {n.name for n in nodes}
    mapped: Dict[Tuple[str, int], Tensor] = {}
    for k, v in (input_map or {}).items():
        base, idx, _ = _split_input(k)
        if base not in known:
            raise ValueError(f"input_map key {k!r} names no node of the graph def")
        mapped[(base, idx)] = v
    outputs: Dict[str, List[Any]] = {}
    ops: Dict[str, Any] = {}
    consts: Dict[str, np.ndarray] = {}
    with g.as_default():
        scope_name = ("import" if name is None else name)
        scope = g.name_scope(scope_name) if scope_name else g.name_scope(None)
        with scope:
            for node in nodes:
                inputs: List[Tensor] = []
                const_ins: List[Optional[np.ndarray]] = []
                control: List[Any] = []
                for s in node.input:
                    base, idx, ctrl = _split_input(s)
                    if ctrl:
                        control.append(ops[base])
                        continue
                    if (base, idx) in mapped:
                        inputs.append(mapped[(base, idx)])
                        const_ins.append(None)
                        continue
                    outs = outputs[base]
                    if idx >= len(outs):
                        raise errors.InvalidArgumentError(
                            None, None, f"Node {node.name} reads output {idx} of {base}, "
                            f"which has {len(outs)}")
                    inputs.append(outs[idx])
                    const_ins.append(consts.get(base) if idx == 0 else None)
                with g.control_dependencies(control):
                    made = IMPORTERS[node.op](_Node(node, inputs, const_ins))
                if node.op == "Const":
                    consts[node.name] = _Attrs(node)["value"]
                if isinstance(made, (list, tuple)):
                    outs = list(made)
                elif isinstance(made, Tensor):
                    outs = [made]
                else:
                    outs = []
                outputs[node.name] = outs
                ops[node.name] = outs[0].op if outs else made
    logger.info("Imported a TensorFlow graph def of %d nodes", len(nodes))
    if return_elements is None:
        return None
    result = []
    for r in return_elements:
        base, idx, _ = _split_input(r)
        if base not in outputs:
            raise ValueError(f"Requested return element {r!r} is not in the graph def")
        if ":" in r:
            if idx >= len(outputs[base]):
                raise ValueError(f"Requested return element {r!r}: {base} has "
                                 f"{len(outputs[base])} outputs")
            result.append(outputs[base][idx])
        else:
            result.append(ops[base])
    return result


__all__ = ["IMPORTERS", "V1_CONTROL_FLOW", "parse_tensorflow_graph_def", "check_importable",
           "import_tensorflow_graph_def"]
