"""Session run hooks: call order and values, the standard hooks, the file-writing hooks."""

import logging
import threading
import time

import numpy as np
import pytest

import tensorfleet as tf
from tensorfleet.training import basic_hooks as bh
from tensorfleet.training import saver_hooks as sh
from tensorfleet.training.monitored_session import Scaffold, SingularMonitoredSession
from tensorfleet.training.session_run_hook import SessionRunArgs, SessionRunHook


def _model(lr=0.1):
    x = tf.placeholder_with_default(1.0, [], name="x")
    w = tf.Variable(3.0, name="w")
    gs = tf.train.get_or_create_global_step()
    loss = w * w * x
    opt = tf.train.GradientDescentOptimizer(lr)
    return x, w, gs, loss, opt


def _train_op():
    x, w, gs, loss, opt = _model()
    return x, w, gs, loss, opt.minimize(loss, global_step=gs)


class Recorder(SessionRunHook):
    """Records every callback, optionally asking for fetches/feeds."""

    def __init__(self, name, log, fetches=None, feed_dict=None):
        self.name, self.log, self.fetches, self.feed_dict = name, log, fetches, feed_dict

    def begin(self):
        self.log.append((self.name, "begin", tf.get_default_graph().finalized))

    def after_create_session(self, session, coord):
        self.log.append((self.name, "create", tf.get_default_graph().finalized))

    def before_run(self, run_context):
        self.log.append((self.name, "before", run_context.original_args.fetches))
        if self.fetches is None and self.feed_dict is None:
            return None
        return SessionRunArgs(self.fetches, self.feed_dict)

    def after_run(self, run_context, run_values):
        self.log.append((self.name, "after", run_values.results))

    def end(self, session):
        self.log.append((self.name, "end", None))


class FakeWriter:
    def __init__(self):
        self.summaries, self.logs, self.flushed = [], [], 0

    def add_summary(self, summary, global_step=None):
        self.summaries.append((summary, global_step))

    def add_session_log(self, log, global_step=None):
        self.logs.append((log.status, global_step))

    def flush(self):
        self.flushed += 1


class FakeSaver:
    def __init__(self):
        self.saves = []

    def save(self, sess, path, global_step=None):
        self.saves.append(global_step)
        return f"{path}-{global_step}"


def _loop(mon, op, limit=100, feed_dict=None):
    n = 0
    while not mon.should_stop() and n < limit:
        mon.run(op, feed_dict=feed_dict)
        n += 1
    return n


def test_hooks_called_in_order_with_their_values():
    x, w, gs, loss, train = _train_op()
    log = []
    a = Recorder("a", log, fetches=gs)
    b = Recorder("b", log, fetches={"loss": loss}, feed_dict={x: 2.0})
    with SingularMonitoredSession(hooks=[a, b]) as mon:
        out = mon.run([train, loss])
        assert out[1] == pytest.approx(18.0)  # the hook's feed applies to the caller's fetch
    kinds = [(n, k) for n, k, _ in log]
    assert kinds == [("a", "begin"), ("b", "begin"), ("a", "create"), ("b", "create"),
                     ("a", "before"), ("b", "before"), ("a", "after"), ("b", "after"),
                     ("a", "end"), ("b", "end")]
    assert log[0][2] is False and log[2][2] is True  # finalized between begin and create
    assert log[4][2] == [train, loss]  # original_args.fetches
    assert log[6][2] in (0, 1)  # global step read in the step that increments it
    assert log[7][2]["loss"] == pytest.approx(18.0)
    assert not tf.get_default_graph().finalized  # given back unfinalized


def test_feeding_a_tensor_twice_is_an_error():
    x, w, gs, loss, train = _train_op()
    hook = Recorder("a", [], feed_dict={x: 2.0})
    with SingularMonitoredSession(hooks=[hook]) as mon:
        with pytest.raises(RuntimeError, match="fed by a SessionRunHook and user"):
            mon.run(train, feed_dict={x: 1.0})
    other = Recorder("b", [], feed_dict={"x:0": 3.0})
    with SingularMonitoredSession(hooks=[Recorder("a", [], feed_dict={x: 2.0}), other]) as mon:
        with pytest.raises(RuntimeError, match="two hooks"):
            mon.run(train)


def test_second_or_step_timer(monkeypatch):
    t = bh.SecondOrStepTimer(every_steps=3)
    assert t.should_trigger_for_step(0)
    assert t.update_last_triggered_step(0) == (None, None)
    assert not t.should_trigger_for_step(0) and not t.should_trigger_for_step(2)
    assert t.should_trigger_for_step(3)
    assert t.update_last_triggered_step(4)[1] == 4 and t.last_triggered_step() == 4
    now = [100.0]
    monkeypatch.setattr(bh.time, "monotonic", lambda: now[0])
    s = bh.SecondOrStepTimer(every_secs=10)
    s.update_last_triggered_step(1)
    now[0] = 105.0
    assert not s.should_trigger_for_step(2)
    now[0] = 111.0
    assert s.should_trigger_for_step(2) and not s.should_trigger_for_step(1)
    with pytest.raises(ValueError):
        bh.SecondOrStepTimer()
    with pytest.raises(ValueError):
        bh.SecondOrStepTimer(every_secs=1, every_steps=1)


def test_stop_at_step_num_steps_and_validation():
    x, w, gs, loss, train = _train_op()
    with pytest.raises(ValueError):
        bh.StopAtStepHook()
    with pytest.raises(ValueError):
        bh.StopAtStepHook(num_steps=1, last_step=2)
    with SingularMonitoredSession(hooks=[bh.StopAtStepHook(num_steps=3)]) as mon:
        assert _loop(mon, train) == 3
        assert mon.raw_session().run(gs) == 3


def test_stop_at_step_needs_a_global_step():
    tf.Variable(1.0, name="v")
    with pytest.raises(RuntimeError, match="Global step should be created"):
        SingularMonitoredSession(hooks=[bh.StopAtStepHook(last_step=1)])


def test_logging_tensor_hook_logs_values(caplog):
    x, w, gs, loss, train = _train_op()
    caplog.set_level(logging.INFO, logger="tensorfleet.training.basic_hooks")
    hook = bh.LoggingTensorHook({"loss": loss, "step": gs}, every_n_iter=2)
    with SingularMonitoredSession(hooks=[hook]) as mon:
        for _ in range(5):
            mon.run(train)
    lines = [r.getMessage() for r in caplog.records if "loss = " in r.getMessage()]
    assert len(lines) == 3  # local iterations 0, 2 and 4
    assert lines[0].startswith("loss = 9.0, step = ")


def test_logging_tensor_hook_at_end_and_formatter(caplog):
    x, w, gs, loss, train = _train_op()
    caplog.set_level(logging.INFO, logger="tensorfleet.training.basic_hooks")
    hook = bh.LoggingTensorHook([loss.name], at_end=True,
                                formatter=lambda v: "final loss %.2f" % v[loss.name])
    with SingularMonitoredSession(hooks=[hook]) as mon:
        mon.run(train)
    assert [r.getMessage() for r in caplog.records if "final loss" in r.getMessage()] == \
        ["final loss 5.76"]
    with pytest.raises(ValueError):
        bh.LoggingTensorHook([loss])


def test_nan_hook_raises_after_the_step_like_tensorflow():
    # TensorFlow semantics: the loss is fetched with the train op, so the NaN step's
    # update has already been applied when the hook sees the NaN.
    x, w, gs, loss, train = _train_op()
    mon = SingularMonitoredSession(hooks=[bh.NanTensorHook(loss)])
    raw = mon.raw_session()
    mon.run(train)
    with pytest.raises(bh.NanLossDuringTrainingError) as info:
        mon.run(train, feed_dict={x: np.nan})
    assert info.value.step in (1, 2) and "step" in str(info.value)
    assert np.isnan(raw.run(w))
    mon.close()


def test_nan_hook_with_update_gated_on_a_finite_loss_keeps_parameters():
    x, w, gs, loss, opt = _model()
    grads = opt.compute_gradients(loss)
    train = tf.cond(tf.reduce_all(tf.is_finite(loss)),
                    lambda: opt.apply_gradients(grads, global_step=gs), tf.no_op)
    mon = SingularMonitoredSession(hooks=[bh.NanTensorHook(loss)])
    raw = mon.raw_session()
    mon.run(train)
    mon.run(train)
    before = raw.run(w)
    with pytest.raises(bh.NanLossDuringTrainingError, match="global step 2") as info:
        mon.run(train, feed_dict={x: np.nan})
    assert info.value.step == 2
    assert raw.run(w) == before and raw.run(gs) == 2
    mon.close()


def test_nan_hook_can_stop_instead_of_failing(caplog):
    x, w, gs, loss, train = _train_op()
    with SingularMonitoredSession(hooks=[bh.NanTensorHook(loss, fail_on_nan_loss=False)]) as mon:
        mon.run(train, feed_dict={x: np.nan})
        assert mon.should_stop()
    assert any("diverged" in r.getMessage() for r in caplog.records)


def test_final_ops_hook_returns_values():
    x, w, gs, loss, train = _train_op()
    hook = bh.FinalOpsHook({"w": w, "loss": loss}, final_ops_feed_dict={x: 0.0})
    assert hook.final_ops_values is None
    with SingularMonitoredSession(hooks=[hook, bh.StopAtStepHook(last_step=2)]) as mon:
        _loop(mon, train)
    assert hook.final_ops_values["w"] == pytest.approx(3.0 * 0.8 * 0.8)
    assert hook.final_ops_values["loss"] == 0.0


def test_feed_fn_hook():
    x, w, gs, loss, train = _train_op()
    with SingularMonitoredSession(hooks=[bh.FeedFnHook(lambda: {x: 0.0})]) as mon:
        assert mon.run([train, loss])[1] == 0.0
        assert mon.raw_session().run(w) == 3.0  # zero loss, zero gradient


def test_global_step_waiter_hook_waits(monkeypatch):
    x, w, gs, loss, train = _train_op()
    bump = tf.assign_add(gs, 1)
    hook = bh.GlobalStepWaiterHook(wait_until_step=2)
    monkeypatch.setattr(hook, "poll_secs", 0.01)
    with SingularMonitoredSession(hooks=[hook]) as mon:
        raw = mon.raw_session()

        def bump_twice():
            time.sleep(0.05)
            raw.run(bump)
            raw.run(bump)
        t = threading.Thread(target=bump_twice)
        t.start()
        mon.run(train)  # blocks in the hook until the step reaches 2
        t.join()
        assert raw.run(gs) == 3


def test_step_counter_hook_logs_and_writes(caplog):
    x, w, gs, loss, train = _train_op()
    caplog.set_level(logging.INFO, logger="tensorfleet.training.saver_hooks")
    writer = FakeWriter()
    hook = sh.StepCounterHook(every_n_steps=2, summary_writer=writer)
    with SingularMonitoredSession(hooks=[hook]) as mon:
        for _ in range(5):
            mon.run(train)
    assert [s for _, s in writer.summaries] == [3, 5]
    summary = tf.summary.proto_class("Summary")()
    summary.ParseFromString(writer.summaries[0][0])
    assert summary.value[0].tag == "global_step/sec" and summary.value[0].simple_value > 0
    assert len([r for r in caplog.records if "global_step/sec: " in r.getMessage()]) == 2


def test_summary_saver_hook_writes_every_n_steps():
    x, w, gs, loss, train = _train_op()
    writer = FakeWriter()
    op = tf.constant(b"serialized-summary")
    hook = sh.SummarySaverHook(save_steps=2, summary_writer=writer, summary_op=op)
    with SingularMonitoredSession(hooks=[hook]) as mon:
        for _ in range(5):
            mon.run(train)
    assert writer.summaries == [(b"serialized-summary", 1), (b"serialized-summary", 3),
                                (b"serialized-summary", 5)]
    assert writer.logs[0][1] == 1 and writer.flushed == 1
    with pytest.raises(ValueError):
        sh.SummarySaverHook(save_steps=1)


def test_summary_saver_hook_uses_scaffold_summary_op():
    x, w, gs, loss, train = _train_op()
    tf.summary.scalar("loss", loss)
    writer = FakeWriter()
    scaffold = Scaffold()
    hook = sh.SummarySaverHook(save_steps=10, summary_writer=writer, scaffold=scaffold)
    with SingularMonitoredSession(hooks=[hook], scaffold=scaffold) as mon:
        mon.run(train)
    summary = tf.summary.proto_class("Summary")()
    summary.ParseFromString(writer.summaries[0][0])
    assert summary.value[0].tag == "loss"


class _Listener(sh.CheckpointSaverListener):
    def __init__(self, stop_at=None):
        self.calls, self.stop_at = [], stop_at

    def begin(self):
        self.calls.append("begin")

    def before_save(self, session, step):
        self.calls.append(("before", step))

    def after_save(self, session, step):
        self.calls.append(("after", step))
        return step == self.stop_at

    def end(self, session, step):
        self.calls.append(("end", step))


def test_checkpoint_saver_hook_schedule_and_listeners(tmp_path):
    x, w, gs, loss, train = _train_op()
    saver, listener = FakeSaver(), _Listener()
    hook = sh.CheckpointSaverHook(str(tmp_path), save_steps=2, saver=saver,
                                  listeners=[listener])
    with SingularMonitoredSession(hooks=[hook]) as mon:
        for _ in range(5):
            mon.run(train)
    # At session creation, every 2 steps, and at the end.
    assert saver.saves == [0, 2, 4, 5]
    assert listener.calls[0] == "begin" and listener.calls[-1] == ("end", 5)
    assert listener.calls.count(("after", 4)) == 1


def test_checkpoint_listener_can_stop_training(tmp_path):
    x, w, gs, loss, train = _train_op()
    hook = sh.CheckpointSaverHook(str(tmp_path), save_steps=2, saver=FakeSaver(),
                                  listeners=[_Listener(stop_at=2)])
    with SingularMonitoredSession(hooks=[hook]) as mon:
        assert _loop(mon, train) == 2
    with pytest.raises(ValueError):
        sh.CheckpointSaverHook(str(tmp_path), save_steps=1, saver=FakeSaver(),
                               scaffold=Scaffold())
