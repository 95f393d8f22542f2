"""MonitoredSession / MonitoredTrainingSession: creation, stopping, restarts, recovery,
a non-chief worker waiting for its chief, Scaffold defaults and SessionManager."""

import logging
import threading

import pytest

import tensorfleet as tf
from tensorfleet.testing.cluster import local_cluster
from tensorfleet.training import basic_hooks as bh
from tensorfleet.training import saver_hooks as sh
from tensorfleet.training.monitored_session import (ChiefSessionCreator, MonitoredSession,
                                                    MonitoredTrainingSession, Scaffold,
                                                    SessionCreator, SingularMonitoredSession)
from tensorfleet.training.checkpoint_management import latest_checkpoint
from tensorfleet.training.session_manager import SessionManager
from tensorfleet.training.session_run_hook import SessionRunHook
from tensorfleet.training.summary_io import FileWriterCache


@pytest.fixture(autouse=True)
def _close_event_writers():
    yield
    # The chief's hooks open cached event-file writers (each with a thread).
    FileWriterCache.clear()


def _model(lr=0.1):
    w = tf.Variable(3.0, name="w")
    gs = tf.train.get_or_create_global_step()
    loss = w * w
    train = tf.train.GradientDescentOptimizer(lr).minimize(loss, global_step=gs)
    return w, gs, train


def _loop(mon, op, limit=200):
    n = 0
    while not mon.should_stop() and n < limit:
        mon.run(op)
        n += 1
    return n


class StepAtCreation(SessionRunHook):
    """Records the global step each time a session is created, and end() calls."""

    def __init__(self):
        self.created, self.ended = [], 0

    def begin(self):
        self._gs = tf.train.get_global_step()

    def after_create_session(self, session, coord):
        self.created.append(int(session.run(self._gs)))

    def end(self, session):
        self.ended += 1


def test_trains_exactly_to_last_step():
    w, gs, train = _model()
    final = bh.FinalOpsHook(gs)
    with MonitoredTrainingSession(hooks=[bh.StopAtStepHook(last_step=7), final],
                                  log_step_count_steps=None) as mon:
        assert tf.get_default_graph().finalized
        assert _loop(mon, train) == 7
    assert final.final_ops_values == 7
    assert not tf.get_default_graph().finalized


def test_restart_resumes_from_the_saved_step(tmp_path, caplog):
    ckpt = str(tmp_path)
    w, gs, train = _model()
    final = bh.FinalOpsHook([gs, w])
    with MonitoredTrainingSession(checkpoint_dir=ckpt, hooks=[bh.StopAtStepHook(last_step=4),
                                                              final]) as mon:
        assert _loop(mon, train) == 4
    saved_w = final.final_ops_values[1]
    assert latest_checkpoint(ckpt).endswith("model.ckpt-4")

    tf.reset_default_graph()
    w, gs, train = _model()
    seen = StepAtCreation()
    check = bh.FinalOpsHook(gs)
    caplog.set_level(logging.WARNING, logger="tensorfleet")
    with MonitoredTrainingSession(checkpoint_dir=ckpt, hooks=[
            seen, bh.StopAtStepHook(last_step=6), check]) as mon:
        # Said at the default log level: a resumed run is not a fresh one.
        assert f"Restored from {ckpt} at global step 4" in caplog.text
        assert mon._tf_sess().run(w) == pytest.approx(saved_w)
        assert _loop(mon, train) == 2
    assert seen.created == [4] and check.final_ops_values == 6
    assert latest_checkpoint(ckpt).endswith("model.ckpt-6")

    # Restarted at the last step: no step is taken at all.
    tf.reset_default_graph()
    w, gs, train = _model()
    with MonitoredTrainingSession(checkpoint_dir=ckpt,
                                  hooks=[bh.StopAtStepHook(last_step=6)]) as mon:
        assert mon.should_stop() and _loop(mon, train) == 0


def test_chief_gets_the_standard_hooks(tmp_path):
    _model()
    marker = StepAtCreation()
    mon = MonitoredTrainingSession(checkpoint_dir=str(tmp_path), chief_only_hooks=[marker],
                                   save_checkpoint_steps=5, hooks=[bh.StopAtStepHook(1)])
    types = [type(h) for h in mon._hooks]
    mon.close()
    from tensorfleet.training.signal_hooks import StopOnSignalHook
    assert types == [StepAtCreation, sh.StepCounterHook, sh.SummarySaverHook,
                     sh.CheckpointSaverHook, StopOnSignalHook, bh.StopAtStepHook]
    tf.reset_default_graph()
    _model()
    mon = MonitoredTrainingSession(save_checkpoint_secs=None, log_step_count_steps=0,
                                   checkpoint_dir=str(tmp_path / "x"), save_summaries_steps=None)
    assert mon._hooks == []
    mon.close()


def test_without_a_global_step_or_a_directory_training_runs():
    """No summary dir: no StepCounterHook, which would need a global step."""
    w = tf.Variable(1.0)
    train = tf.assign_add(w, 1.0)
    with MonitoredTrainingSession() as mon:
        assert not any(isinstance(h, sh.StepCounterHook) for h in mon._hooks)
        mon.run(train)
        assert mon.run(w) == 2.0


def test_out_of_range_ends_training_cleanly():
    w, gs, train = _model()
    hook = StepAtCreation()
    with MonitoredSession(hooks=[hook]) as mon:
        mon.run(train)
        raise tf.errors.OutOfRangeError(None, None, "input exhausted")
    assert hook.ended == 1 and mon.should_stop()


def test_other_errors_propagate_without_end():
    w, gs, train = _model()
    hook = StepAtCreation()
    with pytest.raises(ValueError, match="boom"):
        with MonitoredSession(hooks=[hook]) as mon:
            mon.run(train)
            raise ValueError("boom")
    assert hook.ended == 0
    with pytest.raises(RuntimeError):
        mon.run(train)


class FlakySession:
    """Wraps a session; raises an error instead of one chosen run call."""

    def __init__(self, sess, fail_at, error):
        self._sess, self._fail_at, self._error, self.calls = sess, fail_at, error, 0

    @property
    def graph(self):
        return self._sess.graph

    def run(self, *args, **kwargs):
        self.calls += 1
        if self._fail_at is not None and self.calls >= self._fail_at:
            self._fail_at = None if self._error is not None else self._fail_at
            raise self._error or tf.errors.AbortedError(None, None, "ps restarted")
        return self._sess.run(*args, **kwargs)

    def close(self):
        self._sess.close()


class FlakyCreator(SessionCreator):
    """The first session (or every one, with always=True) fails at a given run."""

    def __init__(self, inner, fail_at, always=False, error=None):
        self._inner, self._fail_at, self._always, self.created = inner, fail_at, always, 0
        self._error = error

    def create_session(self):
        self.created += 1
        fail = self._fail_at if (self.created == 1 or self._always) else None
        err = self._error or tf.errors.AbortedError(None, None, "ps restarted")
        return FlakySession(self._inner.create_session(), fail,
                            None if self._always else err)


def test_aborted_step_recreates_session_restores_and_retries(tmp_path, caplog):
    ckpt = str(tmp_path)
    w, gs, train = _model()
    scaffold = Scaffold()
    creator = FlakyCreator(ChiefSessionCreator(scaffold=scaffold, checkpoint_dir=ckpt),
                           fail_at=None)
    seen = StepAtCreation()
    saver_hook = sh.CheckpointSaverHook(ckpt, save_steps=3, scaffold=scaffold)
    # A run call counts: hooks' after_create_session reads, then steps and their reads.
    mon = MonitoredSession(session_creator=creator, hooks=[saver_hook, seen,
                                                           bh.StopAtStepHook(last_step=8)])
    first = mon._tf_sess()
    for _ in range(5):
        mon.run(train)
    assert first.run(gs) == 5
    first._fail_at = first.calls + 1  # the next step fails once with AbortedError
    first._error = tf.errors.AbortedError(None, None, "ps restarted")
    n = _loop(mon, train)
    mon.close()
    # The chief restored the checkpoint of step 3 and trained on to 8.
    assert creator.created == 2 and seen.created == [0, 3] and n == 5
    assert any("ps restarted" in r.getMessage() and r.levelno == logging.WARNING
               for r in caplog.records)


def test_unavailable_is_recovered_too_and_recovery_is_bounded():
    w, gs, train = _model()
    creator = FlakyCreator(ChiefSessionCreator(), fail_at=2,
                           error=tf.errors.UnavailableError(None, None, "gone"))
    with MonitoredSession(session_creator=creator) as mon:
        mon.run(train)  # call 1 is fine
        mon.run(train)  # call 2 fails once, then the retry succeeds
        assert creator.created == 2
    tf.reset_default_graph()
    w, gs, train = _model()
    always = FlakyCreator(ChiefSessionCreator(), fail_at=1, always=True)
    # Bounded by attempts and by time: a step keeps failing past both.
    mon = MonitoredSession(session_creator=always, max_recovery_attempts=2,
                           max_recovery_wait_secs=0.3)
    with pytest.raises(tf.errors.AbortedError):
        mon.run(train)
    assert always.created >= 3
    mon.close()


class ThreadFailsOnce(SessionRunHook):
    """Its first session's coordinator gets the error a queue runner reports when its
    parameter server restarts; later sessions are left alone."""

    def __init__(self, error):
        self.error, self.sessions = error, 0

    def after_create_session(self, session, coord):
        self.sessions += 1
        if self.sessions == 1:
            coord.request_stop(self.error)


def test_a_thread_broken_by_a_restart_does_not_end_training(caplog):
    w, gs, train = _model()
    hook = ThreadFailsOnce(tf.errors.UnavailableError(None, None, "ps restarted"))
    with MonitoredSession(hooks=[hook, bh.StopAtStepHook(last_step=4)]) as mon:
        # The failed thread asked for a stop; training goes on in a new session.
        n = _loop(mon, train)
        assert mon._tf_sess().run(gs) == 4
    assert n == 4 and hook.sessions == 2
    assert any("ps restarted" in r.getMessage() and r.levelno == logging.WARNING
               for r in caplog.records)


def test_a_thread_failing_otherwise_ends_training():
    w, gs, train = _model()
    hook = ThreadFailsOnce(tf.errors.InvalidArgumentError(None, None, "bad record"))
    mon = MonitoredSession(hooks=[hook])
    assert mon.should_stop() and hook.sessions == 1
    with pytest.raises(tf.errors.InvalidArgumentError, match="bad record"):
        mon.close()


def test_singular_session_does_not_recover():
    w, gs, train = _model()
    mon = SingularMonitoredSession()
    mon._creator = FlakyCreator(ChiefSessionCreator(), fail_at=1, always=True)
    mon._discard_session()
    with pytest.raises(tf.errors.AbortedError):
        mon.run(train)
    mon.close()


def test_run_step_fn():
    w, gs, train = _model()
    with SingularMonitoredSession(hooks=[bh.StopAtStepHook(last_step=10)]) as mon:
        assert mon.run_step_fn(lambda ctx: ctx.run_with_hooks(gs)) == 0
        assert mon.run_step_fn(lambda ctx: ctx.session.run(w)) == 3.0

        def step(ctx):
            ctx.run_with_hooks(train)
            ctx.request_stop()
        assert mon.run_step_fn(step) is None
        assert mon.should_stop() and mon.raw_session().run(gs) == 1


class _SetAfterStep(SessionRunHook):
    def __init__(self, event):
        self.event = event

    def after_run(self, run_context, run_values):
        self.event.set()


class _WaitAfterFirstStep(SessionRunHook):
    """Holds the chief after its first step until ``event`` (the other worker trained):
    otherwise the chief may reach the last step before the worker next polls."""

    def __init__(self, event):
        self.event = event

    def after_run(self, run_context, run_values):
        self.event.wait(30)


def test_non_chief_worker_waits_for_chief_then_both_train(caplog):
    caplog.set_level(logging.INFO, logger="tensorfleet.training.session_manager")
    waiting = threading.Event()
    worker_trained = threading.Event()

    class Flag(logging.Handler):
        def emit(self, record):
            if "Waiting for model to be ready" in record.getMessage():
                waiting.set()
    flag = Flag()
    logging.getLogger("tensorfleet.training.session_manager").addHandler(flag)
    try:
        with local_cluster(ps=1, worker=2) as c:
            with tf.device("/job:ps/task:0"):
                w = tf.Variable(3.0, name="w")
                gs = tf.train.get_or_create_global_step()
            train = tf.train.GradientDescentOptimizer(0.01).minimize(w * w, global_step=gs)
            # Both "tasks" share this process's graph, so it is built (and finalized)
            # once, before either starts; separate processes would each build their own.
            scaffold = Scaffold().finalize()
            result = {}

            def worker():
                try:
                    with MonitoredTrainingSession(
                            master=c.target("worker", 1), is_chief=False, scaffold=scaffold,
                            hooks=[bh.StopAtStepHook(last_step=20),
                                   _SetAfterStep(worker_trained)],
                            chief_only_hooks=[StepAtCreation()]) as mon:
                        result["hooks"] = [type(h) for h in mon._hooks]
                        result["steps"] = _loop(mon, train)
                except BaseException as e:  # noqa: BLE001 - reported to the main thread
                    result["error"] = e
            t = threading.Thread(target=worker)
            t.start()
            try:
                assert waiting.wait(30), "the worker never logged that it waits"
                with MonitoredTrainingSession(master=c.target("worker", 0), is_chief=True,
                                              scaffold=scaffold, log_step_count_steps=None,
                                              hooks=[bh.StopAtStepHook(last_step=20),
                                                     _WaitAfterFirstStep(worker_trained)]
                                              ) as mon:
                    chief_steps = _loop(mon, train)
                    raw = mon._tf_sess()
                    t.join(60)
                    final = raw.run(gs)
            finally:
                t.join(60)
    finally:
        logging.getLogger("tensorfleet.training.session_manager").removeHandler(flag)
    assert "error" not in result, result.get("error")
    # No chief-only hooks on a worker.
    assert result["hooks"] == [bh.StopAtStepHook, _SetAfterStep]
    assert worker_trained.is_set()
    assert chief_steps >= 1 and result["steps"] >= 1
    assert 20 <= final <= 22 and chief_steps + result["steps"] == final
    msgs = [r.getMessage() for r in caplog.records if "Waiting for model" in r.getMessage()]
    assert "Ready_for_local_init_op: Variables not initialized: w, global_step" in msgs[0]


def test_scaffold_defaults_come_from_collections():
    w, gs, train = _model()
    local = tf.Variable(0.0, name="local_v", collections=[tf.GraphKeys.LOCAL_VARIABLES])
    scaffold = Scaffold(init_fn=lambda sc, sess: seen.append(sc))
    seen = []
    scaffold.finalize()
    g = tf.get_default_graph()
    assert g.finalized
    assert g.get_collection(tf.GraphKeys.READY_OP) == [scaffold.ready_op]
    assert g.get_collection(tf.GraphKeys.LOCAL_INIT_OP) == [scaffold.local_init_op]
    assert g.get_collection(tf.GraphKeys.SAVERS) == [scaffold.saver]
    assert scaffold.summary_op is None  # no summaries in this graph
    copy = Scaffold(copy_from_scaffold=scaffold)
    assert copy.ready_op is scaffold.ready_op and copy.saver is scaffold.saver
    g._unsafe_unfinalize()
    with SingularMonitoredSession(scaffold=scaffold) as mon:
        assert mon.raw_session().run(local) == 0.0
    assert seen == [scaffold]
    g._unsafe_unfinalize()
    g.add_to_collection(tf.GraphKeys.INIT_OP, tf.no_op())
    g.add_to_collection(tf.GraphKeys.INIT_OP, tf.no_op())
    with pytest.raises(RuntimeError, match="More than one item"):
        Scaffold().finalize()
    with pytest.raises(TypeError):
        Scaffold(copy_from_scaffold="nope")


def test_session_manager_prepare_and_errors():
    w, gs, train = _model()
    ready = tf.report_uninitialized_variables()
    sm = SessionManager(ready_op=ready)
    with pytest.raises(RuntimeError, match="no init_op"):
        sm.prepare_session("")
    sess = sm.prepare_session("", init_op=tf.global_variables_initializer())
    assert sess.run(w) == 3.0
    sess.close()
    with pytest.raises(RuntimeError, match="did not make model ready"):
        sm.prepare_session("", init_op=tf.no_op())
    sess, initialized = sm.recover_session("")
    assert not initialized
    sess.close()
    with pytest.raises(ValueError):
        SessionManager(ready_for_local_init_op=ready)


def test_wait_for_session_logs_and_times_out(caplog):
    caplog.set_level(logging.INFO, logger="tensorfleet.training.session_manager")
    _model()
    sm = SessionManager(ready_op=tf.report_uninitialized_variables(), recovery_wait_secs=0.05)
    with pytest.raises(tf.errors.DeadlineExceededError, match="not ready"):
        sm.wait_for_session("", max_wait_secs=0.3)
    lines = [r.getMessage() for r in caplog.records if "Waiting for model" in r.getMessage()]
    assert lines and lines[0] == ("Waiting for model to be ready. Ready_for_local_init_op: "
                                  "None, ready: Variables not initialized: w, global_step")
