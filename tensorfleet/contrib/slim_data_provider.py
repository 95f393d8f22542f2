"""``slim.dataset_data_provider.DatasetDataProvider`` (and ``slim.parallel_reader``'s
``parallel_read``): reads a ``slim.dataset.Dataset``'s records with queue-runner threads
and decodes them into named items (``image, label = provider.get(['image', 'label'])``)."""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence, Tuple

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import name_scope
from tensorfleet.ops import data_flow_ops
from tensorfleet.platform import gfile
from tensorfleet.training.input import string_input_producer
from tensorfleet.training.queue_runner import QueueRunner, add_queue_runner


def get_data_files(data_sources: Any) -> List[str]:
    """The files named or matched by ``data_sources`` (a pattern or a list of them).

    Raises:
      ValueError: nothing matches.
    """
    sources = [data_sources] if isinstance(data_sources, (str, bytes)) else list(data_sources)
    files: List[str] = []
    for src in sources:
        src = src.decode() if isinstance(src, bytes) else src
        files.extend(sorted(gfile.Glob(src)) if any(c in src for c in "*?[") else [src])
    if not files:
        raise ValueError(f"No data files found in {data_sources!r}")
    return files


def parallel_read(data_sources: Any, reader_class: Any, num_epochs: Optional[int] = None,
                  num_readers: int = 4, reader_kwargs: Optional[Dict[str, Any]] = None,
                  shuffle: bool = True, dtypes: Any = None, capacity: int = 256,
                  min_after_dequeue: int = 128, seed: Optional[int] = None,
                  scope: Optional[str] = None) -> Tuple[Any, Any]:
    """``(key, value)`` of one record, read by ``num_readers`` readers into a common queue
    (shuffling unless ``shuffle=False``) that queue-runner threads keep filled.

    Raises:
      ValueError: ``num_readers`` below one, or a ``min_after_dequeue`` not below
        ``capacity`` when shuffling.
    """
    if isinstance(num_readers, bool) or not isinstance(num_readers, int) or num_readers < 1:
        raise ValueError(f"parallel_read: num_readers must be a positive int, got "
                         f"{num_readers!r}")
    if shuffle and min_after_dequeue >= capacity:
        raise ValueError(f"parallel_read: min_after_dequeue ({min_after_dequeue}) must be "
                         f"below capacity ({capacity})")
    dtypes = list(dtypes or [_dtypes.string, _dtypes.string])
    with name_scope(scope or "parallel_read"):
        files = string_input_producer(get_data_files(data_sources), num_epochs=num_epochs,
                                      shuffle=shuffle, seed=seed, name="filenames")
        if shuffle:
            queue = data_flow_ops.RandomShuffleQueue(capacity, min_after_dequeue, dtypes,
                                                     seed=seed, name="common_queue")
        else:
            queue = data_flow_ops.FIFOQueue(capacity, dtypes, name="common_queue")
        enqueue_ops = [queue.enqueue(list(reader_class(**(reader_kwargs or {})).read(files)))
                       for _ in range(num_readers)]
        add_queue_runner(QueueRunner(queue, enqueue_ops))
        key, value = queue.dequeue()
    return key, value


class DataProvider:
    """Named tensors: ``get(items)`` returns them in the order asked."""

    def __init__(self, items_to_tensors: Dict[str, Any], num_samples: Optional[int]):
        self._items_to_tensors = items_to_tensors
        self._num_samples = num_samples

    def get(self, items: Sequence[str]) -> List[Any]:
        """The tensors of ``items``.

        Raises:
          ValueError: an item this provider does not have.
        """
        unknown = [i for i in items if i not in self._items_to_tensors]
        if unknown:
            raise ValueError(f"DataProvider: unknown items {unknown}; known: "
                             f"{self.list_items()}")
        return [self._items_to_tensors[i] for i in items]

    def list_items(self) -> List[str]:
        """The item names."""
        return list(self._items_to_tensors)

    def num_samples(self) -> Optional[int]:
        """The number of records of the data set."""
        return self._num_samples


class DatasetDataProvider(DataProvider):
    """The decoded items of a ``slim.dataset.Dataset``'s records, plus ``record_key`` (the
    reader's key of the record)."""

    def __init__(self, dataset: Any, num_readers: int = 1,
                 reader_kwargs: Optional[Dict[str, Any]] = None, shuffle: bool = True,
                 num_epochs: Optional[int] = None, common_queue_capacity: int = 256,
                 common_queue_min: int = 128, record_key: str = "record_key",
                 seed: Optional[int] = None, scope: Optional[str] = None):
        with name_scope(scope or "dataset_data_provider"):
            key, data = parallel_read(dataset.data_sources, reader_class=dataset.reader,
                                      num_epochs=num_epochs, num_readers=num_readers,
                                      reader_kwargs=reader_kwargs, shuffle=shuffle,
                                      capacity=common_queue_capacity,
                                      min_after_dequeue=common_queue_min, seed=seed)
            items = dataset.decoder.list_items()
            if record_key in items:
                raise ValueError(f"DatasetDataProvider: the item name {record_key!r} is the "
                                 f"record_key; pass another record_key")
            tensors = dataset.decoder.decode(data, items)
        items_to_tensors = dict(zip(items, tensors))
        items_to_tensors[record_key] = key
        super().__init__(items_to_tensors, dataset.num_samples)


__all__ = ["DataProvider", "DatasetDataProvider", "get_data_files", "parallel_read"]
