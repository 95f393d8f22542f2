"""``tf.flags`` (also ``tf.app.flags``): absl's command-line flags, as TensorFlow 1.x
re-exports them."""

from tensorfleet.platform.flags import (DEFINE, DEFINE_alias, DEFINE_bool, DEFINE_boolean,
    DEFINE_enum, DEFINE_float, DEFINE_integer, DEFINE_list, DEFINE_multi_float,
    DEFINE_multi_integer, DEFINE_multi_string, DEFINE_spaceseplist, DEFINE_string, Error,
    FLAGS, FlagValues, IllegalFlagValueError, UnrecognizedFlagError, mark_flag_as_required,
    mark_flags_as_required, parse_known, register_validator)

__all__ = ["DEFINE", "DEFINE_alias", "DEFINE_bool", "DEFINE_boolean", "DEFINE_enum",
           "DEFINE_float", "DEFINE_integer", "DEFINE_list", "DEFINE_multi_float",
           "DEFINE_multi_integer", "DEFINE_multi_string", "DEFINE_spaceseplist",
           "DEFINE_string", "Error", "FLAGS", "FlagValues", "IllegalFlagValueError",
           "UnrecognizedFlagError", "mark_flag_as_required", "mark_flags_as_required",
           "parse_known", "register_validator"]
