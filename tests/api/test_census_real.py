"""The census tool on collected names (``--names``), its line-by-line reader and the
census of real public TF 1.x programs kept in ``tests/fixtures/tf1_census_real.json``.

The JSON holds only derived data (repository, path, commit, family, the
``tensorflow.*`` names each program uses and, for a few, the names among them that
TensorFlow 1.x itself lacks), so these tests check its shape and that
``benchmarks/census.py --names`` reads and resolves it; the tiny hand-made samples
check the report itself against names whose presence is known.
"""

import importlib.util
import json
import os
import re

import pytest

import tensorfleet as tf

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
REAL = os.path.join(ROOT, "tests", "fixtures", "tf1_census_real.json")
FAMILIES = {"tutorial", "distributed", "estimator", "ctr", "word2vec", "rnn_lm", "seq2seq",
            "text_cnn", "nlp_crf", "gan", "autoencoder", "slim"}


def _census_module():
    spec = importlib.util.spec_from_file_location(
        "census_real_tool", os.path.join(ROOT, "benchmarks", "census.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _write(tmp_path, data):
    path = tmp_path / "names.json"
    path.write_text(json.dumps(data))
    return str(path)


SAMPLE = {"programs": [
    {"repository": "someone/complete", "path": "train.py", "family": "tutorial",
     "names": ["tensorflow", "tensorflow.placeholder", "tensorflow.train.Saver",
               "tensorflow.app.flags.FLAGS.batch_size"]},
    {"repository": "someone/else", "path": "model.py", "family": "tutorial",
     "names": ["tensorflow.nn.relu", "tensorflow.nn.nope", "tensorflow.nope_module.fn"]},
    {"path": "local.py", "names": ["tensorflow.nn.nope"],
     "absent_in_tf1": ["tensorflow.nn.nope"]},
]}


def test_names_mode_reports_each_program_fraction_and_ranking(tmp_path, capsys):
    census = _census_module()
    assert census.main(["--names", _write(tmp_path, SAMPLE)]) == 0
    out = capsys.readouterr().out
    assert "someone/complete:train.py: complete" in out
    assert "someone/else:model.py: missing tf.nn.nope, tf.nope_module" in out
    assert "local.py: missing tf.nn.nope" in out
    assert "1/3 programs complete (33%)" in out
    assert "by family: tutorial 1/2" in out
    assert "2/3 when names that TensorFlow 1.x itself lacks" in out
    ranked = out.split("missing names, by number of programs:")[1].split()
    assert ranked[:4] == ["2", "tf.nn.nope", "1", "tf.nope_module"]


def test_names_mode_json_output_counts(tmp_path, capsys):
    census = _census_module()
    assert census.main(["--names", _write(tmp_path, SAMPLE), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["programs"] == 3 and report["complete"] == 1
    assert report["counts"] == {"tf.nn.nope": 2, "tf.nope_module": 1}
    assert report["missing"]["someone/complete:train.py"] == []
    assert report["families"] == {"tutorial": [1, 2]}
    assert report["complete_in_tf1_terms"] == 2


def test_names_mode_agrees_with_file_mode_on_the_same_program(tmp_path):
    census = _census_module()
    source = ("import tensorflow as tf\nfrom tensorflow.contrib import rnn\n"
              "x = tf.placeholder(tf.float32)\ncell = rnn.NoSuchCell(3)\ny = tf.nn.nope(x)\n")
    program = tmp_path / "prog.py"
    program.write_text(source)
    (file_result,) = census.census([str(program)], tf)
    collected = census.collect([str(program)])
    (names_result,) = census.census_names([("prog.py", collected[0]["names"])], tf)
    assert file_result[1] == names_result[1] == ["tf.contrib.rnn.NoSuchCell", "tf.nn.nope"]


@pytest.mark.parametrize("data, message", [
    ([1, 2], "'programs' list"),
    ({"programs": [{"names": []}]}, "needs 'path'"),
    ({"programs": [{"path": "a.py", "names": "tensorflow.nn"}]}, "needs 'path'"),
    ({"programs": [{"path": "a.py", "names": ["torch.nn"]}]}, "outside tensorflow"),
])
def test_names_file_errors_say_what_is_wrong(tmp_path, data, message):
    census = _census_module()
    with pytest.raises(ValueError, match=message):
        census.load_names(_write(tmp_path, data))


def test_names_mode_refuses_program_files_too(tmp_path):
    census = _census_module()
    with pytest.raises(SystemExit):
        census.main(["--names", _write(tmp_path, SAMPLE), "some_dir"])


def test_collect_prints_sorted_names_per_file(tmp_path, capsys):
    census = _census_module()
    program = tmp_path / "p.py"
    program.write_text("import tensorflow as tf\nb = tf.zeros([2])\na = tf.Variable(b)\n")
    assert census.main(["--collect", str(program)]) == 0
    (entry,) = json.loads(capsys.readouterr().out)
    assert entry["path"] == str(program)
    assert entry["names"] == ["tensorflow", "tensorflow.Variable", "tensorflow.zeros"]


def test_sources_that_do_not_parse_are_read_line_by_line():
    census = _census_module()
    python2 = '''import tensorflow as tf
import tensorflow.contrib.slim as slim
from tensorflow.contrib import rnn
from tensorflow.contrib.layers import (xavier_initializer as xi,
    l2_regularizer)
layers = tf.contrib.layers
print "tf.in_string %s" % tf.__version__   # tf.in_comment
x = tf.placeholder(tf.float32, [None, 784])
net = slim.conv2d(x, 3); cell = rnn.GRUCell(3)
y = layers.fully_connected(x, 3, weights_initializer=xi())
'''
    names = census.used_names(python2)
    assert names == {
        "tensorflow", "tensorflow.__version__", "tensorflow.contrib.slim",
        "tensorflow.contrib.slim.conv2d", "tensorflow.contrib.rnn",
        "tensorflow.contrib.rnn.GRUCell", "tensorflow.contrib.layers.xavier_initializer",
        "tensorflow.contrib.layers.l2_regularizer", "tensorflow.contrib.layers",
        "tensorflow.contrib.layers.fully_connected",
        "tensorflow.float32", "tensorflow.placeholder"}


def test_real_census_file_is_derived_data_from_enough_programs():
    with open(REAL, encoding="utf-8") as f:
        data = json.load(f)
    about = data["about"]
    assert "rule" in about and "drawn" in about
    programs = data["programs"]
    assert 50 <= len(programs) <= 80
    assert len({p["repository"] for p in programs}) >= 20
    assert {p["family"] for p in programs} <= FAMILIES
    assert len({p["family"] for p in programs}) >= 8
    keys = set()
    for p in programs:
        assert {"repository", "path", "commit", "family", "names"} <= set(p)
        assert set(p) <= {"repository", "path", "commit", "family", "names", "absent_in_tf1"}
        for absent in p.get("absent_in_tf1", []):
            assert any(n == absent or n.startswith(absent + ".") for n in p["names"]), absent
        assert re.fullmatch(r"[0-9a-f]{40}", p["commit"]), p
        assert re.fullmatch(r"[\w.-]+/[\w.-]+", p["repository"]), p
        assert p["names"] == sorted(set(p["names"])) and p["names"], p
        assert all(n == "tensorflow" or n.startswith("tensorflow.") for n in p["names"])
        keys.add((p["repository"], p["path"]))
    assert len(keys) == len(programs)


def test_real_census_runs_and_counts_every_program(capsys):
    census = _census_module()
    assert census.main(["--names", REAL, "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    with open(REAL, encoding="utf-8") as f:
        total = len(json.load(f)["programs"])
    assert report["programs"] == total
    incomplete = sum(1 for m in report["missing"].values() if m)
    assert report["complete"] == total - incomplete
    assert sum(report["counts"].values()) == sum(len(m) for m in report["missing"].values())
    assert sum(t for _, t in report["families"].values()) == total
    assert sum(c for c, _ in report["families"].values()) == report["complete"]
    assert report["complete"] <= report["complete_in_tf1_terms"] <= total
