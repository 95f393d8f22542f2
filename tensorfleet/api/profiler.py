"""``tf.profiler``: the model analyzer (parameters, float operations and op times by name
scope or op type) and its protocol buffers."""

from tensorfleet.model_analyzer.model_analyzer import Profiler, advise, profile, write_op_log
from tensorfleet.model_analyzer.option_builder import ProfileOptionBuilder
from tensorfleet.protos.tfprof_log_pb2 import OpLogProto
from tensorfleet.protos.tfprof_output_pb2 import (AdviceProto, GraphNodeProto,
    MultiGraphNodeProto)

__all__ = ["AdviceProto", "GraphNodeProto", "MultiGraphNodeProto", "OpLogProto",
           "ProfileOptionBuilder", "Profiler", "advise", "profile", "write_op_log"]
