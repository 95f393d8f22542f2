"""tensorfleet: distributed TensorFlow-style training in Python.

``import tensorfleet as tf`` gives the TensorFlow 1.x names that distributed
training programs use.
"""

import sys as _sys

from tensorfleet import dtypes, errors  # noqa: F401
from tensorfleet.dtypes import *  # noqa: F401,F403
from tensorfleet.dtypes import DType, as_dtype  # noqa: F401
from tensorfleet.framework import (  # noqa: F401
    DeviceSpec, Dimension, Graph, GraphKeys, IndexedSlices, IndexedSlicesValue, Operation,
    Tensor, TensorShape, add_to_collection, add_to_collections, colocate_with,
    control_dependencies, convert_to_tensor, device, get_collection, get_collection_ref,
    get_default_graph, import_graph_def, name_scope, register_tensor_conversion_function,
    reset_default_graph, set_random_seed)
from tensorfleet import kernels as _kernels  # noqa: F401
from tensorfleet.kernels.backends import (  # noqa: F401  (which CPU kernels run)
    cpu_kernel_backend, set_cpu_kernel_backend)
from tensorfleet.ops.array_ops import *  # noqa: F401,F403
from tensorfleet.ops.math_ops import *  # noqa: F401,F403
from tensorfleet.ops.math_ops_special import *  # noqa: F401,F403
from tensorfleet.ops.math_ops_stats import *  # noqa: F401,F403
from tensorfleet.ops.array_transform_ops import *  # noqa: F401,F403  (tf.roll, tf.meshgrid ...)
from tensorfleet.ops.custom_gradient import *  # noqa: F401,F403  (tf.custom_gradient ...)
from tensorfleet.ops.sparse_ops_census import *  # noqa: F401,F403  (tf.sparse_reshape ...)
from tensorfleet.ops.misc_ops_census import *  # noqa: F401,F403  (tf.batch_gather ...)
from tensorfleet.ops.random_ops import *  # noqa: F401,F403
from tensorfleet.ops.state_ops import *  # noqa: F401,F403
from tensorfleet.ops.variables import *  # noqa: F401,F403
from tensorfleet.ops.variable_scope import *  # noqa: F401,F403
from tensorfleet.ops.partitioned_variables import *  # noqa: F401,F403
from tensorfleet.ops.init_ops import *  # noqa: F401,F403
from tensorfleet.ops.control_flow_ops import *  # noqa: F401,F403
from tensorfleet.ops.data_flow_ops import *  # noqa: F401,F403
from tensorfleet.ops.io_readers import (  # noqa: F401,E402
    FixedLengthRecordReader, ReaderBase, TextLineReader, TFRecordReader, WholeFileReader,
    matching_files)
from tensorfleet.ops.accumulator_ops import *  # noqa: F401,F403
from tensorfleet.ops.string_ops import *  # noqa: F401,F403
from tensorfleet.ops.parsing_ops import *  # noqa: F401,F403
from tensorfleet.ops.sparse_ops import *  # noqa: F401,F403
from tensorfleet.ops.functional_ops import *  # noqa: F401,F403
from tensorfleet.ops.tensor_array_ops import TensorArray  # noqa: F401
from tensorfleet.framework.sparse_tensor import SparseTensor, SparseTensorValue  # noqa: F401
from tensorfleet.ops.scatter_ops import *  # noqa: F401,F403,E402  (gather_nd, scatter_nd ...)
from tensorfleet.ops.linalg_ops import (  # noqa: F401,E402  (TF 1.x top-level linalg names)
    cholesky, cholesky_solve, diag, diag_part, einsum, eye, log_matrix_determinant,
    matrix_band_part, matrix_determinant, matrix_diag, matrix_diag_part, matrix_inverse,
    matrix_set_diag, matrix_solve, matrix_transpose, matrix_triangular_solve, norm, qr, svd,
    trace)
from tensorfleet.gradients import (  # noqa: F401
    AggregationMethod, NotDifferentiable, RegisterGradient, gradients)
from tensorfleet.runtime import InteractiveSession, Session, get_default_session  # noqa: F401
from tensorfleet.distributed.cluster import (  # noqa: F401
    ConfigProto, GPUOptions, RunMetadata, RunOptions)
from tensorfleet.distributed import remote as _remote  # noqa: F401  (registers grpc:// sessions)
from tensorfleet import nn, train, summary, app, contrib, distribute, flags  # noqa: F401,E402
from tensorfleet import layers, losses  # noqa: F401,E402  (tf.layers, tf.losses)
from tensorfleet import data, estimator  # noqa: F401,E402  (tf.data, tf.estimator)
from tensorfleet.estimator import metrics  # noqa: F401,E402  (tf.metrics)
from tensorfleet import gfile, tf_logging as logging  # noqa: F401,E402  (tf.gfile, tf.logging)
from tensorfleet import sparse  # noqa: F401,E402  (tf.sparse)
from tensorfleet import feature_column, saved_model  # noqa: F401,E402
from tensorfleet.ops.hash_ops import (  # noqa: F401,E402
    sparse_cross, sparse_cross_hashed, string_to_hash_bucket_fast, string_to_hash_bucket_strong)
from tensorfleet.ops.categorical_ops import as_string  # noqa: F401,E402
from tensorfleet import linalg, math, random  # noqa: F401,E402  (tf.linalg, tf.math, tf.random)
from tensorfleet import io_tfrecord as python_io  # noqa: F401,E402  (tf.python_io)
from tensorfleet.compat_names import *  # noqa: F401,F403,E402  (tf.pack, tf.mul, ...)
from tensorfleet.ops.rnn_ops import reverse_sequence, sequence_mask  # noqa: F401,E402
from tensorfleet.framework.graph_def import (  # noqa: F401,E402  (graphs as data)
    AttrValue, GraphDef, NodeDef, import_graph_def)
from tensorfleet.training.meta_graph import MetaGraphDef  # noqa: F401,E402
from tensorfleet import graph_util  # noqa: F401,E402  (tf.graph_util)
from tensorfleet.ops.lookup_ops import (  # noqa: F401,E402
    initialize_all_tables, tables_initializer)
from tensorfleet.ops.summary_ops_legacy import (  # noqa: F401,E402  (pre-1.0 summary names)
    audio_summary, histogram_summary, image_summary, merge_all_summaries, merge_summary,
    scalar_summary)
from tensorfleet.ops.script_ops import py_func  # noqa: F401,E402
from tensorfleet.framework.graph import container  # noqa: F401,E402
from tensorfleet import keras  # noqa: F401,E402  (tf.keras: layers, Model, fit ...)
from tensorfleet import image  # noqa: F401,E402  (tf.image)
from tensorfleet.ops.image_adjust_ops import random_crop  # noqa: F401,E402
from tensorfleet import dynamic_embedding  # noqa: F401,E402  (rows created on first use)
from tensorfleet import compat  # noqa: F401,E402  (tf.compat.as_bytes ...)
from tensorfleet.ops.sort_ops import argsort, reverse, reverse_v2, sort  # noqa: F401,E402
from tensorfleet.ops.numerics import (  # noqa: F401,E402
    add_check_numerics_ops, check_numerics, verify_tensor_all_finite)
from tensorfleet.ops.check_ops import *  # noqa: F401,F403,E402  (tf.assert_equal ...)
from tensorfleet import debugging  # noqa: F401,E402  (tf.debugging)
from tensorfleet.ops.segment_ops import *  # noqa: F401,F403,E402  (tf.segment_sum ...)
from tensorfleet.ops.linalg_ops import self_adjoint_eig, self_adjoint_eigvals  # noqa: F401,E402
from tensorfleet.ops.nn_pool_ops import clip_by_average_norm  # noqa: F401,E402
from tensorfleet import nest  # noqa: F401,E402  (tf.nest)
from tensorfleet import io_ns as io  # noqa: F401,E402  (tf.io, tf.io.gfile)
from tensorfleet.ops.print_ops import print  # noqa: F401,E402,A001  (tf.print, TF 1.13+)
from tensorfleet import strings  # noqa: F401,E402  (tf.strings)
from tensorfleet.ops.string_manip_ops import (  # noqa: F401,E402  (TF 1.x top-level names)
    decode_base64, encode_base64, reduce_join, regex_replace, string_join, string_strip,
    string_to_hash_bucket, substr, write_file)
from tensorfleet.compat.behavior import (  # noqa: F401,E402  (TF 1.15 switches)
    disable_eager_execution, disable_resource_variables, disable_v2_behavior,
    disable_v2_tensorshape, enable_eager_execution, enable_v2_behavior, executing_eagerly,
    resource_variables_enabled)
# tf.compat.v1 is tensorfleet itself, also as ``import tensorfleet.compat.v1 as tf``.
compat.v1 = _sys.modules[__name__]
_sys.modules[__name__ + ".compat.v1"] = compat.v1
from tensorfleet.testing import testcase as test  # noqa: F401,E402  (tf.test)
from tensorfleet.ops.template import make_template, op_scope  # noqa: F401,E402
from tensorfleet.config_options import GraphOptions, LogMessage, OptimizerOptions  # noqa: F401,E402
from tensorfleet.ops.parsing_sequence_ops import (  # noqa: F401,E402
    parse_single_sequence_example)
from tensorfleet.gradients.registry import (  # noqa: F401,E402  (TF 1.x aliases)
    NotDifferentiable as NoGradient, no_gradient)
from tensorfleet.errors import OpError  # noqa: F401,E402  (tf.OpError)

__version__ = "0.1.0"
VERSION = __version__  # tf.VERSION: the version string under its 1.x name


def __getattr__(name: str):
    # tf.Summary, tf.Event, tf.SessionLog: loaded on first use (see tensorfleet.summary).
    if name in ("Summary", "Event", "SessionLog", "SummaryMetadata", "HistogramProto"):
        from tensorfleet.ops import summary_ops
        return getattr(summary_ops, name)
    raise AttributeError(f"module 'tensorfleet' has no attribute {name!r}")
