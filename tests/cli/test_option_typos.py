"""A misspelt option gets the option it resembles, not advice to move it."""

import pytest

from tensorfleet.cli.main import main


def _error(capsys, *argv):
    with pytest.raises(SystemExit) as e:
        main(list(argv))
    assert e.value.code == 2
    return capsys.readouterr().err


def test_a_misspelt_launch_option_gets_did_you_mean(capsys):
    err = _error(capsys, "launch", "--wokers", "2", "examples/trainer.py")
    assert "--wokers: did you mean --workers?" in err
    assert "go after its path" not in err


def test_a_misspelt_option_with_a_value_after_equals(capsys):
    err = _error(capsys, "launch", "--port-bse=5000", "examples/trainer.py")
    assert "did you mean --port-base?" in err


def test_other_commands_suggest_too(capsys):
    err = _error(capsys, "demo", "--wrkers", "3")
    assert "did you mean --workers?" in err


def test_a_script_option_before_the_path_still_gets_moved(capsys):
    err = _error(capsys, "launch", "--ps", "1", "--sync", "trainer.py")
    assert "did you mean" not in err
    assert "tensorfleet launch --ps 1 trainer.py --sync" in err
