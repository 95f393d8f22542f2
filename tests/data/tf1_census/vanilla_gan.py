"""GAN family: a fully connected GAN with Xavier init and tf.layers."""
import numpy as np
import tensorflow as tf


def xavier_init(size):
    in_dim = size[0]
    xavier_stddev = 1. / tf.sqrt(in_dim / 2.)
    return tf.random_normal(shape=size, stddev=xavier_stddev)


def generator(z, reuse=False):
    with tf.variable_scope('GAN/Generator', reuse=reuse):
        h1 = tf.layers.dense(z, 128, activation=tf.nn.leaky_relu)
        h2 = tf.layers.dense(h1, 128, activation=tf.nn.leaky_relu)
        return tf.layers.dense(h2, 784, activation=tf.nn.sigmoid)


def discriminator(x, reuse=False):
    with tf.variable_scope('GAN/Discriminator', reuse=reuse):
        h1 = tf.layers.dense(x, 128, activation=tf.nn.leaky_relu)
        h2 = tf.layers.dropout(tf.layers.dense(h1, 64, activation=tf.nn.leaky_relu), 0.3)
        return tf.layers.dense(h2, 1)


X = tf.placeholder(tf.float32, [None, 784])
Z = tf.placeholder(tf.float32, [None, 100])
G_sample = generator(Z)
r_logits = discriminator(X)
f_logits = discriminator(G_sample, reuse=True)
disc_loss = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(
    logits=r_logits, labels=tf.ones_like(r_logits)) + tf.nn.sigmoid_cross_entropy_with_logits(
    logits=f_logits, labels=tf.zeros_like(f_logits)))
gen_loss = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(
    logits=f_logits, labels=tf.ones_like(f_logits)))
gen_vars = tf.get_collection(tf.GraphKeys.GLOBAL_VARIABLES, scope="GAN/Generator")
disc_vars = tf.get_collection(tf.GraphKeys.GLOBAL_VARIABLES, scope="GAN/Discriminator")
gen_step = tf.train.RMSPropOptimizer(learning_rate=0.001).minimize(gen_loss, var_list=gen_vars)
disc_step = tf.train.RMSPropOptimizer(learning_rate=0.001).minimize(disc_loss,
                                                                    var_list=disc_vars)
W = tf.Variable(xavier_init([784, 1]))
sess = tf.Session()
tf.global_variables_initializer().run(session=sess)
for i in range(100):
    X_batch = np.random.rand(128, 784)
    Z_batch = np.random.uniform(-1., 1., size=[128, 100])
    _, dloss = sess.run([disc_step, disc_loss], feed_dict={X: X_batch, Z: Z_batch})
    _, gloss = sess.run([gen_step, gen_loss], feed_dict={Z: Z_batch})
