"""A shared-memory segment left by a rank killed during set-up is removed when the next
group forms on the host; live processes' segments and others' are left alone."""

import os
import subprocess
import sys

from tensorfleet.collectives import shm


def _dead_pid():
    p = subprocess.Popen([sys.executable, "-c", "pass"])
    p.wait()
    return p.pid


def _ns():
    return os.stat("/proc/self/ns/pid").st_ino


def test_segments_of_gone_processes_are_removed(tmp_path):
    hexpart = "0" * 32
    dead = tmp_path / f"tfleet-coll-{_ns()}-{_dead_pid()}-{hexpart}"
    mine = tmp_path / f"tfleet-coll-{_ns()}-{os.getpid()}-{hexpart}"
    other_ns = tmp_path / f"tfleet-coll-{_ns() + 1}-{_dead_pid()}-{hexpart}"
    unrelated = tmp_path / "tfleet-coll-not-ours"
    for f in (dead, mine, other_ns, unrelated):
        f.write_bytes(b"x" * 128)
    assert shm.remove_stale_segments(str(tmp_path)) == 1
    assert not dead.exists()
    assert mine.exists() and other_ns.exists() and unrelated.exists()


def test_new_names_say_who_made_them_and_fit_the_set_up_message():
    name = shm.segment_name()
    assert name.startswith(f"tfleet-coll-{_ns()}-{os.getpid()}-")
    assert shm._NAME_RE.fullmatch(name)
    assert len(name) <= shm._MSG - shm._NONCE


def test_a_killed_setup_leaves_nothing_after_the_next_formation(tmp_path, monkeypatch):
    # A rank killed while peers open its segment: the name stays behind ...
    code = ("import os, sys\nfrom tensorfleet.collectives import shm\n"
            "path = os.path.join(sys.argv[1], shm.segment_name())\n"
            "assert shm._create(path, 1 << 20, b'n' * 16) is not None\n"
            "print(path, flush=True)\nos.kill(os.getpid(), 9)\n")
    r = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True,
                       text=True, timeout=60)
    path = r.stdout.strip()
    assert r.returncode == -9 and path and os.path.exists(path), r.stderr
    # ... until a group forms on this host.
    monkeypatch.setattr(shm, "SHM_DIR", str(tmp_path))
    shm.SharedSegments(enabled=True)
    assert not os.path.exists(path)
