"""``tf.image``: image decoding, encoding, resizing, cropping, flipping and colour ops."""

from tensorfleet.ops.image_ops import (  # noqa: F401
    ResizeMethod, convert_image_dtype, decode_image, decode_jpeg, decode_png, encode_jpeg,
    encode_png, hsv_to_rgb, resize_area, resize_bicubic, resize_bilinear, resize_images,
    resize_nearest_neighbor, rgb_to_hsv)
from tensorfleet.ops.image_ops_more import (  # noqa: F401
    adjust_brightness, adjust_contrast, adjust_hue, adjust_saturation, central_crop,
    crop_to_bounding_box, flip_left_right, flip_up_down, grayscale_to_rgb, pad_to_bounding_box,
    per_image_standardization, random_brightness, random_contrast, random_crop,
    random_flip_left_right, random_flip_up_down, random_hue, random_saturation,
    resize_image_with_crop_or_pad, rgb_to_grayscale, rot90, transpose_image)

__all__ = ["ResizeMethod", "convert_image_dtype", "decode_image", "decode_jpeg", "decode_png",
           "encode_jpeg", "encode_png", "hsv_to_rgb", "resize_area", "resize_bicubic",
           "resize_bilinear", "resize_images", "resize_nearest_neighbor", "rgb_to_hsv",
           "adjust_brightness", "adjust_contrast", "adjust_hue", "adjust_saturation",
           "central_crop", "crop_to_bounding_box", "flip_left_right", "flip_up_down",
           "grayscale_to_rgb", "pad_to_bounding_box", "per_image_standardization",
           "random_brightness", "random_contrast", "random_crop", "random_flip_left_right",
           "random_flip_up_down", "random_hue", "random_saturation",
           "resize_image_with_crop_or_pad", "rgb_to_grayscale", "rot90", "transpose_image"]
