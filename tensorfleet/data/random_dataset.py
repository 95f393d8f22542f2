"""``tf.data.experimental.RandomDataset``: an endless sequence of uniformly random int64
values (the same sequence for the same ``seed``)."""

from __future__ import annotations

from typing import Iterator, Optional

import numpy as np

from tensorfleet import dtypes as _dtypes
from tensorfleet.data.dataset_ops import Dataset


class RandomDataset(Dataset):
    """Random int64 scalars over the whole int64 range, from numpy's PCG64 seeded with
    ``seed`` (fresh entropy when None)."""

    def __init__(self, seed: Optional[int] = None):
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
            raise TypeError(f"RandomDataset: seed must be an int or None, got {seed!r}")

        def values() -> Iterator[np.ndarray]:
            rng = np.random.default_rng(seed)
            info = np.iinfo(np.int64)
            while True:
                yield rng.integers(info.min, info.max, dtype=np.int64, endpoint=True)
        ds = Dataset.from_generator(values, _dtypes.int64, [])
        super().__init__(ds._source, ds._leaves, ds._source_spec, ds._stages, ds._spec)


__all__ = ["RandomDataset"]
