"""``tf.nn``: neural-network ops."""

from tensorfleet.ops.nn_ops import *  # noqa: F401,F403
from tensorfleet.ops.embedding_ops import (  # noqa: F401,E402
    embedding_lookup, embedding_lookup_sparse, safe_embedding_lookup_sparse)
from tensorfleet.ops.nn_conv_variant_ops import *  # noqa: F401,F403,E402  (conv2d_transpose ...)
from tensorfleet.ops.nn_norm_ops import *  # noqa: F401,F403,E402  (lrn, fused_batch_norm ...)
from tensorfleet.ops.nn_sampling_ops import *  # noqa: F401,F403,E402  (top_k, nce_loss ...)
from tensorfleet.ops.nn_composite_ops import *  # noqa: F401,F403,E402  (swish, crelu ...)
from tensorfleet.ops.nn_census_ops import *  # noqa: F401,F403,E402  (max_pool2d, convolution ...)
from tensorfleet.ops import rnn_cell  # noqa: F401,E402  (tf.nn.rnn_cell)
from tensorfleet.ops import legacy_seq2seq as seq2seq  # noqa: F401,E402  (tf.nn.seq2seq, TF 0.x)
from tensorfleet.ops.rnn import (  # noqa: F401,E402
    bidirectional_dynamic_rnn, dynamic_rnn, static_bidirectional_rnn, static_rnn)
from tensorfleet.ops.ctc_ops import (  # noqa: F401,E402
    collapse_repeated, ctc_beam_search_decoder, ctc_greedy_decoder, ctc_loss, ctc_loss_v2,
    ctc_unique_labels)
from tensorfleet.ops.nn_pool_ops import (  # noqa: F401,E402
    fractional_avg_pool, fractional_max_pool, max_pool_with_argmax, pool)
from tensorfleet.ops.rnn_raw import raw_rnn  # noqa: F401,E402  (tf.nn.raw_rnn)
