"""``tf.keras.preprocessing.image``: images as arrays and back."""

from tensorfleet.keras.preprocessing.image_arrays import (array_to_img, img_to_array,
    load_img, save_img)

__all__ = ["array_to_img", "img_to_array", "load_img", "save_img"]
