"""``tf.train``: optimizers, sessions, savers, hooks, cluster and server."""

from tensorfleet.distributed.cluster import ClusterSpec
from tensorfleet.distributed.cluster_def import ClusterDef, JobDef, ServerDef
from tensorfleet.distributed.resolver import TFConfigClusterResolver
from tensorfleet.distributed.server import Server
from tensorfleet.estimator.init_from_checkpoint import init_from_checkpoint
from tensorfleet.estimator.warm_starting import (VocabInfo, warm_start)
from tensorfleet.framework.graph_util import write_graph
from tensorfleet.ops.io_readers import match_filenames_once
from tensorfleet.ops.sdca_ops import sdca_fprint, sdca_shrink_l1
from tensorfleet.protos.example_pb2 import (BytesList, Example, Feature, FeatureList,
    FeatureLists, Features, FloatList, Int64List, SequenceExample)
from tensorfleet.training.basic_hooks import (FeedFnHook, FinalOpsHook, GlobalStepWaiterHook,
    LoggingTensorHook, NanLossDuringTrainingError, NanTensorHook, SecondOrStepTimer,
    StopAtStepHook)
from tensorfleet.training.basic_loops import (basic_train_loop, checkpoints_iterator)
from tensorfleet.training.checkpoint_management import (CheckpointState, NewCheckpointReader,
    checkpoint_exists, generate_checkpoint_state_proto, get_checkpoint_mtimes,
    get_checkpoint_state, latest_checkpoint, list_variables, load_checkpoint, load_variable,
    remove_checkpoint, update_checkpoint_state)
from tensorfleet.training.checkpoint_object import Checkpoint
from tensorfleet.training.checkpoint_manager import CheckpointManager
from tensorfleet.training.checkpoint_options import CheckpointOptions
from tensorfleet.training.coordinator import (Coordinator, LooperThread)
from tensorfleet.training.device_setter import replica_device_setter
from tensorfleet.training.input import (batch, batch_join, input_producer, limit_epochs,
    range_input_producer, shuffle_batch, shuffle_batch_join, slice_input_producer,
    string_input_producer)
from tensorfleet.training.input_conditional import (maybe_batch, maybe_batch_join,
    maybe_shuffle_batch, maybe_shuffle_batch_join)
from tensorfleet.training.job_done import (join_until_workers_done, signal_workers_done)
from tensorfleet.training.learning_rate_decay import (cosine_decay, cosine_decay_restarts,
    exponential_decay, inverse_time_decay, linear_cosine_decay, natural_exp_decay,
    noisy_linear_cosine_decay, piecewise_constant,
    piecewise_constant as piecewise_constant_decay, polynomial_decay)
from tensorfleet.training.meta_graph import import_meta_graph
from tensorfleet.training.meta_graph_def import export_meta_graph
from tensorfleet.training.monitored_session import (MonitoredSession, MonitoredTrainingSession,
    SingularMonitoredSession)
from tensorfleet.training.moving_averages import (ExponentialMovingAverage,
    MovingAverageOptimizer)
from tensorfleet.training.optimizer import Optimizer
from tensorfleet.training.optimizers import (AdagradOptimizer, AdamOptimizer,
    GradientDescentOptimizer, MomentumOptimizer, RMSPropOptimizer)
from tensorfleet.training.profiler_hook import ProfilerHook
from tensorfleet.training.queue_runner import (QueueRunner, add_queue_runner,
    start_queue_runners)
from tensorfleet.training.saver import (Saver, SaverDef)
from tensorfleet.training.saver_hooks import (CheckpointSaverHook, CheckpointSaverListener,
    StepCounterHook, SummarySaverHook)
from tensorfleet.training.scaffold import (ChiefSessionCreator, Scaffold, SessionCreator,
    WorkerSessionCreator)
from tensorfleet.training.session_manager import SessionManager
from tensorfleet.training.session_run_hook import (SessionRunArgs, SessionRunContext,
    SessionRunHook, SessionRunValues)
from tensorfleet.training.sparse_optimizers import (AdadeltaOptimizer, AdagradDAOptimizer,
    FtrlOptimizer, ProximalAdagradOptimizer, ProximalGradientDescentOptimizer)
from tensorfleet.training.summary_io import (FileWriter as SummaryWriter, summary_iterator)
from tensorfleet.training.supervisor import Supervisor
from tensorfleet.training.sync_replicas_optimizer import SyncReplicasOptimizer
from tensorfleet.training.training_util import (assert_global_step, create_global_step,
    get_global_step, get_or_create_global_step, global_step)

from tensorfleet.api import train_queue_runner as queue_runner
from tensorfleet.api import train_experimental as experimental

__all__ = ["AdadeltaOptimizer", "AdagradDAOptimizer", "AdagradOptimizer", "AdamOptimizer",
           "add_queue_runner", "assert_global_step", "basic_train_loop", "batch", "batch_join",
           "BytesList", "Checkpoint", "checkpoint_exists", "checkpoints_iterator",
           "CheckpointSaverHook", "CheckpointSaverListener", "CheckpointState",
           "ChiefSessionCreator", "ClusterSpec", "Coordinator", "cosine_decay",
           "cosine_decay_restarts", "create_global_step", "Example", "exponential_decay",
           "ExponentialMovingAverage", "export_meta_graph", "Feature", "FeatureList",
           "FeatureLists", "Features", "FeedFnHook", "FinalOpsHook", "FloatList",
           "FtrlOptimizer", "generate_checkpoint_state_proto", "get_checkpoint_mtimes",
           "get_checkpoint_state", "get_global_step", "get_or_create_global_step",
           "global_step", "GlobalStepWaiterHook", "GradientDescentOptimizer",
           "import_meta_graph", "init_from_checkpoint", "input_producer", "Int64List",
           "inverse_time_decay", "join_until_workers_done", "latest_checkpoint",
           "limit_epochs", "linear_cosine_decay", "list_variables", "load_checkpoint",
           "load_variable", "LoggingTensorHook", "LooperThread", "match_filenames_once",
           "maybe_batch", "maybe_batch_join", "maybe_shuffle_batch",
           "maybe_shuffle_batch_join", "MomentumOptimizer", "MonitoredSession",
           "MonitoredTrainingSession", "MovingAverageOptimizer", "NanLossDuringTrainingError",
           "NanTensorHook", "natural_exp_decay", "NewCheckpointReader",
           "noisy_linear_cosine_decay", "Optimizer", "piecewise_constant",
           "piecewise_constant_decay", "polynomial_decay", "ProfilerHook",
           "ProximalAdagradOptimizer", "ProximalGradientDescentOptimizer", "queue_runner",
           "QueueRunner", "range_input_producer", "remove_checkpoint", "replica_device_setter",
           "RMSPropOptimizer", "Saver", "SaverDef", "Scaffold", "SecondOrStepTimer",
           "SequenceExample", "Server", "SessionCreator", "SessionManager", "SessionRunArgs",
           "SessionRunContext", "SessionRunHook", "SessionRunValues", "shuffle_batch",
           "shuffle_batch_join", "signal_workers_done", "SingularMonitoredSession",
           "slice_input_producer", "start_queue_runners", "StepCounterHook", "StopAtStepHook",
           "string_input_producer", "summary_iterator", "SummarySaverHook", "SummaryWriter",
           "Supervisor", "SyncReplicasOptimizer", "TFConfigClusterResolver",
           "update_checkpoint_state", "VocabInfo", "warm_start", "WorkerSessionCreator",
           "write_graph",
           "experimental",
           "CheckpointManager", "CheckpointOptions", "ClusterDef", "JobDef", "ServerDef", "sdca_fprint",
           "sdca_shrink_l1"]
