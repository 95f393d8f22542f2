"""``tf.image``: image decoding, encoding, resizing, cropping, flipping and colour ops."""

from tensorfleet.ops.image_ops import (  # noqa: F401
    ResizeMethod, convert_image_dtype, decode_bmp, decode_gif, decode_image, decode_jpeg,
    decode_png, encode_jpeg, encode_png, extract_jpeg_shape, hsv_to_rgb, resize_area,
    resize_bicubic, resize_bilinear, resize_images, resize_nearest_neighbor, rgb_to_hsv)
from tensorfleet.ops.image_adjust_ops import (  # noqa: F401
    adjust_brightness, adjust_contrast, adjust_hue, adjust_saturation, central_crop,
    crop_to_bounding_box, flip_left_right, flip_up_down, grayscale_to_rgb, pad_to_bounding_box,
    per_image_standardization, random_brightness, random_contrast, random_crop,
    random_flip_left_right, random_flip_up_down, random_hue, random_saturation,
    resize_image_with_crop_or_pad, rgb_to_grayscale, rot90, transpose_image)
from tensorfleet.ops.image_ops_boxes import (  # noqa: F401
    combined_non_max_suppression, crop_and_resize, draw_bounding_boxes, non_max_suppression,
    non_max_suppression_overlaps, non_max_suppression_padded, non_max_suppression_with_scores,
    sample_distorted_bounding_box)
from tensorfleet.ops.image_ops_quality import (  # noqa: F401
    image_gradients, psnr, resize_image_with_pad, sobel_edges, ssim, ssim_multiscale,
    total_variation)
from tensorfleet.ops.image_adjust_ops import (  # noqa: F401
    adjust_gamma, rgb_to_yiq, rgb_to_yuv, yiq_to_rgb, yuv_to_rgb)
from tensorfleet.ops.image_ops import resize_images as resize  # noqa: F401  (TF 1.x alias)
from tensorfleet.ops.image_adjust_ops import transpose_image as transpose  # noqa: F401

__all__ = ["ResizeMethod", "convert_image_dtype", "decode_image", "decode_jpeg", "decode_png",
           "encode_jpeg", "encode_png", "hsv_to_rgb", "resize_area", "resize_bicubic",
           "resize_bilinear", "resize_images", "resize_nearest_neighbor", "rgb_to_hsv",
           "adjust_brightness", "adjust_contrast", "adjust_hue", "adjust_saturation",
           "central_crop", "crop_to_bounding_box", "flip_left_right", "flip_up_down",
           "grayscale_to_rgb", "pad_to_bounding_box", "per_image_standardization",
           "random_brightness", "random_contrast", "random_crop", "random_flip_left_right",
           "random_flip_up_down", "random_hue", "random_saturation",
           "resize_image_with_crop_or_pad", "rgb_to_grayscale", "rot90", "transpose_image"]
__all__ += ["crop_and_resize", "draw_bounding_boxes", "non_max_suppression",
            "non_max_suppression_with_scores", "sample_distorted_bounding_box"]
__all__ += ["decode_gif", "psnr", "resize_image_with_pad", "ssim", "total_variation",
            "image_gradients", "sobel_edges"]
__all__ += ["non_max_suppression_overlaps", "non_max_suppression_padded"]
__all__ += ["ssim_multiscale", "adjust_gamma", "rgb_to_yiq", "rgb_to_yuv", "yiq_to_rgb",
            "yuv_to_rgb", "resize", "transpose"]
__all__ += ["decode_bmp", "extract_jpeg_shape"]
__all__ += ["combined_non_max_suppression"]
