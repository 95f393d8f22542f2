"""GAN family: DCGAN with conv2d_transpose, batch norm and separate optimizers."""
import numpy as np
import tensorflow as tf


def lrelu(x, leak=0.2, name="lrelu"):
    return tf.maximum(x, leak * x, name=name)


def batch_norm(x, train, name):
    return tf.contrib.layers.batch_norm(x, decay=0.9, updates_collections=None, epsilon=1e-5,
                                        scale=True, is_training=train, scope=name)


def conv2d(input_, output_dim, k_h=5, k_w=5, d_h=2, d_w=2, stddev=0.02, name="conv2d"):
    with tf.variable_scope(name):
        w = tf.get_variable('w', [k_h, k_w, input_.get_shape()[-1], output_dim],
                            initializer=tf.truncated_normal_initializer(stddev=stddev))
        conv = tf.nn.conv2d(input_, w, strides=[1, d_h, d_w, 1], padding='SAME')
        biases = tf.get_variable('biases', [output_dim], initializer=tf.constant_initializer(0.0))
        return tf.reshape(tf.nn.bias_add(conv, biases), conv.get_shape())


def deconv2d(input_, output_shape, k_h=5, k_w=5, d_h=2, d_w=2, stddev=0.02, name="deconv2d"):
    with tf.variable_scope(name):
        w = tf.get_variable('w', [k_h, k_w, output_shape[-1], input_.get_shape()[-1]],
                            initializer=tf.random_normal_initializer(stddev=stddev))
        deconv = tf.nn.conv2d_transpose(input_, w, output_shape=output_shape,
                                        strides=[1, d_h, d_w, 1])
        biases = tf.get_variable('biases', [output_shape[-1]],
                                 initializer=tf.constant_initializer(0.0))
        return tf.reshape(tf.nn.bias_add(deconv, biases), deconv.get_shape())


def linear(input_, output_size, scope=None, stddev=0.02):
    shape = input_.get_shape().as_list()
    with tf.variable_scope(scope or "Linear"):
        matrix = tf.get_variable("Matrix", [shape[1], output_size], tf.float32,
                                 tf.random_normal_initializer(stddev=stddev))
        bias = tf.get_variable("bias", [output_size], initializer=tf.constant_initializer(0.0))
        return tf.matmul(input_, matrix) + bias


def generator(z, batch_size, train=True):
    with tf.variable_scope("generator"):
        h0 = tf.nn.relu(batch_norm(tf.reshape(linear(z, 4 * 4 * 256, 'g_h0_lin'),
                                              [-1, 4, 4, 256]), train, 'g_bn0'))
        h1 = tf.nn.relu(batch_norm(deconv2d(h0, [batch_size, 8, 8, 128], name='g_h1'), train,
                                   'g_bn1'))
        h2 = tf.nn.relu(batch_norm(deconv2d(h1, [batch_size, 16, 16, 64], name='g_h2'), train,
                                   'g_bn2'))
        return tf.nn.tanh(deconv2d(h2, [batch_size, 32, 32, 3], name='g_h3'))


def discriminator(image, reuse=False):
    with tf.variable_scope("discriminator") as scope:
        if reuse:
            scope.reuse_variables()
        h0 = lrelu(conv2d(image, 64, name='d_h0_conv'))
        h1 = lrelu(batch_norm(conv2d(h0, 128, name='d_h1_conv'), True, 'd_bn1'))
        h2 = lrelu(batch_norm(conv2d(h1, 256, name='d_h2_conv'), True, 'd_bn2'))
        h3 = linear(tf.reshape(h2, [tf.shape(h2)[0], -1]), 1, 'd_h3_lin')
        return tf.nn.sigmoid(h3), h3


batch_size = 64
inputs = tf.placeholder(tf.float32, [batch_size, 32, 32, 3], name='real_images')
z = tf.placeholder(tf.float32, [None, 100], name='z')
z_sum = tf.summary.histogram("z", z)
G = generator(z, batch_size)
D, D_logits = discriminator(inputs)
D_, D_logits_ = discriminator(G, reuse=True)
d_loss_real = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(
    logits=D_logits, labels=tf.ones_like(D)))
d_loss_fake = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(
    logits=D_logits_, labels=tf.zeros_like(D_)))
g_loss = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(
    logits=D_logits_, labels=tf.ones_like(D_)))
d_loss = d_loss_real + d_loss_fake
t_vars = tf.trainable_variables()
d_vars = [var for var in t_vars if 'd_' in var.name]
g_vars = [var for var in t_vars if 'g_' in var.name]
d_optim = tf.train.AdamOptimizer(0.0002, beta1=0.5).minimize(d_loss, var_list=d_vars)
g_optim = tf.train.AdamOptimizer(0.0002, beta1=0.5).minimize(g_loss, var_list=g_vars)
g_sum = tf.summary.merge([z_sum, tf.summary.image("G", G), tf.summary.scalar("g_loss", g_loss)])
with tf.Session() as sess:
    tf.global_variables_initializer().run()
    writer = tf.summary.FileWriter("./logs", sess.graph)
    batch_z = np.random.uniform(-1, 1, [batch_size, 100]).astype(np.float32)
    _, summary_str = sess.run([g_optim, g_sum], feed_dict={z: batch_z})
    writer.add_summary(summary_str, 1)
