"""``tf.data.experimental.SqlDataset``: the rows of an SQL query, one element per row."""

from __future__ import annotations

import sqlite3
from typing import Any, Iterator

import numpy as np

from tensorfleet import dtypes as _dtypes
from tensorfleet.data.dataset_ops import Dataset
from tensorfleet.framework.nest import flatten


class SqlDataset(Dataset):
    """Each row of ``query`` on the database ``data_source_name`` as a tuple with one
    scalar per column, typed by ``output_types`` (one dtype per column).

    ``driver_name`` "sqlite" (the only driver, as in TensorFlow) opens the file with
    Python's sqlite3, read-only. The query runs when the iterator starts.

    Raises:
      ValueError: another driver, or no output types.
      InvalidArgumentError: (when run) a row with another number of columns, or a value
        that does not convert to its column's dtype.
    """

    def __init__(self, driver_name: str, data_source_name: str, query: str,
                 output_types: Any):
        if driver_name != "sqlite":
            raise ValueError(f"SqlDataset: driver_name must be 'sqlite', got {driver_name!r}")
        types = [_dtypes.as_dtype(t) for t in flatten(output_types)]
        if not types:
            raise ValueError("SqlDataset: output_types must name at least one column")
        source, sql = str(data_source_name), str(query)

        def rows() -> Iterator[tuple]:
            conn = sqlite3.connect(f"file:{source}?mode=ro", uri=True)
            try:
                for row in conn.execute(sql):
                    if len(row) != len(types):
                        raise ValueError(f"SqlDataset: the query returned {len(row)} "
                                         f"columns, output_types names {len(types)}")
                    yield tuple(np.asarray(v.encode() if isinstance(v, str) else v,
                                           dtype=object if t is _dtypes.string
                                           else t.as_numpy_dtype)
                                for v, t in zip(row, types))
            finally:
                conn.close()
        ds = Dataset.from_generator(rows, tuple(types), tuple([] for _ in types))
        super().__init__(ds._source, ds._leaves, ds._source_spec, ds._stages, ds._spec)


__all__ = ["SqlDataset"]
