"""Whole tutorial-shaped programs, run under TensorFlow or tensorfleet.

Each case is a complete TF 1.x training program of the size a public tutorial runs
(a few hundred steps on small data made here: numpy random arrays, or a folder of
small JPEG files written with Pillow; nothing is downloaded). The program imports ``tensorflow.compat.v1`` (v2 behaviour disabled) or
``tensorfleet`` as ``tf`` and nothing else changes. The figure is the program's whole
wall time, imports included: ``harness.py programs`` starts a fresh interpreter per run
and times it from start to exit. The program prints one JSON line with its first and
last loss (a check that it trained).

  raw_convnet      the Deep-MNIST shape with ``tf.nn`` ops and ``tf.Variable``s:
                   conv 5x5x32, pool, conv 5x5x64, pool, dense 1024, dropout,
                   softmax; Adam, batch 50, 28x28x1 inputs, 300 steps.
  bilstm           a bidirectional LSTM classifier on 28 rows of 28 pixels:
                   ``tf.nn.static_bidirectional_rnn`` over two
                   ``BasicLSTMCell(128)``, batch 128, Adam, 200 steps.
  image_folder     a folder of 2 x 150 JPEGs (48x48 RGB, written once with Pillow
                   under ``--data-dir`` by ``--prepare``, before any timed run):
                   ``slice_input_producer``, ``read_file``, ``decode_jpeg``,
                   ``resize_images`` to 32x32,
                   ``tf.train.batch`` with 2 threads, queue runners and a
                   ``Coordinator``, then a conv net (2 conv+pool, dense 256), Adam,
                   batch 32, 200 steps.
  data_layers      ``tf.data`` (from_tensor_slices, shuffle, repeat, batch, one-shot
                   iterator) feeding a ``tf.layers`` conv net (conv 5x5x32, pool,
                   conv 5x5x64, pool, dense 512, dropout), Adam, batch 64, 28x28x1,
                   300 steps.
  conv_estimator   the layers-tutorial ``tf.estimator.Estimator`` with a custom
                   ``model_fn`` (conv 5x5x32, pool, conv 5x5x64, pool, dense 1024,
                   dropout), ``numpy_input_fn``, batch 100, 200 training steps
                   with a checkpoint, then one evaluation pass (TensorFlow side:
                   TensorFlow 2.15 with tf.estimator).
  static_lstm      an LSTM classifier on 28 rows of 28 pixels: ``tf.nn.static_rnn``
                   over ``BasicLSTMCell(128)``, batch 128, Adam, 300 steps.
  dynamic_lstm     the same with ``tf.nn.dynamic_rnn`` over ``LSTMCell(128)``.

The inputs are random (fixed seed) with a class-dependent offset, so the loss falls.
``--prepare`` also writes the framework's bytecode caches, as an installed package has
them (``harness.py`` runs it once before the timed runs).

    python benchmarks/bench_programs.py --framework tensorfleet --case bilstm
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
import tempfile
import time
from typing import Any, Callable, Dict, List, Optional, Tuple

import numpy as np

from bench_local import FRAMEWORKS, emit, framework_version, load_framework

DATA_SEED = 1234
DEFAULT_DATA_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "results",
                                "programs-data")
CLASSES = 10


def _rows_data(count: int, rows: int = 28, cols: int = 28) -> Tuple[np.ndarray, np.ndarray]:
    """``count`` float32 images in [0, 1] and their int labels; each class shifts a
    different band of rows, so the classes can be learnt."""
    rng = np.random.default_rng(DATA_SEED)
    labels = rng.integers(0, CLASSES, size=count)
    images = rng.uniform(0.0, 0.5, size=(count, rows, cols)).astype(np.float32)
    band = rows // CLASSES
    for c in range(CLASSES):
        images[labels == c, c * band:(c + 1) * band, :] += 0.5
    return images, labels.astype(np.int32)


def _record(tf: Any, case: str, first: float, last: float, steps: int) -> Dict[str, Any]:
    return {"framework": "tensorflow" if tf.__name__.startswith("tensorflow") else
            "tensorfleet", "version": framework_version(tf), "case": case,
            "first_loss": first, "last_loss": last, "trained_steps": steps}


def _feed_loop(tf: Any, case: str, train_op: Any, loss: Any, feed: Callable[[int], Dict],
               steps: int) -> Dict[str, Any]:
    """Initializes, then runs ``steps`` training steps fed by ``feed(step)``."""
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        first = last = float("nan")
        for i in range(steps):
            _, value = sess.run([train_op, loss], feed_dict=feed(i))
            if i == 0:
                first = float(value)
            last = float(value)
    return _record(tf, case, first, last, steps)


def _conv_pool(tf: Any, x: Any, k: int, cin: int, cout: int) -> Any:
    w = tf.Variable(tf.truncated_normal([k, k, cin, cout], stddev=0.1))
    b = tf.Variable(tf.constant(0.1, shape=[cout]))
    h = tf.nn.relu(tf.nn.conv2d(x, w, strides=[1, 1, 1, 1], padding="SAME") + b)
    return tf.nn.max_pool(h, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="SAME")


def _dense(tf: Any, x: Any, cin: int, cout: int) -> Any:
    w = tf.Variable(tf.truncated_normal([cin, cout], stddev=0.1))
    b = tf.Variable(tf.constant(0.1, shape=[cout]))
    return tf.matmul(x, w) + b


def case_raw_convnet(tf: Any, args: argparse.Namespace) -> Dict[str, Any]:
    """The Deep-MNIST conv net written with tf.nn ops."""
    images, labels = _rows_data(50 * 20)
    images = images.reshape(-1, 28, 28, 1)
    x = tf.placeholder(tf.float32, [None, 28, 28, 1])
    y = tf.placeholder(tf.int32, [None])
    keep = tf.placeholder(tf.float32)
    h = _conv_pool(tf, x, 5, 1, 32)
    h = _conv_pool(tf, h, 5, 32, 64)
    h = tf.reshape(h, [-1, 7 * 7 * 64])
    h = tf.nn.dropout(tf.nn.relu(_dense(tf, h, 7 * 7 * 64, 1024)), keep)
    logits = _dense(tf, h, 1024, CLASSES)
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y,
                                                                         logits=logits))
    train_op = tf.train.AdamOptimizer(1e-4).minimize(loss)

    def feed(i: int) -> Dict:
        s = (i * 50) % images.shape[0]
        return {x: images[s:s + 50], y: labels[s:s + 50], keep: 0.5}
    return _feed_loop(tf, "raw_convnet", train_op, loss, feed, args.steps or 300)


def _rnn_classifier(tf: Any, case: str, args: argparse.Namespace, default_steps: int) -> Dict:
    """An LSTM (or bidirectional LSTM) classifier over the 28 rows of each image."""
    hidden, batch = 128, 128
    images, labels = _rows_data(batch * 8)
    x = tf.placeholder(tf.float32, [None, 28, 28])
    y = tf.placeholder(tf.int32, [None])
    width = hidden
    if case == "dynamic_lstm":
        cell = tf.nn.rnn_cell.LSTMCell(hidden)
        outputs, _ = tf.nn.dynamic_rnn(cell, x, dtype=tf.float32)
        last = outputs[:, -1, :]
    else:
        steps = tf.unstack(x, 28, 1)
        if case == "bilstm":
            fw = tf.nn.rnn_cell.BasicLSTMCell(hidden, forget_bias=1.0)
            bw = tf.nn.rnn_cell.BasicLSTMCell(hidden, forget_bias=1.0)
            outputs, _, _ = tf.nn.static_bidirectional_rnn(fw, bw, steps, dtype=tf.float32)
            width = 2 * hidden
        else:
            cell = tf.nn.rnn_cell.BasicLSTMCell(hidden, forget_bias=1.0)
            outputs, _ = tf.nn.static_rnn(cell, steps, dtype=tf.float32)
        last = outputs[-1]
    w = tf.Variable(tf.random_normal([width, CLASSES]))
    b = tf.Variable(tf.random_normal([CLASSES]))
    logits = tf.matmul(last, w) + b
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y,
                                                                         logits=logits))
    train_op = tf.train.AdamOptimizer(1e-3).minimize(loss)

    def feed(i: int) -> Dict:
        s = (i * batch) % images.shape[0]
        return {x: images[s:s + batch], y: labels[s:s + batch]}
    return _feed_loop(tf, case, train_op, loss, feed, args.steps or default_steps)


def case_bilstm(tf: Any, args: argparse.Namespace) -> Dict[str, Any]:
    """A bidirectional LSTM classifier (static_bidirectional_rnn)."""
    return _rnn_classifier(tf, "bilstm", args, 200)


def case_static_lstm(tf: Any, args: argparse.Namespace) -> Dict[str, Any]:
    """An LSTM classifier by static_rnn."""
    return _rnn_classifier(tf, "static_lstm", args, 300)


def case_dynamic_lstm(tf: Any, args: argparse.Namespace) -> Dict[str, Any]:
    """An LSTM classifier by dynamic_rnn."""
    return _rnn_classifier(tf, "dynamic_lstm", args, 300)


def _write_jpeg_folder(root: str, per_class: int = 150, size: int = 48) -> Tuple[List, List]:
    """Writes ``2 * per_class`` JPEGs under ``root/<class>/``; their paths and labels.

    Class 0 is darker on the left half, class 1 on the right, over random noise."""
    from PIL import Image
    rng = np.random.default_rng(DATA_SEED)
    paths, labels = [], []
    for label in (0, 1):
        folder = os.path.join(root, f"class{label}")
        os.makedirs(folder)
        for i in range(per_class):
            pixels = rng.integers(0, 160, size=(size, size, 3), dtype=np.uint8)
            half = slice(0, size // 2) if label == 0 else slice(size // 2, size)
            pixels[:, half, :] += 90
            path = os.path.join(folder, f"{i:04d}.jpg")
            Image.fromarray(pixels).save(path, quality=90)
            paths.append(path)
            labels.append(label)
    return paths, labels


def jpeg_folder(data_dir: str) -> Tuple[List[str], List[int]]:
    """The JPEG folder under ``data_dir`` (written on first use): paths and labels."""
    root = os.path.join(data_dir, f"jpeg-folder-{DATA_SEED}")
    if not os.path.isdir(root):
        # Written to a temporary name and renamed, so a run never sees half a folder.
        tmp = tempfile.mkdtemp(dir=data_dir)
        _write_jpeg_folder(tmp)
        os.rename(tmp, root)
    paths, labels = [], []
    for label in (0, 1):
        folder = os.path.join(root, f"class{label}")
        names = sorted(os.listdir(folder))
        paths += [os.path.join(folder, n) for n in names]
        labels += [label] * len(names)
    return paths, labels


def case_image_folder(tf: Any, args: argparse.Namespace) -> Dict[str, Any]:
    """A JPEG folder through queue runners into a small conv net."""
    steps = args.steps or 200
    paths, label_list = jpeg_folder(args.data_dir)
    path_t = tf.convert_to_tensor(paths, dtype=tf.string)
    label_t = tf.convert_to_tensor(label_list, dtype=tf.int32)
    path, label = tf.train.slice_input_producer([path_t, label_t], shuffle=True)
    image = tf.image.decode_jpeg(tf.read_file(path), channels=3)
    image = tf.image.resize_images(image, [32, 32])
    image = tf.cast(image, tf.float32) / 255.0
    images, labels = tf.train.batch([image, label], batch_size=32, num_threads=2,
                                    capacity=32 * 4)
    h = _conv_pool(tf, images, 5, 3, 32)
    h = _conv_pool(tf, h, 5, 32, 64)
    h = tf.reshape(h, [-1, 8 * 8 * 64])
    h = tf.nn.relu(_dense(tf, h, 8 * 8 * 64, 256))
    logits = _dense(tf, h, 256, 2)
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
        labels=labels, logits=logits))
    train_op = tf.train.AdamOptimizer(1e-4).minimize(loss)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(tf.local_variables_initializer())
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess=sess, coord=coord)
        first = last = float("nan")
        try:
            for i in range(steps):
                _, value = sess.run([train_op, loss])
                if i == 0:
                    first = float(value)
                last = float(value)
        finally:
            coord.request_stop()
            coord.join(threads)
    return _record(tf, "image_folder", first, last, steps)


def case_data_layers(tf: Any, args: argparse.Namespace) -> Dict[str, Any]:
    """tf.data feeding a tf.layers conv net."""
    steps = args.steps or 300
    images, labels = _rows_data(64 * 20)
    dataset = (tf.data.Dataset.from_tensor_slices((images.reshape(-1, 28, 28, 1), labels))
               .shuffle(1000, seed=1).repeat().batch(64))
    x, y = dataset.make_one_shot_iterator().get_next()
    h = tf.layers.conv2d(x, 32, 5, padding="same", activation=tf.nn.relu)
    h = tf.layers.max_pooling2d(h, 2, 2)
    h = tf.layers.conv2d(h, 64, 5, padding="same", activation=tf.nn.relu)
    h = tf.layers.max_pooling2d(h, 2, 2)
    h = tf.layers.flatten(h)
    h = tf.layers.dense(h, 512, activation=tf.nn.relu)
    h = tf.layers.dropout(h, rate=0.4, training=True)
    logits = tf.layers.dense(h, CLASSES)
    loss = tf.losses.sparse_softmax_cross_entropy(labels=y, logits=logits)
    train_op = tf.train.AdamOptimizer(1e-3).minimize(loss)
    return _feed_loop(tf, "data_layers", train_op, loss, lambda i: {}, steps)


def _cnn_model_fn(tf: Any) -> Callable:
    """The layers tutorial's model_fn: conv/pool x2, dense 1024, dropout, logits."""
    def model_fn(features: Any, labels: Any, mode: Any) -> Any:
        x = tf.reshape(features["x"], [-1, 28, 28, 1])
        h = tf.layers.conv2d(x, 32, [5, 5], padding="same", activation=tf.nn.relu)
        h = tf.layers.max_pooling2d(h, [2, 2], 2)
        h = tf.layers.conv2d(h, 64, [5, 5], padding="same", activation=tf.nn.relu)
        h = tf.layers.max_pooling2d(h, [2, 2], 2)
        h = tf.reshape(h, [-1, 7 * 7 * 64])
        h = tf.layers.dense(h, 1024, activation=tf.nn.relu)
        h = tf.layers.dropout(h, rate=0.4, training=mode == tf.estimator.ModeKeys.TRAIN)
        logits = tf.layers.dense(h, CLASSES)
        classes = tf.argmax(logits, axis=1)
        if mode == tf.estimator.ModeKeys.PREDICT:
            return tf.estimator.EstimatorSpec(mode=mode, predictions={"classes": classes})
        loss = tf.losses.sparse_softmax_cross_entropy(labels=labels, logits=logits)
        if mode == tf.estimator.ModeKeys.TRAIN:
            train_op = tf.train.GradientDescentOptimizer(0.01).minimize(
                loss, global_step=tf.train.get_global_step())
            return tf.estimator.EstimatorSpec(mode=mode, loss=loss, train_op=train_op)
        metrics = {"accuracy": tf.metrics.accuracy(labels=labels, predictions=classes)}
        return tf.estimator.EstimatorSpec(mode=mode, loss=loss, eval_metric_ops=metrics)
    return model_fn


def case_conv_estimator(tf: Any, args: argparse.Namespace) -> Dict[str, Any]:
    """A custom conv Estimator: train 200 steps from numpy arrays, then evaluate."""
    steps = args.steps or 200
    images, labels = _rows_data(100 * 10)
    eval_images, eval_labels = images[:500], labels[:500]
    with tempfile.TemporaryDirectory() as model_dir:
        config = tf.estimator.RunConfig(save_summary_steps=100, log_step_count_steps=100)
        estimator = tf.estimator.Estimator(model_fn=_cnn_model_fn(tf), model_dir=model_dir,
                                           config=config)
        train_input = tf.estimator.inputs.numpy_input_fn(
            x={"x": images.reshape(-1, 784)}, y=labels, batch_size=100, num_epochs=None,
            shuffle=True)
        estimator.train(input_fn=train_input, steps=steps)
        eval_input = tf.estimator.inputs.numpy_input_fn(
            x={"x": eval_images.reshape(-1, 784)}, y=eval_labels, num_epochs=1,
            shuffle=False)
        result = estimator.evaluate(input_fn=eval_input)
    record = _record(tf, "conv_estimator", float("nan"), float(result["loss"]), steps)
    record["accuracy"] = float(result["accuracy"])
    return record


def _compile_package(framework: str) -> None:
    """Writes the framework's bytecode caches, as ``pip install`` does for a wheel.

    A source checkout run with PYTHONDONTWRITEBYTECODE set would otherwise compile every
    module on every start, which no installed package does; the timed runs only read."""
    import compileall
    spec = importlib.util.find_spec("tensorflow" if framework == "tensorflow" else
                                    "tensorfleet")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit(f"cannot find the {framework} package to compile")
    for location in spec.submodule_search_locations:
        compileall.compile_dir(location, quiet=1)


CASES: Dict[str, Callable[[Any, argparse.Namespace], Dict[str, Any]]] = {
    "raw_convnet": case_raw_convnet,
    "bilstm": case_bilstm,
    "image_folder": case_image_folder,
    "data_layers": case_data_layers,
    "conv_estimator": case_conv_estimator,
    "static_lstm": case_static_lstm,
    "dynamic_lstm": case_dynamic_lstm,
}


def main(argv: Optional[List[str]] = None) -> int:
    """Runs one program under one framework and prints its JSON result line."""
    start = time.perf_counter()
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--framework", choices=FRAMEWORKS, required=True)
    p.add_argument("--case", choices=sorted(CASES), required=True)
    p.add_argument("--steps", type=int, default=None, help="training steps (per-case default)")
    p.add_argument("--profile", default=None, help="write a cProfile of the program here")
    p.add_argument("--data-dir", default=str(DEFAULT_DATA_DIR),
                   help="where the JPEG folder is written once and read by every run")
    p.add_argument("--prepare", action="store_true",
                   help="only write the data files (needs Pillow) and the framework's "
                        "bytecode caches, then exit")
    args = p.parse_args(argv)
    os.makedirs(args.data_dir, exist_ok=True)
    if args.prepare:
        jpeg_folder(args.data_dir)
        _compile_package(args.framework)
        return 0
    if args.framework == "tensorflow" and importlib.util.find_spec("tf_keras") is not None:
        # TensorFlow 2.16+ keeps tf.nn.rnn_cell and tf.layers only with its legacy Keras
        # (tf-keras); 2.15 has them with its own Keras and fails with the variable set.
        os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")
    profiler = None
    if args.profile:
        import cProfile
        profiler = cProfile.Profile()
        profiler.enable()
    tf = load_framework(args.framework)
    if args.case == "conv_estimator" and args.framework == "tensorflow":
        tf.logging.set_verbosity(tf.logging.ERROR)
    record = CASES[args.case](tf, args)
    if profiler is not None:
        profiler.disable()
        profiler.dump_stats(args.profile)
    # The harness times the whole process from outside; this is the in-process figure.
    record["program_s"] = time.perf_counter() - start
    emit(record)
    return 0


if __name__ == "__main__":
    sys.exit(main())
