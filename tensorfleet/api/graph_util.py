"""``tf.graph_util``: rewriting graph defs (freezing variables, pruning)."""

from tensorfleet.framework.graph_util import (convert_variables_to_constants,
    extract_sub_graph, remove_training_nodes, write_graph)
from tensorfleet.framework.graph_def import import_graph_def

__all__ = ["convert_variables_to_constants", "extract_sub_graph", "import_graph_def",
           "remove_training_nodes", "write_graph"]
