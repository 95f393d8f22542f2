"""CSV files as data sets: ``tf.data.experimental.CsvDataset`` (one tuple of column values
per record) and ``make_csv_dataset`` (batches of ``{column name: values}``, with the
label apart, column names read from the header and types inferred from the first rows).

Records are lines parsed by ``decode_csv``, so quoting, ``na_value`` and column selection
behave as there; a header line is skipped in every file.
"""

from __future__ import annotations

import csv
import io
import os
from typing import Any, Dict, List, Optional, Sequence, Union

import numpy as np

from tensorfleet import dtypes as _dtypes
from tensorfleet import errors
from tensorfleet.data import readers
from tensorfleet.data.dataset_ops import Dataset, TextLineDataset
from tensorfleet.framework.graph import Tensor
from tensorfleet.ops.array_ops_core import constant
from tensorfleet.ops.string_ops import decode_csv
from tensorfleet.platform.tf_record import open_for_reading

_CSV_TYPES = (_dtypes.int32, _dtypes.int64, _dtypes.float32, _dtypes.float64, _dtypes.string)


def _defaults(record_defaults: Sequence[Any]) -> List[Any]:
    """``record_defaults`` for ``decode_csv``: a dtype becomes a required column (its
    empty default is made by ``_in_graph`` in the graph that parses)."""
    out: List[Any] = []
    for i, d in enumerate(record_defaults):
        if isinstance(d, _dtypes.DType) or (isinstance(d, type) and issubclass(d, np.generic)):
            dt = _dtypes.as_dtype(d)
            if dt not in _CSV_TYPES:
                raise TypeError(f"CsvDataset: column {i} has type {dt.name}; CSV columns are "
                                f"{[t.name for t in _CSV_TYPES]}")
            out.append(dt)
        elif isinstance(d, Tensor):
            raise TypeError(f"CsvDataset: record default {i} is a tensor; give the value "
                            f"(e.g. [0.0]) or the dtype of a required column")
        else:
            out.append(d)
    return out


def _in_graph(defaults: Sequence[Any]) -> List[Any]:
    return [constant([], dtype=d) if isinstance(d, _dtypes.DType) else d for d in defaults]


def _known_names(filenames: Any, what: str) -> Union[np.ndarray, Tensor]:
    return readers.filenames(filenames, what)


class CsvDataset(Dataset):
    """The records of CSV files, each a tuple with one scalar per (selected) column, typed
    by ``record_defaults`` (a value: the column's type and the value of an empty field; a
    dtype: a required column of that type).

    Raises:
      ValueError: both ``select_cols`` and ``exclude_cols``.
      UnimplementedError: ``header=True`` with file names that only the graph knows.
    """

    def __init__(self, filenames: Any, record_defaults: Sequence[Any],
                 compression_type: Any = None, buffer_size: Any = None, header: bool = False,
                 field_delim: str = ",", use_quote_delim: bool = True, na_value: str = "",
                 select_cols: Optional[Sequence[int]] = None,
                 exclude_cols: Optional[Sequence[int]] = None):
        if select_cols is not None and exclude_cols is not None:
            raise ValueError("CsvDataset: give select_cols or exclude_cols, not both")
        defaults = _defaults(list(record_defaults))
        if exclude_cols is not None:
            skip = sorted({int(c) for c in exclude_cols})
            total = len(defaults) + len(skip)
            if any(c < 0 or c >= total for c in skip):
                raise ValueError(f"CsvDataset: exclude_cols {skip} out of range for "
                                 f"{total} columns")
            select_cols = [c for c in range(total) if c not in skip]
        names = _known_names(filenames, "CsvDataset")
        if header:
            if isinstance(names, Tensor):
                raise errors.UnimplementedError(
                    None, None, "CsvDataset: header=True needs file names known when the "
                    "data set is built")
            lines = Dataset.from_tensor_slices(names).flat_map(
                lambda f: TextLineDataset(f, compression_type, buffer_size).skip(1))
        else:
            lines = TextLineDataset(names, compression_type, buffer_size)
        cols = None if select_cols is None else list(select_cols)

        def parse(line: Tensor) -> tuple:
            return tuple(decode_csv(line, _in_graph(defaults), field_delim=field_delim,
                                    use_quote_delim=use_quote_delim, na_value=na_value,
                                    select_cols=cols))
        ds = lines.map(parse)
        super().__init__(ds._source, ds._leaves, ds._source_spec, ds._stages, ds._spec)


def _read_rows(path: bytes, compression: str, delim: str, quote: bool, limit: int,
               ) -> List[List[str]]:
    f = open_for_reading(os.fsdecode(path), compression or None)
    try:
        text = io.TextIOWrapper(f, encoding="utf-8", newline="")
        reader = csv.reader(text, delimiter=delim,
                            quoting=csv.QUOTE_MINIMAL if quote else csv.QUOTE_NONE)
        rows = []
        for row in reader:
            rows.append(row)
            if len(rows) >= limit:
                break
        return rows
    finally:
        f.close()


def _infer_type(values: List[str], na_value: str) -> _dtypes.DType:
    """The narrowest of int32, int64, float32, float64, string that holds every value
    (TensorFlow's order of trial)."""
    rank = 0
    for v in values:
        if v == na_value or v == "":
            continue
        try:
            i = int(v)
            rank = max(rank, 0 if -2 ** 31 <= i < 2 ** 31 else 1)
            continue
        except ValueError:
            pass
        try:
            x = float(v)
            rank = max(rank, 2 if abs(x) <= np.finfo(np.float32).max or not np.isfinite(x)
                       else 3)
        except ValueError:
            return _dtypes.string
    return _CSV_TYPES[rank]


def make_csv_dataset(file_pattern: Any, batch_size: int,
                     column_names: Optional[Sequence[str]] = None,
                     column_defaults: Optional[Sequence[Any]] = None,
                     label_name: Optional[str] = None,
                     select_columns: Optional[Sequence[Union[int, str]]] = None,
                     field_delim: str = ",", use_quote_delim: bool = True, na_value: str = "",
                     header: bool = True, num_epochs: Optional[int] = None,
                     shuffle: bool = True, shuffle_buffer_size: int = 10000,
                     shuffle_seed: Optional[int] = None, prefetch_buffer_size: Any = None,
                     num_parallel_reads: Any = None, sloppy: bool = False,
                     num_rows_for_inference: int = 100, compression_type: Any = None,
                     ignore_errors: bool = False) -> Dataset:
    """Batches of ``({column: values}, label)`` (just the dict without ``label_name``)
    from the CSV files matching ``file_pattern``, repeated ``num_epochs`` times (forever
    when None, and then every batch is full), shuffled through ``shuffle_buffer_size``
    records when ``shuffle``.

    Column names come from the first file's header unless given; column types from
    ``column_defaults`` or, without them, from the first ``num_rows_for_inference`` rows.

    Raises:
      ValueError: no column names (``header=False`` and none given), names that repeat,
        a ``label_name`` or selected column that is not a column, defaults of the wrong
        count.
      UnimplementedError: ``ignore_errors=True``.
    """
    if ignore_errors:
        raise errors.UnimplementedError(None, None, "make_csv_dataset: ignore_errors=True is "
                                        "not supported; malformed records raise")
    files = readers.match_files(file_pattern)
    compression = readers.compression(compression_type, "make_csv_dataset")
    delim = field_delim
    first_rows = _read_rows(files[0], compression, delim, use_quote_delim,
                            num_rows_for_inference + (1 if header else 0))
    if column_names is None:
        if not header or not first_rows:
            raise ValueError("make_csv_dataset: column_names are needed when the files have "
                             "no header")
        column_names = first_rows[0]
    names = list(column_names)
    if len(set(names)) != len(names):
        raise ValueError(f"make_csv_dataset: column names repeat: {names}")
    if label_name is not None and label_name not in names:
        raise ValueError(f"make_csv_dataset: label_name {label_name!r} is not a column of "
                         f"{names}")
    cols = list(range(len(names)))
    if select_columns is not None:
        picked = sorted({names.index(c) if isinstance(c, str) else int(c)
                         for c in select_columns if not isinstance(c, str) or c in names})
        if len(picked) != len(set(select_columns)) or any(
                c < 0 or c >= len(names) for c in picked):
            raise ValueError(f"make_csv_dataset: select_columns {list(select_columns)} do "
                             f"not all name columns of {names}")
        cols = picked
        if label_name is not None and names.index(label_name) not in cols:
            raise ValueError(f"make_csv_dataset: label_name {label_name!r} must be among the "
                             f"selected columns")
    if column_defaults is not None:
        defaults = _defaults(list(column_defaults))
        if len(defaults) != len(cols):
            raise ValueError(f"make_csv_dataset: {len(defaults)} column_defaults for "
                             f"{len(cols)} columns")
    else:
        body = first_rows[1:] if header else first_rows
        types = [_infer_type([r[c] for r in body if c < len(r)], na_value) for c in cols]
        defaults = [[np.array(b"" if t is _dtypes.string else 0, dtype=object
                              if t is _dtypes.string else t.np)] for t in types]
    keys = [names[c] for c in cols]
    parallel = 1 if num_parallel_reads in (None,) else int(num_parallel_reads)
    if parallel < 1:
        raise ValueError(f"make_csv_dataset: num_parallel_reads must be >= 1, got "
                         f"{num_parallel_reads!r}")
    file_ds = Dataset.from_tensor_slices(files)
    if shuffle:
        file_ds = file_ds.shuffle(len(files), seed=shuffle_seed)

    def read(f: Tensor) -> Dataset:
        lines = TextLineDataset(f, compression)
        return lines.skip(1) if header else lines
    lines = file_ds.interleave(read, cycle_length=parallel)
    sel = None if cols == list(range(len(names))) else cols

    def parse(line: Tensor) -> Any:
        values = decode_csv(line, _in_graph(defaults), field_delim=delim,
                            use_quote_delim=use_quote_delim,
                            na_value=na_value, select_cols=sel)
        features: Dict[str, Tensor] = dict(zip(keys, values))
        if label_name is None:
            return features
        label = features.pop(label_name)
        return features, label
    ds = lines.map(parse)
    if shuffle:
        ds = ds.shuffle(shuffle_buffer_size, seed=shuffle_seed)
    ds = ds.repeat(num_epochs)
    return ds.batch(batch_size, drop_remainder=num_epochs is None)


__all__ = ["CsvDataset", "make_csv_dataset"]
