"""A damaged checkpoint: automatic restores fall back to the newest intact one, explicit
restores fail naming the damaged file, and a full disk while saving is a
``ResourceExhaustedError`` that leaves the previous checkpoint the latest.

The directory used by most tests holds the checkpoints of steps 0, 3 and 6 written by a
``MonitoredTrainingSession``; the latest (step 6) is then damaged in one of the ways a
disk or an operator damages files: a flipped byte in a data file, a truncated index, a
missing data file, a missing index, an index with one byte changed.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import subprocess
import sys
import textwrap
import time
from typing import Callable, Dict, List, Tuple

import numpy as np
import pytest

import tensorfleet as tf
from tensorfleet import errors
from tensorfleet.testing.cluster import local_cluster
from tensorfleet.training import basic_hooks as bh
from tensorfleet.platform import tensor_bundle as bundle
from tensorfleet.training import checkpoint_management as cm
from tensorfleet.training.monitored_session import MonitoredTrainingSession
from tensorfleet.training.session_run_hook import SessionRunHook
from tensorfleet.training.summary_io import FileWriterCache
from tensorfleet.training.supervisor import Supervisor

CM_LOGGER = "tensorfleet.training.checkpoint_management"


@pytest.fixture(autouse=True)
def _close_event_writers():
    yield
    FileWriterCache.clear()


def _model():
    w = tf.Variable(np.full(4, 3.0, np.float32), name="w")
    gs = tf.train.get_or_create_global_step()
    train = tf.train.GradientDescentOptimizer(0.1).minimize(tf.reduce_sum(w * w),
                                                            global_step=gs)
    return w, gs, train


class AtCreation(SessionRunHook):
    """Records the global step and ``w`` of every session created."""

    def __init__(self, w):
        self._w = w
        self.seen: List[Tuple[int, np.ndarray]] = []

    def begin(self):
        self._gs = tf.train.get_global_step()

    def after_create_session(self, session, coord):
        self.seen.append((int(session.run(self._gs)), session.run(self._w)))


def _train_to(ckpt: str, last_step: int, hooks=()) -> None:
    w, gs, train = _model()
    with MonitoredTrainingSession(checkpoint_dir=ckpt, save_checkpoint_steps=3,
                                  save_summaries_steps=None, log_step_count_steps=None,
                                  hooks=[bh.StopAtStepHook(last_step=last_step), *hooks]) as mon:
        while not mon.should_stop():
            mon.run(train)


@pytest.fixture
def ckpt(tmp_path) -> str:
    """A checkpoint directory with the checkpoints of steps 0, 3 and 6 (the latest)."""
    d = str(tmp_path / "ckpt")
    _train_to(d, 6)
    tf.reset_default_graph()
    st = cm.get_checkpoint_state(d)
    assert [os.path.basename(p) for p in st.all_model_checkpoint_paths] == [
        "model.ckpt-0", "model.ckpt-3", "model.ckpt-6"]
    return d


def _prefix(ckpt: str, step: int) -> str:
    return os.path.join(ckpt, f"model.ckpt-{step}")


def _shard(prefix: str) -> str:
    (name,) = cm.read_index(prefix).shards
    return os.path.join(os.path.dirname(prefix), name)


# Each damage returns the file to be named and a pattern for what is wrong with it.
def flip_byte_in_shard(prefix: str) -> Tuple[str, str]:
    path = _shard(prefix)
    with open(path, "rb") as f:
        data = bytearray(f.read())
    data[-3] ^= 0x10
    with open(path, "wb") as f:
        f.write(bytes(data))
    return path, "CRC-32C"


def truncate_index(prefix: str) -> Tuple[str, str]:
    path = cm.index_path(prefix)
    with open(path, "r+b") as f:
        f.truncate(os.path.getsize(path) // 2)
    return path, "truncated"


def remove_shard(prefix: str) -> Tuple[str, str]:
    path = _shard(prefix)
    os.remove(path)
    return path, "does not exist"


def edit_index(prefix: str) -> Tuple[str, str]:
    """One byte of an entry changed (an offset, a size, a name): only the block's
    checksum can tell."""
    path = cm.index_path(prefix)
    with open(path, "rb") as f:
        data = bytearray(f.read())
    data[20] ^= 0x01
    with open(path, "wb") as f:
        f.write(bytes(data))
    return path, "CRC-32C"


def remove_index(prefix: str) -> Tuple[str, str]:
    path = cm.index_path(prefix)
    os.remove(path)
    return path, "no checkpoint index"


CORRUPTING: Dict[str, Callable[[str], Tuple[str, str]]] = {
    "flipped_byte_in_shard": flip_byte_in_shard, "truncated_index": truncate_index,
    "missing_shard": remove_shard, "edited_index": edit_index}


def _warnings(caplog) -> List[str]:
    return [r.getMessage() for r in caplog.records
            if r.name == CM_LOGGER and r.levelno == logging.WARNING]


@pytest.mark.parametrize("damage", [*CORRUPTING, "missing_index"])
def test_monitored_session_restores_the_newest_intact_checkpoint(ckpt, damage, caplog):
    previous = _prefix(ckpt, 3)
    saved_w = cm.load_variable(previous, "w")
    bad_file, why = {**CORRUPTING, "missing_index": remove_index}[damage](_prefix(ckpt, 6))
    w, gs, train = _model()
    at = AtCreation(w)
    with caplog.at_level(logging.WARNING, logger=CM_LOGGER):
        with MonitoredTrainingSession(checkpoint_dir=ckpt, save_checkpoint_steps=3,
                                      save_summaries_steps=None, log_step_count_steps=None,
                                      hooks=[bh.StopAtStepHook(last_step=9), at]) as mon:
            while not mon.should_stop():
                mon.run(train)
    step, w_restored = at.seen[0]
    assert step == 3, at.seen
    np.testing.assert_array_equal(w_restored, saved_w)
    named = [m for m in _warnings(caplog) if bad_file in m]
    assert named, _warnings(caplog)
    assert any(why in m for m in named), named
    # Training went on from step 3 and its new checkpoints are intact.
    latest = cm.latest_checkpoint(ckpt)
    assert latest == _prefix(ckpt, 9)
    assert cm.load_variable(latest, "w").shape == (4,)


def test_supervisor_restores_the_newest_intact_checkpoint(ckpt, caplog):
    bad_file, why = flip_byte_in_shard(_prefix(ckpt, 6))
    w, gs, _ = _model()
    sv = Supervisor(logdir=ckpt, save_model_secs=None, save_summaries_secs=None,
                    summary_writer=None)
    with caplog.at_level(logging.WARNING, logger=CM_LOGGER):
        with sv.managed_session("") as sess:
            assert sess.run(gs) == 3
            np.testing.assert_array_equal(sess.run(w), cm.load_variable(_prefix(ckpt, 3), "w"))
    assert any(bad_file in m and why in m for m in _warnings(caplog)), _warnings(caplog)


@pytest.mark.parametrize("damage", CORRUPTING)
def test_explicit_restore_of_a_damaged_checkpoint_is_data_loss_naming_the_file(ckpt, damage,
                                                                              caplog):
    bad = _prefix(ckpt, 6)
    bad_file, why = CORRUPTING[damage](bad)
    w, _, _ = _model()
    saver = tf.train.Saver()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        with caplog.at_level(logging.WARNING, logger=CM_LOGGER):
            with pytest.raises(errors.DataLossError, match=why) as e:
                saver.restore(sess, bad)
        assert bad_file in str(e.value)
        assert not _warnings(caplog)  # no fallback was tried
        np.testing.assert_array_equal(sess.run(w), np.full(4, 3.0))
        saver.restore(sess, _prefix(ckpt, 3))  # the session is still usable


def test_no_intact_checkpoint_raises_naming_every_damaged_one(ckpt):
    damaged = [flip_byte_in_shard(_prefix(ckpt, 6))[0], truncate_index(_prefix(ckpt, 3))[0],
               remove_shard(_prefix(ckpt, 0))[0]]
    _model()
    with pytest.raises(errors.DataLossError, match="No intact checkpoint") as e:
        MonitoredTrainingSession(checkpoint_dir=ckpt, save_summaries_steps=None,
                                 log_step_count_steps=None)
    for path in damaged:
        assert path in str(e.value)
    assert "CRC-32C" in str(e.value) and "truncated" in str(e.value)


def test_a_model_mismatch_is_not_taken_for_damage(ckpt):
    """The newest checkpoint is damaged and the previous one lacks a variable of the
    model: that is an error in the program, raised as such, not a reason to go on
    falling back (or to start from scratch)."""
    truncate_index(_prefix(ckpt, 6))
    _model()
    tf.Variable(1.0, name="added_later")
    with pytest.raises(errors.NotFoundError, match="added_later"):
        MonitoredTrainingSession(checkpoint_dir=ckpt, save_summaries_steps=None,
                                 log_step_count_steps=None)


def test_safetensors_index_without_a_checksum_still_restores(tmp_path):
    """Safetensors checkpoints of earlier releases, whose JSON indexes were written
    before they carried their own checksum, stay readable."""
    from tensorfleet.kernels.numpy import io_kernels
    prefix = str(tmp_path / "model.ckpt-6")
    shard = io_kernels.shard_filename(prefix, 0, 1)
    sha, size = io_kernels.write_shard(shard, {"w": np.arange(4, dtype=np.float32),
                                               "global_step": np.array(6, np.int64)})
    doc = {"format": cm.INDEX_FORMAT, "version": cm.INDEX_VERSION, "global_step": 6,
           "shards": {os.path.basename(shard): {"sha256": sha, "size": size}},
           "tensors": {"w": {"file": os.path.basename(shard), "dtype": "float32",
                             "shape": [4]},
                       "global_step": {"file": os.path.basename(shard), "dtype": "int64",
                                       "shape": []}}}
    with open(prefix + ".index.json", "w") as f:
        json.dump(doc, f)
    w, gs, _ = _model()
    with tf.Session() as sess:
        tf.train.Saver().restore(sess, prefix)
        np.testing.assert_array_equal(sess.run(w), np.arange(4))
        assert sess.run(gs) == 6


# -- a full disk while saving ---------------------------------------------------------------

def _assert_previous_is_latest_and_loads(d: str, good: str, v, sess) -> None:
    assert cm.latest_checkpoint(d) == good
    leftovers = [f for f in os.listdir(d) if ".tmp-" in f or f.startswith("m-2")]
    assert not leftovers, leftovers
    sess.run(v.assign(np.zeros(1000, np.float32)))
    tf.train.Saver().restore(sess, cm.latest_checkpoint(d))
    np.testing.assert_array_equal(sess.run(v), np.ones(1000, np.float32))


def test_disk_full_while_writing_a_shard_is_resource_exhausted(tmp_path, monkeypatch):
    d = str(tmp_path)
    v = tf.Variable(np.ones(1000, np.float32), name="v")
    saver = tf.train.Saver()
    with tf.Session() as sess:
        sess.run(v.initializer)
        good = saver.save(sess, os.path.join(d, "m"), global_step=1)
        real = bundle.write_data_file

        def full_disk(path, shard_id, values):
            # What the data file writer meets when the disk fills up half way.
            real(path, shard_id, values)
            with open(path, "r+b") as f:
                f.truncate(os.path.getsize(path) // 2)
            raise OSError(28, "No space left on device", path)

        monkeypatch.setattr(bundle, "write_data_file", full_disk)
        with pytest.raises(errors.ResourceExhaustedError, match="No space left") as e:
            saver.save(sess, os.path.join(d, "m"), global_step=2)
        monkeypatch.undo()
        assert os.path.join(d, "m-2.data-00000-of-00001") in str(e.value)
        _assert_previous_is_latest_and_loads(d, good, v, sess)


def test_on_a_cluster_each_ps_shard_is_checked_and_cleaned_up(tmp_path, monkeypatch, caplog):
    """Two parameter servers, one shard each: a full disk on ps 1 leaves no shard of
    the failed save on ps 0 either, and a shard gone from ps 1 is data loss that an
    automatic restore falls back from."""
    d = str(tmp_path)
    with local_cluster(ps=2, worker=1) as c:
        with tf.device("/job:ps/task:0"):
            a = tf.Variable(np.ones(3, np.float32), name="a")
            gs = tf.train.get_or_create_global_step()
        with tf.device("/job:ps/task:1"):
            b = tf.Variable(np.ones(3, np.float32), name="b")
        with tf.device("/job:worker/task:0"):
            step = tf.group(a.assign_add(a), b.assign_add(b), tf.assign_add(gs, 1))
        saver = tf.train.Saver()
        base = os.path.join(d, "model.ckpt")
        with tf.Session(c.target("worker", 0)) as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(step)
            first = saver.save(sess, base, global_step=gs)
            sess.run(step)
            second = saver.save(sess, base, global_step=gs)
            sess.run(step)
            real = bundle.write_data_file

            def full_on_ps1(path, shard_id, values):
                if "-00001-of-00002" not in path:
                    return real(path, shard_id, values)
                # Fail only once ps 0's data file is in place, so that it has to be removed.
                deadline = time.monotonic() + 60
                while not os.path.exists(base + "-3.data-00000-of-00002"):
                    assert time.monotonic() < deadline, "ps 0 never wrote its data file"
                    time.sleep(0.01)
                raise OSError(28, "No space left on device", path)

            monkeypatch.setattr(bundle, "write_data_file", full_on_ps1)
            with pytest.raises(errors.ResourceExhaustedError, match="00001-of-00002"):
                saver.save(sess, base, global_step=gs)
            monkeypatch.undo()
            assert not [f for f in os.listdir(d) if "ckpt-3" in f or ".tmp-" in f]
            assert cm.latest_checkpoint(d) == second

            gone = second + ".data-00001-of-00002"
            os.remove(gone)
            with pytest.raises(errors.DataLossError, match="does not exist") as e:
                saver.restore(sess, second)
            assert gone in str(e.value)
            with caplog.at_level(logging.WARNING, logger=CM_LOGGER):
                restored = cm.restore_newest_intact(
                    saver, sess, second, cm.get_checkpoint_state(d).all_model_checkpoint_paths)
            assert restored == first
            assert any(gone in m for m in _warnings(caplog)), _warnings(caplog)
            np.testing.assert_array_equal(sess.run(a), np.full(3, 2.0))
            np.testing.assert_array_equal(sess.run(b), np.full(3, 2.0))
            assert sess.run(gs) == 1


_FULL_DISK_SCRIPT = """
import json, os, sys
import numpy as np
import tensorfleet as tf
from tensorfleet.training import checkpoint_management as cm
d = sys.argv[1]
v = tf.Variable(np.ones(1000, np.float32), name="v")
big = tf.Variable(np.zeros(1, np.float32), validate_shape=False, name="big")
saver = tf.train.Saver()
out = {}
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    out["good"] = saver.save(sess, d + "/m", global_step=1)
    sess.run(tf.assign(big, np.zeros(1 << 20, np.float32), validate_shape=False))
    try:
        saver.save(sess, d + "/m", global_step=2)
    except Exception as e:
        out["error"], out["message"] = type(e).__name__, str(e)
    out["latest"] = cm.latest_checkpoint(d)
    out["files"] = sorted(os.listdir(d))
    sess.run(v.assign(np.zeros(1000, np.float32)))
    saver.restore(sess, out["latest"])
    out["restored_sum"] = float(sess.run(v).sum())
print("RESULT " + json.dumps(out))
"""


def test_disk_full_on_a_real_file_system(tmp_path):
    """The same on a 1 MiB tmpfs mounted in a private mount namespace (root, or
    unprivileged user namespaces); skipped, saying why, where none can be made."""
    if shutil.which("unshare") is None:
        pytest.skip("util-linux's `unshare` is not installed")
    mnt = tmp_path / "small"
    mnt.mkdir()
    script = tmp_path / "fill.py"
    script.write_text(textwrap.dedent(_FULL_DISK_SCRIPT))
    flags = "-m" if os.geteuid() == 0 else "-rm"
    cmd = ["unshare", flags, "sh", "-c",
           'mount -t tmpfs -o size=1m tmpfs "$1" || exit 77; exec "$2" "$3" "$1"', "sh",
           str(mnt), sys.executable, str(script)]
    # The child imports the tensorfleet these tests import, installed or not.
    env = dict(os.environ)
    root = os.path.dirname(os.path.dirname(os.path.abspath(tf.__file__)))
    env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=240, env=env)
    if r.returncode == 77 or "unshare failed" in r.stderr:
        pytest.skip(f"cannot mount a small tmpfs here: {r.stderr.strip()[-300:]}")
    assert r.returncode == 0, r.stderr[-3000:]
    (line,) = [x for x in r.stdout.splitlines() if x.startswith("RESULT ")]
    out = json.loads(line[len("RESULT "):])
    assert out.get("error") == "ResourceExhaustedError", out
    assert f"{mnt}/m-2.data-00000-of-00001" in out["message"]
    assert "No space left on device" in out["message"]
    assert out["latest"] == out["good"]
    assert not [f for f in out["files"] if ".tmp-" in f or f.startswith("m-2")], out["files"]
    assert out["restored_sum"] == 1000.0
