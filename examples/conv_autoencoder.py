"""A convolutional autoencoder on the 8x8 digits: conv2d down, conv2d_transpose up.

A plain TensorFlow 1.x program: with ``import tensorflow as tf`` instead of the
first import it runs under TensorFlow. The encoder halves the image twice with
strided ``tf.layers.conv2d`` (8x8 -> 4x4 -> 2x2); the decoder doubles it back with
``tf.nn.conv2d_transpose`` (explicit filter variables and output shape) and
``tf.layers.conv2d_transpose``. Prints the held-out reconstruction error before
and after training:

    python examples/conv_autoencoder.py --steps 300
"""

import tensorfleet as tf

import argparse
import time

from _data import batches, load_digits_split


def encoder(images):
    """images [N, 8, 8, 1] -> code [N, 2, 2, 16]."""
    with tf.variable_scope("encoder"):
        h = tf.layers.conv2d(images, 16, 3, strides=2, padding="same",
                             activation=tf.nn.relu, name="conv1")
        return tf.layers.conv2d(h, 16, 3, strides=2, padding="same",
                                activation=tf.nn.relu, name="conv2")


def decoder(code):
    """code [N, 2, 2, 16] -> reconstructed images [N, 8, 8, 1] in (0, 1)."""
    with tf.variable_scope("decoder"):
        # The low-level op: filter is [height, width, out_channels, in_channels].
        w = tf.get_variable("deconv1/kernel", [3, 3, 16, 16],
                            initializer=tf.glorot_uniform_initializer())
        b = tf.get_variable("deconv1/bias", [16], initializer=tf.zeros_initializer())
        batch = tf.shape(code)[0]
        h = tf.nn.conv2d_transpose(code, w, output_shape=tf.stack([batch, 4, 4, 16]),
                                   strides=[1, 2, 2, 1], padding="SAME")
        h = tf.nn.relu(tf.nn.bias_add(h, b))
        logits = tf.layers.conv2d_transpose(h, 1, 3, strides=2, padding="same",
                                            name="deconv2")
        return logits


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--learning_rate", type=float, default=0.01)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--log_every", type=int, default=100)
    args = parser.parse_args()

    x_train, y_train, x_test, _ = load_digits_split()
    tf.set_random_seed(args.seed)

    images = tf.placeholder(tf.float32, [None, 8, 8, 1], name="images")
    logits = decoder(encoder(images))
    reconstruction = tf.sigmoid(logits)
    loss = tf.reduce_mean(
        tf.nn.sigmoid_cross_entropy_with_logits(labels=images, logits=logits))
    mse = tf.reduce_mean(tf.square(reconstruction - images))
    global_step = tf.train.get_or_create_global_step()
    train_op = tf.train.AdamOptimizer(args.learning_rate).minimize(loss, global_step=global_step)

    data = batches(x_train, y_train, args.batch_size, seed=args.seed)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        initial = sess.run(mse, feed_dict={images: x_test})
        print("initial reconstruction error: %.5f" % initial)
        start = time.time()
        for _ in range(args.steps):
            bx, _ = next(data)
            _, step, loss_value = sess.run([train_op, global_step, loss],
                                           feed_dict={images: bx})
            if args.log_every and step % args.log_every == 0:
                print("step %d: loss %.4f (%.1f s)" % (step, loss_value, time.time() - start))
        final = sess.run(mse, feed_dict={images: x_test})
    print("trained %d steps in %.1f s" % (args.steps, time.time() - start))
    print("final reconstruction error: %.5f" % final)


if __name__ == "__main__":
    main()
