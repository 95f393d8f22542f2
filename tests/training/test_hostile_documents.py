"""A .meta file or SavedModel document nested deeper than the parser allows, or of
random bytes, is an InvalidArgumentError naming the file, never a RecursionError or a
bare UnicodeDecodeError."""

import random

import pytest

import tensorfleet as tf
from tensorfleet.saved_model.builder import SAVED_MODEL_FILENAME


def test_a_meta_file_nested_200000_deep_is_refused_naming_it(tmp_path):
    path = tmp_path / "model.ckpt-1.meta"
    path.write_text("[" * 200_000 + "]" * 200_000)
    with pytest.raises(tf.errors.InvalidArgumentError) as e:
        tf.train.import_meta_graph(str(path))
    assert str(path) in str(e.value) and "nests deeper" in str(e.value)


_RANDOM = bytes(random.Random(0).getrandbits(8) for _ in range(4096)) + b"\xff\xfe"


@pytest.mark.parametrize("content", [b"{" * 100_000, _RANDOM], ids=["nested", "random"])
def test_a_saved_model_document_that_is_not_one_is_refused_naming_it(tmp_path, content):
    export_dir = tmp_path / "export"
    export_dir.mkdir()
    (export_dir / SAVED_MODEL_FILENAME).write_bytes(content)
    with tf.Graph().as_default(), tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError) as e:
            tf.saved_model.loader.load(sess, ["serve"], str(export_dir))
    assert str(export_dir / SAVED_MODEL_FILENAME) in str(e.value)
