"""``tf.strings``: the string functions under the names TF 1.13+ gives them."""

from tensorfleet.ops.categorical_ops import as_string
from tensorfleet.ops.hash_ops import (string_to_hash_bucket_fast as to_hash_bucket_fast,
    string_to_hash_bucket_strong as to_hash_bucket_strong)
from tensorfleet.ops.print_ops import string_format as format
from tensorfleet.ops.string_manip_ops import (string_join as join, length, lower, reduce_join,
    regex_full_match, regex_replace, strings_split as split, string_strip as strip, substr,
    string_to_hash_bucket as to_hash_bucket, to_number, upper)

from tensorfleet.ops.string_ngrams_ops import ngrams
from tensorfleet.ops.string_unicode_ops import unicode_transcode, unsorted_segment_join
from tensorfleet.ops.string_unicode_codec_ops import (bytes_split, unicode_decode,
    unicode_decode_with_offsets, unicode_encode, unicode_split, unicode_split_with_offsets)

__all__ = ["as_string", "format", "join", "length", "lower", "ngrams", "reduce_join",
           "regex_full_match", "regex_replace", "split", "strip", "substr", "to_hash_bucket",
           "to_hash_bucket_fast", "to_hash_bucket_strong", "to_number", "upper",
           "unicode_transcode", "unsorted_segment_join",
           "bytes_split", "unicode_decode", "unicode_decode_with_offsets", "unicode_encode",
           "unicode_split", "unicode_split_with_offsets"]
