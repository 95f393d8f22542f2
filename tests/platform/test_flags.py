"""``tf.app.flags`` and ``tf.app.run`` as the seed programs use them (in subprocesses:
absl's flags are global to a process)."""

import subprocess
import sys
import textwrap
from pathlib import Path

import tensorfleet as tf

ROOT = Path(__file__).resolve().parents[2]

# The flag definitions of the seed trainer (../shared/seeds/001), read at module level.
SEED_FLAGS = textwrap.dedent("""
    import tensorfleet as tf
    flags = tf.app.flags
    flags.DEFINE_integer('task_index', 0, 'The task ID.0 then is cheif session')
    flags.DEFINE_string("ps_hosts", "g0101:2222", "ps hosts")
    flags.DEFINE_string("worker_hosts", "g0101:2223,g0102:2224", "worker hosts")
    flags.DEFINE_string("job_name", "worker", "'ps' or'worker'")
    flags.DEFINE_boolean("sync", False, "synchronous replicas")
    FLAGS = flags.FLAGS
    print(FLAGS.ps_hosts.split(","), FLAGS.worker_hosts.split(","), FLAGS.job_name,
          FLAGS.task_index, FLAGS.sync)

    def main(argv):
        print("main", argv[1:])
        return 3

    tf.app.run()
""")


def _python(code: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True,
                          timeout=60, cwd=ROOT)


def test_seed_flags_read_the_command_line_and_run_passes_the_rest_to_main():
    out = _python(SEED_FLAGS, "--ps_hosts=a:1,b:2", "--task_index", "1", "--job_name=ps",
                  "--sync", "positional")
    assert out.returncode == 3, out.stderr  # main's return value is the exit status
    lines = out.stdout.splitlines()
    assert lines[0] == "['a:1', 'b:2'] ['g0101:2223', 'g0102:2224'] ps 1 True"
    assert lines[1] == "main ['positional']"


def test_defaults_hold_without_flags():
    out = _python(SEED_FLAGS)
    assert out.stdout.splitlines()[0] == \
        "['g0101:2222'] ['g0101:2223', 'g0102:2224'] worker 0 False"


def test_a_misspelt_or_malformed_flag_is_an_error_naming_it():
    out = _python(SEED_FLAGS, "--task_indx=1")
    assert out.returncode != 0
    assert "Unknown command line flag 'task_indx'" in out.stderr
    assert "task_index" in out.stderr.splitlines()[-1]  # absl suggests the right one
    out = _python(SEED_FLAGS, "--task_index=one")
    assert out.returncode != 0
    assert "task_index" in out.stderr and "one" in out.stderr


def test_argparse_programs_hand_run_the_arguments_they_did_not_use():
    # The seed of ../shared/seeds/000: argparse first, then tf.app.run(main, argv=...).
    code = textwrap.dedent("""
        import argparse, sys
        import tensorfleet as tf
        tf.app.flags.DEFINE_integer("steps", 5, "steps")
        parser = argparse.ArgumentParser()
        parser.add_argument("--job_name", default="worker")
        FLAGS, unparsed = parser.parse_known_args()
        def main(argv):
            print(FLAGS.job_name, tf.app.flags.FLAGS.steps, argv[1:])
        tf.app.run(main=main, argv=[sys.argv[0]] + unparsed)
    """)
    out = _python(code, "--job_name=ps", "--steps=7", "--extra=1", "x")
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ps 7 ['--extra=1', 'x']"


def test_tf_flags_is_tf_app_flags():
    assert tf.flags is tf.app.flags
    assert callable(tf.app.flags.DEFINE_string) and callable(tf.app.run)
