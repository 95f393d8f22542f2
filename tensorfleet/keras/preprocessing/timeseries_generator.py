"""``TimeseriesGenerator``: batches of fixed-length windows over a time series, each
with the target at the step after the window."""

from __future__ import annotations

import json
from typing import Any, Dict, Optional, Tuple

import numpy as np

from tensorfleet.keras.batch_sequence import Sequence


class TimeseriesGenerator(Sequence):
    """Windows of ``length`` steps (every ``sampling_rate``-th step) of ``data``, ending
    before step ``i``, with target ``targets[i]``; consecutive windows ``stride`` steps
    apart, ``batch_size`` windows per batch, between ``start_index`` and ``end_index``."""

    def __init__(self, data: Any, targets: Any, length: int, sampling_rate: int = 1,
                 stride: int = 1, start_index: int = 0, end_index: Optional[int] = None,
                 shuffle: bool = False, reverse: bool = False, batch_size: int = 128):
        if len(data) != len(targets):
            raise ValueError(f"Data and targets have to be of same length. Data length is "
                             f"{len(data)} while target length is {len(targets)}")
        self.data, self.targets = data, targets
        self.length, self.sampling_rate, self.stride = length, sampling_rate, stride
        self.start_index = start_index + length
        self.end_index = len(data) - 1 if end_index is None else end_index
        self.shuffle, self.reverse, self.batch_size = shuffle, reverse, batch_size
        if self.start_index > self.end_index:
            raise ValueError(f"`start_index+length={self.start_index} > end_index="
                             f"{self.end_index}` is disallowed, as no part of the sequence "
                             f"would be left to be used as current step.")
        self._rng = np.random.RandomState()

    def __len__(self) -> int:
        span = self.batch_size * self.stride
        return (self.end_index - self.start_index + span) // span

    def __getitem__(self, index: int) -> Tuple[np.ndarray, np.ndarray]:
        if not 0 <= index < len(self):
            raise IndexError(f"TimeseriesGenerator: batch {index} of {len(self)}")
        if self.shuffle:
            rows = self._rng.randint(self.start_index, self.end_index + 1,
                                     size=self.batch_size)
        else:
            first = self.start_index + self.batch_size * self.stride * index
            rows = np.arange(first, min(first + self.batch_size * self.stride,
                                        self.end_index + 1), self.stride)
        samples = np.array([self.data[row - self.length:row:self.sampling_rate]
                            for row in rows])
        targets = np.array([self.targets[row] for row in rows])
        if self.reverse:
            return samples[:, ::-1, ...], targets
        return samples, targets

    def get_config(self) -> Dict[str, Any]:
        """The generator's settings (the data as lists)."""
        def plain(x: Any) -> Any:
            return np.asarray(x).tolist()
        return {"data": plain(self.data), "targets": plain(self.targets),
                "length": self.length, "sampling_rate": self.sampling_rate,
                "stride": self.stride, "start_index": self.start_index - self.length,
                "end_index": self.end_index, "shuffle": self.shuffle,
                "reverse": self.reverse, "batch_size": self.batch_size}

    def to_json(self, **kwargs: Any) -> str:
        """The generator as JSON."""
        return json.dumps({"class_name": type(self).__name__,
                           "config": self.get_config()}, **kwargs)
