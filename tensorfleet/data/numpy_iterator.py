"""``tf.data.NumpyIterator``: a data set's elements as numpy values, in a Python loop.

The iterator builds the data set's pipeline in a graph of its own and runs it in a
session of its own, one element per ``next()``; the data set must be fully known when
it is built (no placeholders, as for a one-shot iterator).
"""

from __future__ import annotations

from typing import Any

from tensorfleet import errors
from tensorfleet.data.dataset_ops import Dataset
from tensorfleet.data.iterator_ops import make_one_shot_iterator
from tensorfleet.framework.graph import Graph
from tensorfleet.runtime.session import Session


class NumpyIterator:
    """Iterates over ``dataset``'s elements as numpy arrays (nested as the elements are)."""

    def __init__(self, dataset: Any):
        if not isinstance(dataset, Dataset):
            raise TypeError(f"NumpyIterator needs a tf.data.Dataset, got "
                            f"{type(dataset).__name__}")
        self._graph = Graph()
        with self._graph.as_default():
            self._next = make_one_shot_iterator(dataset).get_next()
        self._session = Session(graph=self._graph)
        self._done = False

    def __iter__(self) -> "NumpyIterator":
        return self

    def __next__(self) -> Any:
        if self._done:
            raise StopIteration
        try:
            return self._session.run(self._next)
        except errors.OutOfRangeError:
            self.close()
            raise StopIteration from None

    def next(self) -> Any:
        """The next element (``__next__``)."""
        return self.__next__()

    def close(self) -> None:
        """Ends the iteration and releases its session."""
        if not self._done:
            self._done = True
            self._session.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # interpreter shutdown: the session may be gone already
            pass


__all__ = ["NumpyIterator"]
