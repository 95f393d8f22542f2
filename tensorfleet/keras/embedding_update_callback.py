"""``tf.keras.callbacks.experimental.UpdateEmbeddingCallback``: refreshes a
``DynamicEmbedding``'s vocabulary every ``interval`` seconds of training. The refresh
runs between batches (when the interval has passed at a batch's end), not from a
background thread, so that it never races a training step."""

from __future__ import annotations

import time
from typing import Any, Optional

from tensorfleet.keras.fit_callbacks import Callback, Logs


class UpdateEmbeddingCallback(Callback):
    """Calls ``dynamic_embedding_layer.update_embeddings()`` every ``interval`` seconds
    of training (checked after each batch); usable as a context manager as in Keras."""

    def __init__(self, dynamic_embedding_layer: Any, interval: float):
        super().__init__()
        if not hasattr(dynamic_embedding_layer, "update_embeddings"):
            raise ValueError("UpdateEmbeddingCallback needs a DynamicEmbedding layer")
        if float(interval) <= 0:
            raise ValueError(f"UpdateEmbeddingCallback: interval must be positive, got "
                             f"{interval}")
        self.dynamic_embedding_layer, self.interval = dynamic_embedding_layer, float(interval)
        self._last: Optional[float] = None
        self.updates = 0

    def start(self) -> None:
        """Starts the interval clock."""
        self._last = time.monotonic()

    def stop(self) -> None:
        """Stops updating."""
        self._last = None

    def __enter__(self) -> "UpdateEmbeddingCallback":
        self.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    def on_train_begin(self, logs: Logs = None) -> None:
        """Starts the clock if the callback is not already running."""
        if self._last is None:
            self.start()

    def on_batch_end(self, batch: int, logs: Logs = None) -> None:
        """Refreshes the embeddings once the interval has passed."""
        if self._last is None:
            return
        now = time.monotonic()
        if now - self._last >= self.interval:
            self.dynamic_embedding_layer.update_embeddings()
            self.updates += 1
            self._last = now

    on_train_batch_end = on_batch_end


__all__ = ["UpdateEmbeddingCallback"]
