"""``tf.version``: tensorfleet's version and the graph format versions it writes and reads."""

from tensorfleet.platform.build_info import (COMPILER_VERSION, GIT_VERSION, GRAPH_DEF_VERSION,
    GRAPH_DEF_VERSION_MIN_CONSUMER, GRAPH_DEF_VERSION_MIN_PRODUCER, VERSION)

__all__ = ["COMPILER_VERSION", "GIT_VERSION", "GRAPH_DEF_VERSION",
           "GRAPH_DEF_VERSION_MIN_CONSUMER", "GRAPH_DEF_VERSION_MIN_PRODUCER", "VERSION"]
