"""``tf.graph_util``: rewriting graph defs (freezing variables, pruning)."""

from tensorfleet.framework.graph_util import (convert_variables_to_constants,
    extract_sub_graph, must_run_on_cpu, remove_training_nodes, tensor_shape_from_node_def_name,
    write_graph)
from tensorfleet.framework.graph_def import import_graph_def

__all__ = ["convert_variables_to_constants", "extract_sub_graph", "import_graph_def",
           "remove_training_nodes", "write_graph",
           "must_run_on_cpu", "tensor_shape_from_node_def_name"]
