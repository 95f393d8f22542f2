"""The rest of absl's flags surface under ``tf.app.flags``: parsers, serializers, enum and
multi flags, validators and key flags work on a private ``FlagValues`` (absl's global
registry is left alone)."""

import enum

import pytest

import tensorfleet as tf

flags = tf.app.flags


class Color(enum.Enum):
    RED = 1
    BLUE = 2


def test_it_is_absls_surface():
    from absl import flags as absl_flags
    for name in ("Flag", "FlagHolder", "DEFINE_multi_enum_class", "validator", "text_wrap"):
        assert getattr(flags, name) is getattr(absl_flags, name)
    assert tf.flags is flags


def test_enum_class_multi_and_list_flags_parse():
    fv = flags.FlagValues()
    color = flags.DEFINE_enum_class("color", Color.RED, Color, "a color", flag_values=fv)
    flags.DEFINE_multi_enum("mode", ["a"], ["a", "b", "c"], "modes", flag_values=fv)
    flags.DEFINE_multi_enum_class("colors", [Color.RED], Color, "colors", flag_values=fv)
    flags.DEFINE_multi(flags.IntegerParser(lower_bound=0), flags.ArgumentSerializer(),
                       "sizes", [1], "sizes", flag_values=fv)
    fv(["prog", "--color=blue", "--mode=b", "--mode=c", "--colors=blue", "--sizes=3",
        "--sizes=4"])
    assert isinstance(color, flags.FlagHolder) and color.value is Color.BLUE
    assert fv.mode == ["b", "c"] and fv.colors == [Color.BLUE] and fv.sizes == [3, 4]
    assert isinstance(fv["color"], flags.EnumClassFlag)
    assert isinstance(fv["mode"], flags.MultiFlag)


def test_parsers_and_serializers():
    assert flags.FloatParser(lower_bound=0.0).parse("2.5") == 2.5
    with pytest.raises(ValueError):
        flags.IntegerParser(lower_bound=0).parse("-1")
    assert flags.BooleanParser().parse("false") is False
    assert flags.EnumParser(["x", "y"]).parse("y") == "y"
    assert flags.ListParser().parse("a,b") == ["a", "b"]
    assert flags.WhitespaceSeparatedListParser().parse("a b") == ["a", "b"]
    assert flags.CsvListSerializer(",").serialize(["a", "b"]) == "a,b"
    assert flags.EnumClassSerializer(lowercase=True).serialize(Color.RED) == "red"
    assert flags.EnumClassParser(Color).parse("BLUE") is Color.BLUE


def test_validators_mutual_exclusion_and_errors():
    fv = flags.FlagValues()
    flags.DEFINE_integer("lo", 1, "low", flag_values=fv)
    flags.DEFINE_integer("hi", 2, "high", flag_values=fv)
    flags.register_multi_flags_validator(["lo", "hi"], lambda d: d["lo"] < d["hi"],
                                         "lo must be below hi", flag_values=fv)
    with pytest.raises(flags.IllegalFlagValueError, match="lo must be below hi"):
        fv(["prog", "--lo=5"])
    fv2 = flags.FlagValues()
    flags.DEFINE_string("a", None, "a", flag_values=fv2)
    flags.DEFINE_string("b", None, "b", flag_values=fv2)
    flags.mark_flags_as_mutual_exclusive(["a", "b"], flag_values=fv2)
    with pytest.raises(flags.IllegalFlagValueError):
        fv2(["prog", "--a=1", "--b=2"])
    fv3 = flags.FlagValues()
    flags.DEFINE_string("x", "d", "x", flag_values=fv3)
    with pytest.raises(flags.UnparsedFlagAccessError):
        fv3.x
    with pytest.raises(flags.DuplicateFlagError):
        flags.DEFINE_string("x", "e", "again", flag_values=fv3)
    flags.set_default(flags.FlagHolder(fv3, fv3["x"]), "new")
    fv3(["prog"])
    assert fv3.x == "new"
    flags.override_value(flags.FlagHolder(fv3, fv3["x"]), "over")
    assert fv3.x == "over"


def test_helpers():
    assert flags.flag_dict_to_args({"a": 1, "b": True, "c": False}) is not None
    assert list(flags.flag_dict_to_args({"a": 1, "b": True, "c": False})) == \
        ["--a=1", "--b", "--noc"]
    assert flags.text_wrap("word " * 30, length=20).count("\n") >= 5
    assert flags.doc_to_help("  first\n  second") == "first second"
    assert flags.get_help_width() > 0
