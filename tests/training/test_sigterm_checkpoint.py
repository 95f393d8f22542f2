"""SIGTERM on the chief ends training after the current step with a checkpoint."""

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import tensorfleet as tf

ROOT = Path(__file__).resolve().parents[2]

PROGRAM = textwrap.dedent("""
    import sys
    import tensorfleet as tf
    w = tf.Variable(0.0, name="w")
    step = tf.train.get_or_create_global_step()
    train = tf.group(tf.assign_add(w, 1.0), tf.assign_add(step, 1))
    with tf.train.MonitoredTrainingSession(checkpoint_dir=sys.argv[1],
                                           save_checkpoint_steps=100000,
                                           save_summaries_steps=None,
                                           log_step_count_steps=0) as sess:
        print("training", flush=True)
        while not sess.should_stop():
            sess.run(train)
    print("clean exit", flush=True)
""")


def test_sigterm_writes_a_checkpoint_before_exit(tmp_path):
    script = tmp_path / "train.py"
    script.write_text(PROGRAM)
    ckpt = tmp_path / "ckpt"
    env = dict(os.environ, PYTHONPATH=str(ROOT), OPENBLAS_NUM_THREADS="1")
    p = subprocess.Popen([sys.executable, str(script), str(ckpt)], env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert p.stdout.readline().strip() == "training"
        time.sleep(1.0)  # let it take some steps past the first checkpoint
        p.send_signal(signal.SIGTERM)
        out, err = p.communicate(timeout=60)
    finally:
        if p.poll() is None:
            p.kill()
    assert p.returncode == 0, err
    assert "clean exit" in out
    latest = tf.train.latest_checkpoint(str(ckpt))
    assert latest is not None
    step = int(latest.rsplit("-", 1)[1])
    assert step > 0, "the SIGTERM checkpoint must be newer than the initial one"
    assert tf.train.load_variable(latest, "w") == step
