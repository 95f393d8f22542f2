"""The model both TensorFlow and tensorfleet build for the checkpoint interop fixtures.

``build(v1)`` takes a ``compat.v1`` namespace -- TensorFlow's ``tf.compat.v1`` or
tensorfleet's -- so the same code makes the same graph, with the same variable
names, in both: a convolution, a partitioned embedding and a dense layer, trained
with Adam.
"""

import numpy as np

IMAGE = 6
VOCAB = 140  # slice offsets above 63 take a two-byte key encoding
EMBED = 4
CLASSES = 3
BATCH = 8


# What make_fixtures.py saves to tf_dtypes/ck: one tensor of each dtype both have.
DTYPE_VALUES = {
    "f16": np.array([1.5, -2.25], np.float16), "f64": np.array([[1e300, -0.5]], np.float64),
    "i8": np.array([-128, 127], np.int8), "u8": np.array([0, 255], np.uint8),
    "i16": np.array([-300], np.int16), "u16": np.array([65535], np.uint16),
    "i32": np.array(-7, np.int32), "i64": np.array([[1 << 40], [-1]], np.int64),
    "b": np.array([True, False, True]), "s": np.array([b"hello", b"", b"x" * 300], object),
}


def batch(seed: int):
    """A fixed batch ``(images, ids, labels)``."""
    rng = np.random.RandomState(seed)
    x = rng.uniform(-1, 1, size=(BATCH, IMAGE, IMAGE, 1)).astype(np.float32)
    ids = rng.randint(0, VOCAB, size=(BATCH,)).astype(np.int64)
    labels = rng.randint(0, CLASSES, size=(BATCH,)).astype(np.int64)
    return x, ids, labels


def build(v1, partitions: int = 2):
    """Placeholders, logits, loss, train op and Saver of the interop model."""
    x = v1.placeholder(np.float32, [None, IMAGE, IMAGE, 1], name="x")
    ids = v1.placeholder(np.int64, [None], name="ids")
    labels = v1.placeholder(np.int64, [None], name="labels")
    init = v1.random_normal_initializer(stddev=0.3, seed=1)
    with v1.variable_scope("conv"):
        k = v1.get_variable("kernel", [3, 3, 1, 2], initializer=init)
        b = v1.get_variable("bias", [2], initializer=v1.zeros_initializer())
        h = v1.nn.relu(v1.nn.conv2d(x, k, strides=[1, 2, 2, 1], padding="SAME") + b)
    flat = v1.reshape(h, [-1, (IMAGE // 2) * (IMAGE // 2) * 2])
    emb = v1.get_variable("embedding", [VOCAB, EMBED], initializer=init,
                          partitioner=v1.fixed_size_partitioner(partitions))
    e = v1.nn.embedding_lookup(emb, ids)
    feats = v1.concat([flat, e], axis=1)
    with v1.variable_scope("dense"):
        w = v1.get_variable("kernel", [(IMAGE // 2) ** 2 * 2 + EMBED, CLASSES], initializer=init)
        c = v1.get_variable("bias", [CLASSES], initializer=v1.zeros_initializer())
        logits = v1.add(v1.matmul(feats, w), c, name="logits")
    loss = v1.losses.sparse_softmax_cross_entropy(labels=labels, logits=logits)
    train = v1.train.AdamOptimizer(0.05).minimize(loss)
    return {"x": x, "ids": ids, "labels": labels, "logits": logits, "loss": loss,
            "train": train}
