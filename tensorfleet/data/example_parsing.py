"""``parse_example_dataset`` and ``make_batched_features_dataset``: batches of serialized
``tf.train.Example`` records parsed into feature dicts, the input pipeline of TF 1.x
estimator programs."""

from __future__ import annotations

from typing import Any, Callable, Dict, Optional

from tensorfleet import errors
from tensorfleet.data.dataset_ops import Dataset, TFRecordDataset
from tensorfleet.ops.parsing_ops import FixedLenFeature, FixedLenSequenceFeature, parse_example

Transformation = Callable[[Dataset], Dataset]


def parse_example_dataset(features: Dict[str, Any], num_parallel_calls: Any = 1,
                          deterministic: Any = None) -> Transformation:
    """Parses each element (a vector of serialized Examples, i.e. after ``batch``) into
    the dict ``tf.parse_example(element, features)`` gives.

    Raises:
      ValueError: ``features`` empty or not a dict.
      UnimplementedError: a ``VarLenFeature`` or ``SparseFeature``: data set elements are
        dense here, so parse those with ``tf.parse_example`` on ``get_next()``'s output.
    """
    if not isinstance(features, dict) or not features:
        raise ValueError(f"parse_example_dataset: features must be a non-empty dict, got "
                         f"{features!r}")
    sparse = sorted(k for k, v in features.items()
                    if not isinstance(v, (FixedLenFeature, FixedLenSequenceFeature)))
    if sparse:
        raise errors.UnimplementedError(
            None, None, f"parse_example_dataset: features {sparse} parse to SparseTensors, "
            f"which data set elements cannot hold; batch the serialized records and call "
            f"tf.parse_example on the iterator's get_next() for them")

    def apply(ds: Dataset) -> Dataset:
        if not isinstance(ds, Dataset):
            raise TypeError(f"parse_example_dataset is a transformation for Dataset.apply; "
                            f"it was applied to {type(ds).__name__}")
        return ds.map(lambda serialized: parse_example(serialized, features))
    return apply


def make_batched_features_dataset(file_pattern: Any, batch_size: int,
                                  features: Dict[str, Any],
                                  reader: Callable[..., Dataset] = TFRecordDataset,
                                  label_key: Optional[str] = None,
                                  reader_args: Optional[list] = None,
                                  num_epochs: Optional[int] = None, shuffle: bool = True,
                                  shuffle_buffer_size: int = 10000,
                                  shuffle_seed: Optional[int] = None,
                                  prefetch_buffer_size: Any = None,
                                  reader_num_threads: Any = None,
                                  parser_num_threads: Any = None,
                                  sloppy_ordering: bool = False,
                                  drop_final_batch: bool = False) -> Dataset:
    """Batches of parsed features (and ``features[label_key]`` apart, as ``(features,
    label)``) from the files matching ``file_pattern``, read by ``reader`` (one file data
    set per file), shuffled unless ``shuffle=False``, repeated ``num_epochs`` times
    (forever when None).

    Raises:
      ValueError: a ``label_key`` that is not among ``features``.
      UnimplementedError: sparse features (see ``parse_example_dataset``).
    """
    if label_key is not None and label_key not in features:
        raise ValueError(f"make_batched_features_dataset: label_key {label_key!r} is not "
                         f"among the features {sorted(features)}")
    threads = 1 if reader_num_threads is None else int(reader_num_threads)
    files = Dataset.list_files(file_pattern, shuffle=shuffle, seed=shuffle_seed)
    args = list(reader_args or [])
    ds = files.interleave(lambda f: reader(f, *args), cycle_length=max(threads, 1))
    if shuffle:
        ds = ds.shuffle(shuffle_buffer_size, seed=shuffle_seed)
    ds = ds.repeat(num_epochs).batch(batch_size, drop_remainder=drop_final_batch)
    ds = ds.apply(parse_example_dataset(features))
    if label_key is not None:
        def split(parsed: Dict[str, Any]) -> Any:
            parsed = dict(parsed)
            label = parsed.pop(label_key)
            return parsed, label
        ds = ds.map(split)
    return ds


__all__ = ["parse_example_dataset", "make_batched_features_dataset"]
