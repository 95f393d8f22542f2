"""tf.train.Supervisor: chief initialization and restore, stopping, background services,
a non-chief waiting for its chief."""

import logging
import threading
import time

import pytest

import tensorfleet as tf
from tensorfleet.testing.cluster import local_cluster
from tensorfleet.training.checkpoint_management import latest_checkpoint
from tensorfleet.training.supervisor import Supervisor


def _model():
    w = tf.Variable(3.0, name="w")
    gs = tf.train.get_or_create_global_step()
    train = tf.train.GradientDescentOptimizer(0.1).minimize(w * w, global_step=gs)
    return w, gs, train


class FakeWriter:
    def __init__(self):
        self.summaries, self.logs, self.closed = [], [], 0
        self._lock = threading.Lock()

    def add_summary(self, summary, global_step=None):
        with self._lock:
            self.summaries.append((summary, global_step))

    def add_session_log(self, log, global_step=None):
        self.logs.append(log.status)

    def add_graph(self, graph):
        self.graph = graph

    def close(self):
        self.closed += 1

    def reopen(self):
        pass


def test_prepare_initializes_on_chief_and_stops():
    w, gs, train = _model()
    sv = Supervisor(logdir=None)
    assert tf.get_default_graph().finalized
    assert sv.global_step is not None and sv.saver is not None and sv.is_chief
    sess = sv.prepare_or_wait_for_session("")
    assert sess.run(w) == 3.0 and len(sess.run(sv.ready_op)) == 0
    assert not sv.should_stop()
    sess.run(train)
    sv.request_stop()
    assert sv.should_stop()
    sv.stop()
    sess.close()


def test_managed_session_stops_cleanly_on_out_of_range_and_reraises_others():
    w, gs, train = _model()
    sv = Supervisor(logdir=None)
    with sv.managed_session("") as sess:
        sess.run(train)
        raise tf.errors.OutOfRangeError(None, None, "input done")
    assert sv.should_stop()
    with pytest.raises(ValueError, match="bad step"):
        with sv.managed_session("") as sess:
            assert not sv.should_stop()  # a new session clears the previous stop
            raise ValueError("bad step")


def test_chief_restores_from_logdir(tmp_path):
    w, gs, train = _model()
    sv = Supervisor(logdir=str(tmp_path), save_model_secs=None, save_summaries_secs=None,
                    summary_writer=None)
    with sv.managed_session("") as sess:
        for _ in range(3):
            sess.run(train)
        sv.saver.save(sess, sv.save_path, global_step=sess.run(gs))
        trained = sess.run(w)
    tf.reset_default_graph()
    w, gs, train = _model()
    sv = Supervisor(logdir=str(tmp_path), save_model_secs=None, save_summaries_secs=None,
                    summary_writer=None)
    with sv.managed_session("") as sess:
        assert sess.run(gs) == 3 and sess.run(w) == pytest.approx(trained)


def test_chief_services_checkpoint_and_summaries(tmp_path):
    w, gs, train = _model()
    writer = FakeWriter()
    sv = Supervisor(logdir=str(tmp_path), save_model_secs=0.05, save_summaries_secs=0.05,
                    summary_writer=writer, summary_op=tf.constant(b"summary-bytes"))
    with sv.managed_session("") as sess:
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            sess.run(train)
            with writer._lock:
                tags = [s for s, _ in writer.summaries]
            if latest_checkpoint(str(tmp_path)) and b"summary-bytes" in tags and len(tags) > 2:
                break
            time.sleep(0.01)
    names = [t.name for t in threading.enumerate()]
    assert not any(n.startswith("Supervisor") for n in names)  # stop() ended the services
    assert latest_checkpoint(str(tmp_path)) is not None
    assert b"summary-bytes" in [s for s, _ in writer.summaries]
    rates = [s for s, _ in writer.summaries if s != b"summary-bytes"]
    summary = tf.summary.proto_class("Summary")()
    summary.ParseFromString(rates[0])
    assert summary.value[0].tag == "global_step/sec"
    assert writer.closed == 1 and writer.graph is tf.get_default_graph()


def test_loop_runs_until_stop():
    _model()
    sv = Supervisor(logdir=None)
    calls = []
    sv.loop(0.01, calls.append, args=(1,))
    deadline = time.monotonic() + 5
    while len(calls) < 3 and time.monotonic() < deadline:
        time.sleep(0.01)
    sv.stop()
    assert len(calls) >= 3


def test_non_chief_needs_placed_variables_and_cannot_run_services():
    _model()
    with pytest.raises(ValueError, match="must have their device set"):
        Supervisor(is_chief=False)
    tf.reset_default_graph()
    with tf.device("/job:ps/task:0"):
        _model()
    sv = Supervisor(is_chief=False, logdir="/nonexistent")
    assert sv.summary_writer is None
    with pytest.raises(RuntimeError, match="Only chief"):
        sv.start_standard_services(None)


def test_non_chief_waits_for_chief_in_cluster(caplog):
    caplog.set_level(logging.INFO, logger="tensorfleet.training.session_manager")
    with local_cluster(ps=1, worker=2) as c:
        with tf.device("/job:ps/task:0"):
            w, gs, train = _model()
        # Both supervisors share this process's graph: build both before either runs.
        chief = Supervisor(is_chief=True, logdir=None)
        worker = Supervisor(is_chief=False, recovery_wait_secs=0.05)
        result = {}

        def run_worker():
            try:
                sess = worker.prepare_or_wait_for_session(c.target("worker", 1))
                result["w"] = sess.run(w)
                sess.run(train)
                sess.close()
            except BaseException as e:  # noqa: BLE001 - reported to the main thread
                result["error"] = e
            finally:
                worker.stop()
        t = threading.Thread(target=run_worker)
        t.start()
        try:
            deadline = time.monotonic() + 30
            while not any("Waiting for model" in r.getMessage() for r in caplog.records):
                assert time.monotonic() < deadline, "the worker never logged that it waits"
                time.sleep(0.01)
            with chief.managed_session(c.target("worker", 0)) as sess:
                sess.run(train)
                t.join(30)
                assert sess.run(gs) == 2
        finally:
            t.join(30)
    assert "error" not in result, result.get("error")
    assert result["w"] in (pytest.approx(3.0), pytest.approx(2.4))


def test_stop_after_the_session_closed_does_not_wait_for_its_queue_runners():
    q = tf.FIFOQueue(1, tf.float32)
    tf.train.add_queue_runner(tf.train.QueueRunner(q, [q.enqueue(1.0)]))
    size = q.size()
    _model()
    sv = Supervisor(logdir=None, stop_grace_secs=60)
    sess = sv.prepare_or_wait_for_session("")
    deadline = time.monotonic() + 10
    while sess.run(size) < 1 and time.monotonic() < deadline:
        time.sleep(0.01)  # the queue runner fills the queue, then blocks
    sess.close()  # cancels the blocked enqueue: its thread ends
    t0 = time.monotonic()
    sv.stop()  # would wait the 60 s grace period, then raise, for a thread still blocked
    assert time.monotonic() - t0 < 10
    assert not any(t.name.startswith("QueueRunner") for t in threading.enumerate())
