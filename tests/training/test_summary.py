"""tf.summary ops and FileWriter: real TensorBoard event files, read back frame by frame."""

import os
import re
import socket
import struct

import numpy as np
import pytest
from tensorboardX.proto import event_pb2, summary_pb2

import tensorfleet as tf
from tensorfleet import errors
from tensorfleet.ops import summary_ops
from tensorfleet.training.summary_io import (
    FileWriter,
    FileWriterCache,
    summary_iterator,
)


def _crc32c(data: bytes) -> int:
    # Bitwise CRC-32C (Castagnoli), written here so the check does not trust the
    # library that wrote the file.
    crc = 0xFFFFFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF


def _masked(data: bytes) -> int:
    c = _crc32c(data)
    return (((c >> 15) | (c << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def _read_events(path):
    """Parses TFRecord frames (checking both CRCs) into Event protos."""
    with open(path, "rb") as f:
        raw = f.read()
    events, pos = [], 0
    while pos < len(raw):
        head = raw[pos:pos + 8]
        (n,) = struct.unpack("<Q", head)
        assert struct.unpack("<I", raw[pos + 8:pos + 12])[0] == _masked(head)
        data = raw[pos + 12:pos + 12 + n]
        assert struct.unpack("<I", raw[pos + 12 + n:pos + 16 + n])[0] == _masked(data)
        ev = event_pb2.Event()
        ev.ParseFromString(data)
        events.append(ev)
        pos += 16 + n
    return events


def _event_files(logdir):
    return sorted(os.path.join(logdir, f) for f in os.listdir(logdir) if "tfevents" in f)


def test_crc_reference_vector():
    assert _crc32c(b"123456789") == 0xE3069283


def test_scalar_histogram_text_merge_all_written_and_read_back(tmp_path):
    x = tf.placeholder(tf.float32, [])
    with tf.name_scope("train"):
        tf.summary.scalar("loss", x)
    tf.summary.histogram("weights", tf.constant(np.linspace(-1, 1, 101, dtype=np.float32)))
    tf.summary.text("note", tf.constant("hello"))
    merged = tf.summary.merge_all()
    with tf.Session() as sess:
        writer = FileWriter(str(tmp_path), graph=sess.graph)
        for step in range(3):
            writer.add_summary(sess.run(merged, {x: step * 0.5}), global_step=step)
        writer.close()
    files = _event_files(str(tmp_path))
    assert len(files) == 1
    name = os.path.basename(files[0])
    assert re.fullmatch(r"events\.out\.tfevents\.\d{10}\." + re.escape(socket.gethostname()), name)
    events = _read_events(files[0])
    assert events[0].file_version == "brain.Event:2"
    assert events[1].graph_def  # the graph, for TensorBoard's graph view
    summaries = [e for e in events if e.HasField("summary")]
    assert [e.step for e in summaries] == [0, 1, 2]
    tags = [v.tag for v in summaries[0].summary.value]
    assert tags == ["train/loss", "weights", "note"]
    assert [e.summary.value[0].simple_value for e in summaries] == [0.0, 0.5, 1.0]
    histo = summaries[0].summary.value[1].histo
    assert histo.num == 101 and histo.min == -1.0 and histo.max == 1.0
    assert sum(histo.bucket) == 101 and len(histo.bucket) == len(histo.bucket_limit)
    text = summaries[0].summary.value[2]
    assert text.metadata.plugin_data.plugin_name == "text"
    assert list(text.tensor.string_val) == [b"hello"]
    # The library's own reader agrees with the hand-written one.
    assert [e.step for e in summary_iterator(files[0])] == [e.step for e in events]


def test_tags_family_and_unique_names():
    a = tf.summary.scalar("loss", 1.0)
    b = tf.summary.scalar("loss", 2.0, family="eval")
    c = tf.summary.scalar("loss", 3.0, collections=["mine"])
    assert tf.get_collection(tf.GraphKeys.SUMMARIES) == [a, b]
    assert tf.get_collection("mine") == [c]
    with tf.Session() as sess:
        out = [summary_pb2.Summary.FromString(s) for s in sess.run([a, b, c])]
    # As in TensorFlow 1.x: the tag is the unique name scope, the family prefixes it.
    assert [s.value[0].tag for s in out] == ["loss", "eval/eval/loss", "loss_1"]


def test_merge_rejects_duplicate_tags_and_bad_inputs():
    s1 = tf.summary.scalar("a", 1.0)
    s2 = tf.summary.scalar("b", 2.0)
    m = tf.summary.merge([s1, s2, s1])
    with tf.Session() as sess, pytest.raises(errors.InvalidArgumentError, match="Duplicate tag"):
        sess.run(m)
    with pytest.raises(ValueError, match="scalar"):
        tf.summary.scalar("v", tf.constant([1.0, 2.0]))
    h = tf.summary.histogram("h", tf.constant([1.0, np.nan]))
    with tf.Session() as sess, pytest.raises(errors.InvalidArgumentError, match="Nan"):
        sess.run(h)
    tf.reset_default_graph()
    assert tf.summary.merge_all() is None


def test_summary_objects_flush_reopen_and_cache(tmp_path):
    logdir = str(tmp_path / "logs")
    w = FileWriter(logdir, flush_secs=3600, filename_suffix=".v1")
    assert w.get_logdir() == logdir
    manual = summary_ops.Summary(value=[summary_ops.Summary.Value(tag="acc", simple_value=0.9)])
    w.add_summary(manual, 10)
    w.add_summary(manual.SerializeToString(), 11)
    w.add_session_log(summary_ops.SessionLog(status=summary_ops.SessionLog.START), 11)
    with pytest.raises(TypeError):
        w.add_summary(3.0)
    w.flush()  # everything queued is on disk before close
    events = _read_events(w.event_file_path)
    assert w.event_file_path.endswith(".v1")
    assert [(e.step, e.summary.value[0].tag) for e in events if e.HasField("summary")] == [
        (10, "acc"), (11, "acc")]
    assert events[-1].session_log.status == summary_ops.SessionLog.START
    w.close()
    w.reopen()
    w.add_summary(manual, 12)
    w.close()
    assert len(_event_files(logdir)) == 2  # same second, distinct names
    c1 = FileWriterCache.get(logdir)
    assert FileWriterCache.get(logdir) is c1
    FileWriterCache.clear()
    assert FileWriterCache.get(logdir) is not c1
    FileWriterCache.clear()


def test_summary_iterator_detects_corruption(tmp_path):
    with FileWriter(str(tmp_path)) as w:
        w.add_summary(summary_ops.Summary(
            value=[summary_ops.Summary.Value(tag="x", simple_value=1.0)]), 1)
        path = w.event_file_path
    with open(path, "rb") as f:
        data = bytearray(f.read())
    data[-6] ^= 0xFF
    with open(path, "wb") as f:
        f.write(bytes(data))
    with pytest.raises(errors.DataLossError, match="corrupt"):
        list(summary_iterator(path))


def _graph_nodes(event_file):
    from tensorboardX.proto import graph_pb2
    for e in _read_events(event_file):
        if e.graph_def:
            g = graph_pb2.GraphDef()
            g.ParseFromString(e.graph_def)
            return {n.name: n.op for n in g.node}
    return None


def test_the_graph_reaches_tensorboard_from_every_writer(tmp_path):
    """FileWriter(logdir, graph), FileWriter(graph_def=...) and the writer of a
    MonitoredTrainingSession all write the graph (TensorBoard's Graphs tab)."""
    w = tf.Variable(1.0, name="w")
    gs = tf.train.get_or_create_global_step()
    train = tf.group(tf.assign_add(w, 1.0), tf.assign_add(gs, 1), name="train")
    graph = tf.get_default_graph()

    by_graph = FileWriter(str(tmp_path / "a"), graph)
    by_graph.close()
    assert _graph_nodes(by_graph.event_file_path)["train"] == "NoOp"

    by_def = FileWriter(str(tmp_path / "b"), graph_def=graph.as_graph_def())
    by_def.close()
    assert _graph_nodes(by_def.event_file_path)["w"] == _graph_nodes(
        by_graph.event_file_path)["w"]
    with pytest.raises(ValueError, match="not both"):
        FileWriter(str(tmp_path / "c"), graph, graph_def=graph.as_graph_def())
    with pytest.raises(TypeError, match="GraphDef"):
        FileWriter(str(tmp_path / "d")).add_graph(42)

    logdir = str(tmp_path / "mon")
    with tf.train.MonitoredTrainingSession(checkpoint_dir=logdir,
                                           save_summaries_steps=1) as mon:
        mon.run(train)
    FileWriterCache.clear()
    nodes = [_graph_nodes(p) for p in _event_files(logdir)]
    assert any(n and n.get("train") == "NoOp" for n in nodes), nodes
