"""``tf.image``: image decoding, encoding, resizing, cropping, flipping and colour ops."""

from tensorfleet.ops.image_adjust_ops import (adjust_brightness, adjust_contrast, adjust_gamma,
    adjust_hue, adjust_saturation, central_crop, crop_to_bounding_box, flip_left_right,
    flip_up_down, grayscale_to_rgb, pad_to_bounding_box, per_image_standardization,
    random_brightness, random_contrast, random_crop, random_flip_left_right,
    random_flip_up_down, random_hue, random_saturation, resize_image_with_crop_or_pad,
    rgb_to_grayscale, rgb_to_yiq, rgb_to_yuv, rot90, transpose_image as transpose,
    transpose_image, yiq_to_rgb, yuv_to_rgb)
from tensorfleet.ops.image_ops import (ResizeMethod, convert_image_dtype, decode_bmp,
    decode_gif, decode_image, decode_jpeg, decode_png, encode_jpeg, encode_png,
    extract_jpeg_shape, hsv_to_rgb, resize_images as resize, resize_area, resize_bicubic,
    resize_bilinear, resize_images, resize_nearest_neighbor, rgb_to_hsv)
from tensorfleet.ops.image_ops_boxes import (combined_non_max_suppression, crop_and_resize,
    draw_bounding_boxes, non_max_suppression, non_max_suppression_overlaps,
    non_max_suppression_padded, non_max_suppression_with_scores, sample_distorted_bounding_box)
from tensorfleet.ops.image_ops_quality import (image_gradients, psnr, resize_image_with_pad,
    sobel_edges, ssim, ssim_multiscale, total_variation)

from tensorfleet.ops.image_patches_ops import extract_patches
from tensorfleet.ops.image_glimpse_ops import extract_glimpse
from tensorfleet.ops.image_patches_ops import extract_image_patches
from tensorfleet.ops.image_adjust_ops import (
    resize_image_with_crop_or_pad as resize_with_crop_or_pad)
from tensorfleet.ops.image_jpeg_ops import (adjust_jpeg_quality, decode_and_crop_jpeg,
    decode_webp, is_jpeg, random_jpeg_quality)

__all__ = ["adjust_jpeg_quality", "decode_and_crop_jpeg", "decode_webp", "is_jpeg",
           "random_jpeg_quality", "extract_glimpse",
           "adjust_brightness", "adjust_contrast", "adjust_gamma", "adjust_hue",
           "adjust_saturation", "central_crop", "combined_non_max_suppression",
           "convert_image_dtype", "crop_and_resize", "crop_to_bounding_box", "decode_bmp",
           "decode_gif", "decode_image", "decode_jpeg", "decode_png", "draw_bounding_boxes",
           "encode_jpeg", "encode_png", "extract_image_patches", "extract_jpeg_shape",
           "extract_patches", "flip_left_right", "flip_up_down", "grayscale_to_rgb",
           "hsv_to_rgb", "image_gradients", "non_max_suppression",
           "non_max_suppression_overlaps", "non_max_suppression_padded",
           "non_max_suppression_with_scores", "pad_to_bounding_box",
           "per_image_standardization", "psnr", "random_brightness", "random_contrast",
           "random_crop", "random_flip_left_right", "random_flip_up_down", "random_hue",
           "random_saturation", "resize", "resize_area", "resize_bicubic", "resize_bilinear",
           "resize_image_with_crop_or_pad", "resize_image_with_pad", "resize_images",
           "resize_nearest_neighbor", "resize_with_crop_or_pad", "ResizeMethod",
           "rgb_to_grayscale", "rgb_to_hsv", "rgb_to_yiq", "rgb_to_yuv", "rot90",
           "sample_distorted_bounding_box", "sobel_edges", "ssim", "ssim_multiscale",
           "total_variation", "transpose", "transpose_image", "yiq_to_rgb", "yuv_to_rgb"]
