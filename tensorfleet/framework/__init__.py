"""Graph, operations, tensors, shapes, devices, the op registry, serialization."""

from tensorfleet.framework.device import DeviceSpec  # noqa: F401
from tensorfleet.framework.graph import (  # noqa: F401
    Graph, GraphKeys, Operation, Tensor, add_to_collection, add_to_collections, colocate_with,
    control_dependencies, convert_to_tensor, device, get_collection, get_collection_ref,
    get_default_graph, name_scope, register_tensor_conversion_function, reset_default_graph,
    set_random_seed)
# Loaded with the package so that Graph.as_graph_def always finds its writer.
from tensorfleet.framework import graph_def as _graph_def  # noqa: F401
from tensorfleet.framework.indexed_slices import IndexedSlices, IndexedSlicesValue  # noqa: F401
from tensorfleet.framework.serialization import import_graph_def  # noqa: F401
from tensorfleet.framework.tensor_shape import Dimension, TensorShape  # noqa: F401
