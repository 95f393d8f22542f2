"""The rendezvous: receivers wait for their own keys only, aborts and deadlines end waits."""

import threading
import time

import pytest

from tensorfleet import errors
from tensorfleet.distributed.rendezvous import Rendezvous


def _in_thread(fn):
    out = {}

    def run():
        try:
            out["value"] = fn()
        except Exception as e:  # noqa: BLE001 - handed to the test
            out["error"] = e
    t = threading.Thread(target=run)
    t.start()
    return t, out


def test_take_many_returns_once_every_key_is_there():
    r = Rendezvous("/job:ps/task:0")
    t, out = _in_thread(lambda: r.take_many(7, ["a", "b", "c"], 5.0))
    r.send(7, "b", 2)
    r.send(8, "a", "other step")  # another step's tensor under the same name
    r.send(7, "a", 1)
    time.sleep(0.05)
    assert t.is_alive() and "value" not in out
    r.send(7, "c", 3)
    t.join(2.0)
    assert out == {"value": [1, 2, 3]}
    assert r.take(8, "a", 0.1) == "other step"
    assert r.pending() == 0


def test_a_send_wakes_only_the_receiver_of_its_key():
    r = Rendezvous("/job:ps/task:0")
    t1, out1 = _in_thread(lambda: r.take(1, "x", 5.0))
    t2, out2 = _in_thread(lambda: r.take(1, "y", 5.0))
    time.sleep(0.05)
    r.send(1, "y", "why")
    t2.join(2.0)
    assert out2 == {"value": "why"} and t1.is_alive()
    r.send(1, "x", "ex")
    t1.join(2.0)
    assert out1 == {"value": "ex"}


def test_abort_ends_the_wait_with_the_steps_error_and_drops_its_tensors():
    r = Rendezvous("/job:worker/task:1")
    r.send(3, "kept", 1.0)
    t, out = _in_thread(lambda: r.take_many(3, ["kept", "never"], 30.0))
    time.sleep(0.05)
    start = time.monotonic()
    r.abort(3, errors.UnavailableError(None, None, "ps died", task="/job:ps/task:0"))
    t.join(10.0)
    # Well before the wait's own 30 s timeout.
    assert time.monotonic() - start < 10.0
    assert isinstance(out["error"], errors.UnavailableError)
    assert out["error"].task == "/job:ps/task:0"
    assert r.pending() == 0
    r.send(3, "late", 2.0)  # a send of an aborted step is dropped
    assert r.pending() == 0


def test_deadline_names_the_missing_key_and_a_second_receiver_is_refused():
    r = Rendezvous("/job:ps/task:0")
    r.send(5, "here;src;dst", 1)
    with pytest.raises(errors.DeadlineExceededError, match="'gone'"):
        r.take_many(5, ["here;src;dst", "gone;src;dst"], 0.1)
    assert r.take(5, "here;src;dst", 0.1) == 1  # nothing was consumed by the failed wait
    t, _ = _in_thread(lambda: r.take(6, "k", 1.0))
    time.sleep(0.05)
    with pytest.raises(errors.InternalError, match="two receivers"):
        r.take(6, "k", 0.1)
    r.send(6, "k", 0)
    t.join(2.0)
