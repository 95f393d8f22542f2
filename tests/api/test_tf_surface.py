"""How much of TensorFlow's ``tf.compat.v1`` tensorfleet has, namespace by namespace.

``tests/fixtures/tf_compat_v1_names.json`` lists TensorFlow's names (written by
``benchmarks/tf_surface.py --generate`` under TensorFlow 2.21); ``tf_surface_present.json``
lists those that resolved on tensorfleet when it was last updated
(``python benchmarks/tf_surface.py --json > tests/fixtures/tf_surface_present.json``).
A name still missing does not fail the suite; a name that was present and has gone does.
Run with ``-s`` to see the shares: ``python -m pytest -q -s -n 0 tests/api/test_tf_surface.py``.
"""

import importlib.util
import json
import os

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_spec = importlib.util.spec_from_file_location(
    "tf_surface", os.path.join(ROOT, "benchmarks", "tf_surface.py"))
tf_surface = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(tf_surface)

PRESENT_FILE = os.path.join(ROOT, "tests", "fixtures", "tf_surface_present.json")


def test_names_file_is_names_only():
    namespaces = tf_surface.load_names()
    assert namespaces["tf"] and "Session" in namespaces["tf"]
    for ns, names in namespaces.items():
        assert ns == "tf" or ns.startswith("tf."), ns
        assert all(isinstance(n, str) and n.isidentifier() for n in names), ns


def test_share_present_per_namespace():
    namespaces = tf_surface.load_names()
    present = tf_surface.present_names(namespaces)
    print("\n" + tf_surface.report(namespaces, present))
    table = tf_surface.shares(namespaces, present)
    p, t = table["surface"]["(all)"]
    assert 0 < p <= t


def test_no_present_name_disappears():
    with open(PRESENT_FILE) as f:
        recorded = json.load(f)
    gone = [f"{ns}.{n}" for ns, names in sorted(recorded.items()) for n in names
            if not tf_surface._resolve(ns, n)]
    assert not gone, f"names that were present no longer resolve: {gone}"


def test_group_of_sets_apart_the_namespaces_outside_the_tf1_surface():
    assert tf_surface.group_of("tf.nn.rnn_cell") == "surface"
    assert tf_surface.group_of("tf.keras.layers") == "keras"
    assert tf_surface.group_of("tf.raw_ops") == "apart"
    assert tf_surface.group_of("tf.tpu.experimental") == "apart"
