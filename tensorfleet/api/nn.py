"""``tf.nn``: neural-network ops."""

from tensorfleet.ops.array_transform_ops import (batch_to_space, depth_to_space,
    space_to_batch, space_to_depth)
from tensorfleet.ops.ctc_ops import (collapse_repeated, ctc_beam_search_decoder,
    ctc_greedy_decoder, ctc_loss, ctc_loss_v2, ctc_unique_labels)
from tensorfleet.ops.embedding_ops import (embedding_lookup, embedding_lookup_sparse,
    safe_embedding_lookup_sparse)
from tensorfleet.ops.math_ops_core import (sigmoid, tanh)
from tensorfleet.ops.nn_composite_ops import (crelu, normalize_moments, relu_layer, softsign,
    sufficient_statistics, swish, weighted_cross_entropy_with_logits)
from tensorfleet.ops.nn_conv_ops import (avg_pool, conv2d, conv2d_backprop_filter,
    conv2d_backprop_input, max_pool)
from tensorfleet.ops.nn_conv_variant_ops import (atrous_conv2d, avg_pool3d, conv1d,
    conv1d_transpose, conv2d_transpose, conv3d,
    conv3d_backprop_filter_v2 as conv3d_backprop_filter, conv3d_transpose, convolution,
    depthwise_conv2d, depthwise_conv2d_native, max_pool3d, separable_conv2d)
from tensorfleet.ops.nn_norm_ops import (batch_norm_with_global_normalization,
    batch_normalization, fused_batch_norm, local_response_normalization,
    local_response_normalization as lrn, zero_fraction)
from tensorfleet.ops.nn_ops import (bias_add, dropout, elu, in_top_k, l2_loss, l2_normalize,
    leaky_relu, log_poisson_loss, log_softmax, moments, relu, relu6, selu,
    sigmoid_cross_entropy_with_logits, softmax, softmax_cross_entropy_with_logits,
    softmax_cross_entropy_with_logits_v2, softplus, sparse_softmax_cross_entropy_with_logits,
    weighted_moments, xw_plus_b)
from tensorfleet.ops.nn_pool_ops import (avg_pool1d, avg_pool2d, avg_pool_v2,
    fractional_avg_pool, fractional_max_pool, max_pool1d, max_pool2d, max_pool_v2,
    max_pool_with_argmax, pool)
from tensorfleet.ops.nn_sampling_ops import (compute_accidental_hits,
    fixed_unigram_candidate_sampler, learned_unigram_candidate_sampler,
    log_uniform_candidate_sampler, nce_loss, sampled_softmax_loss, top_k,
    uniform_candidate_sampler)
from tensorfleet.ops.rnn import (bidirectional_dynamic_rnn, dynamic_rnn,
    static_bidirectional_rnn, static_rnn)
from tensorfleet.ops.rnn_raw import raw_rnn

from tensorfleet.ops import (rnn_cell, legacy_seq2seq as seq2seq)

from tensorfleet.ops.nn_composite_ops import silu

from tensorfleet.ops.math_composite_ops import (compute_average_loss,
    scale_regularization_loss)

from tensorfleet.ops.nn_conv_variant_ops import conv_transpose
from tensorfleet.ops.approx_top_k_ops import (approx_max_k, approx_min_k)
from tensorfleet.ops.rnn_state_saving import static_state_saving_rnn
from tensorfleet.ops.quantized_nn_ops import (quantized_avg_pool, quantized_conv2d,
    quantized_max_pool)
from tensorfleet.ops.nn_sampling_ops import all_candidate_sampler
from tensorfleet.ops.nn_conv_variant_ops import (atrous_conv2d_transpose,
    conv3d_backprop_filter_v2, depthwise_conv2d_native_backprop_filter,
    depthwise_conv2d_native_backprop_filter as depthwise_conv2d_backprop_filter,
    depthwise_conv2d_native_backprop_input,
    depthwise_conv2d_native_backprop_input as depthwise_conv2d_backprop_input)

from tensorfleet.ops.ctc_ops import ctc_beam_search_decoder_v2
from tensorfleet.ops.morphology_ops import (dilation2d, erosion2d)
from tensorfleet.ops.space_to_batch_conv import with_space_to_batch

from tensorfleet.api import nn_experimental as experimental

__all__ = ["all_candidate_sampler", "atrous_conv2d_transpose", "conv3d_backprop_filter_v2",
           "depthwise_conv2d_backprop_filter", "depthwise_conv2d_backprop_input",
           "depthwise_conv2d_native_backprop_filter", "depthwise_conv2d_native_backprop_input",
           "ctc_beam_search_decoder_v2", "dilation2d", "erosion2d", "experimental",
           "with_space_to_batch", "approx_max_k", "approx_min_k", "static_state_saving_rnn",
           "quantized_avg_pool", "quantized_conv2d", "quantized_max_pool",
           "atrous_conv2d", "avg_pool", "avg_pool1d", "avg_pool2d", "avg_pool3d",
           "avg_pool_v2", "batch_norm_with_global_normalization", "batch_normalization",
           "batch_to_space", "bias_add", "bidirectional_dynamic_rnn", "collapse_repeated",
           "compute_accidental_hits", "compute_average_loss", "conv1d", "conv1d_transpose",
           "conv2d", "conv2d_backprop_filter", "conv2d_backprop_input", "conv2d_transpose",
           "conv3d", "conv3d_backprop_filter", "conv3d_transpose", "conv_transpose",
           "convolution", "crelu", "ctc_beam_search_decoder", "ctc_greedy_decoder", "ctc_loss",
           "ctc_loss_v2", "ctc_unique_labels", "depth_to_space", "depthwise_conv2d",
           "depthwise_conv2d_native", "dropout", "dynamic_rnn", "elu", "embedding_lookup",
           "embedding_lookup_sparse", "fixed_unigram_candidate_sampler", "fractional_avg_pool",
           "fractional_max_pool", "fused_batch_norm", "in_top_k", "l2_loss", "l2_normalize",
           "leaky_relu", "learned_unigram_candidate_sampler", "local_response_normalization",
           "log_poisson_loss", "log_softmax", "log_uniform_candidate_sampler", "lrn",
           "max_pool", "max_pool1d", "max_pool2d", "max_pool3d", "max_pool_v2",
           "max_pool_with_argmax", "moments", "nce_loss", "normalize_moments", "pool",
           "raw_rnn", "relu", "relu6", "relu_layer", "rnn_cell",
           "safe_embedding_lookup_sparse", "sampled_softmax_loss", "scale_regularization_loss",
           "selu", "separable_conv2d", "seq2seq", "sigmoid",
           "sigmoid_cross_entropy_with_logits", "silu", "softmax",
           "softmax_cross_entropy_with_logits", "softmax_cross_entropy_with_logits_v2",
           "softplus", "softsign", "space_to_batch", "space_to_depth",
           "sparse_softmax_cross_entropy_with_logits", "static_bidirectional_rnn",
           "static_rnn", "sufficient_statistics", "swish", "tanh", "top_k",
           "uniform_candidate_sampler", "weighted_cross_entropy_with_logits",
           "weighted_moments", "xw_plus_b", "zero_fraction"]
