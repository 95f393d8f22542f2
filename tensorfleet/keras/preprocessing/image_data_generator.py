"""``ImageDataGenerator``: real-time augmentation and standardization of image batches
(random rotations, shifts, shears, zooms, flips, channel and brightness shifts; feature-
or sample-wise centring and scaling, ZCA whitening), flowing from arrays or folders."""

from __future__ import annotations

import logging
from typing import Any, Callable, Dict, Optional, Sequence

import numpy as np

from tensorfleet.keras import backend as K
from tensorfleet.keras.preprocessing.image_iterators import (DirectoryIterator,
                                                             NumpyArrayIterator)
from tensorfleet.keras.preprocessing.image_transforms import (apply_affine_transform,
                                                              apply_brightness_shift,
                                                              apply_channel_shift)

logger = logging.getLogger(__name__)


def _range(value: Any, name: str) -> Any:
    if isinstance(value, (int, float)):
        return value
    value = np.asarray(value)
    if value.ndim != 1:
        raise ValueError(f"`{name}` should be a float, a 1-D array or a list; got {value!r}")
    return value


class ImageDataGenerator:
    """Generates batches of augmented, standardized images (see Keras's
    ``ImageDataGenerator`` for the meaning of each argument)."""

    def __init__(self, featurewise_center: bool = False, samplewise_center: bool = False,
                 featurewise_std_normalization: bool = False,
                 samplewise_std_normalization: bool = False, zca_whitening: bool = False,
                 zca_epsilon: float = 1e-6, rotation_range: float = 0,
                 width_shift_range: Any = 0.0, height_shift_range: Any = 0.0,
                 brightness_range: Optional[Sequence[float]] = None, shear_range: float = 0.0,
                 zoom_range: Any = 0.0, channel_shift_range: float = 0.0,
                 fill_mode: str = "nearest", cval: float = 0.0, horizontal_flip: bool = False,
                 vertical_flip: bool = False, rescale: Optional[float] = None,
                 preprocessing_function: Optional[Callable[[np.ndarray], np.ndarray]] = None,
                 data_format: Optional[str] = None, validation_split: float = 0.0,
                 interpolation_order: int = 1, dtype: Optional[str] = None):
        data_format = data_format or K.image_data_format()
        if data_format not in ("channels_last", "channels_first"):
            raise ValueError(f'`data_format` should be "channels_last" (channel after row '
                             f'and column) or "channels_first" (channel before row and '
                             f'column). Received: {data_format}')
        if fill_mode not in ("constant", "nearest", "reflect", "wrap"):
            raise ValueError(f"fill_mode must be 'constant', 'nearest', 'reflect' or "
                             f"'wrap', got {fill_mode!r}")
        if not 0 <= validation_split < 1:
            raise ValueError(f"`validation_split` must be strictly between 0 and 1. "
                             f"Received: {validation_split}")
        if brightness_range is not None and len(brightness_range) != 2:
            raise ValueError(f"`brightness_range should be tuple or list of two floats. "
                             f"Received: {brightness_range}")
        if np.isscalar(zoom_range):
            self.zoom_range = [1 - zoom_range, 1 + zoom_range]
        elif len(zoom_range) == 2:
            self.zoom_range = [zoom_range[0], zoom_range[1]]
        else:
            raise ValueError(f"`zoom_range` should be a float or a tuple or list of two "
                             f"floats. Received: {zoom_range}")
        self.featurewise_center = featurewise_center
        self.samplewise_center = samplewise_center
        self.featurewise_std_normalization = featurewise_std_normalization
        self.samplewise_std_normalization = samplewise_std_normalization
        self.zca_whitening = zca_whitening
        self.zca_epsilon = zca_epsilon
        self.rotation_range = rotation_range
        self.width_shift_range = _range(width_shift_range, "width_shift_range")
        self.height_shift_range = _range(height_shift_range, "height_shift_range")
        self.shear_range = shear_range
        self.channel_shift_range = channel_shift_range
        self.fill_mode, self.cval = fill_mode, cval
        self.horizontal_flip, self.vertical_flip = horizontal_flip, vertical_flip
        self.rescale = rescale
        self.preprocessing_function = preprocessing_function
        self.brightness_range = brightness_range
        self.interpolation_order = interpolation_order
        self.dtype = dtype or K.floatx()
        self.data_format = data_format
        if data_format == "channels_first":
            self.channel_axis, self.row_axis, self.col_axis = 1, 2, 3
        else:
            self.channel_axis, self.row_axis, self.col_axis = 3, 1, 2
        self._validation_split = validation_split
        self.mean: Optional[np.ndarray] = None
        self.std: Optional[np.ndarray] = None
        self.zca_whitening_matrix: Optional[np.ndarray] = None
        if zca_whitening and not featurewise_center:
            self.featurewise_center = True
            logger.warning("This ImageDataGenerator specifies `zca_whitening`, which "
                           "overrides setting of `featurewise_center`.")
        if zca_whitening and featurewise_std_normalization:
            self.featurewise_std_normalization = False
            logger.warning("This ImageDataGenerator specifies `zca_whitening`, which "
                           "overrides setting of `featurewise_std_normalization`.")
        if featurewise_std_normalization and not featurewise_center:
            self.featurewise_center = True
            logger.warning("This ImageDataGenerator specifies "
                           "`featurewise_std_normalization`, which overrides setting of "
                           "`featurewise_center`.")
        if samplewise_std_normalization and not samplewise_center:
            self.samplewise_center = True
            logger.warning("This ImageDataGenerator specifies "
                           "`samplewise_std_normalization`, which overrides setting of "
                           "`samplewise_center`.")

    def flow(self, x: Any, y: Any = None, batch_size: int = 32, shuffle: bool = True,
             sample_weight: Any = None, seed: Optional[int] = None,
             save_to_dir: Optional[str] = None, save_prefix: str = "",
             save_format: str = "png", ignore_class_split: bool = False,
             subset: Optional[str] = None) -> NumpyArrayIterator:
        """Batches of ``x`` (and ``y``, ``sample_weight``) transformed by this generator."""
        return NumpyArrayIterator(x, y, self, batch_size=batch_size, shuffle=shuffle,
                                  sample_weight=sample_weight, seed=seed,
                                  data_format=self.data_format, save_to_dir=save_to_dir,
                                  save_prefix=save_prefix, save_format=save_format,
                                  ignore_class_split=ignore_class_split, subset=subset,
                                  dtype=self.dtype)

    def flow_from_directory(self, directory: str, target_size: Any = (256, 256),
                            color_mode: str = "rgb", classes: Optional[Sequence[str]] = None,
                            class_mode: Optional[str] = "categorical", batch_size: int = 32,
                            shuffle: bool = True, seed: Optional[int] = None,
                            save_to_dir: Optional[str] = None, save_prefix: str = "",
                            save_format: str = "png", follow_links: bool = False,
                            subset: Optional[str] = None, interpolation: str = "nearest",
                            keep_aspect_ratio: bool = False) -> DirectoryIterator:
        """Batches of the images in ``directory`` (a subfolder per class)."""
        return DirectoryIterator(directory, self, target_size=target_size,
                                 color_mode=color_mode, keep_aspect_ratio=keep_aspect_ratio,
                                 classes=classes, class_mode=class_mode,
                                 data_format=self.data_format, batch_size=batch_size,
                                 shuffle=shuffle, seed=seed, save_to_dir=save_to_dir,
                                 save_prefix=save_prefix, save_format=save_format,
                                 follow_links=follow_links, subset=subset,
                                 interpolation=interpolation, dtype=self.dtype)

    def standardize(self, x: np.ndarray) -> np.ndarray:
        """``x`` (one image, or a batch for the sample-wise steps) rescaled, passed through
        ``preprocessing_function`` and centred/scaled/whitened as configured (in place
        where Keras works in place)."""
        if self.preprocessing_function:
            x = self.preprocessing_function(x)
        if self.rescale:
            x *= self.rescale
        if self.samplewise_center:
            x -= np.mean(x, keepdims=True)
        if self.samplewise_std_normalization:
            x /= np.std(x, keepdims=True) + 1e-6
        if self.featurewise_center:
            if self.mean is None:
                logger.warning("This ImageDataGenerator specifies `featurewise_center`, but "
                               "it hasn't been fit on any training data. Fit it first by "
                               "calling `.fit(numpy_data)`.")
            else:
                x -= self.mean
        if self.featurewise_std_normalization:
            if self.std is None:
                logger.warning("This ImageDataGenerator specifies "
                               "`featurewise_std_normalization`, but it hasn't been fit on "
                               "any training data. Fit it first by calling "
                               "`.fit(numpy_data)`.")
            else:
                x /= self.std + 1e-6
        if self.zca_whitening:
            if self.zca_whitening_matrix is None:
                logger.warning("This ImageDataGenerator specifies `zca_whitening`, but it "
                               "hasn't been fit on any training data. Fit it first by "
                               "calling `.fit(numpy_data)`.")
            else:
                flat = np.reshape(x, (-1, np.prod(x.shape[-3:])))
                x = np.reshape(flat @ self.zca_whitening_matrix, x.shape)
        return x

    def get_random_transform(self, img_shape: Sequence[int],
                             seed: Optional[int] = None) -> Dict[str, Any]:
        """Random transform parameters for one image of ``img_shape``."""
        img_row_axis, img_col_axis = self.row_axis - 1, self.col_axis - 1
        if seed is not None:
            np.random.seed(seed)
        theta = (np.random.uniform(-self.rotation_range, self.rotation_range)
                 if self.rotation_range else 0)
        tx = self._shift(self.height_shift_range, img_shape[img_row_axis])
        ty = self._shift(self.width_shift_range, img_shape[img_col_axis])
        shear = (np.random.uniform(-self.shear_range, self.shear_range)
                 if self.shear_range else 0)
        if self.zoom_range[0] == 1 and self.zoom_range[1] == 1:
            zx, zy = 1, 1
        else:
            zx, zy = np.random.uniform(self.zoom_range[0], self.zoom_range[1], 2)
        flip_horizontal = (np.random.random() < 0.5) * self.horizontal_flip
        flip_vertical = (np.random.random() < 0.5) * self.vertical_flip
        channel_shift_intensity = None
        if self.channel_shift_range != 0:
            channel_shift_intensity = np.random.uniform(-self.channel_shift_range,
                                                        self.channel_shift_range)
        brightness = None
        if self.brightness_range is not None:
            brightness = np.random.uniform(self.brightness_range[0], self.brightness_range[1])
        return {"theta": theta, "tx": tx, "ty": ty, "shear": shear, "zx": zx, "zy": zy,
                "flip_horizontal": flip_horizontal, "flip_vertical": flip_vertical,
                "channel_shift_intensity": channel_shift_intensity,
                "brightness": brightness}

    @staticmethod
    def _shift(shift_range: Any, size: int) -> float:
        if np.isscalar(shift_range) and shift_range == 0:
            return 0
        if not np.isscalar(shift_range):
            return float(np.random.choice(shift_range) * np.random.choice([-1, 1]))
        shift = np.random.uniform(-shift_range, shift_range)
        return shift * size if shift_range < 1 else shift

    def apply_transform(self, x: np.ndarray, transform_parameters: Dict[str, Any]) -> np.ndarray:
        """``x`` (one image) transformed by the parameters of ``get_random_transform``."""
        img_row_axis, img_col_axis = self.row_axis - 1, self.col_axis - 1
        img_channel_axis = self.channel_axis - 1
        p = transform_parameters
        x = apply_affine_transform(x, p.get("theta", 0), p.get("tx", 0), p.get("ty", 0),
                                   p.get("shear", 0), p.get("zx", 1), p.get("zy", 1),
                                   row_axis=img_row_axis, col_axis=img_col_axis,
                                   channel_axis=img_channel_axis, fill_mode=self.fill_mode,
                                   cval=self.cval, order=self.interpolation_order)
        if p.get("channel_shift_intensity") is not None:
            x = apply_channel_shift(x, p["channel_shift_intensity"], img_channel_axis)
        if p.get("flip_horizontal", False):
            x = np.flip(x, img_col_axis)
        if p.get("flip_vertical", False):
            x = np.flip(x, img_row_axis)
        if p.get("brightness") is not None:
            x = apply_brightness_shift(x, p["brightness"], False)
        return x

    def random_transform(self, x: np.ndarray, seed: Optional[int] = None) -> np.ndarray:
        """``x`` (one image) randomly transformed."""
        return self.apply_transform(x, self.get_random_transform(x.shape, seed))

    def fit(self, x: Any, augment: bool = False, rounds: int = 1,
            seed: Optional[int] = None) -> None:
        """Learns the feature-wise mean, deviation and ZCA matrix of the images ``x``
        (rank 4), over ``rounds`` augmented copies with ``augment``.

        Raises:
          ValueError: ``x`` is not rank 4.
        """
        x = np.asarray(x, dtype=self.dtype)
        if x.ndim != 4:
            raise ValueError(f"Input to `.fit()` should have rank 4. Got array with shape: "
                             f"{x.shape}")
        if seed is not None:
            np.random.seed(seed)
        x = np.copy(x)
        if self.rescale:
            x *= self.rescale
        if augment:
            ax = np.zeros((rounds * x.shape[0],) + x.shape[1:], dtype=self.dtype)
            for r in range(rounds):
                for i in range(x.shape[0]):
                    ax[i + r * x.shape[0]] = self.random_transform(x[i])
            x = ax
        if self.featurewise_center:
            shape = [1, 1, 1]
            shape[self.channel_axis - 1] = x.shape[self.channel_axis]
            self.mean = np.mean(x, axis=(0, self.row_axis, self.col_axis)).reshape(shape)
            x -= self.mean
        if self.featurewise_std_normalization:
            shape = [1, 1, 1]
            shape[self.channel_axis - 1] = x.shape[self.channel_axis]
            self.std = np.std(x, axis=(0, self.row_axis, self.col_axis)).reshape(shape)
            x /= self.std + 1e-6
        if self.zca_whitening:
            # the singular values of the centred data are sqrt(n) times the square roots
            # of the covariance's eigenvalues
            n = x.shape[0]
            u, s, _ = np.linalg.svd(np.reshape(x, (n, -1)).T, full_matrices=False)
            self.zca_whitening_matrix = (u * (np.sqrt(n) / (s + self.zca_epsilon))) @ u.T
