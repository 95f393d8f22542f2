"""The command's parser and help, its logging knob, and the prefixed output of tasks."""

import io
import logging
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tensorfleet.platform import logs
from tensorfleet.cli.main import build_parser
from tensorfleet.cli.output import PrefixWriter

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def _keep_logging():
    logger = logging.getLogger("tensorfleet")
    level, handlers = logger.level, list(logger.handlers)
    yield
    logger.setLevel(level)
    logger.handlers[:] = handlers


def test_every_command_has_help(capsys):
    parser = build_parser()
    text = parser.format_help()
    for cmd in ("launch", "server", "status", "demo", "k8s"):
        assert f"  {cmd} " in text
    for cmd, words in [("launch", ["--max-restarts", "exit status", "130"]),
                       ("server", ["--cluster", "TF_CONFIG"]),
                       ("status", ["--watch", "--json", "DOWN"]),
                       ("demo", ["--steps", "--workers", "--sync"]),
                       ("k8s", ["TFJob", "--plain", "--image"])]:
        with pytest.raises(SystemExit):
            parser.parse_args([cmd, "--help"])
        out = capsys.readouterr().out
        assert f"usage: tensorfleet {cmd}" in out
        for word in words:
            assert word in out, (cmd, word)


def test_help_of_launch_documents_exit_codes(capsys):
    with pytest.raises(SystemExit):
        build_parser().parse_args(["launch", "--help"])
    out = capsys.readouterr().out
    for code in ("0 ", "1 ", "2 ", "130", "143"):
        assert f"  {code}" in out


def test_console_script_is_installed():
    exe = shutil.which("tensorfleet")
    if exe is None:
        pytest.skip("tensorfleet is not installed on PATH (pip install -e .)")
    r = subprocess.run([exe, "--help"], capture_output=True, text=True, timeout=60,
                       env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert r.returncode == 0 and "tensorfleet launch" not in r.stderr
    assert "launch" in r.stdout and "demo" in r.stdout


def test_log_level_from_flag_and_environment(monkeypatch):
    stream = io.StringIO()
    assert logs.configure_logging("info", stream) == logging.INFO
    logging.getLogger("tensorfleet.some.module").info("hello %d", 1)
    logging.getLogger("tensorfleet.some.module").debug("hidden")
    assert "INFO tensorfleet.some.module: hello 1" in stream.getvalue()
    assert "hidden" not in stream.getvalue()
    monkeypatch.setenv(logs.ENV, "DEBUG")
    assert logs.configure_from_env() == logging.DEBUG
    # Configuring twice does not duplicate the handler.
    assert sum(h.get_name() == "tensorfleet-log"
               for h in logging.getLogger("tensorfleet").handlers) == 1
    monkeypatch.setenv(logs.ENV, "loud")
    assert logs.configure_from_env() is None
    with pytest.raises(ValueError, match="unknown log level"):
        logs.parse_level("loud")


def test_prefixed_output_keeps_lines_and_progress_bars_apart():
    out, lines = io.StringIO(), []
    w = PrefixWriter(out, out, color=False, on_line=lambda t, s: lines.append((t, s)))
    w.feed("worker:0", b"hello\nwor")
    w.feed("worker:1", b"other\n")
    w.feed("worker:0", b"ld\n\r 10%|#\r 20%|##")
    w.feed("ps:0", b"x\n")
    w.feed("worker:0", b"\r100%|###\n")
    w.feed("ps:0", b"caf\xc3")
    w.feed("ps:0", b"\xa9\n", final=True)
    assert out.getvalue() == ("[worker:0] hello\n[worker:0] wor\n[worker:1] other\n"
                              "[worker:0] ld\n[worker:0]  10%|#\r[worker:0]  20%|##\n"
                              "[ps:0] x\n[worker:0] 100%|###\n[ps:0] café\n")
    assert lines == [("worker:0", "hello"), ("worker:1", "other"), ("worker:0", "world"),
                     ("ps:0", "x"), ("worker:0", "100%|###"), ("ps:0", "café")]


def test_run_files_give_status_the_token_of_a_live_launch(tmp_path, monkeypatch):
    from tensorfleet.cli import runfiles
    monkeypatch.setenv(runfiles.ENV, str(tmp_path / "run"))
    path = runfiles.write({"ps": ["localhost:1"], "worker": ["localhost:2"]}, "tok", "t.py")
    assert path and os.stat(path).st_mode & 0o077 == 0
    assert os.stat(tmp_path / "run").st_mode & 0o077 == 0
    assert runfiles.token_for("localhost:2") == "tok"
    assert runfiles.token_for("localhost:3") is None
    assert [i["script"] for i in runfiles.live_launches()] == ["t.py"]
    # A run file whose launcher is gone is ignored and removed.
    stale = tmp_path / "run" / "launch-999999999.json"
    stale.write_text('{"pid": 999999999, "cluster": {}, "token": "x", "script": "old"}')
    assert [i["script"] for i in runfiles.live_launches()] == ["t.py"]
    assert not stale.exists()
    runfiles.remove(path)
    assert runfiles.live_launches() == []


def test_the_launcher_drops_the_traceback_of_a_known_error_and_keeps_any_other():
    from tensorfleet.cli.launch_checks import KnownError, TracebackFilter, classify_error
    f = TracebackFilter(lambda line: classify_error(line, {"worker"}))
    # Ordinary output and progress bars pass at once, partial lines included.
    assert f.feed(b"start\n\r 10%|#") == b"start\n\r 10%|#"
    assert f.feed(b"\r 20%|##\n") == b"\r 20%|##\n"
    # A traceback is held until its exception line, even split across chunks.
    assert f.feed(b"Tra") == b""
    assert f.feed(b"ceback (most recent call last):\n  File \"t.py\", line 3\n") == b""
    known = (b"tensorfleet.errors.InvalidArgumentError: Cannot assign a device for operation "
             b"w: job 'ps' is not in the cluster (jobs: ['worker'])\n")
    assert f.feed(known + b"after\n") == b"after\n"
    assert f.known == KnownError("the program places variables on a parameter server, but "
                                 "the cluster has none: launch it with --ps 1 (or more)",
                                 retry=False)
    other = b"Traceback (most recent call last):\n  File \"t.py\", line 9\nKeyError: 'x'\n"
    assert f.feed(other[:40]) == b""
    assert f.feed(other[40:]) == other
    assert f.feed(b"Traceback (most recent call last):\n  File") == b""
    assert f.close() == b"Traceback (most recent call last):\n  File"


def test_known_errors_depend_on_the_cluster():
    from tensorfleet.cli.launch_checks import classify_error
    in_use = "tensorfleet.errors.UnavailableError: address localhost:2222 is already in use"
    assert classify_error(in_use, {"ps", "worker"}).retry
    assert "localhost:2222" in classify_error(in_use, {"worker"}).message
    no_ps = "ValueError: Address of /job:ps/task:0 must be a non-empty string, got ''"
    assert classify_error(no_ps, {"worker"}).retry is False
    assert classify_error(no_ps, {"ps", "worker"}) is None  # then it is another problem
    assert classify_error("KeyError: 'x'", {"worker"}) is None
