"""``tf.contrib.deprecated``: the TF 0.x summary functions (tags used verbatim).

They are the same functions as the top-level ``tf.scalar_summary`` and friends.
"""

from tensorfleet.ops.summary_ops_legacy import (  # noqa: F401
    audio_summary, histogram_summary, image_summary, merge_all_summaries, merge_summary,
    scalar_summary)

__all__ = ["scalar_summary", "histogram_summary", "image_summary", "audio_summary",
           "merge_summary", "merge_all_summaries"]
