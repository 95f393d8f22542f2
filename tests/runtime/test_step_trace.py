"""Traced steps (RunOptions FULL_TRACE -> RunMetadata.step_stats), the Chrome trace of
tensorfleet.python.client.timeline, and tf.train.ProfilerHook."""

import json
import logging
import os

import numpy as np
import pytest

import tensorfleet as tf
from tensorfleet.python.client import timeline


def _model():
    x = tf.placeholder(tf.float32, [4, 4], name="x")
    w = tf.Variable(tf.ones([4, 4]), name="w")
    y = tf.matmul(x, w, name="mm")
    return x, tf.reduce_sum(tf.nn.relu(y), name="total")


def test_traced_step_records_every_op_in_order():
    x, z = _model()
    opts = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE)
    md = tf.RunMetadata()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert md.step_stats is None
        plain = sess.run(z, {x: np.ones([4, 4])})
        traced = sess.run(z, {x: np.ones([4, 4])}, options=opts, run_metadata=md)
        untraced_md = tf.RunMetadata()
        sess.run(z, {x: np.ones([4, 4])}, run_metadata=untraced_md)
    assert plain == traced == 64.0
    assert untraced_md.step_stats is None
    (dev,) = md.step_stats.dev_stats
    assert dev.device == "/job:localhost/replica:0/task:0/device:CPU:0"
    names = [n.node_name for n in dev.node_stats]
    assert names.index("mm") < names.index("Relu") < names.index("total")
    mm = dev.node_stats[names.index("mm")]
    assert mm.timeline_label.startswith("mm = MatMul(x:0, w/read:0")
    starts = [n.all_start_micros for n in dev.node_stats]
    assert starts == sorted(starts) and all(n.all_end_rel_micros >= 0 for n in dev.node_stats)


def test_timeline_chrome_trace():
    x, z = _model()
    md = tf.RunMetadata()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(z, {x: np.ones([4, 4])},
                 options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE), run_metadata=md)
    trace = json.loads(timeline.Timeline(md.step_stats).generate_chrome_trace_format())
    events = trace["traceEvents"]
    ops = {e["args"]["name"]: e for e in events if e["ph"] == "X"}
    assert ops["mm"]["name"] == "MatMul" and ops["mm"]["args"]["input0"] == "x:0"
    assert all(e["dur"] >= 0 for e in ops.values())
    flows = [e for e in events if e["ph"] in ("s", "t")]
    assert any(e["name"] == "mm:0" for e in flows)
    assert any(e["ph"] == "M" and e["name"] == "process_name" for e in events)
    no_flow = json.loads(timeline.Timeline(md.step_stats).generate_chrome_trace_format(
        show_dataflow=False))
    assert not [e for e in no_flow["traceEvents"] if e["ph"] in ("s", "t")]
    with pytest.raises(ValueError, match="show_memory"):
        timeline.Timeline(md.step_stats).generate_chrome_trace_format(show_memory=True)
    with pytest.raises(ValueError, match="step_stats"):
        timeline.Timeline(None)


def test_failed_traced_step_still_reports_what_ran():
    a = tf.placeholder(tf.float32, [None])
    bad = tf.reshape(a, [3], name="bad")
    md = tf.RunMetadata()
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError):
            sess.run(bad, {a: [1.0, 2.0]},
                     options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE),
                     run_metadata=md)
    assert [n.node_name for d in md.step_stats.dev_stats for n in d.node_stats][-1] == "bad"


def test_profiler_hook_writes_timelines(tmp_path):
    x, z = _model()
    gs = tf.train.get_or_create_global_step()
    train = tf.assign_add(gs, 1)
    hook = tf.train.ProfilerHook(save_steps=2, output_dir=str(tmp_path / "prof"))
    with tf.train.MonitoredTrainingSession(hooks=[hook]) as sess:
        for _ in range(6):
            sess.run([train, z], {x: np.ones([4, 4])})
    files = sorted(os.listdir(tmp_path / "prof"))
    assert files == ["timeline-2.json", "timeline-4.json", "timeline-6.json"]
    with open(tmp_path / "prof" / "timeline-4.json") as f:
        events = json.load(f)["traceEvents"]
    assert any(e.get("args", {}).get("name") == "mm" for e in events)
    with pytest.raises(ValueError):
        tf.train.ProfilerHook(output_dir=str(tmp_path))
    with pytest.raises(ValueError, match="show_memory"):
        tf.train.ProfilerHook(save_steps=1, show_memory=True)


def test_profiler_hook_needs_global_step(tmp_path):
    hook = tf.train.ProfilerHook(save_secs=10, output_dir=str(tmp_path))
    with pytest.raises(RuntimeError, match="Global step"):
        hook.begin()


def test_remote_sessions_run_untraced_and_say_so(caplog):
    workers, ps = tf.test.create_local_cluster(1, 0)
    try:
        c = tf.constant(2.0) * 3
        md = tf.RunMetadata()
        with caplog.at_level(logging.WARNING, logger="tensorfleet"):
            with tf.Session(workers[0].target) as sess:
                assert sess.run(c, options=tf.RunOptions(trace_level=3),
                                run_metadata=md) == 6.0
        assert md.step_stats is None
        assert any("not traced" in r.getMessage() for r in caplog.records)
    finally:
        for s in workers:
            s.stop()
