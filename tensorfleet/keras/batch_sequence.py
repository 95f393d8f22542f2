"""``tf.keras.utils.Sequence`` (a data set as indexable batches) and the enqueuers that
prepare batches ahead of use on worker threads: ``OrderedEnqueuer`` for a ``Sequence``,
``GeneratorEnqueuer`` for a generator."""

from __future__ import annotations

import logging
import queue
import random
import threading
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Iterator, Optional

logger = logging.getLogger(__name__)


class Sequence:
    """Base of a data set given as batches: subclasses define ``__getitem__(index)``
    (batch ``index``) and ``__len__`` (the number of batches), and may define
    ``on_epoch_end``. Iterating yields every batch once, in order."""

    def __getitem__(self, index: int) -> Any:
        raise TypeError(f"{type(self).__name__} must define __getitem__ to be a Sequence")

    def __len__(self) -> int:
        raise TypeError(f"{type(self).__name__} must define __len__ to be a Sequence")

    def on_epoch_end(self) -> None:
        """Called at the end of every epoch (to reshuffle, for instance)."""

    def __iter__(self) -> Iterator[Any]:
        for i in range(len(self)):
            yield self[i]


def _threads_only(use_multiprocessing: bool, cls: str) -> None:
    if use_multiprocessing:
        raise ValueError(f"{cls}: use_multiprocessing=True is not supported; batches are "
                         f"prepared on threads")


class SequenceEnqueuer:
    """Base of the enqueuers: ``start`` worker threads that fill a queue of at most
    ``max_queue_size`` batches, ``get`` the batches, ``stop`` the workers."""

    def __init__(self, sequence: Any, use_multiprocessing: bool = False):
        _threads_only(use_multiprocessing, type(self).__name__)
        self.sequence = sequence
        self.use_multiprocessing = False
        self._threads: list = []
        self._stop_event: Optional[threading.Event] = None
        self.queue: Optional["queue.Queue[Any]"] = None

    def is_running(self) -> bool:
        """Whether the workers run."""
        return self._stop_event is not None and not self._stop_event.is_set()

    def start(self, workers: int = 1, max_queue_size: int = 10) -> None:
        """Starts ``workers`` threads filling a queue of at most ``max_queue_size``."""
        if workers < 1:
            raise ValueError(f"{type(self).__name__}.start: workers must be at least 1, "
                             f"got {workers}")
        self.queue = queue.Queue(max(1, int(max_queue_size)))
        self._stop_event = threading.Event()
        self._threads = [threading.Thread(target=self._run, args=(i, workers), daemon=True,
                                          name=f"{type(self).__name__}-{i}")
                         for i in range(workers)]
        for t in self._threads:
            t.start()

    def stop(self, timeout: Optional[float] = None) -> None:
        """Stops the workers and waits for them (at most ``timeout`` seconds each)."""
        if self._stop_event is None:
            return
        self._stop_event.set()
        while self.queue is not None and not self.queue.empty():
            try:
                self.queue.get_nowait()
            except queue.Empty:
                break
        for t in self._threads:
            t.join(timeout)
        self._threads = []

    def _put(self, item: Any) -> bool:
        while not self._stop_event.is_set():
            try:
                self.queue.put(item, timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    def _run(self, worker: int, workers: int) -> None:
        raise TypeError(f"{type(self).__name__} must define _run")

    def get(self) -> Iterator[Any]:
        """The batches, as the workers produce them."""
        raise TypeError(f"{type(self).__name__} must define get")


_DONE = object()


class _Failure:
    def __init__(self, error: BaseException):
        self.error = error


class OrderedEnqueuer(SequenceEnqueuer):
    """Prepares the batches of a ``Sequence`` ahead on ``workers`` threads, epoch after
    epoch, and yields them in order (or, with ``shuffle``, in a new order each epoch)."""

    def __init__(self, sequence: Any, use_multiprocessing: bool = False,
                 shuffle: bool = False):
        super().__init__(sequence, use_multiprocessing)
        self.shuffle = shuffle

    def start(self, workers: int = 1, max_queue_size: int = 10) -> None:
        """Starts a pool of ``workers`` threads preparing batches, at most
        ``max_queue_size`` ahead of the consumer."""
        if workers < 1:
            raise ValueError(f"OrderedEnqueuer.start: workers must be at least 1, got "
                             f"{workers}")
        self.queue = queue.Queue(max(1, int(max_queue_size)))
        self._stop_event = threading.Event()
        self._threads = [threading.Thread(target=self._produce, args=(workers,), daemon=True,
                                          name="OrderedEnqueuer")]
        self._threads[0].start()

    def _produce(self, workers: int) -> None:
        epoch = 0
        with ThreadPoolExecutor(workers) as pool:
            while not self._stop_event.is_set():
                order = list(range(len(self.sequence)))
                if self.shuffle:
                    random.Random(epoch).shuffle(order)
                pending: deque = deque()
                for i in order:
                    pending.append(pool.submit(self.sequence.__getitem__, i))
                    if len(pending) >= workers and not self._emit(pending.popleft()):
                        return
                while pending:
                    if not self._emit(pending.popleft()):
                        return
                self.sequence.on_epoch_end()
                epoch += 1

    def _emit(self, future: Any) -> bool:
        try:
            item: Any = future.result()
        except Exception as e:  # handed to the consumer, which raises it
            item = _Failure(e)
        return self._put(item) and not isinstance(item, _Failure)

    def get(self) -> Iterator[Any]:
        """The batches in order, epoch after epoch, until ``stop``.

        Raises:
          Exception: whatever the ``Sequence`` raised for a batch.
        """
        while self.is_running() or (self.queue is not None and not self.queue.empty()):
            try:
                item = self.queue.get(timeout=0.1)
            except queue.Empty:
                continue
            if isinstance(item, _Failure):
                self.stop()
                raise item.error
            yield item


class GeneratorEnqueuer(SequenceEnqueuer):
    """Runs a generator on worker threads (one at a time, as generators are not
    thread-safe) and yields its items until it is exhausted."""

    def __init__(self, generator: Any, use_multiprocessing: bool = False,
                 random_seed: Optional[int] = None):
        super().__init__(generator, use_multiprocessing)
        self.random_seed = random_seed
        self._lock = threading.Lock()
        self._finished = 0
        self._workers = 0

    def start(self, workers: int = 1, max_queue_size: int = 10) -> None:
        """Starts ``workers`` threads drawing from the generator."""
        self._finished, self._workers = 0, workers
        super().start(workers, max_queue_size)

    def _run(self, worker: int, workers: int) -> None:
        while not self._stop_event.is_set():
            with self._lock:
                try:
                    item: Any = next(self.sequence)
                except StopIteration:
                    item = _DONE
                except Exception as e:  # handed to the consumer, which raises it
                    item = _Failure(e)
            if item is _DONE:
                self._put(_DONE)
                return
            if not self._put(item) or isinstance(item, _Failure):
                return

    def get(self) -> Iterator[Any]:
        """The generator's items, until it is exhausted or ``stop`` is called.

        Raises:
          Exception: whatever the generator raised.
        """
        while self.is_running() or (self.queue is not None and not self.queue.empty()):
            try:
                item = self.queue.get(timeout=0.1)
            except queue.Empty:
                continue
            if item is _DONE:
                self._finished += 1
                if self._finished >= self._workers:
                    self._stop_event.set()
                    return
                continue
            if isinstance(item, _Failure):
                self.stop()
                raise item.error
            yield item
