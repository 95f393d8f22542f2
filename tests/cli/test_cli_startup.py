"""The ``tensorfleet`` command starts without the kernels and ops it does not use, and
the package still loads them wherever they are needed (each check in a fresh process)."""

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _run(code):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout.strip().splitlines()[-1])


def test_help_and_status_help_load_no_kernels_ops_or_numpy():
    loaded = _run("""
import contextlib, io, json, sys
from tensorfleet.cli.main import main
for argv in (["--help"], ["status", "--help"], ["launch", "--help"], ["k8s", "--help"]):
    sys.argv = ["tensorfleet"] + argv
    with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):
        main()
print(json.dumps(sorted(sys.modules)))
""")
    for heavy in ("numpy", "grpc", "tensorfleet.kernels.numpy", "tensorfleet.ops",
                  "tensorfleet.framework.graph", "tensorfleet.api.tf"):
        assert heavy not in loaded, heavy


def test_kernels_and_public_names_load_where_they_are_needed():
    got = _run("""
import json, sys
from tensorfleet.framework.graph import Graph
from tensorfleet.ops import array_ops, math_ops
from tensorfleet.runtime.session import Session
import tensorfleet.gradients.gradients_impl  # the subpackage before the function
g = Graph()
with g.as_default():
    y = math_ops.add(array_ops.constant(2.0), 3.0)
before = "tensorfleet.kernels.numpy" in sys.modules
value = float(Session(graph=g).run(y))  # no public name used: the registry loads them
import tensorfleet as tf
import tensorfleet.train
print(json.dumps({"kernels_before_run": before, "value": value,
                  "gradients_is_function": callable(tf.gradients),
                  "train": tensorfleet.train is tf.train and hasattr(tf.train, "Saver"),
                  "compat": tf.compat.v1 is tf, "version": tf.VERSION == tf.__version__,
                  "remote": "tensorfleet.distributed.remote" in sys.modules}))
""")
    assert got == {"kernels_before_run": False, "value": 5.0, "gradients_is_function": True,
                   "train": True, "compat": True, "version": True, "remote": True}


def test_a_star_import_as_the_first_use_takes_every_public_name():
    got = _run("""
import json, sys
from tensorfleet import *  # print is tf.print afterwards, as with TensorFlow
import tensorfleet.api.tf as api
names = dict(globals())
sys.stdout.write(json.dumps({"missing": [n for n in api.__all__ if n not in names],
                             "session": names["Session"].__name__}) + "\\n")
""")
    assert got == {"missing": [], "session": "Session"}
