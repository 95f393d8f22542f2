"""contrib.layers family: an MLP with batch norm, regularization and optimize_loss."""
import numpy as np
import tensorflow as tf
from tensorflow.contrib.layers import fully_connected, batch_norm, l2_regularizer

layers = tf.contrib.layers


def model(x, is_training):
    with tf.contrib.framework.arg_scope([fully_connected],
                                        weights_initializer=layers.variance_scaling_initializer(),
                                        weights_regularizer=l2_regularizer(1e-4),
                                        normalizer_fn=batch_norm,
                                        normalizer_params={"is_training": is_training,
                                                           "decay": 0.99}):
        h = fully_connected(x, 256, scope="fc1")
        h = layers.dropout(h, keep_prob=0.8, is_training=is_training)
        h = fully_connected(h, 128, scope="fc2")
    logits = fully_connected(h, 10, activation_fn=None, scope="logits")
    layers.summarize_activation(h)
    return logits


x = tf.placeholder(tf.float32, [None, 784])
y = tf.placeholder(tf.int64, [None])
is_training = tf.placeholder(tf.bool, [])
logits = model(x, is_training)
loss = tf.losses.sparse_softmax_cross_entropy(labels=y, logits=logits)
reg_loss = layers.apply_regularization(l2_regularizer(1e-4), tf.trainable_variables())
total = loss + reg_loss + tf.losses.get_regularization_loss()
global_step = tf.train.get_or_create_global_step()
update_ops = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
with tf.control_dependencies(update_ops):
    train_op = layers.optimize_loss(total, global_step, learning_rate=0.01, optimizer="Adam",
                                    summaries=["loss", "learning_rate", "gradient_norm"],
                                    clip_gradients=5.0)
accuracy, acc_op = tf.metrics.accuracy(y, tf.argmax(logits, 1))
with tf.Session() as sess:
    sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
    for step in range(50):
        bx = np.random.rand(32, 784)
        by = np.random.randint(0, 10, 32)
        sess.run([train_op, acc_op], {x: bx, y: by, is_training: True})
    print(sess.run(accuracy))
    for name, shape in tf.contrib.framework.list_variables("/tmp/ckpt"):
        print(name, shape)
