"""``tf.summary``: scalar and histogram summaries and the event-file writer."""

from tensorfleet.ops.summary_ops import *  # noqa: F401,F403
