"""A 784-256-10 multilayer perceptron trained with Adagrad on a synthetic task.

Inputs are Gaussian vectors of 784 features, labelled by a fixed random linear
"teacher"; the loss printed every few steps goes down as the network learns it.
A plain TensorFlow 1.x program (swap the first import to run it under TensorFlow):

    python examples/mlp.py --steps 500
"""

import tensorfleet as tf

import argparse
import time

import numpy as np

from _data import batches, one_hot, teacher_task


def dense(x, n_in, n_out, name, activation=None):
    with tf.name_scope(name):
        w = tf.Variable(tf.truncated_normal([n_in, n_out], stddev=1.0 / np.sqrt(n_in)),
                        name="weights")
        b = tf.Variable(tf.zeros([n_out]), name="biases")
        y = tf.matmul(x, w) + b
        return activation(y) if activation else y


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=500)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--learning_rate", type=float, default=0.1)
    parser.add_argument("--examples", type=int, default=8192)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--log_every", type=int, default=100)
    args = parser.parse_args()

    x_all, y_all = teacher_task(args.examples, seed=0)
    tf.set_random_seed(args.seed)

    x = tf.placeholder(tf.float32, [None, 784], name="x")
    y = tf.placeholder(tf.float32, [None, 10], name="y")
    hidden = dense(x, 784, 256, "hidden", tf.nn.relu)
    logits = dense(hidden, 256, 10, "logits")
    loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(labels=y, logits=logits))
    global_step = tf.train.get_or_create_global_step()
    train_op = tf.train.AdagradOptimizer(args.learning_rate).minimize(
        loss, global_step=global_step)

    data = batches(x_all, y_all, args.batch_size, seed=args.seed)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        start = time.time()
        for _ in range(args.steps):
            bx, by = next(data)
            _, step, loss_value = sess.run([train_op, global_step, loss],
                                           feed_dict={x: bx, y: one_hot(by)})
            if args.log_every and (step % args.log_every == 0 or step == 1):
                print("step %d: loss %.4f (%.1f s)" % (step, loss_value, time.time() - start))
    print("final loss: %.4f after %d steps" % (loss_value, args.steps))


if __name__ == "__main__":
    main()
