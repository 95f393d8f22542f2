"""tensorfleet.examples.tutorials.mnist.input_data: IDX files written here from the format
specification (big-endian magic 2051/2049, counts, dims, then uint8 data)."""

import gzip
import struct

import numpy as np
import pytest

import tensorfleet as tf
from tensorfleet.examples.tutorials.mnist import input_data, mnist


def _write_images(path, images):
    n, rows, cols = images.shape
    with gzip.open(path, "wb") as f:
        f.write(struct.pack(">IIII", 2051, n, rows, cols) + images.astype(np.uint8).tobytes())


def _write_labels(path, labels):
    with gzip.open(path, "wb") as f:
        f.write(struct.pack(">II", 2049, len(labels)) + labels.astype(np.uint8).tobytes())


@pytest.fixture
def mnist_dir(tmp_path):
    rng = np.random.RandomState(0)
    train = rng.randint(0, 256, size=(30, 28, 28))
    test = rng.randint(0, 256, size=(7, 28, 28))
    _write_images(tmp_path / "train-images-idx3-ubyte.gz", train)
    _write_labels(tmp_path / "train-labels-idx1-ubyte.gz", np.arange(30) % 10)
    _write_images(tmp_path / "t10k-images-idx3-ubyte.gz", test)
    _write_labels(tmp_path / "t10k-labels-idx1-ubyte.gz", np.arange(7) % 10)
    return tmp_path, train, test


def test_read_data_sets_one_hot(mnist_dir):
    d, train, test = mnist_dir
    mnist = input_data.read_data_sets(str(d), one_hot=True, validation_size=10)
    assert mnist.train.num_examples == 20 and mnist.validation.num_examples == 10
    assert mnist.test.num_examples == 7
    imgs = mnist.validation.images
    assert imgs.shape == (10, 784) and imgs.dtype == np.float32
    np.testing.assert_allclose(imgs, train[:10].reshape(10, 784) / 255.0, rtol=1e-6)
    assert imgs.min() >= 0.0 and imgs.max() <= 1.0
    assert mnist.validation.labels.shape == (10, 10)
    np.testing.assert_array_equal(mnist.validation.labels.argmax(1), np.arange(10) % 10)
    np.testing.assert_array_equal(mnist.test.labels.sum(1), np.ones(7))


def test_dense_labels_uint8_and_no_reshape(mnist_dir):
    d, train, _ = mnist_dir
    mnist = input_data.read_data_sets(str(d), validation_size=0, dtype=tf.uint8,
                                      reshape=False)
    assert mnist.train.images.shape == (30, 28, 28, 1) and mnist.train.images.dtype == np.uint8
    np.testing.assert_array_equal(mnist.train.images[..., 0], train)
    assert mnist.train.labels.dtype == np.uint8 and mnist.train.labels.shape == (30,)


def test_next_batch_walks_epochs_without_repeats(mnist_dir):
    d, _, _ = mnist_dir
    train = input_data.read_data_sets(str(d), validation_size=10, seed=1).train
    seen = []
    for _ in range(5):  # 4 batches of 5 = one epoch, then one batch into the next
        x, y = train.next_batch(5)
        assert x.shape == (5, 784) and y.shape == (5,)
        seen.append(x)
    first_epoch = np.concatenate(seen[:4])
    assert len({row.tobytes() for row in first_epoch}) == 20
    assert train.epochs_completed == 1
    x, _ = train.next_batch(17)  # crosses the second epoch's end: 15 + 2
    assert x.shape == (17, 784) and train.epochs_completed == 2
    plain = input_data.read_data_sets(str(d), validation_size=10).train
    xs, _ = plain.next_batch(20, shuffle=False)
    np.testing.assert_allclose(xs, plain.images[:20])


def test_missing_files_name_them(tmp_path):
    with pytest.raises(FileNotFoundError) as e:
        input_data.read_data_sets(str(tmp_path / "nowhere"), one_hot=True)
    for name in ["train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz",
                 "t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz"]:
        assert name in str(e.value)
    assert "does not download" in str(e.value)


def test_bad_magic_and_validation_size(mnist_dir, tmp_path):
    d, _, _ = mnist_dir
    with pytest.raises(ValueError, match="Validation size"):
        input_data.read_data_sets(str(d), validation_size=31)
    _write_labels(d / "train-images-idx3-ubyte.gz", np.arange(3))
    with pytest.raises(ValueError, match="magic number 2049"):
        input_data.read_data_sets(str(d))


def test_fake_data_and_one_hot_helper():
    fake = input_data.read_data_sets("", fake_data=True, one_hot=True)
    x, y = fake.train.next_batch(3, fake_data=True)
    assert len(x) == 3 and len(x[0]) == 784 and y[0] == [1] + [0] * 9
    np.testing.assert_array_equal(input_data.dense_to_one_hot(np.array([2, 0]), 3),
                                  [[0, 0, 1], [1, 0, 0]])


def test_feeds_a_softmax_model(mnist_dir):
    d, _, _ = mnist_dir
    mnist = input_data.read_data_sets(str(d), one_hot=True, validation_size=5)
    x = tf.placeholder(tf.float32, [None, 784])
    y_ = tf.placeholder(tf.float32, [None, 10])
    w = tf.Variable(tf.zeros([784, 10]))
    logits = tf.matmul(x, w)
    loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(labels=y_, logits=logits))
    step = tf.train.GradientDescentOptimizer(0.01).minimize(loss)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        before = sess.run(loss, {x: mnist.train.images, y_: mnist.train.labels})
        for _ in range(20):
            bx, by = mnist.train.next_batch(5)
            sess.run(step, {x: bx, y_: by})
        after = sess.run(loss, {x: mnist.train.images, y_: mnist.train.labels})
    assert np.isclose(before, np.log(10.0), rtol=1e-5) and after < before


def test_tutorial_model_trains_on_read_data(mnist_dir):
    d, _, _ = mnist_dir
    data = input_data.read_data_sets(str(d), validation_size=5)
    assert mnist.IMAGE_PIXELS == 784 and mnist.NUM_CLASSES == 10
    tf.set_random_seed(0)
    images = tf.placeholder(tf.float32, [None, mnist.IMAGE_PIXELS])
    labels = tf.placeholder(tf.int32, [None])
    logits = mnist.inference(images, 16, 8)
    loss = mnist.loss(logits, labels)
    train = mnist.training(loss, 0.1)
    correct = mnist.evaluation(logits, labels)
    names = [v.op.name for v in tf.global_variables()]
    assert names[:6] == ["hidden1/weights", "hidden1/biases", "hidden2/weights",
                         "hidden2/biases", "softmax_linear/weights", "softmax_linear/biases"]
    assert "global_step" in names and logits.shape.as_list() == [None, 10]
    feed = {images: data.train.images, labels: data.train.labels}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        w = sess.run(tf.global_variables()[0])
        before = sess.run(loss, feed)
        for _ in range(30):
            sess.run(train, feed)
        after, n_correct, out = sess.run([loss, correct, logits], feed)
    assert np.abs(w).max() <= 2.0 / np.sqrt(784) + 1e-6   # truncated at two std devs
    assert after < before
    assert n_correct == np.sum(out.argmax(1) == data.train.labels)
