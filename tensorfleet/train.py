"""``tf.train``: optimizers, sessions, savers, hooks, cluster and server."""

from tensorfleet.training.learning_rate_decay import (  # noqa: F401,E402
    exponential_decay, inverse_time_decay, piecewise_constant, polynomial_decay)
from tensorfleet.training.basic_loops import (  # noqa: F401,E402  (TF 1.x loop helpers)
    basic_train_loop, checkpoints_iterator, piecewise_constant_decay)
from tensorfleet.training.learning_rate_decay_more import (  # noqa: F401,E402
    cosine_decay, cosine_decay_restarts, linear_cosine_decay, natural_exp_decay)
from tensorfleet.training.optimizer import Optimizer  # noqa: F401,E402
from tensorfleet.training.optimizers import (  # noqa: F401,E402
    AdagradOptimizer, AdamOptimizer, GradientDescentOptimizer, MomentumOptimizer,
    RMSPropOptimizer)
from tensorfleet.training.sparse_optimizers import (  # noqa: F401,E402
    AdadeltaOptimizer, AdagradDAOptimizer, FtrlOptimizer, ProximalAdagradOptimizer,
    ProximalGradientDescentOptimizer)
from tensorfleet.training.training_util import (  # noqa: F401,E402
    assert_global_step, create_global_step, get_global_step, get_or_create_global_step,
    global_step)
from tensorfleet.distributed.cluster import ClusterSpec  # noqa: F401,E402
from tensorfleet.distributed.server import Server  # noqa: F401,E402
from tensorfleet.training.coordinator import Coordinator, LooperThread  # noqa: F401,E402
from tensorfleet.training.queue_runner import (  # noqa: F401,E402
    QueueRunner, add_queue_runner, start_queue_runners)
from tensorfleet.training.input import (  # noqa: F401,E402
    batch, input_producer, limit_epochs, range_input_producer, shuffle_batch,
    slice_input_producer, string_input_producer)
from tensorfleet.training.input import batch_join, shuffle_batch_join  # noqa: F401,E402
from tensorfleet.ops.io_readers import match_filenames_once  # noqa: F401,E402
from tensorfleet.training.job_done import (  # noqa: F401,E402
    join_until_workers_done, signal_workers_done)
from tensorfleet.distributed.resolver import TFConfigClusterResolver  # noqa: F401,E402
from tensorfleet.training.device_setter import replica_device_setter  # noqa: F401,E402
from tensorfleet.training.sync_replicas_optimizer import SyncReplicasOptimizer  # noqa: F401,E402
from tensorfleet.training.saver import Saver, SaverDef  # noqa: F401,E402
from tensorfleet.training.checkpoint_management import (  # noqa: F401,E402
    CheckpointState, NewCheckpointReader, checkpoint_exists, generate_checkpoint_state_proto,
    get_checkpoint_mtimes, get_checkpoint_state, latest_checkpoint, list_variables,
    load_checkpoint, load_variable, remove_checkpoint, update_checkpoint_state)
from tensorfleet.training.summary_io import summary_iterator  # noqa: F401,E402
from tensorfleet.estimator.warm_starting import VocabInfo, warm_start  # noqa: F401,E402
from tensorfleet.estimator.init_from_checkpoint import init_from_checkpoint  # noqa: F401,E402
from tensorfleet.training.session_run_hook import (  # noqa: F401,E402
    SessionRunArgs, SessionRunContext, SessionRunHook, SessionRunValues)
from tensorfleet.training.basic_hooks import (  # noqa: F401,E402
    CheckpointSaverHook, CheckpointSaverListener, FeedFnHook, FinalOpsHook,
    GlobalStepWaiterHook, LoggingTensorHook, NanLossDuringTrainingError, NanTensorHook,
    SecondOrStepTimer, StepCounterHook, StopAtStepHook, SummarySaverHook)
from tensorfleet.training.session_manager import SessionManager  # noqa: F401,E402
from tensorfleet.training.monitored_session import (  # noqa: F401,E402
    ChiefSessionCreator, MonitoredSession, MonitoredTrainingSession, Scaffold, SessionCreator,
    SingularMonitoredSession, WorkerSessionCreator)
from tensorfleet.training.supervisor import Supervisor  # noqa: F401,E402
from tensorfleet.training.meta_graph import (  # noqa: F401,E402
    export_meta_graph, import_meta_graph)
from tensorfleet.graph_util import write_graph  # noqa: F401,E402
from tensorfleet.training.summary_io import FileWriter as SummaryWriter  # noqa: F401,E402
from tensorfleet.training.moving_averages import (  # noqa: F401,E402
    ExponentialMovingAverage, MovingAverageOptimizer)
from tensorfleet.protos.example_pb2 import (  # noqa: F401,E402
    BytesList, Example, Feature, FeatureList, FeatureLists, Features, FloatList, Int64List,
    SequenceExample)
from tensorfleet.training.learning_rate_decay_more import (  # noqa: F401,E402
    noisy_linear_cosine_decay)
from tensorfleet.training.input_conditional import (  # noqa: F401,E402
    maybe_batch, maybe_batch_join, maybe_shuffle_batch, maybe_shuffle_batch_join)
from tensorfleet.training.profiler_hook import ProfilerHook  # noqa: F401,E402
from tensorfleet.training.checkpoint_object import Checkpoint  # noqa: F401,E402
