"""``tf.keras.datasets.cifar10`` and ``cifar100``: 32x32 colour images from the Python
batches of the CIFAR archives, as Keras unpacks them in ``~/.keras/datasets``
(``cifar-10-batches-py``, ``cifar-100-python``). The batches are pickles; they are read by
``tensorfleet.keras.pickled_data``, which builds plain data and runs nothing."""

from __future__ import annotations

import os
from typing import Optional, Tuple

import numpy as np

from tensorfleet.keras import backend as K
from tensorfleet.keras.pickled_data import load
from tensorfleet.keras.utils import get_file

Split = Tuple[np.ndarray, np.ndarray]
CIFAR10_URL = "https://www.cs.toronto.edu/~kriz/cifar-10-python.tar.gz"
CIFAR100_URL = "https://www.cs.toronto.edu/~kriz/cifar-100-python.tar.gz"
_MAX_BATCH_BYTES = 1 << 30


def load_batch(fpath: str, label_key: str = "labels") -> Split:
    """One CIFAR batch file: ``(data, labels)``, data as ``[n, 3, 32, 32]`` uint8.

    Raises:
      ValueError: the file is not a CIFAR batch.
    """
    if os.path.getsize(fpath) > _MAX_BATCH_BYTES:
        raise ValueError(f"{fpath}: larger than {_MAX_BATCH_BYTES} bytes")
    with open(fpath, "rb") as f:
        d = load(f.read())
    if not isinstance(d, dict):
        raise ValueError(f"{fpath}: not a CIFAR batch (a pickled dict)")
    d = {(k.decode("utf8") if isinstance(k, bytes) else k): v for k, v in d.items()}
    data, labels = d.get("data"), d.get(label_key)
    if not isinstance(data, np.ndarray) or data.ndim != 2 or data.shape[1] != 3072 \
            or labels is None or len(labels) != len(data):
        raise ValueError(f"{fpath}: not a CIFAR batch (needs 'data' of [n, 3072] and "
                         f"{label_key!r} of n labels)")
    return data.reshape(len(data), 3, 32, 32), np.asarray(labels)


def _finish(x_train: np.ndarray, y_train: np.ndarray, x_test: np.ndarray,
            y_test: np.ndarray) -> Tuple[Split, Split]:
    y_train = np.reshape(y_train, (len(y_train), 1))
    y_test = np.reshape(y_test, (len(y_test), 1))
    if K.image_data_format() == "channels_last":
        x_train = x_train.transpose(0, 2, 3, 1)
        x_test = x_test.transpose(0, 2, 3, 1)
    return (x_train, y_train), (x_test.astype(x_train.dtype), y_test.astype(y_train.dtype))


def load_cifar10(cache_dir: Optional[str] = None) -> Tuple[Split, Split]:
    """CIFAR-10: 50,000 training and 10,000 test images of 10 classes, uint8 labels of
    shape ``(n, 1)``.

    Raises:
      FileNotFoundError: the unpacked ``cifar-10-batches-py`` folder (or its archive) is
        not in the Keras cache; the message names the path and URL.
    """
    path = get_file("cifar-10-batches-py", CIFAR10_URL, untar=True, cache_dir=cache_dir)
    xs, ys = zip(*(load_batch(os.path.join(path, f"data_batch_{i}")) for i in range(1, 6)))
    x_test, y_test = load_batch(os.path.join(path, "test_batch"))
    return _finish(np.concatenate(xs).astype("uint8"), np.concatenate(ys).astype("uint8"),
                   x_test, y_test)


def load_cifar100(label_mode: str = "fine",
                  cache_dir: Optional[str] = None) -> Tuple[Split, Split]:
    """CIFAR-100: 50,000 training and 10,000 test images, labelled by 100 ``fine``
    classes or 20 ``coarse`` superclasses.

    Raises:
      ValueError: a ``label_mode`` other than ``fine`` or ``coarse``.
      FileNotFoundError: the unpacked ``cifar-100-python`` folder (or its archive) is not
        in the Keras cache.
    """
    if label_mode not in ("fine", "coarse"):
        raise ValueError(f'`label_mode` must be one of `"fine"`, `"coarse"`. Received: '
                         f'label_mode={label_mode}.')
    path = get_file("cifar-100-python", CIFAR100_URL, untar=True, cache_dir=cache_dir)
    x_train, y_train = load_batch(os.path.join(path, "train"), label_mode + "_labels")
    x_test, y_test = load_batch(os.path.join(path, "test"), label_mode + "_labels")
    return _finish(x_train, y_train, x_test, y_test)
