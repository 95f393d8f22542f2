"""``tf.nn``: neural-network ops."""

from tensorfleet.ops.nn_ops import *  # noqa: F401,F403
from tensorfleet.ops.embedding_ops import (  # noqa: F401,E402
    embedding_lookup, embedding_lookup_sparse, safe_embedding_lookup_sparse)
from tensorfleet.ops.nn_conv_more import *  # noqa: F401,F403,E402  (conv2d_transpose ...)
from tensorfleet.ops.nn_norm_ops import *  # noqa: F401,F403,E402  (lrn, fused_batch_norm ...)
from tensorfleet.ops.nn_sampling_ops import *  # noqa: F401,F403,E402  (top_k, nce_loss ...)
from tensorfleet.ops.nn_composite_ops import *  # noqa: F401,F403,E402  (swish, crelu ...)
from tensorfleet.ops import rnn_cell  # noqa: F401,E402  (tf.nn.rnn_cell)
from tensorfleet.ops.rnn import (  # noqa: F401,E402
    bidirectional_dynamic_rnn, dynamic_rnn, static_bidirectional_rnn, static_rnn)
