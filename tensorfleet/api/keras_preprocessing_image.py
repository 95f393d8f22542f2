"""``tf.keras.preprocessing.image``: images as arrays and back, random and fixed image
transforms, and ``ImageDataGenerator`` with the iterators it flows batches through."""

from tensorfleet.keras.preprocessing.image_arrays import (array_to_img, img_to_array,
    load_img, save_img)
from tensorfleet.keras.preprocessing.image_data_generator import ImageDataGenerator
from tensorfleet.keras.preprocessing.image_iterators import (DirectoryIterator, Iterator,
    NumpyArrayIterator)
from tensorfleet.keras.preprocessing.image_transforms import (apply_affine_transform,
    apply_brightness_shift, apply_channel_shift, random_brightness, random_channel_shift,
    random_rotation, random_shear, random_shift, random_zoom)

__all__ = ["apply_affine_transform", "apply_brightness_shift", "apply_channel_shift",
           "array_to_img", "DirectoryIterator", "ImageDataGenerator", "img_to_array",
           "Iterator", "load_img", "NumpyArrayIterator", "random_brightness",
           "random_channel_shift", "random_rotation", "random_shear", "random_shift",
           "random_zoom", "save_img"]
