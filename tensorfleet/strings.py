"""``tf.strings``: the string functions under the names TF 1.13+ gives them."""

from tensorfleet.ops.categorical_ops import as_string  # noqa: F401
from tensorfleet.ops.hash_ops import (  # noqa: F401
    string_to_hash_bucket_fast as to_hash_bucket_fast,
    string_to_hash_bucket_strong as to_hash_bucket_strong)
from tensorfleet.ops.print_ops import string_format as format  # noqa: F401,A001
from tensorfleet.ops.string_manip_ops import (  # noqa: F401
    length, lower, reduce_join, regex_full_match, regex_replace, substr, to_number, upper)
from tensorfleet.ops.string_manip_ops import string_join as join  # noqa: F401
from tensorfleet.ops.string_manip_ops import string_strip as strip  # noqa: F401
from tensorfleet.ops.string_manip_ops import string_to_hash_bucket as to_hash_bucket  # noqa: F401
from tensorfleet.ops.string_manip_ops import strings_split as split  # noqa: F401
