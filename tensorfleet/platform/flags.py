"""``tf.app.flags`` (also ``tf.flags``): command-line flags as TensorFlow 1.x programs
define them::

    flags = tf.app.flags
    flags.DEFINE_string("ps_hosts", "localhost:2222", "ps hosts")
    flags.DEFINE_integer("task_index", 0, "index of the task in its job")
    FLAGS = flags.FLAGS
    ...
    server = tf.train.Server(cluster, job_name=FLAGS.job_name, task_index=FLAGS.task_index)

They are absl's flags, as they are in TensorFlow, so the ``DEFINE_*`` functions, the
parsing rules (``--name=value``, ``--name value``, ``--flag``/``--noflag`` for booleans)
and the errors are absl's. As in TensorFlow, ``FLAGS`` parses ``sys.argv`` the first
time a flag is read if nothing has parsed the command line yet, so a program that never
calls ``tf.app.run`` still sees its flags; an unknown flag on the command line is then
an error naming it. ``tf.app.run`` parses the flags it knows and passes the rest of the
command line on to ``main``.
"""

from __future__ import annotations

import sys
from typing import Any, List, Optional

from absl import flags as _absl
from absl.flags import (  # noqa: F401 - the public surface of tf.app.flags
    DEFINE, DEFINE_alias, DEFINE_bool, DEFINE_boolean, DEFINE_enum, DEFINE_float,
    DEFINE_integer, DEFINE_list, DEFINE_multi_float, DEFINE_multi_integer,
    DEFINE_multi_string, DEFINE_spaceseplist, DEFINE_string, Error, FlagValues,
    IllegalFlagValueError, UnrecognizedFlagError, mark_flag_as_required,
    mark_flags_as_required, register_validator)
from absl.flags import (  # noqa: F401 - the rest of absl's surface, as TensorFlow re-exports it
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


class _LazyFlagValues:
    """absl's global ``FLAGS``, parsing ``sys.argv`` on the first read of a flag."""

    def __init__(self, wrapped: FlagValues):
        self.__dict__["_wrapped"] = wrapped

    def __getattr__(self, name: str) -> Any:
        wrapped = self.__dict__["_wrapped"]
        if not wrapped.is_parsed():
            wrapped(sys.argv)
        return getattr(wrapped, name)

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(self.__dict__["_wrapped"], name, value)

    def __delattr__(self, name: str) -> None:
        delattr(self.__dict__["_wrapped"], name)

    def __contains__(self, name: str) -> bool:
        return name in self.__dict__["_wrapped"]

    def __call__(self, argv: List[str], known_only: bool = False) -> List[str]:
        """Parses ``argv`` (program name first); returns what is not a known flag."""
        return self.__dict__["_wrapped"](argv, known_only=known_only)

    def is_parsed(self) -> bool:
        return self.__dict__["_wrapped"].is_parsed()

    def flag_values_dict(self) -> dict:
        return self.__getattr__("flag_values_dict")()


FLAGS = _LazyFlagValues(_absl.FLAGS)


def parse_known(argv: Optional[List[str]] = None) -> List[str]:
    """Parses the flags defined so far out of ``argv`` (default ``sys.argv``) and returns
    the rest, program name first; unknown flags are left for the program."""
    return FLAGS(list(sys.argv if argv is None else argv), known_only=True)


__all__ = [
    "FLAGS", "DEFINE", "DEFINE_alias", "DEFINE_bool", "DEFINE_boolean", "DEFINE_enum",
    "DEFINE_float", "DEFINE_integer", "DEFINE_list", "DEFINE_multi_float",
    "DEFINE_multi_integer", "DEFINE_multi_string", "DEFINE_spaceseplist", "DEFINE_string",
    "Error", "FlagValues", "IllegalFlagValueError", "UnrecognizedFlagError",
    "mark_flag_as_required", "mark_flags_as_required", "register_validator", "parse_known",
]
__all__ += [
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
