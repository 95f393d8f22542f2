"""Tutorial family: the two-layer convnet of 'Deep MNIST for experts'."""
import tensorflow as tf
import numpy as np


def weight_variable(shape):
    initial = tf.truncated_normal(shape, stddev=0.1)
    return tf.Variable(initial)


def bias_variable(shape):
    return tf.Variable(tf.constant(0.1, shape=shape))


def conv2d(x, W):
    return tf.nn.conv2d(x, W, strides=[1, 1, 1, 1], padding='SAME')


def max_pool_2x2(x):
    return tf.nn.max_pool(x, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding='SAME')


def deepnn(x):
    with tf.name_scope('reshape'):
        x_image = tf.reshape(x, [-1, 28, 28, 1])
    with tf.name_scope('conv1'):
        h_conv1 = tf.nn.relu(conv2d(x_image, weight_variable([5, 5, 1, 32])) + bias_variable([32]))
        h_pool1 = max_pool_2x2(h_conv1)
    with tf.name_scope('conv2'):
        h_conv2 = tf.nn.relu(conv2d(h_pool1, weight_variable([5, 5, 32, 64])) + bias_variable([64]))
        h_pool2 = max_pool_2x2(h_conv2)
    with tf.name_scope('fc1'):
        h_pool2_flat = tf.reshape(h_pool2, [-1, 7 * 7 * 64])
        h_fc1 = tf.nn.relu(tf.matmul(h_pool2_flat, weight_variable([7 * 7 * 64, 1024]))
                           + bias_variable([1024]))
    with tf.name_scope('dropout'):
        keep_prob = tf.placeholder(tf.float32)
        h_fc1_drop = tf.nn.dropout(h_fc1, keep_prob)
    with tf.name_scope('fc2'):
        y_conv = tf.matmul(h_fc1_drop, weight_variable([1024, 10])) + bias_variable([10])
    return y_conv, keep_prob


x = tf.placeholder(tf.float32, [None, 784])
y_ = tf.placeholder(tf.int64, [None])
y_conv, keep_prob = deepnn(x)
with tf.name_scope('loss'):
    cross_entropy = tf.losses.sparse_softmax_cross_entropy(labels=y_, logits=y_conv)
with tf.name_scope('adam_optimizer'):
    train_step = tf.train.AdamOptimizer(1e-4).minimize(cross_entropy)
with tf.name_scope('accuracy'):
    correct_prediction = tf.cast(tf.equal(tf.argmax(y_conv, 1), y_), tf.float32)
    accuracy = tf.reduce_mean(correct_prediction)
graph_location = '/tmp/mnist_graph'
train_writer = tf.summary.FileWriter(graph_location)
train_writer.add_graph(tf.get_default_graph())
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for i in range(200):
        xs = np.random.rand(50, 784).astype(np.float32)
        ys = np.random.randint(0, 10, 50)
        if i % 100 == 0:
            print(accuracy.eval(feed_dict={x: xs, y_: ys, keep_prob: 1.0}))
        train_step.run(feed_dict={x: xs, y_: ys, keep_prob: 0.5})
