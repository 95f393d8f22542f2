"""A parameter server returns from its join once every worker says it is done."""

import threading

import tensorfleet as tf
from tensorfleet.testing.cluster import LocalCluster


def test_ps_join_returns_after_all_workers_signal():
    c = LocalCluster({"ps": 1, "worker": 2})
    try:
        ps = c.server("ps", 0)
        done = threading.Event()
        t = threading.Thread(target=lambda: (tf.train.join_until_workers_done(ps, stop=False),
                                             done.set()), daemon=True)
        t.start()
        tf.train.signal_workers_done(c.target("worker", 0), c.spec, worker_index=0)
        assert not done.wait(0.5), "ps returned before the second worker finished"
        tf.train.signal_workers_done(c.target("worker", 1), c.spec, worker_index=1)
        assert done.wait(10), "ps did not return after every worker signalled"
        t.join(5)
    finally:
        c.stop()
