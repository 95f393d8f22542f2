"""tf.keras.utils: ordinal targets, files in the Keras cache (hashes, archives), image
arrays, Sequence and the enqueuers, Progbar, the source inputs of a tensor; and
tf.keras.datasets.boston_housing."""

import hashlib
import io
import tarfile

import numpy as np
import pytest

import tensorfleet as tf

keras = tf.keras
utils = keras.utils


@pytest.fixture(autouse=True)
def _keras_session():
    yield
    keras.backend.clear_session()


def test_to_ordinal():
    np.testing.assert_array_equal(utils.to_ordinal([0, 2, 1, 3], 4),
                                  [[0, 0, 0], [1, 1, 0], [1, 0, 0], [1, 1, 1]])
    assert utils.to_ordinal([[1], [0]]).shape == (2, 1)
    with pytest.raises(ValueError, match="out of range"):
        utils.to_ordinal([4], 4)


def test_get_file_checks_hashes_and_unpacks_archives(tmp_path):
    models = tmp_path / "models"
    models.mkdir()
    (models / "w.bin").write_bytes(b"weights")
    sha = hashlib.sha256(b"weights").hexdigest()
    path = utils.get_file("w.bin", "https://example.org/w.bin", file_hash=sha,
                          cache_subdir="models", cache_dir=str(tmp_path))
    assert path == str(models / "w.bin")
    with pytest.raises(ValueError, match="hash"):
        utils.get_file("w.bin", file_hash="0" * 64, cache_subdir="models",
                       cache_dir=str(tmp_path))
    with pytest.raises(FileNotFoundError, match=r"models/x\.h5.*https://example\.org/x\.h5"):
        utils.get_file("x.h5", "https://example.org/x.h5", cache_subdir="models",
                       cache_dir=str(tmp_path))
    # untar: the archive next to the folder it unpacks to
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as t:
        info = tarfile.TarInfo("data/readme.txt")
        info.size = 2
        t.addfile(info, io.BytesIO(b"hi"))
    (tmp_path / "datasets").mkdir()
    (tmp_path / "datasets" / "data.tar.gz").write_bytes(buf.getvalue())
    out = utils.get_file("data", "https://example.org/data.tar.gz", untar=True,
                         cache_dir=str(tmp_path))
    assert (tmp_path / "datasets" / "data" / "readme.txt").read_bytes() == b"hi"
    assert out == str(tmp_path / "datasets" / "data")


def test_image_arrays_round_trip(tmp_path):
    rgb = (np.arange(4 * 5 * 3).reshape(4, 5, 3) * 4).astype(np.uint8)
    img = utils.array_to_img(rgb, scale=False)
    assert img.size == (5, 4) and img.mode == "RGB"
    np.testing.assert_array_equal(utils.img_to_array(img), rgb.astype(np.float32))
    assert utils.img_to_array(img, data_format="channels_first").shape == (3, 4, 5)
    utils.save_img(str(tmp_path / "a.png"), rgb, scale=False)
    back = utils.load_img(str(tmp_path / "a.png"))
    np.testing.assert_array_equal(np.asarray(back), rgb)
    gray = utils.load_img(str(tmp_path / "a.png"), color_mode="grayscale", target_size=(2, 3))
    assert gray.mode == "L" and gray.size == (3, 2)
    scaled = utils.img_to_array(utils.array_to_img(np.full((2, 2, 1), 0.5)
                                                   + np.eye(2)[..., None]))
    assert scaled.min() == 0 and scaled.max() == 255
    with pytest.raises(ValueError, match="rank 3"):
        utils.array_to_img(np.zeros((2, 2)))
    with pytest.raises(ValueError, match="color_mode"):
        utils.load_img(str(tmp_path / "a.png"), color_mode="cmyk")


class _Squares(utils.Sequence):
    def __init__(self, n, fail_at=None):
        self.n, self.fail_at, self.epochs = n, fail_at, 0

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        if i == self.fail_at:
            raise KeyError(f"batch {i}")
        return i * i

    def on_epoch_end(self):
        self.epochs += 1


def test_ordered_enqueuer_yields_batches_in_order_epoch_after_epoch():
    seq = _Squares(5)
    enq = utils.OrderedEnqueuer(seq)
    enq.start(workers=2, max_queue_size=3)
    got = []
    for item in enq.get():
        got.append(item)
        if len(got) == 10:
            break
    enq.stop()
    assert got == [0, 1, 4, 9, 16] * 2 and seq.epochs >= 1
    assert not enq.is_running()
    bad = utils.OrderedEnqueuer(_Squares(4, fail_at=2))
    bad.start(workers=2)
    with pytest.raises(KeyError, match="batch 2"):
        list(bad.get())
    with pytest.raises(ValueError, match="use_multiprocessing"):
        utils.OrderedEnqueuer(seq, use_multiprocessing=True)


def test_generator_enqueuer_drains_the_generator():
    enq = utils.GeneratorEnqueuer(iter(range(7)))
    enq.start(workers=2, max_queue_size=2)
    assert sorted(enq.get()) == list(range(7))
    enq.stop()


def test_progbar_writes_running_means(capsys):
    bar = utils.Progbar(4, width=10, interval=0)
    bar.update(2, [("loss", 1.0)])
    bar.add(2, [("loss", 3.0)])
    out = capsys.readouterr().out
    assert "4/4 [==========]" in out and "loss: 2.0000" in out
    utils.disable_interactive_logging()
    try:
        assert not utils.is_interactive_logging_enabled()
        utils.Progbar(2).update(2)
        assert capsys.readouterr().out == ""
    finally:
        utils.enable_interactive_logging()
    quiet = utils.Progbar(3, verbose=2)
    quiet.update(1, [("acc", 0.5)])
    assert capsys.readouterr().out == ""
    quiet.update(3, [("acc", 1.0)])
    assert "3/3" in capsys.readouterr().out


def test_get_source_inputs_follows_the_layers_back():
    a, b = keras.Input((2,)), keras.Input((2,))
    out = keras.layers.Dense(1)(keras.layers.Add()([keras.layers.Dense(2)(a), b]))
    assert utils.get_source_inputs(out) == [a, b]
    assert utils.get_source_inputs(a) == [a]
    with pytest.raises(ValueError, match="not a Keras tensor"):
        utils.get_source_inputs(tf.constant(1.0))


def test_boston_housing_shuffles_and_splits_as_keras(tmp_path):
    x = np.arange(20, dtype=np.float64).reshape(10, 2)
    y = np.arange(10, dtype=np.float64)
    np.savez(tmp_path / "boston_housing.npz", x=x, y=y)
    (xt, yt), (xs, ys) = keras.datasets.boston_housing.load_data(
        path=str(tmp_path / "boston_housing.npz"), test_split=0.3, seed=113)
    order = np.arange(10)
    np.random.RandomState(113).shuffle(order)
    np.testing.assert_array_equal(yt, y[order[:7]])
    np.testing.assert_array_equal(xs, x[order[7:]])
    with pytest.raises(ValueError, match="test_split"):
        keras.datasets.boston_housing.load_data(path=str(tmp_path / "boston_housing.npz"),
                                                test_split=1.0)
