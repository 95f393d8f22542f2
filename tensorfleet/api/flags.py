"""``tf.flags`` (also ``tf.app.flags``): absl's command-line flags, as TensorFlow 1.x
re-exports them."""

from tensorfleet.platform.flags import (DEFINE, DEFINE_alias, DEFINE_bool, DEFINE_boolean,
    DEFINE_enum, DEFINE_float, DEFINE_integer, DEFINE_list, DEFINE_multi_float,
    DEFINE_multi_integer, DEFINE_multi_string, DEFINE_spaceseplist, DEFINE_string, Error,
    FLAGS, FlagValues, IllegalFlagValueError, UnrecognizedFlagError, mark_flag_as_required,
    mark_flags_as_required, parse_known, register_validator)
from tensorfleet.platform.flags import (
    ArgumentParser, ArgumentSerializer, BaseListParser, BooleanFlag, BooleanParser,
    CantOpenFlagFileError, CsvListSerializer, DEFINE_enum_class, DEFINE_flag, DEFINE_multi,
    DEFINE_multi_enum, DEFINE_multi_enum_class, DuplicateFlagError, EnumClassFlag,
    EnumClassListSerializer, EnumClassParser, EnumClassSerializer, EnumFlag, EnumParser,
    Flag, FlagHolder, FlagNameConflictsWithMethodError, FloatParser, IntegerParser,
    ListParser, ListSerializer, MultiEnumClassFlag, MultiFlag, UnparsedFlagAccessError,
    ValidationError, WhitespaceSeparatedListParser, adopt_module_key_flags,
    declare_key_flag, disclaim_key_flags, doc_to_help, flag_dict_to_args, get_help_width,
    mark_bool_flags_as_mutual_exclusive, mark_flags_as_mutual_exclusive,
    multi_flags_validator, override_value, register_multi_flags_validator, set_default,
    text_wrap, validator)

__all__ = [
    "DEFINE", "DEFINE_alias", "DEFINE_bool", "DEFINE_boolean", "DEFINE_enum",
    "DEFINE_float", "DEFINE_integer", "DEFINE_list", "DEFINE_multi_float",
    "DEFINE_multi_integer", "DEFINE_multi_string", "DEFINE_spaceseplist", "DEFINE_string",
    "Error", "FLAGS", "FlagValues", "IllegalFlagValueError", "UnrecognizedFlagError",
    "mark_flag_as_required", "mark_flags_as_required", "parse_known", "register_validator",
    "ArgumentParser", "ArgumentSerializer", "BaseListParser", "BooleanFlag",
    "BooleanParser", "CantOpenFlagFileError", "CsvListSerializer", "DEFINE_enum_class",
    "DEFINE_flag", "DEFINE_multi", "DEFINE_multi_enum", "DEFINE_multi_enum_class",
    "DuplicateFlagError", "EnumClassFlag", "EnumClassListSerializer", "EnumClassParser",
    "EnumClassSerializer", "EnumFlag", "EnumParser", "Flag", "FlagHolder",
    "FlagNameConflictsWithMethodError", "FloatParser", "IntegerParser", "ListParser",
    "ListSerializer", "MultiEnumClassFlag", "MultiFlag", "UnparsedFlagAccessError",
    "ValidationError", "WhitespaceSeparatedListParser", "adopt_module_key_flags",
    "declare_key_flag", "disclaim_key_flags", "doc_to_help", "flag_dict_to_args",
    "get_help_width", "mark_bool_flags_as_mutual_exclusive",
    "mark_flags_as_mutual_exclusive", "multi_flags_validator", "override_value",
    "register_multi_flags_validator", "set_default", "text_wrap", "validator"]
