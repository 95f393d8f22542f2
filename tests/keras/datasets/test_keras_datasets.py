"""tf.keras.datasets: IMDB, Reuters and CIFAR read from files in Keras's own formats (the
test writes small ones), processed as Keras processes them; missing files name their URL;
pickled data is read without running the pickle."""

import json
import os
import pickle

import numpy as np
import pytest

import tensorfleet as tf
from tensorfleet.keras import pickled_data

datasets = tf.keras.datasets


def _objects(seqs):
    out = np.empty(len(seqs), dtype=object)
    for i, s in enumerate(seqs):
        out[i] = list(s)
    return out


def test_imdb_shuffles_offsets_and_limits_as_keras(tmp_path):
    train = [[1, 2, 3], [4, 5], [6, 7, 8, 9], [10]]
    test = [[3, 3], [9, 1, 1]]
    np.savez(tmp_path / "imdb.npz", x_train=_objects(train), y_train=np.array([0, 1, 0, 1]),
             x_test=_objects(test), y_test=np.array([1, 0]))
    (xt, yt), (xs, ys) = datasets.imdb.load_data(path=str(tmp_path / "imdb.npz"),
                                                 num_words=10)
    rng = np.random.RandomState(113)
    order = np.arange(4)
    rng.shuffle(order)
    first = [1] + [w + 3 for w in train[order[0]]]
    assert xt[0] == [w if w < 10 else 2 for w in first]
    np.testing.assert_array_equal(yt, np.array([0, 1, 0, 1])[order])
    assert len(xs) == 2 and all(x[0] == 1 for x in xs)
    (xt, _), _ = datasets.imdb.load_data(path=str(tmp_path / "imdb.npz"), maxlen=4,
                                         start_char=None, index_from=0)
    # the 4-word review is dropped; as in Keras, the split stays at the original number
    # of training reviews, so the first test review moves into the training part
    assert len(xt) == 4 and max(map(len, xt)) < 4
    with pytest.raises(TypeError, match="Unrecognized keyword"):
        datasets.imdb.load_data(path=str(tmp_path / "imdb.npz"), nb_words=5)


def test_reuters_split_word_index_and_labels(tmp_path, monkeypatch):
    xs = [[i, i + 1] for i in range(1, 11)]
    np.savez(tmp_path / "reuters.npz", x=_objects(xs), y=np.arange(10) % 46)
    (xt, yt), (xe, ye) = datasets.reuters.load_data(path=str(tmp_path / "reuters.npz"),
                                                    test_split=0.3)
    assert len(xt) == 7 and len(xe) == 3 and xt.dtype == object
    assert sorted(list(yt) + list(ye)) == list(range(10))
    names = datasets.reuters.get_label_names()
    assert len(names) == 46 and names[3] == "earn"
    monkeypatch.setenv("HOME", str(tmp_path))
    with pytest.raises(FileNotFoundError, match=r"reuters_word_index\.json.*"
                       r"https://storage\.googleapis\.com/tensorflow/tf-keras-datasets/"):
        datasets.reuters.get_word_index()
    folder = tmp_path / ".keras" / "datasets"
    folder.mkdir(parents=True)
    (folder / "imdb_word_index.json").write_text(json.dumps({"the": 1, "movie": 2}))
    assert datasets.imdb.get_word_index() == {"the": 1, "movie": 2}


def _cifar_batch(path, n, label_key, seed):
    rng = np.random.RandomState(seed)
    batch = {b"data": rng.randint(0, 256, (n, 3072)).astype(np.uint8),
             label_key.encode(): list(rng.randint(0, 10, n)), b"batch_label": b"batch"}
    with open(path, "wb") as f:
        pickle.dump(batch, f, protocol=2)
    return batch


def test_cifar10_reads_the_unpacked_batches(tmp_path):
    folder = tmp_path / "datasets" / "cifar-10-batches-py"
    folder.mkdir(parents=True)
    batches = [_cifar_batch(folder / f"data_batch_{i}", 2, "labels", i) for i in range(1, 6)]
    test = _cifar_batch(folder / "test_batch", 3, "labels", 9)
    (xt, yt), (xs, ys) = datasets.cifar10.load_data(cache_dir=str(tmp_path))
    assert xt.shape == (10, 32, 32, 3) and yt.shape == (10, 1) and xt.dtype == np.uint8
    np.testing.assert_array_equal(xt[0], batches[0][b"data"][0].reshape(3, 32, 32)
                                  .transpose(1, 2, 0))
    np.testing.assert_array_equal(ys[:, 0], test[b"labels"])
    with pytest.raises(FileNotFoundError, match=r"cifar-100-python.*https://www\.cs\."):
        datasets.cifar100.load_data(cache_dir=str(tmp_path))


def test_cifar100_label_modes(tmp_path):
    folder = tmp_path / "datasets" / "cifar-100-python"
    folder.mkdir(parents=True)
    for name, seed in (("train", 1), ("test", 2)):
        rng = np.random.RandomState(seed)
        with open(folder / name, "wb") as f:
            pickle.dump({b"data": rng.randint(0, 256, (4, 3072)).astype(np.uint8),
                         b"fine_labels": [1, 2, 3, 4], b"coarse_labels": [0, 0, 1, 1]}, f)
    (_, yt), _ = datasets.cifar100.load_data(cache_dir=str(tmp_path))
    assert list(yt[:, 0]) == [1, 2, 3, 4]
    (_, yc), _ = datasets.cifar100.load_data("coarse", cache_dir=str(tmp_path))
    assert list(yc[:, 0]) == [0, 0, 1, 1]
    with pytest.raises(ValueError, match="label_mode"):
        datasets.cifar100.load_data("medium", cache_dir=str(tmp_path))


class _RunsACommand:
    def __reduce__(self):
        return (os.system, ("echo unpickled",))


def test_pickled_data_refuses_anything_but_plain_data(tmp_path):
    with pytest.raises(pickled_data.UnsafePickleError, match="posix.system|nt.system"):
        pickled_data.load(pickle.dumps(_RunsACommand()))
    with pytest.raises(pickled_data.UnsafePickleError):
        pickled_data.load(pickle.dumps({"x": _RunsACommand()}, protocol=2))
    evil = np.empty(1, dtype=object)
    evil[0] = _RunsACommand()
    np.savez(tmp_path / "imdb.npz", x_train=evil, y_train=np.zeros(1), x_test=evil,
             y_test=np.zeros(1))
    with pytest.raises(pickled_data.UnsafePickleError):
        datasets.imdb.load_data(path=str(tmp_path / "imdb.npz"))
    for protocol in (2, 3, 4, 5):
        value = {"a": [1, 2.5, None, True], b"b": (np.arange(6, dtype=">i4").reshape(2, 3),)}
        back = pickled_data.load(pickle.dumps(value, protocol=protocol))
        assert back["a"] == [1, 2.5, None, True]
        np.testing.assert_array_equal(back[b"b"][0], value[b"b"][0])
