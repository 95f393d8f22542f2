"""The model analyzer behind ``tf.profiler``: parameter counts and float operations from
the graph, op times from traced steps, reported by name scope or by op type."""
