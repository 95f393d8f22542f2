"""The estimator example says what it did in a few lines, not tensorfleet's INFO log."""

import os
import subprocess
import sys
from pathlib import Path

from tensorfleet.protos import saved_model_pb2
from tests.framework.tensorflow_op_set import assert_tensorflow_graph

ROOT = Path(__file__).resolve().parents[2]


def _run(tmp_path, *extra):
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1")
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    env.pop("TF_CONFIG", None)
    env.pop("TENSORFLEET_LOG_LEVEL", None)
    return subprocess.run([sys.executable, str(ROOT / "examples" / "estimator_digits.py"),
                           "--model_dir", str(tmp_path / "m"), "--max_steps", "30", *extra],
                          env=env, capture_output=True, text=True, timeout=300)


def test_a_successful_run_prints_its_result_and_no_framework_info(tmp_path):
    r = _run(tmp_path)
    assert r.returncode == 0, r.stderr
    lines = (r.stdout + r.stderr).strip().splitlines()
    assert not [ln for ln in lines if " INFO tensorfleet" in ln], lines
    assert len(lines) <= 3, lines
    assert "final metrics" in lines[-1]
    # The final export: TensorFlow's SavedModel, of TensorFlow's ops only.
    (export,) = (tmp_path / "m" / "export" / "digits").glob("*/saved_model.pb")
    assert f"exported the model to {export.parent}" in lines[-2]
    (meta,) = saved_model_pb2.SavedModel.FromString(export.read_bytes()).meta_graphs
    assert {"ParseExample", "MatMul", "Softmax"} <= assert_tensorflow_graph(meta.graph_def)


def test_a_second_run_says_it_had_nothing_to_train(tmp_path):
    assert _run(tmp_path).returncode == 0
    r = _run(tmp_path)
    assert r.returncode == 0, r.stderr
    assert "nothing to train" in r.stderr, r.stderr
