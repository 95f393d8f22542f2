"""The cluster fixture's check for leaked threads, sockets and ports."""

import os
import socket
import threading

import pytest

import tensorfleet as tf
from tensorfleet.runtime import process
from tensorfleet.testing import leaks
from tensorfleet.testing.cluster import LeakError, LocalCluster, local_cluster


def test_clean_code_passes():
    before = leaks.snapshot()
    s = socket.socket()
    t = threading.Thread(target=lambda: None, name="tf-short")
    t.start()
    s.close()
    t.join()
    leaks.check(before, grace=0.5)


def test_leaked_thread_is_named():
    stop = threading.Event()
    before = leaks.snapshot()
    t = threading.Thread(target=stop.wait, name="tf-forgotten", daemon=True)
    t.start()
    try:
        with pytest.raises(LeakError, match=r"1 thread\(s\): tf-forgotten"):
            leaks.check(before, grace=0.2)
    finally:
        stop.set()
        t.join()
    leaks.check(before, grace=0.5)


def test_untracked_daemon_threads_are_not_counted():
    stop = threading.Event()
    before = leaks.snapshot()
    t = threading.Thread(target=stop.wait, name="someone-elses", daemon=True)
    t.start()
    try:
        leaks.check(before, grace=0.1)
    finally:
        stop.set()
        t.join()


def test_leaked_socket_and_bound_port_are_named():
    before = leaks.snapshot()
    s = socket.socket()
    s.bind(("localhost", 0))
    s.listen()
    port = s.getsockname()[1]
    inode = (leaks.socket_inodes() - before.sockets).pop()
    try:
        with pytest.raises(LeakError) as info:
            leaks.check(before, ports=[port], grace=0.2)
        msg = str(info.value)
        assert f"socket:[{inode}] tcp 127.0.0.1:{port} -> 0.0.0.0:0 LISTEN" in msg
        assert f"port(s) still bound: [{port}]" in msg
    finally:
        s.close()
    leaks.check(before, ports=[port], grace=1.0)


def test_cluster_that_leaves_a_connection_open_fails():
    c = LocalCluster({"worker": 1}, leak_grace=0.5)
    host, port = c.spec.task_address("worker", 0).split(":")
    leaked = socket.create_connection((host, int(port)))
    inode = os.readlink(f"/proc/self/fd/{leaked.fileno()}")  # "socket:[n]"
    try:
        # The check names this connection; it does not promise that no other socket of
        # the process (a lingering one of an earlier test, say) shows up beside it.
        with pytest.raises(LeakError, match=r"the cluster .* leaked.*socket\(s\)") as e:
            c.stop()
        assert inode in str(e.value), str(e.value)
    finally:
        leaked.close()


def test_local_cluster_checks_at_the_end_of_its_block_but_not_after_an_error(monkeypatch):
    monkeypatch.setattr(leaks, "GRACE_SECS", 0.3)
    with pytest.raises(LeakError, match="tf-left-running"):
        with local_cluster(worker=1):
            stop = threading.Event()
            t = threading.Thread(target=stop.wait, name="tf-left-running", daemon=True)
            t.start()
    stop.set()
    t.join()
    with pytest.raises(ZeroDivisionError):
        with local_cluster(worker=1):
            stop = threading.Event()
            t = threading.Thread(target=stop.wait, name="tf-left-running", daemon=True)
            t.start()
            1 / 0
    stop.set()
    t.join()


def test_cluster_runs_in_its_own_runtime_and_leaves_nothing():
    outer = process.current()
    with local_cluster(ps=1, worker=1) as c:
        assert process.current() is c.runtime is not outer
        with tf.device("/job:ps/task:0"):
            v = tf.Variable(2.0, name="v")
        with tf.device("/job:worker/task:0"):
            doubled = v * 2.0
        with tf.Session(c.target("worker", 0)) as sess:
            sess.run(v.initializer)
            assert sess.run(doubled) == 4.0
    assert c.runtime.closed
    assert process.current() is outer


def test_stop_without_check_and_twice():
    c = LocalCluster({"worker": 1}, check_leaks=False)
    host, port = c.spec.task_address("worker", 0).split(":")
    conn = socket.create_connection((host, int(port)))
    c.stop()
    c.stop()
    conn.close()
