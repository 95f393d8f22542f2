"""``tf``: every top-level name of tensorfleet's TensorFlow 1.x API and the module it comes
from; ``tensorfleet/__init__.py`` exports exactly these. The namespaces under it (``tf.nn``,
``tf.train`` ...) are declared in the other modules of this package."""

from tensorfleet.compat.behavior import (disable_eager_execution, disable_resource_variables,
    disable_v2_behavior, disable_v2_tensorshape, enable_eager_execution, enable_v2_behavior,
    executing_eagerly, resource_variables_enabled)
from tensorfleet.compat.renamed_ops import (batch_matmul, concat_v2, mul, neg, pack, select,
    sub, unpack)
from tensorfleet.distributed.cluster import (ConfigProto, RunMetadata, RunOptions)
from tensorfleet.dtypes import (DType, as_dtype, bool, double, float16, float32, float64, half,
    int16, int32, int64, int8, string, uint16, uint8)
from tensorfleet.dtypes import (QUANTIZED_DTYPES, bfloat16, complex128, complex64, qint16,
    qint32, qint8, quint16, quint8, resource, uint32, uint64, variant)
from tensorfleet.errors import OpError
from tensorfleet.ops.complex_ops import (angle, complex, conj, imag, real, to_bfloat16,
    to_complex128, to_complex64)
from tensorfleet.ops.fake_quant_ops import (fake_quant_with_min_max_args,
    fake_quant_with_min_max_args_gradient, fake_quant_with_min_max_vars,
    fake_quant_with_min_max_vars_gradient, fake_quant_with_min_max_vars_per_channel,
    fake_quant_with_min_max_vars_per_channel_gradient)
from tensorfleet.ops.linalg_composite_ops import cross
from tensorfleet.ops.matrix_functions import sqrtm as matrix_square_root
from tensorfleet.ops.nn_conv_variant_ops import (conv2d_backprop_filter_v2,
    conv2d_backprop_input_v2)
from tensorfleet.ops.sparse_reductions import (sparse_merge, sparse_reduce_max_sparse,
    sparse_reduce_sum_sparse)
from tensorfleet.ops.quantize_ops import (dequantize, quantize, quantize_v2,
    quantized_concat)
from tensorfleet.ops.ragged_tensor import RaggedTensor
from tensorfleet.ops.special_functions import (igamma, igammac)
from tensorfleet.ops.stateless_random_distributions import random_index_shuffle
from tensorfleet.ops.spectral_ops import (fft, fft2d, fft3d, fftnd, ifft, ifft2d, ifft3d,
    ifftnd, irfftnd, rfftnd)
from tensorfleet.framework.config_options import (GPUOptions, GraphOptions, LogMessage,
    OptimizerOptions)
from tensorfleet.framework.device import DeviceSpec
from tensorfleet.framework.graph import (Graph, Operation, add_to_collection,
    add_to_collections, colocate_with, container, control_dependencies, device, get_collection,
    get_collection_ref, get_default_graph, get_seed, name_scope, reset_default_graph,
    set_random_seed)
from tensorfleet.framework.graph_def import (AttrValue, GraphDef, NodeDef, import_graph_def)
from tensorfleet.framework.graph_keys import GraphKeys
from tensorfleet.framework.indexed_slices import (IndexedSlices, IndexedSlicesValue)
from tensorfleet.framework.sparse_tensor import (SparseTensor, SparseTensorValue)
from tensorfleet.framework.tensor import (Tensor, convert_to_tensor,
    register_tensor_conversion_function)
from tensorfleet.framework.tensor_shape import (Dimension, TensorShape, dimension_at_index)
from tensorfleet.framework.type_spec import (IndexedSlicesSpec, NoneTensorSpec, OptionalSpec,
    SparseTensorSpec, TensorArraySpec, TensorSpec, TypeSpec, type_spec_from_value)
from tensorfleet.framework.tensor_util import (make_ndarray, make_tensor_proto)
from tensorfleet.gradients.gradients_impl import (AggregationMethod, gradients)
from tensorfleet.kernels.backends import (cpu_kernel_backend, set_cpu_kernel_backend)
from tensorfleet.gradients.registry import (no_gradient as NoGradient,
    no_gradient as NotDifferentiable, register_gradient as RegisterGradient, no_gradient)
from tensorfleet.ops.accumulator_ops import (ConditionalAccumulator,
    ConditionalAccumulatorBase, SparseConditionalAccumulator)
from tensorfleet.ops.array_concat_ops import (concat, split, unstack)
from tensorfleet.ops.array_indexing_ops import (batch_gather, boolean_mask, dynamic_partition,
    dynamic_stitch, gather, one_hot, pad, range, slice, strided_slice, tile, transpose,
    unsorted_segment_sum, where)
from tensorfleet.ops.array_ops import newaxis
from tensorfleet.ops.array_repeat_ops import repeat
from tensorfleet.ops.array_ops_core import (bitcast, cast, constant, expand_dims, fill,
    guarantee_const, identity, invert_permutation, ones, ones_like, placeholder,
    placeholder_with_default, rank, reshape, shape, size, squeeze, stack, stop_gradient,
    to_double, to_float, to_int32, to_int64, zeros, zeros_like)
from tensorfleet.ops.array_transform_ops import (arg_max, arg_min, batch_to_space,
    batch_to_space_nd, broadcast_dynamic_shape, broadcast_static_shape, broadcast_to,
    convert_to_tensor_or_indexed_slices, convert_to_tensor_or_sparse_tensor, depth_to_space,
    dimension_value, init_scope, lin_space, lin_space as linspace, meshgrid, parallel_stack,
    required_space_to_batch_paddings, roll, saturate_cast, searchsorted, shape_n,
    space_to_batch, space_to_batch_nd, space_to_depth, unravel_index, where_v2)
from tensorfleet.ops.categorical_ops import as_string
from tensorfleet.ops.check_ops import (assert_equal, assert_greater, assert_greater_equal,
    assert_integer, assert_less, assert_less_equal, assert_near, assert_negative,
    assert_non_negative, assert_non_positive, assert_none_equal, assert_positive,
    assert_proper_iterable, assert_rank, assert_rank_at_least, assert_rank_in,
    assert_same_float_dtype, assert_scalar, assert_type, is_non_decreasing, is_numeric_tensor,
    is_strictly_increasing)
from tensorfleet.ops.control_flow_ops import (Assert, Print, case, cond, group, no_op,
    switch_case, tuple, with_dependencies)
from tensorfleet.ops.custom_gradient import (custom_gradient, hessians, identity_n)
from tensorfleet.ops.data_flow_ops import (FIFOQueue, PaddingFIFOQueue, QueueBase,
    RandomShuffleQueue)
from tensorfleet.ops.decode_compressed_ops import decode_compressed
from tensorfleet.ops.edit_distance_ops import edit_distance
from tensorfleet.ops.function_wrappers import (grad_pass_through, py_function, recompute_grad,
    vectorized_map)
from tensorfleet.framework.static_value import get_static_value, is_symbolic_tensor
from tensorfleet.framework.module import Module
from tensorfleet.compat.behavior import (disable_tensor_equality, enable_tensor_equality,
    executing_eagerly_outside_functions)
from tensorfleet.platform.tf_logging import get_logger
from tensorfleet.saved_model.signature import TensorInfo
from tensorfleet.ops.priority_queue_ops import PriorityQueue
from tensorfleet.ops.json_example_ops import decode_json_example
from tensorfleet.ops.sparse_serialization_ops import (deserialize_many_sparse,
    serialize_many_sparse, serialize_sparse)
from tensorfleet.ops.image_patches_ops import extract_image_patches
from tensorfleet.ops.functional_ops import (foldl, foldr, map_fn, scan, while_loop)
from tensorfleet.ops.hash_ops import (sparse_cross, sparse_cross_hashed,
    string_to_hash_bucket_fast, string_to_hash_bucket_strong)
from tensorfleet.ops.image_adjust_ops import random_crop
from tensorfleet.ops.init_ops import (Constant as constant_initializer,
    GlorotNormal as glorot_normal_initializer, GlorotUniform as glorot_uniform_initializer,
    Identity as identity_initializer, Ones as ones_initializer,
    Orthogonal as orthogonal_initializer, RandomNormal as random_normal_initializer,
    RandomUniform as random_uniform_initializer,
    TruncatedNormal as truncated_normal_initializer,
    UniformUnitScaling as uniform_unit_scaling_initializer,
    VarianceScaling as variance_scaling_initializer, Zeros as zeros_initializer)
from tensorfleet.ops.io_readers import (FixedLengthRecordReader, ReaderBase, TFRecordReader,
    TextLineReader, WholeFileReader, matching_files)
from tensorfleet.ops.linalg_composite_ops import matrix_solve_ls
from tensorfleet.ops.linalg_ops import (cholesky, cholesky_solve, diag, diag_part, einsum, eye,
    log_matrix_determinant, matrix_band_part, matrix_determinant, matrix_diag,
    matrix_diag_part, matrix_inverse, matrix_set_diag, matrix_solve, matrix_transpose,
    matrix_triangular_solve, norm, qr, self_adjoint_eig, self_adjoint_eigvals, svd, trace)
from tensorfleet.ops.lookup_ops import (tables_initializer as initialize_all_tables,
    tables_initializer)
from tensorfleet.ops.math_ops_core import (abs, accumulate_n, add, add_n, ceil, cos, div,
    divide, equal, exp, expm1, floor, floordiv, floormod, greater, greater_equal, is_finite,
    is_inf, is_nan, less, less_equal, log, log1p, logical_and, logical_not, logical_or,
    logical_xor, matmul, maximum, minimum, floormod as mod, multiply, negative, not_equal, pow,
    realdiv, reciprocal, round, rsqrt, sigmoid, sign, sin, sqrt, square, squared_difference,
    subtract, tanh, tensordot, truediv)
from tensorfleet.ops.math_ops_reduce import (argmax, argmin, clip_by_global_norm, clip_by_norm,
    clip_by_value, count_nonzero, cumprod, cumsum, global_norm, reduce_all, reduce_any,
    reduce_logsumexp, reduce_max, reduce_mean, reduce_min, reduce_prod, reduce_sum)
from tensorfleet.ops.math_ops_special import (acos, acosh, asin, asinh, atan, atan2, atanh,
    betainc, cosh, digamma, div_no_nan, erf, erfc, floor_div, is_tensor, lbeta, lgamma,
    log_sigmoid, polygamma, rint, scalar_mul, sinh, tan, truncatediv, truncatemod, zeta)
from tensorfleet.ops.math_ops_stats import (confusion_matrix, histogram_fixed_width,
    histogram_fixed_width_bins)
from tensorfleet.ops.nn_pool_ops import clip_by_average_norm
from tensorfleet.ops.numerics import (add_check_numerics_ops, check_numerics,
    verify_tensor_all_finite)
from tensorfleet.ops.parsing_ops import (FixedLenFeature, FixedLenSequenceFeature,
    SparseFeature, VarLenFeature, parse_example, parse_single_example)
from tensorfleet.ops.parsing_sequence_ops import parse_single_sequence_example
from tensorfleet.ops.partitioned_variables import (PartitionedVariable, SaveSliceInfo,
    fixed_size_partitioner, min_max_variable_partitioner, variable_axis_size_partitioner)
from tensorfleet.ops.print_ops import (print, timestamp)
from tensorfleet.ops.random_ops import (multinomial, random_gamma, random_normal,
    random_poisson, random_shuffle, random_uniform, truncated_normal)
from tensorfleet.ops.rnn_ops import (reverse_sequence, sequence_mask)
from tensorfleet.ops.scatter_ops import (bincount, gather_nd, scatter_nd, scatter_nd_add,
    scatter_nd_sub, scatter_nd_update, setdiff1d, tensor_scatter_add,
    tensor_scatter_add as tensor_scatter_nd_add, tensor_scatter_nd_max, tensor_scatter_nd_min,
    tensor_scatter_sub as tensor_scatter_nd_sub,
    tensor_scatter_update as tensor_scatter_nd_update, tensor_scatter_sub,
    tensor_scatter_update, unique_with_counts)
from tensorfleet.ops.shape_check_ops import ensure_shape
from tensorfleet.ops.script_ops import (numpy_function, py_func)
from tensorfleet.ops.segment_ops import (segment_max, segment_mean, segment_min, segment_prod,
    segment_sum, unsorted_segment_max, unsorted_segment_mean, unsorted_segment_min,
    unsorted_segment_prod, unsorted_segment_sqrt_n)
from tensorfleet.ops.sort_ops import (argsort, reverse, reverse as reverse_v2, sort)
from tensorfleet.ops.sparse_construct_ops import mask as sparse_mask
from tensorfleet.ops.sparse_ops import (sparse_add, sparse_concat, sparse_fill_empty_rows,
    sparse_matmul, sparse_maximum, sparse_minimum, sparse_placeholder, sparse_reduce_max,
    sparse_reduce_sum, sparse_reorder, sparse_reset_shape, sparse_reshape, sparse_retain,
    sparse_segment_mean, sparse_segment_sqrt_n, sparse_segment_sum, sparse_slice,
    sparse_softmax, sparse_split, sparse_tensor_dense_matmul, sparse_tensor_to_dense,
    sparse_to_dense, sparse_to_indicator, sparse_transpose, unique)
from tensorfleet.ops.state_ops import (assign, assign_add, assign_sub, count_up_to,
    scatter_add, scatter_div, scatter_max, scatter_min, scatter_mul, scatter_sub,
    scatter_update, variable_op_v2)
from tensorfleet.ops.string_manip_ops import (decode_base64, encode_base64, reduce_join,
    regex_replace, string_join, string_strip, string_to_hash_bucket, substr, write_file)
from tensorfleet.ops.string_ops import (decode_csv, decode_raw, read_file, string_split,
    string_to_number)
from tensorfleet.ops.summary_ops_legacy import (audio_summary, histogram_summary,
    image_summary, merge_all_summaries, merge_summary, scalar_summary)
from tensorfleet.ops.tensor_serialization_ops import (parse_tensor, serialize_tensor)
from tensorfleet.ops.template import (make_template, op_scope)
from tensorfleet.ops.tensor_array_ops import TensorArray
from tensorfleet.ops.variable_scope import (AUTO_REUSE, VariableScope,
    create_partitioned_variables, get_local_variable, get_variable, get_variable_scope,
    no_regularizer, variable_op_scope, variable_scope)
from tensorfleet.ops.variables import (Variable, Variable as VariableV1, all_variables,
    assert_variables_initialized, global_variables, global_variables_initializer,
    initialize_all_variables, initialize_local_variables, initialize_variables,
    is_variable_initialized, local_variables, local_variables_initializer, model_variables,
    moving_average_variables, report_uninitialized_variables, trainable_variables,
    variables_initializer)
from tensorfleet.runtime.session import (InteractiveSession, Session, get_default_session)
from tensorfleet.gradients.gradient_tape import GradientTape
from tensorfleet.gradients.unconnected_gradients import UnconnectedGradients
from tensorfleet.ops.approx_top_k_ops import approx_top_k
from tensorfleet.ops.graph_function import function, wrap_function
from tensorfleet.ops.hash_ops import fingerprint
from tensorfleet.ops.image_patches_ops import extract_volume_patches
from tensorfleet.ops.io_readers import IdentityReader
from tensorfleet.ops.nn_conv_generic import conv
from tensorfleet.ops.scatter_ops import batch_scatter_update
from tensorfleet.ops.ragged_tensor_spec import RaggedTensorSpec
from tensorfleet.ops.session_ops import (delete_session_tensor, get_session_handle,
    get_session_tensor)
from tensorfleet.ops.sparse_ops import ragged_fill_empty_rows, ragged_fill_empty_rows_grad
from tensorfleet.ops.variable_creator import (VariableAggregation, VariableSynchronization,
    variable_creator_scope)
from tensorfleet.compat.behavior import (control_flow_v2_enabled, disable_control_flow_v2,
    enable_control_flow_v2)
from tensorfleet.training.meta_graph_def import MetaGraphDef
from tensorfleet.platform.build_info import (COMPILER_VERSION, GIT_VERSION, GRAPH_DEF_VERSION,
    GRAPH_DEF_VERSION_MIN_CONSUMER, GRAPH_DEF_VERSION_MIN_PRODUCER)

# The namespaces.
from tensorfleet import (compat, contrib, data, dtypes, dynamic_embedding, errors, estimator,
    feature_column, keras, saved_model)
from tensorfleet.api import audio, initializers, mixed_precision, types
from tensorfleet.api import (app, bitwise, debugging, distribute, flags, gfile, graph_util,
    image, io, layers, linalg, logging, lookup, losses, manip, math, nest, nn, python_io,
    queue, random, resource_loader, sets, sparse, strings, summary, sysconfig, train, version)
from tensorfleet.api import profiler
from tensorfleet.api import (distributions, ragged, signal, spectral)
from tensorfleet.estimator import metrics
from tensorfleet.api import test

__all__ = ["abs", "accumulate_n", "acos", "acosh", "add", "add_check_numerics_ops", "add_n",
           "add_to_collection", "add_to_collections", "AggregationMethod", "all_variables", "app",
           "arg_max", "arg_min", "argmax", "argmin", "argsort", "as_dtype", "as_string", "asin",
           "asinh", "Assert", "assert_equal", "assert_greater", "assert_greater_equal",
           "assert_integer", "assert_less", "assert_less_equal", "assert_near", "assert_negative",
           "assert_non_negative", "assert_non_positive", "assert_none_equal", "assert_positive",
           "assert_proper_iterable", "assert_rank", "assert_rank_at_least", "assert_rank_in",
           "assert_same_float_dtype", "assert_scalar", "assert_type",
           "assert_variables_initialized", "assign", "assign_add", "assign_sub", "atan", "atan2",
           "atanh", "AttrValue", "audio_summary", "AUTO_REUSE", "batch_gather", "batch_matmul",
           "batch_to_space", "batch_to_space_nd", "betainc", "bincount", "bitcast", "bitwise",
           "bool", "boolean_mask", "broadcast_dynamic_shape", "broadcast_static_shape",
           "broadcast_to", "case", "cast", "ceil", "check_numerics", "cholesky", "cholesky_solve",
           "clip_by_average_norm", "clip_by_global_norm", "clip_by_norm", "clip_by_value",
           "colocate_with", "compat", "COMPILER_VERSION", "concat", "concat_v2", "cond",
           "ConditionalAccumulator", "ConditionalAccumulatorBase", "ConfigProto",
           "confusion_matrix", "constant", "constant_initializer", "container", "contrib",
           "control_dependencies", "convert_to_tensor", "convert_to_tensor_or_indexed_slices",
           "convert_to_tensor_or_sparse_tensor", "cos", "cosh", "count_nonzero", "count_up_to",
           "cpu_kernel_backend", "create_partitioned_variables", "cumprod", "cumsum",
           "custom_gradient", "data", "debugging", "decode_base64", "decode_compressed",
           "decode_csv", "decode_raw", "depth_to_space", "device", "DeviceSpec", "diag",
           "diag_part", "digamma", "Dimension", "dimension_value", "disable_eager_execution",
           "disable_resource_variables", "disable_v2_behavior", "disable_v2_tensorshape",
           "distribute", "div", "div_no_nan", "divide", "double", "DType", "dtypes",
           "dynamic_embedding", "dynamic_partition", "dynamic_stitch", "edit_distance", "einsum",
           "enable_eager_execution", "enable_v2_behavior", "encode_base64", "ensure_shape",
           "equal", "erf", "erfc", "errors", "estimator", "executing_eagerly", "exp",
           "expand_dims", "expm1", "extract_image_patches", "eye", "feature_column", "FIFOQueue",
           "fill", "fixed_size_partitioner", "FixedLenFeature", "FixedLengthRecordReader",
           "FixedLenSequenceFeature", "flags", "float16", "float32", "float64", "floor",
           "floor_div", "floordiv", "floormod", "foldl", "foldr", "gather", "gather_nd",
           "get_collection", "get_collection_ref", "get_default_graph", "get_default_session",
           "get_local_variable", "get_seed", "get_variable", "get_variable_scope", "gfile",
           "GIT_VERSION", "global_norm", "global_variables", "global_variables_initializer",
           "glorot_normal_initializer", "glorot_uniform_initializer", "GPUOptions", "gradients",
           "Graph", "GRAPH_DEF_VERSION", "GRAPH_DEF_VERSION_MIN_CONSUMER",
           "GRAPH_DEF_VERSION_MIN_PRODUCER", "graph_util", "GraphDef", "GraphKeys", "GraphOptions",
           "greater", "greater_equal", "group", "guarantee_const", "half", "hessians",
           "histogram_fixed_width", "histogram_fixed_width_bins", "histogram_summary", "identity",
           "identity_initializer", "identity_n", "image", "image_summary", "import_graph_def",
           "IndexedSlices", "IndexedSlicesValue", "init_scope", "initialize_all_tables",
           "initialize_all_variables", "initialize_local_variables", "initialize_variables",
           "initializers", "int16", "int32", "int64", "int8", "InteractiveSession",
           "invert_permutation", "io", "is_finite", "is_inf", "is_nan", "is_non_decreasing",
           "is_numeric_tensor", "is_strictly_increasing", "is_tensor", "is_variable_initialized",
           "keras", "layers", "lbeta", "less", "less_equal", "lgamma", "lin_space", "linalg",
           "linspace", "local_variables", "local_variables_initializer", "log", "log1p",
           "log_matrix_determinant", "log_sigmoid", "logging", "logical_and", "logical_not",
           "logical_or", "logical_xor", "LogMessage", "lookup", "losses", "make_ndarray",
           "make_template", "make_tensor_proto", "manip", "map_fn", "matching_files", "math",
           "matmul", "matrix_band_part", "matrix_determinant", "matrix_diag", "matrix_diag_part",
           "matrix_inverse", "matrix_set_diag", "matrix_solve", "matrix_solve_ls",
           "matrix_transpose", "matrix_triangular_solve", "maximum", "merge_all_summaries",
           "merge_summary", "meshgrid", "MetaGraphDef", "metrics", "min_max_variable_partitioner",
           "minimum", "mod", "model_variables", "moving_average_variables", "mul", "multinomial",
           "multiply", "name_scope", "neg", "negative", "nest", "newaxis", "nn", "no_gradient",
           "no_op", "no_regularizer", "NodeDef", "NoGradient", "norm", "not_equal",
           "NotDifferentiable", "numpy_function", "one_hot", "ones", "ones_initializer",
           "ones_like", "op_scope", "Operation", "OpError", "OptimizerOptions",
           "orthogonal_initializer", "pack", "pad", "PaddingFIFOQueue", "parallel_stack",
           "parse_example", "parse_single_example", "parse_single_sequence_example",
           "parse_tensor", "PartitionedVariable", "placeholder", "placeholder_with_default",
           "polygamma", "pow", "Print", "print", "py_func", "python_io", "qr", "queue",
           "QueueBase", "random", "random_crop", "random_gamma", "random_normal",
           "random_normal_initializer", "random_poisson", "random_shuffle", "random_uniform",
           "random_uniform_initializer", "RandomShuffleQueue", "range", "rank", "read_file",
           "ReaderBase", "realdiv", "reciprocal", "reduce_all", "reduce_any", "reduce_join",
           "reduce_logsumexp", "reduce_max", "reduce_mean", "reduce_min", "reduce_prod",
           "reduce_sum", "regex_replace", "register_tensor_conversion_function",
           "RegisterGradient", "repeat", "report_uninitialized_variables",
           "required_space_to_batch_paddings", "reset_default_graph", "reshape", "resource_loader",
           "resource_variables_enabled", "reverse", "reverse_sequence", "reverse_v2", "rint",
           "roll", "round", "rsqrt", "RunMetadata", "RunOptions", "saturate_cast", "saved_model",
           "SaveSliceInfo", "scalar_mul", "scalar_summary", "scan", "scatter_add", "scatter_div",
           "scatter_max", "scatter_min", "scatter_mul", "scatter_nd", "scatter_nd_add",
           "scatter_nd_sub", "scatter_nd_update", "scatter_sub", "scatter_update", "searchsorted",
           "segment_max", "segment_mean", "segment_min", "segment_prod", "segment_sum", "select",
           "self_adjoint_eig", "self_adjoint_eigvals", "sequence_mask", "serialize_tensor",
           "Session", "set_cpu_kernel_backend", "set_random_seed", "setdiff1d", "sets", "shape",
           "shape_n", "sigmoid", "sign", "sin", "sinh", "size", "slice", "sort", "space_to_batch",
           "space_to_batch_nd", "space_to_depth", "sparse", "sparse_add", "sparse_concat",
           "sparse_cross", "sparse_cross_hashed", "sparse_fill_empty_rows", "sparse_mask",
           "sparse_matmul", "sparse_maximum", "sparse_minimum", "sparse_placeholder",
           "sparse_reduce_max", "sparse_reduce_sum", "sparse_reorder", "sparse_reset_shape",
           "sparse_reshape", "sparse_retain", "sparse_segment_mean", "sparse_segment_sqrt_n",
           "sparse_segment_sum", "sparse_slice", "sparse_softmax", "sparse_split",
           "sparse_tensor_dense_matmul", "sparse_tensor_to_dense", "sparse_to_dense",
           "sparse_to_indicator", "sparse_transpose", "SparseConditionalAccumulator",
           "SparseFeature", "SparseTensor", "SparseTensorValue", "split", "sqrt", "square",
           "squared_difference", "squeeze", "stack", "stop_gradient", "strided_slice", "string",
           "string_join", "string_split", "string_strip", "string_to_hash_bucket",
           "string_to_hash_bucket_fast", "string_to_hash_bucket_strong", "string_to_number",
           "strings", "sub", "substr", "subtract", "summary", "svd", "switch_case", "sysconfig", "profiler",
           "tables_initializer", "tan", "tanh", "Tensor", "tensor_scatter_add",
           "tensor_scatter_nd_add", "tensor_scatter_nd_max", "tensor_scatter_nd_min",
           "tensor_scatter_nd_sub", "tensor_scatter_nd_update", "tensor_scatter_sub",
           "tensor_scatter_update", "TensorArray", "tensordot", "TensorShape", "test",
           "TextLineReader", "TFRecordReader", "tile", "timestamp", "to_double", "to_float",
           "to_int32", "to_int64", "trace", "train", "trainable_variables", "transpose", "truediv",
           "truncated_normal", "truncated_normal_initializer", "truncatediv", "truncatemod",
           "tuple", "uint16", "uint8", "uniform_unit_scaling_initializer", "unique",
           "unique_with_counts", "unpack", "unravel_index", "unsorted_segment_max",
           "unsorted_segment_mean", "unsorted_segment_min", "unsorted_segment_prod",
           "unsorted_segment_sqrt_n", "unsorted_segment_sum", "unstack", "Variable",
           "variable_axis_size_partitioner", "variable_op_scope", "variable_op_v2",
           "variable_scope", "variables_initializer", "VariableScope", "VariableV1",
           "variance_scaling_initializer", "VarLenFeature", "verify_tensor_all_finite", "version",
           "where", "where_v2", "while_loop", "WholeFileReader", "with_dependencies", "write_file",
           "zeros", "zeros_initializer", "zeros_like", "zeta"] + [
    # dtypes
    "QUANTIZED_DTYPES", "bfloat16", "complex128", "complex64", "qint16", "qint32", "qint8",
    "quint16", "quint8", "resource", "uint32", "uint64", "variant",
    # complex numbers and FFTs
    "angle", "complex", "conj", "fft", "fft2d", "fft3d", "fftnd", "ifft", "ifft2d", "ifft3d",
    "ifftnd", "imag", "irfftnd", "real", "rfftnd", "to_complex128", "to_complex64",
    # special functions
    "igamma", "igammac", "matrix_square_root",
    # random
    "random_index_shuffle",
    # namespaces
    "distributions", "ragged", "signal", "spectral",
    # ragged tensors
    "RaggedTensor",
    # nn, quantization, sparse
    "conv2d_backprop_filter_v2", "conv2d_backprop_input_v2", "cross",
    "fake_quant_with_min_max_args", "fake_quant_with_min_max_args_gradient",
    "fake_quant_with_min_max_vars", "fake_quant_with_min_max_vars_gradient",
    "fake_quant_with_min_max_vars_per_channel",
    "fake_quant_with_min_max_vars_per_channel_gradient", "sparse_merge",
    "sparse_reduce_max_sparse", "sparse_reduce_sum_sparse", "to_bfloat16",
    # quantized tensors
    "dequantize", "quantize", "quantize_v2", "quantized_concat",
    # io, data, testing, training and typing additions
    "IndexedSlicesSpec", "NoneTensorSpec", "OptionalSpec", "SparseTensorSpec",
    "TensorArraySpec", "TensorSpec", "TypeSpec", "type_spec_from_value",
    "dimension_at_index", "mixed_precision", "audio", "decode_json_example",
    "deserialize_many_sparse", "serialize_many_sparse", "serialize_sparse",
    "PriorityQueue", "grad_pass_through", "py_function", "recompute_grad",
    "vectorized_map", "get_static_value", "is_symbolic_tensor", "disable_tensor_equality",
    "enable_tensor_equality", "executing_eagerly_outside_functions", "get_logger",
    "TensorInfo", "Module", "types",
    # TF 1.13-1.15 graph-mode programs: tapes, functions, variable creation
    "GradientTape", "UnconnectedGradients", "function", "wrap_function",
    "variable_creator_scope", "VariableAggregation", "VariableSynchronization",
    "control_flow_v2_enabled", "disable_control_flow_v2", "enable_control_flow_v2",
    # ops
    "approx_top_k", "batch_scatter_update", "conv", "extract_volume_patches", "fingerprint",
    "IdentityReader", "ragged_fill_empty_rows", "ragged_fill_empty_rows_grad",
    # tensors kept in the task between steps
    "delete_session_tensor", "get_session_handle", "get_session_tensor",
    # ragged tensors' type
    "RaggedTensorSpec"]
