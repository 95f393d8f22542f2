"""Batches of augmented images: ``Iterator`` (the shuffling, indexable base),
``NumpyArrayIterator`` over arrays in memory and ``DirectoryIterator`` over image files in
one subfolder per class, each passing its images through an ``ImageDataGenerator``."""

from __future__ import annotations

import logging
import os
import threading
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from tensorfleet.keras import backend as K
from tensorfleet.keras.batch_sequence import Sequence as KerasSequence
from tensorfleet.keras.preprocessing.image_arrays import array_to_img, img_to_array, load_img

logger = logging.getLogger(__name__)
WHITE_LIST_FORMATS = ("png", "jpg", "jpeg", "bmp", "ppm", "tif", "tiff")
_CLASS_MODES = ("categorical", "binary", "sparse", "input", None)


class Iterator(KerasSequence):
    """``n`` samples in batches of ``batch_size``, reshuffled each epoch with ``shuffle``
    (from ``seed`` plus the epoch); subclasses build a batch from its sample indices in
    ``_get_batches_of_transformed_samples``. Indexable (``it[i]``) and iterable
    (``next(it)``, endlessly)."""

    def __init__(self, n: int, batch_size: int, shuffle: bool, seed: Optional[int]):
        if batch_size < 1:
            raise ValueError(f"batch_size must be at least 1, got {batch_size}")
        self.n, self.batch_size, self.shuffle, self.seed = n, batch_size, shuffle, seed
        self.batch_index = 0
        self.total_batches_seen = 0
        self.lock = threading.Lock()
        self.index_array: Optional[np.ndarray] = None

    def _set_index_array(self) -> None:
        self.index_array = np.arange(self.n)
        if self.shuffle:
            self.index_array = np.random.permutation(self.n)

    def __getitem__(self, idx: int) -> Any:
        if idx >= len(self):
            raise ValueError(f"Asked to retrieve element {idx}, but the Sequence has length "
                             f"{len(self)}")
        if self.seed is not None:
            np.random.seed(self.seed + self.total_batches_seen)
        self.total_batches_seen += 1
        if self.index_array is None:
            self._set_index_array()
        return self._get_batches_of_transformed_samples(
            self.index_array[self.batch_size * idx:self.batch_size * (idx + 1)])

    def __len__(self) -> int:
        return (self.n + self.batch_size - 1) // self.batch_size

    def on_epoch_end(self) -> None:
        """Reshuffles for the next epoch."""
        self._set_index_array()

    def reset(self) -> None:
        """Starts again from the first batch."""
        self.batch_index = 0

    def _flow_index(self) -> np.ndarray:
        self.reset()
        while True:
            if self.seed is not None:
                np.random.seed(self.seed + self.total_batches_seen)
            if self.batch_index == 0:
                self._set_index_array()
            if self.n == 0:
                current = 0
            else:
                current = (self.batch_index * self.batch_size) % self.n
            if self.n > current + self.batch_size:
                self.batch_index += 1
            else:
                self.batch_index = 0
            self.total_batches_seen += 1
            yield self.index_array[current:current + self.batch_size]

    def __iter__(self) -> "Iterator":
        return self

    def __next__(self) -> Any:
        with self.lock:
            if not hasattr(self, "_index_generator"):
                self._index_generator = self._flow_index()
            index_array = next(self._index_generator)
        return self._get_batches_of_transformed_samples(index_array)

    def next(self) -> Any:
        """The next batch."""
        return self.__next__()

    def _get_batches_of_transformed_samples(self, index_array: np.ndarray) -> Any:
        raise TypeError(f"{type(self).__name__} must define "
                        f"_get_batches_of_transformed_samples")


def _subset_bounds(n: int, split: float, subset: Optional[str]) -> Tuple[int, int]:
    if subset is None:
        return 0, n
    if subset not in ("training", "validation"):
        raise ValueError(f'Invalid subset name: {subset}; expected "training" or '
                         f'"validation"')
    cut = int(split * n)
    return (0, cut) if subset == "validation" else (cut, n)


class NumpyArrayIterator(Iterator):
    """Batches ``(x, y)`` (or ``x`` alone, or with ``sample_weight``) from arrays,
    transformed by ``image_data_generator``; ``subset`` takes the generator's validation
    split of the arrays."""

    def __init__(self, x: Any, y: Any, image_data_generator: Any, batch_size: int = 32,
                 shuffle: bool = False, sample_weight: Any = None, seed: Optional[int] = None,
                 data_format: Optional[str] = None, save_to_dir: Optional[str] = None,
                 save_prefix: str = "", save_format: str = "png",
                 subset: Optional[str] = None, ignore_class_split: bool = False,
                 dtype: Optional[str] = None):
        dtype = dtype or K.floatx()
        extra: List[Any] = []
        if isinstance(x, (tuple, list)):
            if not isinstance(x[1], list):
                x_misc = [np.asarray(x[1])]
            else:
                x_misc = [np.asarray(xx) for xx in x[1]]
            x = x[0]
            extra = x_misc
        x = np.asarray(x, dtype=dtype)
        if x.ndim != 4:
            raise ValueError(f"Input data in `NumpyArrayIterator` should have rank 4. You "
                             f"passed an array with shape {x.shape}")
        if y is not None and len(x) != len(y):
            raise ValueError(f"`x` (images tensor) and `y` (labels) should have the same "
                             f"length. Found: x.shape = {x.shape}, y.shape = "
                             f"{np.asarray(y).shape}")
        if sample_weight is not None and len(x) != len(sample_weight):
            raise ValueError("`x` (images tensor) and `sample_weight` should have the same "
                             "length.")
        split = getattr(image_data_generator, "_validation_split", 0.0)
        if subset is not None and not split:
            raise ValueError("subset needs an ImageDataGenerator with a validation_split")
        start, stop = _subset_bounds(len(x), split, subset)
        if subset is not None and y is not None and not ignore_class_split:
            cut = int(len(x) * split)
            if not np.array_equal(np.unique(np.asarray(y)[:cut]),
                                  np.unique(np.asarray(y)[cut:])):
                raise ValueError("Training and validation subsets have different number of "
                                 "classes after the split. If your numpy arrays are sorted "
                                 "by the label, you might want to shuffle them.")
        self.x = x[start:stop]
        self.x_misc = [xx[start:stop] for xx in extra]
        self.y = None if y is None else np.asarray(y)[start:stop]
        self.sample_weight = (None if sample_weight is None
                              else np.asarray(sample_weight)[start:stop])
        data_format = data_format or K.image_data_format()
        channel_axis = 3 if data_format == "channels_last" else 1
        if self.x.shape[channel_axis] not in (1, 3, 4):
            logger.warning("NumpyArrayIterator: images usually have 1, 3 or 4 channels; "
                           "these have %d", self.x.shape[channel_axis])
        self.image_data_generator = image_data_generator
        self.data_format, self.dtype = data_format, dtype
        self.save_to_dir, self.save_prefix, self.save_format = (save_to_dir, save_prefix,
                                                                save_format)
        super().__init__(self.x.shape[0], batch_size, shuffle, seed)

    def _get_batches_of_transformed_samples(self, index_array: np.ndarray) -> Any:
        batch_x = np.zeros((len(index_array),) + self.x.shape[1:], dtype=self.dtype)
        for i, j in enumerate(index_array):
            x = self.x[j]
            params = self.image_data_generator.get_random_transform(x.shape)
            x = self.image_data_generator.apply_transform(x.astype(self.dtype), params)
            batch_x[i] = self.image_data_generator.standardize(x)
        if self.save_to_dir:
            _save_batch(batch_x, self.data_format, self.save_to_dir, self.save_prefix,
                        self.save_format, index_array)
        batch_x_miscs = [xx[index_array] for xx in self.x_misc]
        output: Tuple[Any, ...] = (batch_x if not batch_x_miscs
                                   else [batch_x] + batch_x_miscs,)
        if self.y is None:
            return output[0]
        output += (self.y[index_array],)
        if self.sample_weight is not None:
            output += (self.sample_weight[index_array],)
        return output


def _save_batch(batch_x: np.ndarray, data_format: str, folder: str, prefix: str, fmt: str,
                index_array: np.ndarray) -> None:
    for i, j in enumerate(index_array):
        img = array_to_img(batch_x[i], data_format, scale=True)
        name = f"{prefix}_{j}_{np.random.randint(1e7)}.{fmt}"
        img.save(os.path.join(folder, name))


class DirectoryIterator(Iterator):
    """Batches of the images under ``directory``, one subfolder per class (``classes``,
    default all subfolders in sorted order), loaded at ``target_size`` in ``color_mode``
    and transformed by ``image_data_generator``; labels per ``class_mode``
    (``categorical`` one-hot, ``binary``, ``sparse`` indices, ``input`` the images
    themselves, ``None`` no labels)."""

    def __init__(self, directory: str, image_data_generator: Any,
                 target_size: Tuple[int, int] = (256, 256), color_mode: str = "rgb",
                 classes: Optional[Sequence[str]] = None, class_mode: Optional[str] = "categorical",
                 batch_size: int = 32, shuffle: bool = True, seed: Optional[int] = None,
                 data_format: Optional[str] = None, save_to_dir: Optional[str] = None,
                 save_prefix: str = "", save_format: str = "png", follow_links: bool = False,
                 subset: Optional[str] = None, interpolation: str = "nearest",
                 keep_aspect_ratio: bool = False, dtype: Optional[str] = None):
        if color_mode not in ("rgb", "rgba", "grayscale"):
            raise ValueError(f"Invalid color mode: {color_mode}; expected \"rgb\", \"rgba\", "
                             f"or \"grayscale\".")
        if class_mode not in _CLASS_MODES:
            raise ValueError(f"Invalid class_mode: {class_mode}; expected one of "
                             f"{_CLASS_MODES}")
        self.directory = directory
        self.image_data_generator = image_data_generator
        self.target_size = tuple(target_size)
        self.color_mode, self.class_mode = color_mode, class_mode
        self.data_format = data_format or K.image_data_format()
        self.dtype = dtype or K.floatx()
        channels = {"rgb": 3, "rgba": 4, "grayscale": 1}[color_mode]
        self.image_shape = (self.target_size + (channels,) if self.data_format ==
                            "channels_last" else (channels,) + self.target_size)
        self.save_to_dir, self.save_prefix, self.save_format = (save_to_dir, save_prefix,
                                                                save_format)
        self.interpolation, self.keep_aspect_ratio = interpolation, keep_aspect_ratio
        if classes is None:
            classes = sorted(d for d in os.listdir(directory)
                             if os.path.isdir(os.path.join(directory, d)))
        self.num_classes = len(classes)
        self.class_indices: Dict[str, int] = dict(zip(classes, range(len(classes))))
        split = getattr(image_data_generator, "_validation_split", 0.0)
        if subset is not None and not split:
            raise ValueError("subset needs an ImageDataGenerator with a validation_split")
        self.filenames: List[str] = []
        labels: List[int] = []
        for name in classes:
            folder = os.path.join(directory, name)
            files = []
            for root, _, names in sorted(os.walk(folder, followlinks=follow_links)):
                for f in sorted(names):
                    if f.lower().rsplit(".", 1)[-1] in WHITE_LIST_FORMATS:
                        files.append(os.path.relpath(os.path.join(root, f), directory))
            start, stop = _subset_bounds(len(files), split, subset)
            self.filenames += files[start:stop]
            labels += [self.class_indices[name]] * (stop - start)
        self.classes = np.array(labels, dtype="int32")
        self.samples = len(self.filenames)
        self._filepaths = [os.path.join(directory, f) for f in self.filenames]
        super().__init__(self.samples, batch_size, shuffle, seed)

    @property
    def filepaths(self) -> List[str]:
        """The full paths of the images, in sample order."""
        return self._filepaths

    @property
    def labels(self) -> np.ndarray:
        """The class index of each image."""
        return self.classes

    def _get_batches_of_transformed_samples(self, index_array: np.ndarray) -> Any:
        batch_x = np.zeros((len(index_array),) + self.image_shape, dtype=self.dtype)
        for i, j in enumerate(index_array):
            img = load_img(self._filepaths[j], color_mode=self.color_mode,
                           target_size=self.target_size, interpolation=self.interpolation,
                           keep_aspect_ratio=self.keep_aspect_ratio)
            x = img_to_array(img, data_format=self.data_format)
            params = self.image_data_generator.get_random_transform(x.shape)
            x = self.image_data_generator.apply_transform(x, params)
            batch_x[i] = self.image_data_generator.standardize(x)
        if self.save_to_dir:
            _save_batch(batch_x, self.data_format, self.save_to_dir, self.save_prefix,
                        self.save_format, index_array)
        if self.class_mode == "input":
            return batch_x, batch_x.copy()
        if self.class_mode == "sparse":
            return batch_x, self.classes[index_array].astype(self.dtype)
        if self.class_mode == "binary":
            return batch_x, self.classes[index_array].astype(self.dtype)
        if self.class_mode == "categorical":
            batch_y = np.zeros((len(batch_x), self.num_classes), dtype=self.dtype)
            batch_y[np.arange(len(index_array)), self.classes[index_array]] = 1.0
            return batch_x, batch_y
        return batch_x
