"""MNIST for TensorFlow 1.x tutorials: ``input_data.read_data_sets(dir, one_hot=True)``.

Reads the four gzipped IDX files of the MNIST distribution from ``dir`` (nothing is
downloaded: a missing file is an error that names the files to put there) and returns
``train`` / ``validation`` / ``test`` ``DataSet`` objects whose ``next_batch`` walks
the examples in shuffled epochs. Images become float32 in [0, 1] flattened to 784
values (``reshape``), labels int class ids or float one-hot rows (``one_hot``).
"""

from __future__ import annotations

import collections
import gzip
import os
from typing import Any, BinaryIO, Optional, Tuple

import numpy as np

from tensorfleet import dtypes as _dtypes

TRAIN_IMAGES = "train-images-idx3-ubyte.gz"
TRAIN_LABELS = "train-labels-idx1-ubyte.gz"
TEST_IMAGES = "t10k-images-idx3-ubyte.gz"
TEST_LABELS = "t10k-labels-idx1-ubyte.gz"
_IMAGE_MAGIC = 2051
_LABEL_MAGIC = 2049

Datasets = collections.namedtuple("Datasets", ["train", "validation", "test"])


def _read32(stream: BinaryIO) -> int:
    data = stream.read(4)
    if len(data) != 4:
        raise ValueError("truncated IDX header")
    return int(np.frombuffer(data, dtype=">u4")[0])


def _gz_stream(f: Any) -> Any:
    return gzip.GzipFile(fileobj=f) if not isinstance(f, gzip.GzipFile) else f


def extract_images(f: BinaryIO) -> np.ndarray:
    """The images of a gzipped IDX3 file object as uint8 ``[N, rows, cols, 1]``.

    Raises:
      ValueError: the file is not an IDX image file or is truncated.
    """
    with _gz_stream(f) as stream:
        magic = _read32(stream)
        if magic != _IMAGE_MAGIC:
            raise ValueError(f"Invalid magic number {magic} in MNIST image file: "
                             f"{getattr(f, 'name', f)} (expected {_IMAGE_MAGIC})")
        n, rows, cols = _read32(stream), _read32(stream), _read32(stream)
        data = stream.read(n * rows * cols)
    if len(data) != n * rows * cols:
        raise ValueError(f"MNIST image file {getattr(f, 'name', f)} is truncated: "
                         f"{len(data)} of {n * rows * cols} pixel bytes")
    return np.frombuffer(data, dtype=np.uint8).reshape(n, rows, cols, 1)


def dense_to_one_hot(labels_dense: np.ndarray, num_classes: int) -> np.ndarray:
    """Class ids ``[N]`` as one-hot float rows ``[N, num_classes]``."""
    labels = np.asarray(labels_dense).reshape(-1)
    out = np.zeros((labels.shape[0], num_classes))
    out[np.arange(labels.shape[0]), labels] = 1
    return out


def extract_labels(f: BinaryIO, one_hot: bool = False, num_classes: int = 10) -> np.ndarray:
    """The labels of a gzipped IDX1 file object: uint8 ``[N]``, or ``[N, num_classes]``
    one-hot floats.

    Raises:
      ValueError: the file is not an IDX label file or is truncated.
    """
    with _gz_stream(f) as stream:
        magic = _read32(stream)
        if magic != _LABEL_MAGIC:
            raise ValueError(f"Invalid magic number {magic} in MNIST label file: "
                             f"{getattr(f, 'name', f)} (expected {_LABEL_MAGIC})")
        n = _read32(stream)
        data = stream.read(n)
    if len(data) != n:
        raise ValueError(f"MNIST label file {getattr(f, 'name', f)} is truncated: "
                         f"{len(data)} of {n} labels")
    labels = np.frombuffer(data, dtype=np.uint8)
    return dense_to_one_hot(labels, num_classes) if one_hot else labels


class DataSet:
    """Images and labels walked in shuffled epochs by ``next_batch``."""

    def __init__(self, images: np.ndarray, labels: np.ndarray, fake_data: bool = False,
                 one_hot: bool = False, dtype: Any = _dtypes.float32, reshape: bool = True,
                 seed: Optional[int] = None):
        """``images`` ``[N, rows, cols, depth]`` uint8, ``labels`` ``[N]`` or one-hot.

        Raises:
          TypeError: ``dtype`` is neither uint8 nor float32.
          ValueError: images and labels differ in number.
        """
        dt = _dtypes.as_dtype(dtype)
        if dt not in (_dtypes.uint8, _dtypes.float32):
            raise TypeError(f"Invalid image dtype {dt.name!r}, expected uint8 or float32")
        self._rng = np.random.RandomState(seed)
        self._one_hot = one_hot
        if fake_data:
            self._num_examples = 10000
        else:
            if images.shape[0] != labels.shape[0]:
                raise ValueError(f"images.shape: {images.shape} labels.shape: {labels.shape}")
            self._num_examples = images.shape[0]
            if reshape:
                if images.ndim == 4 and images.shape[3] != 1:
                    raise ValueError(f"reshape=True needs one channel, got {images.shape}")
                images = images.reshape(images.shape[0], -1)
            if dt is _dtypes.float32:
                images = images.astype(np.float32) * np.float32(1.0 / 255.0)
        self._images = images
        self._labels = labels
        self._epochs_completed = 0
        self._index_in_epoch = 0

    @property
    def images(self) -> np.ndarray:
        """All images."""
        return self._images

    @property
    def labels(self) -> np.ndarray:
        """All labels."""
        return self._labels

    @property
    def num_examples(self) -> int:
        """The number of examples."""
        return self._num_examples

    @property
    def epochs_completed(self) -> int:
        """Whole passes over the examples that ``next_batch`` has finished."""
        return self._epochs_completed

    def _shuffle(self) -> None:
        perm = self._rng.permutation(self._num_examples)
        self._images = self._images[perm]
        self._labels = self._labels[perm]

    def next_batch(self, batch_size: int, fake_data: bool = False,
                   shuffle: bool = True) -> Tuple[np.ndarray, np.ndarray]:
        """The next ``batch_size`` examples; a batch that crosses the end of an epoch
        takes the epoch's remaining examples and the first ones of the next (reshuffled)
        epoch."""
        if fake_data:
            image = [1] * 784
            label = [1] + [0] * 9 if self._one_hot else 0
            return ([image for _ in range(batch_size)], [label for _ in range(batch_size)])
        if batch_size < 0:
            raise ValueError(f"next_batch: batch_size must be >= 0, got {batch_size}")
        start = self._index_in_epoch
        if self._epochs_completed == 0 and start == 0 and shuffle:
            self._shuffle()
        if start + batch_size <= self._num_examples:
            self._index_in_epoch = start + batch_size
            return self._images[start:start + batch_size], self._labels[start:start + batch_size]
        self._epochs_completed += 1
        rest_images, rest_labels = self._images[start:], self._labels[start:]
        if shuffle:
            self._shuffle()
        taken = batch_size - rest_images.shape[0]
        self._index_in_epoch = taken
        return (np.concatenate([rest_images, self._images[:taken]], axis=0),
                np.concatenate([rest_labels, self._labels[:taken]], axis=0))


def read_data_sets(train_dir: str, fake_data: bool = False, one_hot: bool = False,
                   dtype: Any = _dtypes.float32, reshape: bool = True,
                   validation_size: int = 5000, seed: Optional[int] = None,
                   source_url: Optional[str] = None) -> Datasets:
    """MNIST from the four ``.gz`` files in ``train_dir``; the first ``validation_size``
    training examples become the validation set.

    Raises:
      FileNotFoundError: a file is missing (tensorfleet never downloads; the error names
        the files to place in ``train_dir``).
      ValueError: ``validation_size`` is not within the training set.
    """
    if fake_data:
        def fake() -> DataSet:
            return DataSet(np.zeros((0,)), np.zeros((0,)), fake_data=True, one_hot=one_hot,
                           dtype=dtype, seed=seed)
        return Datasets(train=fake(), validation=fake(), test=fake())
    names = [TRAIN_IMAGES, TRAIN_LABELS, TEST_IMAGES, TEST_LABELS]
    missing = [n for n in names if not os.path.isfile(os.path.join(train_dir, n))]
    if missing:
        raise FileNotFoundError(
            f"MNIST files missing from {train_dir!r}: {', '.join(missing)}. tensorfleet does "
            f"not download data: place the four files {', '.join(names)} (from the MNIST "
            f"distribution) in that directory.")
    arrays = []
    for n in names:
        with open(os.path.join(train_dir, n), "rb") as f:
            arrays.append(extract_images(f) if "images" in n else extract_labels(f, one_hot))
    train_images, train_labels, test_images, test_labels = arrays
    if not 0 <= validation_size <= len(train_images):
        raise ValueError(f"Validation size should be between 0 and {len(train_images)}. "
                         f"Received: {validation_size}.")
    kwargs = dict(dtype=dtype, reshape=reshape, seed=seed, one_hot=one_hot)
    return Datasets(
        train=DataSet(train_images[validation_size:], train_labels[validation_size:], **kwargs),
        validation=DataSet(train_images[:validation_size], train_labels[:validation_size],
                           **kwargs),
        test=DataSet(test_images, test_labels, **kwargs))


def load_mnist(train_dir: str = "MNIST-data") -> Datasets:
    """``read_data_sets(train_dir)`` with its defaults."""
    return read_data_sets(train_dir)


__all__ = ["DataSet", "Datasets", "read_data_sets", "load_mnist", "extract_images",
           "extract_labels", "dense_to_one_hot"]
