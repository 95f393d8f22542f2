"""A small convolutional network on the 8x8 digits, trained with Adam.

A plain TensorFlow 1.x program: with ``import tensorflow as tf`` instead of the
first import it runs under TensorFlow. The digits ship with scikit-learn, so
nothing is downloaded. Prints the test accuracy at the end:

    python examples/mnist_convnet.py --steps 600
"""

import tensorfleet as tf

import argparse
import time

from _data import batches, load_digits_split, one_hot


def weight(shape, name):
    return tf.Variable(tf.truncated_normal(shape, stddev=0.1), name=name)


def bias(n, name):
    return tf.Variable(tf.constant(0.1, shape=[n]), name=name)


def build_model(images):
    """images [N, 8, 8, 1] -> logits [N, 10]."""
    with tf.name_scope("conv1"):
        w = weight([3, 3, 1, 16], "weights")
        h = tf.nn.relu(tf.nn.conv2d(images, w, strides=[1, 1, 1, 1], padding="SAME")
                       + bias(16, "biases"))
        h = tf.nn.max_pool(h, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="SAME")
    with tf.name_scope("conv2"):
        w = weight([3, 3, 16, 32], "weights")
        h = tf.nn.relu(tf.nn.conv2d(h, w, strides=[1, 1, 1, 1], padding="SAME")
                       + bias(32, "biases"))
        h = tf.nn.max_pool(h, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="SAME")
    flat = tf.reshape(h, [-1, 2 * 2 * 32])
    with tf.name_scope("hidden"):
        h = tf.nn.relu(tf.matmul(flat, weight([128, 64], "weights")) + bias(64, "biases"))
    with tf.name_scope("logits"):
        return tf.matmul(h, weight([64, 10], "weights")) + bias(10, "biases")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=600)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--learning_rate", type=float, default=0.003)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--log_every", type=int, default=100)
    args = parser.parse_args()

    x_train, y_train, x_test, y_test = load_digits_split()
    tf.set_random_seed(args.seed)

    images = tf.placeholder(tf.float32, [None, 8, 8, 1], name="images")
    labels = tf.placeholder(tf.float32, [None, 10], name="labels")
    logits = build_model(images)
    loss = tf.reduce_mean(
        tf.nn.softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits))
    global_step = tf.train.get_or_create_global_step()
    train_op = tf.train.AdamOptimizer(args.learning_rate).minimize(loss, global_step=global_step)
    correct = tf.equal(tf.argmax(logits, 1), tf.argmax(labels, 1))
    accuracy = tf.reduce_mean(tf.cast(correct, tf.float32))

    data = batches(x_train, y_train, args.batch_size, seed=args.seed)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        start = time.time()
        for _ in range(args.steps):
            bx, by = next(data)
            _, step, loss_value = sess.run([train_op, global_step, loss],
                                           feed_dict={images: bx, labels: one_hot(by)})
            if args.log_every and step % args.log_every == 0:
                print("step %d: loss %.4f (%.1f s)" % (step, loss_value, time.time() - start))
        acc = sess.run(accuracy, feed_dict={images: x_test, labels: one_hot(y_test)})
    print("trained %d steps in %.1f s" % (args.steps, time.time() - start))
    print("test accuracy: %.4f" % acc)


if __name__ == "__main__":
    main()
