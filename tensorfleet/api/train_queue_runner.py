"""``tf.train.queue_runner``: the queue-runner names under their module's own name."""

from tensorfleet.training.queue_runner import (QueueRunner, add_queue_runner,
    start_queue_runners)

__all__ = ["QueueRunner", "add_queue_runner", "start_queue_runners"]
