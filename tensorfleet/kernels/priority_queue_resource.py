"""The queue resource of ``PriorityQueueV2``: a FIFO queue resource whose dequeues take the
tuple with the smallest int64 priority (component 0), the earliest among equals."""

from __future__ import annotations

import numpy as np

from tensorfleet.kernels.queue_resources import FIFOQueueResource, Row


class PriorityQueueResource(FIFOQueueResource):
    """See the module docstring; a linear scan per dequeue (queues hold few tuples)."""

    kind = "PriorityQueue"

    def _pop(self) -> Row:
        best = min(range(len(self._items)), key=lambda i: int(np.asarray(self._items[i][0])))
        if best:
            # Move the pick to the head, keeping the others in enqueue order.
            self._items.rotate(-best)
            row = self._items.popleft()
            self._items.rotate(best)
            return row
        return self._items.popleft()
