"""``tf.logging`` and ``tf.gfile`` as TensorFlow 1.x programs call them."""

import io
import logging

import pytest

import tensorfleet as tf
from tensorfleet.platform import logs


@pytest.fixture
def captured():
    """The tensorfleet logger tree's output, its level and handlers restored after."""
    tree = logging.getLogger("tensorfleet")
    level, handlers = tree.level, list(tree.handlers)
    stream = io.StringIO()
    logs.configure_logging("warning", stream=stream)
    try:
        yield stream
    finally:
        tree.setLevel(level)
        tree.handlers[:] = handlers


def test_set_verbosity_decides_what_reaches_the_log(captured):
    tf.logging.info("hidden %d", 1)
    tf.logging.warn("shown %s", "warning")
    tf.logging.set_verbosity(tf.logging.INFO)
    assert tf.logging.get_verbosity() == tf.logging.INFO
    tf.logging.info("step %d", 7)
    tf.logging.debug("still hidden")
    text = captured.getvalue()
    assert "hidden 1" not in text and "still hidden" not in text
    assert "WARNING tensorfleet.program: shown warning" in text
    assert "INFO tensorfleet.program: step 7" in text
    with pytest.raises(ValueError, match="unknown log level 'loud'"):
        tf.logging.set_verbosity("loud")
    assert tf.logging.get_verbosity() == tf.logging.INFO  # unchanged by the bad call


def test_log_every_n_and_first_n_count_per_call_site(captured):
    tf.logging.set_verbosity(tf.logging.INFO)
    for i in range(7):
        tf.logging.log_every_n(tf.logging.INFO, "every %d", 3, i)
        tf.logging.log_first_n(tf.logging.INFO, "first %d", 2, i)
    lines = captured.getvalue().splitlines()
    assert [ln.split(": ")[1] for ln in lines if "every" in ln] == ["every 0", "every 3",
                                                                     "every 6"]
    assert [ln.split(": ")[1] for ln in lines if "first" in ln] == ["first 0", "first 1"]


def test_gfile_files_and_directories(tmp_path):
    d = tmp_path / "a" / "b"
    tf.gfile.MakeDirs(str(d))
    tf.gfile.MakeDirs(str(d))  # already there: fine
    assert tf.gfile.IsDirectory(str(d)) and tf.gfile.Exists(str(d))
    with tf.gfile.GFile(str(d / "x.txt"), "w") as f:
        f.write("one\ntwo\n")
    with tf.gfile.Open(str(d / "x.txt")) as f:
        assert list(f) == ["one\n", "two\n"]
        assert f.size() == 8
    assert tf.gfile.Stat(str(d / "x.txt")).length == 8
    assert sorted(tf.gfile.ListDirectory(str(d))) == ["x.txt"]
    assert tf.gfile.Glob(str(d / "*.txt")) == [str(d / "x.txt")]
    tf.gfile.Copy(str(d / "x.txt"), str(d / "y.txt"))
    with pytest.raises(tf.errors.AlreadyExistsError, match="y.txt already exists"):
        tf.gfile.Copy(str(d / "x.txt"), str(d / "y.txt"))
    tf.gfile.Rename(str(d / "y.txt"), str(d / "x.txt"), overwrite=True)
    assert sorted(tf.gfile.ListDirectory(str(d))) == ["x.txt"]
    walked = [(top, sorted(files)) for top, _, files in tf.gfile.Walk(str(tmp_path / "a"))]
    assert walked == [(str(tmp_path / "a"), []), (str(d), ["x.txt"])]
    tf.gfile.DeleteRecursively(str(tmp_path / "a"))
    assert not tf.gfile.Exists(str(tmp_path / "a"))


def test_gfile_errors_name_the_path(tmp_path):
    missing = str(tmp_path / "nope")
    with pytest.raises(tf.errors.NotFoundError, match="nope"):
        tf.gfile.Remove(missing)
    with pytest.raises(tf.errors.NotFoundError, match="nope"):
        tf.gfile.GFile(missing)
    with pytest.raises(tf.errors.NotFoundError, match="nope"):
        tf.gfile.ListDirectory(missing)
    with pytest.raises(tf.errors.UnimplementedError, match="gs://bucket/ckpt"):
        tf.gfile.Exists("gs://bucket/ckpt")
    assert tf.gfile.Exists("file://" + str(tmp_path))


def test_registered_schemes_are_the_ones_gfile_opens(tmp_path):
    schemes = tf.io.gfile.get_registered_schemes()
    assert schemes == ["", "file"]
    target = tmp_path / "f.txt"
    target.write_text("x")
    assert tf.io.gfile.exists(f"file://{target}") and tf.io.gfile.exists(str(target))
    with pytest.raises(tf.errors.UnimplementedError, match="not supported"):
        tf.io.gfile.exists("gs://bucket/f.txt")
